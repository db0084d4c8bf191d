"""Pašėlęs Velnias in the browser: sign in, start a session from the form, start the deal with
its dealer shown, and record the seed's last-card example; the points show before confirming."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.models import Deal, Session
from scoring.models import DealResult

from .boxes import record_clear_of_controls
from .conftest import PHONE, TABLET, check_a11y, shoot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def step_to(page: Any, name: str, count: int) -> None:
    """Tap + (from the stepper's start of 1) until ``name`` holds ``count`` cards."""
    for _ in range(count - 1):
        page.get_by_role("button", name=f"One card more for {name}").click()
    assert page.get_by_role("spinbutton", name=name, exact=True).input_value() == str(count)


def test_sign_in_start_a_session_and_score_the_seed_example(open_page: Any, club_setup: dict[str, Any]) -> None:
    page = open_page()
    page.goto("/")
    page.wait_for_url(re.compile("/login/"))
    shoot(page, "sign-in")
    check_a11y(page)
    sign_in(page, "scorer")
    page.get_by_role("link", name=re.compile("Vilniaus klubas")).click()
    page.get_by_role("link", name="Start a session").click()
    page.locator("label.tile", has_text="Pašėlęs Velnias").click()
    for name in ("Ona", "Jonas", "Rūta", "Petras"):  # A B C D of the seed, in seat order
        page.get_by_label(name, exact=True).check()
    assert [page.get_by_label(f"Seat of {n}").input_value() for n in ("Ona", "Jonas", "Rūta", "Petras", "Asta")] == [
        "1", "2", "3", "4", ""]
    page.locator("label.tile", has_text="English").click()
    page.get_by_label("Stake per point (per chip in Mičiganas)").fill("0.10")
    # Only the chosen game's house rules are shown, each with its default explained.
    assert page.get_by_text("V1 (fixed): in a blocked deal").is_visible()
    assert not page.get_by_text("R1 a 7 that beat an ace").is_visible()
    shoot(page, "session-start")
    check_a11y(page)
    page.get_by_role("button", name="Start the session").click()

    page.get_by_role("heading", name="Pašėlęs Velnias: deal 1").wait_for()
    assert page.get_by_role("radio", name=re.compile("Petras")).is_checked()  # the dealer before seat 0
    assert page.locator("[data-first-player]").inner_text() == "First player: Ona"
    shoot(page, "deal-start")
    check_a11y(page)
    page.get_by_role("button", name="Start the deal").click()

    page.get_by_role("heading", name="Pašėlęs Velnias · deal 1").wait_for()
    assert page.locator(".deal-meta").inner_text().startswith("Dealer: Petras · first player: Ona")
    shoot(page, "velnias-1-empty")
    check_a11y(page)
    page.locator("label.tile", has_text="Last face-down card").click()
    page.locator("[data-caller]").get_by_role("radio", name="Ona", exact=True).check()
    step_to(page, "Ona", 3)
    step_to(page, "Jonas", 2)
    step_to(page, "Rūta", 6)
    # The points appear before confirming: the seed's A +27, B -9, C -10, D -8.
    preview = page.locator("[data-preview-points]")
    preview.wait_for()
    page.wait_for_function(
        "document.querySelector('[data-preview-points]').innerText.includes('+27')"
    )
    assert preview.locator(".value").all_inner_texts() == ["+27", "−9", "−10", "−8"]
    shoot(page, "velnias-2-preview")
    check_a11y(page)
    page.get_by_role("button", name="Record the end of the deal").click()

    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    rows = page.locator(".result-table tbody tr")
    assert [rows.nth(i).locator("td").first.inner_text() for i in range(4)] == ["+27", "−9", "−10", "−8"]
    assert page.locator("[data-conclusion]").inner_text() == (
        "Ona turned the last face-down card, could not place it and called stop."
    )
    assert page.locator(".totals .value").all_inner_texts()[-4:] == ["+27", "−9", "−10", "−8"]
    session = Session.objects.get()
    deal = Deal.objects.get(session=session)
    assert str(session.stake) == "0.10"
    assert [r.points for r in DealResult.objects.filter(deal=deal).order_by("seat")] == [27, -9, -10, -8]
    shoot(page, "velnias-3-finished")
    check_a11y(page)
    assert page.js_errors == []


def test_a_count_is_refused_as_typed_beside_its_field(open_page: Any, club_setup: dict[str, Any]) -> None:
    """A typed count is never rewritten: 9 in an 8-card hand, or 0 for a player who did not
    call stop, goes to the referee as typed and is refused beside that player's field."""
    from referee import services

    m = club_setup["members"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=club_setup["users"]["scorer"],
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    page.locator("label.tile", has_text="Emptied hand").click()
    page.get_by_role("button", name="Record the end of the deal").click()
    # In the club's words, beside the question it is about (who called stop).
    error = page.locator("[data-caller] [data-error-for-term]")
    error.wait_for()
    assert error.inner_text() == "An “emptied hand” ending needs the player who placed their last card."
    assert page.locator('[data-error-for="end"]').inner_text() == ""
    assert Deal.objects.get(pk=deal.pk).seq == 0
    shoot(page, "velnias-4-refused")
    # The caller of an emptied hand holds 0, fixed.
    page.locator("[data-caller]").get_by_role("radio", name="Jonas", exact=True).check()
    assert page.locator("#count-1").input_value() == "0"
    assert page.get_by_role("button", name="One card more for Jonas").is_disabled()

    # Typed past the 8-card hand, the count stays 9 and the referee refuses it by Rūta's field.
    page.locator("#count-2").fill("9")
    page.locator("#count-2").blur()
    assert page.locator("#count-2").input_value() == "9"
    assert page.get_by_role("button", name="One card more for Rūta").is_disabled()
    page.get_by_role("button", name="Record the end of the deal").click()
    beside = page.locator('[data-error-for-player="Rūta"]')
    beside.wait_for()
    assert beside.inner_text() == "Rūta holds 9 cards, but a hand in a 4-player deal has only 8."
    assert page.locator("#count-2").input_value() == "9"
    assert page.locator("#count-2").get_attribute("aria-invalid") == "true"
    assert Deal.objects.get(pk=deal.pk).seq == 0

    # 0 for Ona, who did not call stop, stays 0 and is refused by her field.
    page.locator("#count-2").fill("3")
    page.locator("#count-0").fill("0")
    page.locator("#count-0").blur()
    assert page.locator("#count-0").input_value() == "0"
    page.get_by_role("button", name="Record the end of the deal").click()
    beside = page.locator('[data-error-for-player="Ona"]')
    beside.wait_for()
    assert beside.inner_text().startswith("Ona holds 0 cards")
    assert page.locator("#count-0").input_value() == "0"
    assert Deal.objects.get(pk=deal.pk).seq == 0
    # Moving the stop to another caller lifts only the 0 the screen put there, not one typed.
    page.locator("[data-caller]").get_by_role("radio", name="Petras", exact=True).check()
    assert page.locator("#count-1").input_value() == "1"
    assert page.locator("#count-0").input_value() == "0"
    assert page.js_errors == []


@pytest.mark.parametrize("size", [pytest.param(TABLET, id="tablet"), pytest.param(PHONE, id="phone")])
def test_the_record_button_lies_over_no_control_at_any_step(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int]
) -> None:
    """Every step of the seed deal, and the refusal and the preview: the Record button's box is
    inside the viewport and shares no area with any input, stepper or tile the scorer can see
    (on the tablet it floated over the rightmost stepper, Petras's +)."""
    from referee import services

    m = club_setup["members"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=club_setup["users"]["scorer"],
                                      players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"], size=size)
    page.goto(f"/deals/{deal.pk}/")
    record = "Record the end of the deal"
    record_clear_of_controls(page, record, "the empty form")
    page.get_by_role("button", name=record).click()
    page.locator("[data-error-for-term]:not(:empty)").first.wait_for()
    record_clear_of_controls(page, record, "refused: no ending chosen")
    page.locator("label.tile", has_text="Last face-down card").click()
    record_clear_of_controls(page, record, "the ending chosen")
    page.locator("[data-caller]").get_by_role("radio", name="Ona", exact=True).check()
    record_clear_of_controls(page, record, "the caller chosen")
    for name, count in (("Ona", 3), ("Jonas", 2), ("Rūta", 6), ("Petras", 2)):
        for _ in range(count - 1):
            page.get_by_role("button", name=f"One card more for {name}").click()
            record_clear_of_controls(page, record, f"one card more for {name}")
    page.wait_for_function("document.querySelector('[data-preview-points]') !== null")
    record_clear_of_controls(page, record, "the preview shown")
    # The rightmost stepper, scrolled to, is tapped where it shows: nothing lies over it.
    plus = page.get_by_role("button", name="One card more for Petras")
    plus.scroll_into_view_if_needed()
    record_clear_of_controls(page, record, "Petras's stepper in view")
    plus.click(trial=True)  # Playwright refuses a tap that something else would receive
    shoot(page, f"velnias-5-steppers-{size['width']}")
    check_a11y(page)
    assert page.js_errors == []
