"""Apgaudinėjimas in the browser: whose turn and the rank in large type, one tap (or one key)
per placement, and a challenge that asks who challenged and which card was revealed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee import services
from referee.models import Deal

from .conftest import check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_placements_then_a_challenge_caught_lie(open_page: Any, club_setup: dict[str, Any]) -> None:
    m = club_setup["members"]
    session = services.session_start(club=club_setup["club"], game="cheat", user=club_setup["users"]["scorer"],
                                     players=[m["admin"], m["scorer"], m["member"]])
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    assert page.locator("[data-turn]").inner_text() == "Ona"
    assert page.locator("[data-announce]").inner_text() == "A"
    assert page.locator("[data-pile]").inner_text() == "1"  # 52 % 3 left over start the pile
    shoot(page, "cheat-1-start")
    check_a11y(page)
    page.get_by_role("button", name="Ona placed a card (A)").click()
    page.locator("[data-turn]", has_text="Jonas").wait_for()
    assert page.locator("[data-announce]").inner_text() == "2"

    # Keyboard only: Tab to the placement button and press Enter.
    page.locator("body").focus()
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.textContent.trim()") == "Jonas placed a card (2)":
            break
    else:
        raise AssertionError("the placement button cannot be reached with Tab")
    page.keyboard.press("Enter")
    page.locator("[data-turn]", has_text="Rūta").wait_for()
    page.get_by_role("button", name="Rūta placed a card (3)").click()
    page.locator("[data-turn]", has_text="Ona").wait_for()
    assert page.locator("[data-pile]").inner_text() == "4"

    page.get_by_text("Challenge Rūta's card (announced 3)").click()
    page.locator("#form-challenge").get_by_role("radio", name="Ona", exact=True).check()
    page.locator("#form-challenge [data-rank-pad]").get_by_role("button", name="7", exact=True).click()
    assert page.locator("#revealed").input_value() == "7"
    shoot(page, "cheat-2-challenge")
    check_a11y(page)
    page.get_by_role("button", name="Record the challenge").click()
    page.locator("[data-conclusion]", has_text="lied").wait_for()
    assert page.locator("[data-conclusion] p").all_inner_texts() == [
        "Rūta lied (announced 3, revealed 7) and takes 4 cards.", "Rūta starts again, announcing A.",
    ]
    assert page.locator("[data-pile]").inner_text() == "0"
    counts = page.locator(".totals li .value").all_inner_texts()
    assert counts[:4] == ["0", "16", "16", "20"]  # pile, Ona, Jonas, Rūta
    assert page.locator("[data-turn]").inner_text() == "Rūta"
    assert Deal.objects.get(pk=deal.pk).seq == 4
    shoot(page, "cheat-3-after-challenge")
    check_a11y(page)


def test_a_challenge_by_the_placer_is_refused_in_plain_words(open_page: Any, club_setup: dict[str, Any]) -> None:
    m = club_setup["members"]
    session = services.session_start(club=club_setup["club"], game="cheat", user=club_setup["users"]["scorer"],
                                     players=[m["admin"], m["scorer"], m["member"]])
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    services.entry_add(deal_id=deal.pk, payload={"type": "place", "player": 0}, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    page.get_by_text(re.compile("Challenge Ona's card")).click()
    # Only the others may challenge: Ona is not offered; a typed joker is refused (no jokers here).
    assert page.locator("#form-challenge").get_by_role("radio", name="Ona", exact=True).count() == 0
    page.locator("#form-challenge").get_by_role("radio", name="Rūta", exact=True).check()
    page.locator("#revealed").fill("X")
    page.get_by_role("button", name="Record the challenge").click()
    error = page.locator('[data-error-for="challenge"]')
    error.wait_for()
    assert error.inner_text() == "There are no jokers in this deal."
    assert Deal.objects.get(pk=deal.pk).seq == 1
