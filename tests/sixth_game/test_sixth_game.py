"""A game is one room: a sixth game, known only to this test package (its engine and pages in
``high_card.py``, its recording partial under ``templates/``), is registered and played
through the API like the five: a session, deals, refused and accepted entries, an undo,
standings, settlement, the audit, the close and its summary, the club's leaderboard, and the
recording page. Nothing outside this package names it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee import games, rules

from .high_card import ENGINE, PAGES, SLUG

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).parent / "templates"


@pytest.fixture
def high_card(settings: Any) -> Iterator[None]:
    """The sixth game, registered for one test (engine, pages, its partial's folder)."""
    settings.TEMPLATES = [
        {**engine, "DIRS": [*engine.get("DIRS", []), TEMPLATES]} for engine in settings.TEMPLATES
    ]
    rules.register(ENGINE)
    games.register(PAGES)
    try:
        yield
    finally:
        games.unregister(SLUG)
        rules.unregister(SLUG)


@pytest.fixture
def scorer_api(club_setup: dict[str, Any], api: Any) -> Any:
    client = api(club_setup["users"]["scorer"])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def post(client: Any, url: str, body: dict[str, Any], status: int) -> Any:
    response = client.post(url, body, format="json")
    assert response.status_code == status, response.content
    return response.json()


def get(client: Any, url: str) -> Any:
    response = client.get(url)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_sixth_game_is_played_through_the_api_like_the_five(
    high_card: None, club_setup: dict[str, Any], scorer_api: Any, client: Any,
    django_capture_on_commit_callbacks: Any,
) -> None:
    members = club_setup["members"]
    seats = [members[name].pk for name in ("admin", "scorer", "member")]  # Ona, Jonas, Rūta
    api = scorer_api

    refused = post(api, "/api/sessions/", {"club": "vilnius", "game": SLUG, "players": seats,
                                           "options": {"tricks": 4}}, 400)
    assert refused["error"] == "A deal is 3 or 5 tricks, not 4."
    session = post(api, "/api/sessions/", {"club": "vilnius", "game": SLUG, "players": seats,
                                           "stake": "0.50"}, 201)
    assert session["game"] == SLUG and session["options"]["tricks"] == 3

    # Deal 1: Ona takes two tricks; the second trick's top card is shared, so nobody takes it.
    deal = post(api, f"/api/sessions/{session['id']}/deals/", {}, 201)
    entries = f"/api/deals/{deal['id']}/entries/"
    bad = post(api, entries, {"type": "trick", "cards": ["K", "3"]}, 400)
    assert bad["error"] == "Give one card per player (3)."
    post(api, entries, {"type": "trick", "cards": ["K", "3", "7"]}, 201)
    post(api, entries, {"type": "trick", "cards": ["Q", "Q", "2"]}, 201)
    post(api, entries, {"type": "trick", "cards": ["5", "9", "4"]}, 201)
    post(api, f"/api/deals/{deal['id']}/undo/", {}, 200)
    post(api, entries, {"type": "trick", "cards": ["A", "9", "4"]}, 201)
    assert get(api, f"/api/deals/{deal['id']}/")["status"] == "finished"

    # Deal 2: Rūta takes every trick.
    deal2 = post(api, f"/api/sessions/{session['id']}/deals/", {}, 201)
    for cards in (["2", "3", "A"], ["4", "5", "K"], ["6", "7", "Q"]):
        post(api, f"/api/deals/{deal2['id']}/entries/", {"type": "trick", "cards": cards}, 201)

    standings = get(api, f"/api/sessions/{session['id']}/standings/")
    assert [row["total"] for row in sorted(standings["totals"], key=lambda row: row["seat"])] == [2, 0, 3]
    settlement = get(api, f"/api/sessions/{session['id']}/settlement/")
    # Every pair settles the difference, deal by deal: 3·points − the deal's total, so deal 1
    # (2, 0, 0) gives (4, −2, −2) and deal 2 (0, 0, 3) gives (−3, −3, 6); at 0.50 a point:
    assert {net["seat"]: net["exact"] for net in settlement["nets"]} == {0: "0.50", 1: "-2.50", 2: "2.00"}
    audit = get(api, f"/api/sessions/{session['id']}/audit/")
    assert [(e["deal"], e["seq"], e["active"]) for e in audit["entries"]][2:4] == [(1, 3, False), (1, 3, True)]

    with django_capture_on_commit_callbacks(execute=True):  # the summary is built after the commit
        post(api, f"/api/sessions/{session['id']}/close/", {}, 200)
    summary = get(api, f"/api/sessions/{session['id']}/summary/")
    assert summary["state"] == "done"
    assert [(row["name"], row["total"], row["money"]) for row in summary["summary"]["standings"]] == [
        ("Rūta", 3, "2.00"), ("Ona", 2, "0.50"), ("Jonas", 0, "-2.50"),
    ]
    leaderboard = get(api, "/api/clubs/vilnius/leaderboard/?min_deals=1")
    assert {row["name"]: (row["deals"], row["wins"], row["money"]) for row in leaderboard["ranked"]} == {
        "Ona": (2, 1, "0.50"), "Jonas": (2, 0, "-2.50"), "Rūta": (2, 1, "2.00"),
    }

    # The recording page: the game's own partial, found by its slug.
    client.force_login(club_setup["users"]["scorer"])
    page = client.get(f"/deals/{deal['id']}/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-taken' in html and "Ona takes the trick with A." in html


def test_registration_is_undone_after_the_test() -> None:
    assert SLUG not in rules.GAMES and SLUG not in games.PAGES
