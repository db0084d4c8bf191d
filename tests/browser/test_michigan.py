"""Mičiganas in the browser: the prize board with the chips on each card, a prize taken, who
went out with the cards left (the payout), and the session's zero-sum check."""

from __future__ import annotations

from typing import Any

import pytest

from referee import services
from scoring.models import DealResult

from .boxes import record_clear_of_controls
from .conftest import PHONE, TABLET, check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_prize_and_a_payout(open_page: Any, club_setup: dict[str, Any]) -> None:
    m = club_setup["members"]
    session = services.session_start(club=club_setup["club"], game="michigan", user=club_setup["users"]["scorer"],
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    # Everyone antes 1 on each prize card, the dealer (Petras) 2: 5 chips on each.
    assert page.locator(".prize .chips").all_inner_texts() == ["5", "5", "5", "5"]
    shoot(page, "michigan-1-board")
    check_a11y(page)

    page.get_by_role("radio", name="A♠: 5 chips").check()
    page.locator("#form-prize").get_by_role("radio", name="Jonas", exact=True).check()
    page.get_by_role("button", name="Record the prize").click()
    page.locator("[data-conclusion]", has_text="takes").wait_for()
    assert page.locator("[data-conclusion]").inner_text() == "Jonas takes 5 chips from the prize card A♠."
    assert page.locator(".prize .chips").all_inner_texts() == ["0", "5", "5", "5"]
    assert page.locator(".prize .who").first.inner_text() == "Jonas took 5"
    shoot(page, "michigan-2-prize")

    # Rūta plays her last card; the others hold 3, 2 and 1.
    form = page.locator("#form-out")
    form.get_by_role("radio", name="Rūta", exact=True).check()
    assert page.locator("#left-2").input_value() == "0"
    page.get_by_role("button", name="One card more for Ona").click()
    page.get_by_role("button", name="One card more for Ona").click()
    page.get_by_role("button", name="One card more for Jonas").click()
    page.get_by_role("button", name="Record who went out").click()
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    assert page.locator("[data-conclusion]").inner_text() == (
        "Rūta went out: the others pay 1 chip per card left, 6 chips in all. The deal is over."
    )
    # Antes -4 each (Petras -8), Jonas's prize +5, the payout of 3 + 2 + 1 to Rūta.
    points = [-7, -1, 2, -9]
    assert [r.points for r in DealResult.objects.filter(deal=deal).order_by("seat")] == points
    rows = page.locator(".result-table tbody tr")
    assert [rows.nth(i).locator("td").first.inner_text() for i in range(4)] == ["−7", "−1", "+2", "−9"]
    shoot(page, "michigan-3-finished")
    check_a11y(page)

    page.get_by_role("link", name="Scores and settlement").click()
    check = page.locator("[data-zero-sum]")
    check.wait_for()
    assert check.inner_text() == "Zero-sum check: players −15 + prize cards 15 = 0 ✓"
    shoot(page, "michigan-4-session")
    check_a11y(page)
    page.get_by_role("link", name="Close the session and settle up").click()
    page.get_by_role("button", name="Yes, close the session").click()
    page.get_by_text("The summary is ready.").or_(page.locator(".summary-body")).first.wait_for()
    assert page.locator(".summary-body h3").first.inner_text() == "Standings"
    shoot(page, "michigan-5-closed-with-summary")
    check_a11y(page)


def test_an_out_count_beyond_the_hand_is_refused_as_typed(open_page: Any, club_setup: dict[str, Any]) -> None:
    """11 typed where the hand is 10 stays 11 and is refused beside that player's field."""
    m = club_setup["members"]
    session = services.session_start(club=club_setup["club"], game="michigan", user=club_setup["users"]["scorer"],
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    form = page.locator("#form-out")
    form.get_by_role("radio", name="Rūta", exact=True).check()
    page.locator("#left-3").fill("11")  # Petras, the dealer, holds one of the 10-card hands
    page.locator("#left-3").blur()
    assert page.locator("#left-3").input_value() == "11"
    page.get_by_role("button", name="Record who went out").click()
    beside = form.locator('[data-error-for-player="Petras"]')
    beside.wait_for()
    assert "Petras" in beside.inner_text() and "11" in beside.inner_text()
    assert page.locator("#left-3").input_value() == "11"
    assert DealResult.objects.filter(deal=deal).count() == 0
    assert type(deal).objects.get(pk=deal.pk).seq == 0
    shoot(page, "michigan-6-count-refused")
    assert page.js_errors == []


@pytest.mark.parametrize("size", [pytest.param(TABLET, id="tablet"), pytest.param(PHONE, id="phone")])
def test_the_record_buttons_lie_over_no_count_at_any_step(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int]
) -> None:
    """Who went out and the cards left, tapped on the steppers: after every tap the Record
    button is wholly on screen and shares no area with a stepper, a tile or a field the
    scorer can see (on the tablet it floated over the rightmost stepper)."""
    m = club_setup["members"]
    session = services.session_start(club=club_setup["club"], game="michigan", user=club_setup["users"]["scorer"],
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"], size=size)
    page.goto(f"/deals/{deal.pk}/")
    page.get_by_role("radio", name="A♠: 5 chips").check()
    record_clear_of_controls(page, "Record the prize", "a prize card chosen")
    page.locator("#form-prize").get_by_role("radio", name="Jonas", exact=True).check()
    record_clear_of_controls(page, "Record the prize", "who played it chosen")
    form = page.locator("#form-out")
    form.get_by_role("radio", name="Rūta", exact=True).check()
    record_clear_of_controls(page, "Record who went out", "who went out chosen")
    for name, count in (("Ona", 3), ("Jonas", 2), ("Petras", 2)):
        for _ in range(count - 1):
            page.get_by_role("button", name=f"One card more for {name}").click()
            record_clear_of_controls(page, "Record who went out", f"one card more for {name}")
    shoot(page, f"michigan-7-counts-{size['width']}")
    page.get_by_role("button", name="Record who went out").click()
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    assert page.js_errors == []
