"""The sixth game's recording page in a real browser: its own partial, the shared rank pad and
table.js record a trick through the API and show the referee's conclusion in its words."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from referee import services
from referee.models import Entry

from .test_sixth_game import high_card  # noqa: F401  (the game, registered for the test)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


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
