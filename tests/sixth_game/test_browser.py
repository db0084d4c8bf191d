"""The sixth game's recording page in a real browser: its own partial, the shared rank pad and
table.js record a trick through the API and show the referee's conclusion in its words. On the
tablet a game's room is its drawer: the sixth game's, served from this package's static folder
at the address every drawer has, is found by its slug and answers the shared modules."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee import services
from referee.models import Entry

from .test_sixth_game import high_card  # noqa: F401  (the game, registered for the test)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The sixth game's drawer lies here, as js/table/games/highcard.js; nothing else of the site's
#: scripts knows it.
STATIC = Path(__file__).parent / "static"


@pytest.fixture
def deal(high_card: None, club_setup: dict[str, Any]) -> Iterator[Any]:  # noqa: F811
    m = club_setup["members"]
    session = services.session_start(
        club=club_setup["club"], game="highcard", user=club_setup["users"]["scorer"],
        players=[m["admin"], m["scorer"], m["member"]],
    )
    yield services.deal_start(session=session, user=club_setup["users"]["scorer"])


def test_a_trick_is_tapped_in_recorded_and_explained(deal: Any, open_page: Any, club_setup: dict[str, Any]) -> None:
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    pad = page.locator("[data-rank-pad]")
    for rank in ("3", "K", "7"):
        pad.get_by_role("button", name=rank, exact=True).click()
    slots = page.locator("[data-card-input]")
    assert [slots.nth(i).input_value() for i in range(3)] == ["3", "K", "7"]
    page.get_by_role("button", name="Record the trick").click()
    page.get_by_text("Jonas takes the trick with K.", exact=True).wait_for()
    assert page.locator("#highcard-h").inner_text() == "Trick 2"
    assert [e.payload for e in Entry.objects.filter(deal=deal, active=True)] == [
        {"type": "trick", "cards": ["3", "K", "7"]}
    ]
    assert page.js_errors == []


def test_the_games_drawer_is_all_the_tablet_needs(
    deal: Any, open_page: Any, club_setup: dict[str, Any], settings: Any,
) -> None:
    settings.STATICFILES_DIRS = [*settings.STATICFILES_DIRS, STATIC]
    page = open_page(club_setup["users"]["scorer"])
    requested: list[str] = []
    page.on("request", lambda request: requested.append(request.url))
    page.goto(f"/deals/{deal.pk}/")
    form = page.locator("form#form-trick")
    # The shared modules loaded the drawer by the screen's slug and asked it about the form.
    form.and_(page.locator("[data-cards-in='0']")).wait_for()
    assert any(url.endswith("/static/js/table/games/highcard.js") for url in requested)
    for seat, typed in ((0, "3"), (1, "k"), (2, "7")):
        slot = page.locator(f"#card-{seat}")
        slot.fill(typed)
        slot.dispatch_event("change")
    # The drawer's rule: a card typed in lower case reads in upper case.
    assert [page.locator(f"#card-{seat}").input_value() for seat in range(3)] == ["3", "K", "7"]
    assert form.get_attribute("data-cards-in") == "3"
    page.get_by_role("button", name="Record the trick").click()
    page.get_by_text("Jonas takes the trick with K.", exact=True).wait_for()
    assert [e.payload for e in Entry.objects.filter(deal=deal, active=True)] == [
        {"type": "trick", "cards": ["3", "K", "7"]}
    ]
    # A drawer without offline drawing leaves the game's recording online, and says so.
    page.get_by_text("Offline recording is not available for this game yet.", exact=True).wait_for()
    assert page.js_errors == []


def test_without_its_drawer_the_screen_asks_nothing_of_the_game(
    deal: Any, open_page: Any, club_setup: dict[str, Any],
) -> None:
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    page.get_by_text("Offline recording is not available for this game yet.", exact=True).wait_for()
    slot = page.locator("#card-1")
    slot.fill("k")
    slot.dispatch_event("change")
    assert slot.input_value() == "k"
    assert page.locator("form#form-trick").get_attribute("data-cards-in") is None
    assert page.js_errors == []
