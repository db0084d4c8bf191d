"""A conflict's "use mine instead" (``POST /api/deals/{id}/tablet-version/``): the server's
entries after the point where the tablet's version begins are undone and the tablet's stored in
their place, in one refereed step; refused as a whole, changing nothing, when any entry of the
tablet's is illegal; the audit names who chose it."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from referee.models import ChangeKind, Deal, DealChange, Entry

from .test_entries import RUKAS_DEAL
from .test_undo_correct import engine_state_after, record

pytestmark = pytest.mark.django_db


def mine(*tricks: list[str]) -> list[dict[str, Any]]:
    return [{"payload": {"type": "trick", "cards": cards}, "idempotency_key": f"tablet-{i}"}
            for i, cards in enumerate(tricks)]


def test_the_tablets_entries_replace_the_servers_after_where_they_begin(
    scorer_client: Any, rukas_deal: Deal, club_setup: dict[str, Any]
) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:3])  # the server: three tricks
    # The tablet saw one trick and recorded two others on top of it.
    tablet = [cards for cards, _taker in RUKAS_DEAL[3:5]]
    response = scorer_client.post(f"/api/deals/{rukas_deal.pk}/tablet-version/",
                                  {"expected_seq": 3, "since_seq": 1, "entries": mine(*tablet)}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["deal"]["seq"] == 3
    rukas_deal.refresh_from_db()
    assert rukas_deal.state == engine_state_after([RUKAS_DEAL[0], *RUKAS_DEAL[3:5]])
    active = list(rukas_deal.entries.filter(active=True).order_by("seq")
                  .values_list("seq", "payload", "idempotency_key"))
    assert active == [(1, {"type": "trick", "cards": RUKAS_DEAL[0][0]}, None),
                      (2, {"type": "trick", "cards": tablet[0]}, "tablet-0"),
                      (3, {"type": "trick", "cards": tablet[1]}, "tablet-1")]
    # Nothing is deleted: the server's two later tricks are kept, undone, each with who chose.
    changes = DealChange.objects.filter(deal=rukas_deal).order_by("id")
    assert [(c.kind, c.replaced.seq, c.replaced.active, c.author) for c in changes] == [
        (ChangeKind.TABLET_VERSION, 2, False, club_setup["users"]["scorer"]),
        (ChangeKind.TABLET_VERSION, 3, False, club_setup["users"]["scorer"]),
    ]
    page = Client()
    page.force_login(club_setup["users"]["scorer"])
    audit = page.get(f"/sessions/{rukas_deal.session_id}/audit/", HTTP_ACCEPT_LANGUAGE="en")
    assert audit.status_code == 200
    name = club_setup["users"]["scorer"].get_username()
    assert audit.content.decode().count(f"replaced by a tablet&#x27;s version, chosen by {name}") == 2

    # The same choice again (a retry of a lost answer) changes nothing.
    again = scorer_client.post(f"/api/deals/{rukas_deal.pk}/tablet-version/",
                               {"expected_seq": 3, "since_seq": 1, "entries": mine(*tablet)}, format="json")
    assert again.status_code == 200
    assert Entry.objects.filter(deal=rukas_deal).count() == 5


def test_an_illegal_entry_of_the_tablets_refuses_the_whole_choice(
    scorer_client: Any, rukas_deal: Deal, counts: Any
) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:2])
    before = counts()
    response = scorer_client.post(f"/api/deals/{rukas_deal.pk}/tablet-version/",
                                  {"expected_seq": 2, "since_seq": 0, "entries": mine(["2", "3"], ["X", "3"])},
                                  format="json")
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "illegal_entry"
    assert body["error"].startswith("The tablet's entry 2 is refused: ")
    assert counts() == before


@pytest.mark.parametrize(("body", "status", "error"), [
    ({"expected_seq": 1, "since_seq": 0, "entries": mine(["2", "3"])}, 409,
     "Another device recorded first: this deal is now at entry 2. Reload and try again."),
    ({"expected_seq": 2, "since_seq": 3, "entries": mine(["2", "3"])}, 400,
     "The tablet's version begins after entry 3, but this deal has only 2."),
    ({"expected_seq": 2, "since_seq": 0, "entries": []}, 400, "entries must be a list of 1 to 500 entries."),
    ({"expected_seq": 2, "since_seq": 0, "entries": [{"payload": 3, "idempotency_key": "k"}]}, 400,
     "Each of the entries must be a JSON object with a “payload” object."),
    ({"expected_seq": 2, "since_seq": 0, "entries": mine(["2", "3"]) * 2}, 409,
     "Each of the entries needs its own idempotency_key."),
    ({"expected_seq": "2", "since_seq": 0, "entries": mine(["2", "3"])}, 400,
     "expected_seq must be a whole number of 0 or more."),
    ([1, 2], 400, "The body must be a JSON object with expected_seq, since_seq and entries."),
])
def test_a_bad_choice_is_refused_in_words_and_changes_nothing(
    scorer_client: Any, rukas_deal: Deal, counts: Any, body: Any, status: int, error: str
) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:2])
    before = counts()
    response = scorer_client.post(f"/api/deals/{rukas_deal.pk}/tablet-version/", body, format="json")
    assert response.status_code == status
    assert response.json()["error"] == error
    assert counts() == before


def test_a_member_who_only_reads_may_not_choose(client_for: Any, club_setup: dict[str, Any],
                                                 scorer_client: Any, rukas_deal: Deal, counts: Any) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:1])
    before = counts()
    reader = client_for(club_setup["users"]["member"])
    response = reader.post(f"/api/deals/{rukas_deal.pk}/tablet-version/",
                           {"expected_seq": 1, "since_seq": 0, "entries": mine(["2", "3"])}, format="json")
    assert response.status_code == 403
    assert counts() == before
