"""The recording screen's offline <template>s (web/pages/offline_templates.py): rendered from
the deal as it started, kept per deal, never stale, and personal where the page is."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.template import engines
from django.test import RequestFactory
from django.utils import translation

from referee import services
from referee.models import Member
from web.pages.deal_screen import deal_context

PLAYERS = {
    "elgeta": ["admin", "scorer"], "cheat": ["admin", "scorer", "member"],
    "michigan": ["admin", "scorer", "member", "Petras"], "rukas": ["admin", "scorer", "member", "Petras"],
    "velnias": ["admin", "scorer", "member", "Petras"],
}

#: The markup as deal.html rendered it on every GET before it was kept (the deal as it stands).
RENDERED_EACH_TIME = (
    '<template id="fresh-deal">{% with finished=False reveal=None headline=None entered=None errors=None %}'
    '{% include game_template %}{% endwith %}</template>\n'
    '<template id="fresh-finished">{% with finished=True later_deal=False plan_block=True %}'
    '{% include "referee/_finished.html" %}{% endwith %}</template>'
)


def templates_of(html: str) -> str:
    start = html.index('<template id="fresh-deal">')
    return html[start:html.index("</template>", html.index('<template id="fresh-finished">')) + len("</template>")]


def impersonal(html: str) -> str:
    """The markup without what each request has of its own (a CSRF token's mask, the page's key)."""
    html = re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', 'name="csrfmiddlewaretoken" value=""', html)
    return re.sub(r'name="idempotency_key" value="[^"]*"', 'name="idempotency_key" value=""', html)


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_a_fresh_deals_templates_are_what_the_page_rendered_each_time(
        game: str, page: Any, start: Any, club_setup: dict) -> None:
    """At the deal's start the kept rendering is exactly the one the page made on every GET."""
    deal = start(game, PLAYERS[game])
    scorer = club_setup["users"]["scorer"]
    html = page(scorer, "lt").get(f"/deals/{deal.pk}/").content.decode()
    request = RequestFactory().get(f"/deals/{deal.pk}/")
    request.user = scorer
    with translation.override("lt"):
        context = deal_context(deal, scorer, "scorer")
        expected = engines["django"].from_string(RENDERED_EACH_TIME).render(context, request)
    assert impersonal(templates_of(html)) == impersonal(expected)


TRICK = {"type": "trick", "cards": ["2", "3", "4", "5"]}
PLAY = {
    "rukas": [TRICK],
    "michigan": [{"type": "misplay", "player": 1}, {"type": "misplay", "player": 2}],
    "velnias": [{"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}],
}


@pytest.mark.parametrize("game", sorted(PLAY))
def test_entries_leave_the_templates_as_the_deal_started(game: str, page: Any, start: Any, club_setup: dict) -> None:
    """The offline path draws the state into them: what the deal's entries changed is not in
    them (the Mičiganas movements, Rūkas's trick number, a finished Velnias deal's missing form)."""
    deal = start(game, PLAYERS[game])
    scorer = club_setup["users"]["scorer"]
    client = page(scorer)
    before = templates_of(client.get(f"/deals/{deal.pk}/").content.decode())
    for payload in PLAY[game]:
        services.entry_add(deal_id=deal.pk, payload=payload, user=scorer)
    after = templates_of(client.get(f"/deals/{deal.pk}/").content.decode())
    # The fresh form as it was (the finished panel's session totals count a deal once it is over).
    assert impersonal(after.split("</template>")[0]) == impersonal(before.split("</template>")[0])
    assert 'name="expected_seq" value="0"' in after  # a fresh deal's form expects no entry yet


def test_the_templates_carry_this_pages_key_and_token(page: Any, start: Any, club_setup: dict) -> None:
    """A kept rendering is shared by every scorer's GET: the key and the CSRF token are each page's own."""
    deal = start("rukas", PLAYERS["rukas"])
    client = page(club_setup["users"]["scorer"])
    for _ in range(2):
        html = client.get(f"/deals/{deal.pk}/").content.decode()
        screen, kept = html.split('<template id="fresh-deal">', 1)
        page_key = re.search(r'name="idempotency_key" value="([^"]+)"', screen)[1]  # type: ignore[index]
        assert set(re.findall(r'name="idempotency_key" value="([^"]*)"', kept)) == {page_key}
        tokens = re.findall(r'name="csrfmiddlewaretoken" value="([^"]*)"', kept)
        assert tokens and all(len(token) == 64 for token in tokens)
        assert "\x00" not in html
    # The token is one the page's CSRF check accepts: a form posted with it is not refused.
    response = client.post(f"/deals/{deal.pk}/", {
        "csrfmiddlewaretoken": tokens[0], "action": "entry", "form": "trick", "idempotency_key": "t-1",
        "expected_seq": "0", "f:type:str": "trick", "f:cards:strs": ["2", "3", "4", "5"]})
    assert response.status_code in (200, 302)


def test_a_kept_rendering_is_never_stale(page: Any, start: Any, club_setup: dict) -> None:
    """A renamed player or another language is another rendering, at once."""
    deal = start("velnias", PLAYERS["velnias"])
    scorer = club_setup["users"]["scorer"]
    first = templates_of(page(scorer).get(f"/deals/{deal.pk}/").content.decode())
    assert "Petras" in first
    Member.objects.filter(name="Petras").update(name="Petrauskas")
    renamed = templates_of(page(scorer).get(f"/deals/{deal.pk}/").content.decode())
    assert "Petrauskas" in renamed and "Petras<" not in renamed
    english = templates_of(page(scorer, "en").get(f"/deals/{deal.pk}/").content.decode())
    lithuanian = templates_of(page(scorer, "lt").get(f"/deals/{deal.pk}/").content.decode())
    assert "Record the end of the deal" in english and "Record the end of the deal" not in lithuanian


def test_only_a_scorers_get_carries_the_templates(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", PLAYERS["velnias"])
    watching = page(club_setup["users"]["member"]).get(f"/deals/{deal.pk}/").content.decode()
    assert "<template" not in watching
    fragment = page(club_setup["users"]["scorer"]).get(f"/deals/{deal.pk}/?fragment=1").content.decode()
    assert "<template" not in fragment


def test_the_snapshot_is_the_deals_state_on_a_scorers_screen_only(page: Any, start: Any, club_setup: dict) -> None:
    """The JSON the tablet's engine starts from is the stored state, escaped as json_script does:
    on PostgreSQL the database's own text (the page does not decode and encode it again), else
    encoded compactly."""
    import json

    from referee.models import Deal
    from tests.conftest import is_postgres

    deal = start("michigan", PLAYERS["michigan"])
    scorer = club_setup["users"]["scorer"]
    services.entry_add(deal_id=deal.pk, payload={"type": "misplay", "player": 1}, user=scorer)
    html = page(scorer).get(f"/deals/{deal.pk}/").content.decode()
    found = re.search(r'<script id="deal-snapshot" type="application/json">(.*?)</script>', html)
    assert found is not None and "<" not in found[1]
    assert (": " in found[1]) is is_postgres()
    assert json.loads(found[1]) == Deal.objects.get(pk=deal.pk).state
    assert "deal-snapshot" not in page(club_setup["users"]["member"]).get(f"/deals/{deal.pk}/").content.decode()
