"""The audit page of a session: every entry, undo and correction, with who and when."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client

from referee import services

pytestmark = pytest.mark.django_db

TRICKS = [["2", "3", "4", "5"], ["3", "4", "5", "6"], ["4", "5", "6", "7"]]


@pytest.fixture
def history(club_setup: dict[str, Any]) -> dict[str, Any]:
    """A Rūkas session: three tricks by the scorer, the last undone and recorded again by the
    admin, the first corrected by the admin."""
    members, scorer, admin = club_setup["members"], club_setup["users"]["scorer"], club_setup["users"]["admin"]
    players = [members[name] for name in ("admin", "scorer", "member", "Petras")]
    session = services.session_start(club=club_setup["club"], game="rukas", players=players, user=scorer)
    deal = services.deal_start(session=session, user=scorer, dealer=3)
    for trick in TRICKS:
        services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": trick}, user=scorer)
    services.entry_undo(deal_id=deal.pk, user=scorer)
    services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": ["4", "5", "6", "8"]}, user=admin)
    services.entry_correct(deal_id=deal.pk, seq=1, payload={"type": "trick", "cards": ["2", "3", "4", "6"]},
                           user=admin)
    return {**club_setup, "session": session, "deal": deal}


def page(client: Client, history: dict[str, Any]) -> Any:
    return client.get(f"/sessions/{history['session'].pk}/audit/", HTTP_ACCEPT_LANGUAGE="en")


def rows(html: str) -> list[list[str]]:
    """The audit table's cells as text."""
    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [[re.sub(r"<[^>]+>", "", cell).strip() for cell in re.findall(r"<td[^>]*>(.*?)</td>", row, re.S)]
            for row in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S)]


def test_a_member_reads_every_entry_undo_and_correction_with_who_and_when(
    history: dict[str, Any], django_assert_max_num_queries: Any
) -> None:
    client = Client()
    client.force_login(history["users"]["member"])
    with django_assert_max_num_queries(12):
        response = page(client, history)
    assert response.status_code == 200
    html = response.content.decode()
    cells = rows(html)
    table = [(row[0], row[1], row[3], row[5]) for row in cells]
    # Each entry in the club's words, then its exact fields.
    assert table == [
        ("1", "the trick 2 3 4 5trick · cards: 2 3 4 5", "scorer", "replaced by a correction"),
        ("2", "the trick 3 4 5 6trick · cards: 3 4 5 6", "scorer", "recorded"),
        ("3", "the trick 4 5 6 7trick · cards: 4 5 6 7", "scorer", "undone"),
        ("3", "the trick 4 5 6 8trick · cards: 4 5 6 8", "admin", "recorded"),
        ("1", "the trick 2 3 4 6trick · cards: 2 3 4 6", "admin", "recorded"),
    ]
    assert "undid entry 3 (“trick · cards: 4 5 6 7”)" in html
    assert "corrected entry 1: was “trick · cards: 2 3 4 5”, now “trick · cards: 2 3 4 6”" in html
    assert "5 entries" in html and "2 undos and corrections" in html
    # The referee's conclusion names the players, not seats, in the screen's words: the lone six takes.
    assert cells[4][2].startswith("Petras takes the trick with 6")


def test_the_session_page_links_to_its_audit(history: dict[str, Any]) -> None:
    client = Client()
    client.force_login(history["users"]["member"])
    response = client.get(f"/sessions/{history['session'].pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert f'href="/sessions/{history["session"].pk}/audit/"' in response.content.decode()


def test_outsiders_never_see_it_and_anonymous_visitors_sign_in_first(history: dict[str, Any]) -> None:
    outsider = Client()
    outsider.force_login(history["users"]["outsider"])
    assert page(outsider, history).status_code == 404
    anonymous = page(Client(), history)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith("/login/?next=")
    missing = Client()
    missing.force_login(history["users"]["member"])
    assert missing.get("/sessions/999999/audit/").status_code == 404
