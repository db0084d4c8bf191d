"""Elgeta's deck and suits by lot in the browser: the start screen draws the suits ("galima tai
nustatyti ir burtų keliu"), shows them seat by seat and starts the session with them; a 36-card
deck's recording screen offers only the ranks 6 to A ("Galima imti bet kokią kaladę be
džokerių"; the full deck goes "iki dviakės")."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee import services
from referee.models import Entry, Session
from tests.rules.playout_elgeta import random_deal

from .conftest import PHONE, SCREENSHOTS, TABLET, check_a11y, shoot
from .offline_steps import open_ready

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEATED = ["Rūta", "Ona", "Petras", "Jonas"]


def tap(page: Any, name: str) -> None:
    page.locator(".seat-pick").filter(has=page.locator(".seat-name").get_by_text(name, exact=True)).click()


def test_suits_by_lot_then_the_36_card_pad(open_page: Any, club_setup: dict[str, Any]) -> None:
    page = open_page(club_setup["users"]["scorer"])
    page.goto("/clubs/vilnius/sessions/new/")
    page.locator("label.tile", has_text="Elgeta").click()
    for name in SEATED:
        tap(page, name)
    page.locator("label.tile", has_text="English").click()
    page.locator("label.tile", has_text="36 cards: 6–A").click()
    page.get_by_role("button", name="Draw suits by lot").click()
    result = page.get_by_role("status").filter(has_text="Drawn by lot:")
    result.wait_for()
    drawn = page.locator("#opt_elgeta_suits").input_value().split()
    assert sorted(drawn) == ["C", "D", "H", "S"]
    rows = result.locator("[data-lot] li")
    assert [rows.nth(i).locator(".seat-name").inner_text() for i in range(4)] == SEATED
    words = {"S": "spades", "C": "clubs", "D": "diamonds", "H": "hearts"}
    assert [rows.nth(i).locator(".lot-words").inner_text() for i in range(4)] == [words[s] for s in drawn]
    # The page came back at the draw, with every other choice as it was.
    assert page.evaluate("location.hash") == "#opt_elgeta_suits-lot"
    assert page.locator("[data-seat-order] .seat-name").all_inner_texts() == SEATED
    assert page.get_by_role("radio", name="36 cards: 6–A").is_checked()
    for size in (TABLET, PHONE):
        page.set_viewport_size(size)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
        # Where the page lands after the draw (at the suits field), as each screen shows it.
        page.locator("#opt_elgeta_suits-lot").scroll_into_view_if_needed()
        page.evaluate("document.getElementById('opt_elgeta_suits-lot').scrollIntoView()")
        page.screenshot(path=str(SCREENSHOTS / f"elgeta-suits-by-lot-drawn-{size['width']}x{size['height']}.png"))
    page.set_viewport_size(TABLET)
    shoot(page, "elgeta-suits-by-lot")
    check_a11y(page)
    # A second draw may give another deal; a manual choice stays possible.
    page.locator("#opt_elgeta_suits").fill(" ".join(drawn))
    page.get_by_role("button", name="Start the session").click()
    page.get_by_role("button", name="Start the deal").click()
    session = Session.objects.get()
    assert (session.options["suits"], session.options["deck"]) == (drawn, 36)

    page.get_by_role("heading", name="Trick 1 · Rūta leads").wait_for()
    pad = page.locator("[data-rank-pad] [data-rank]")
    assert pad.all_inner_texts() == ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    assert page.locator('[data-rank-pad] [data-rank="5"]').count() == 0
    shoot(page, "elgeta-deck-36-pad")
    check_a11y(page)
    # Jonas dealt, so Rūta leads; the others each tap a rank (one suit a pile, so the rank names
    # the card). Rūta's 5, typed by hand, is refused naming the deck.
    slots = page.locator('[data-round="0"] [data-card-input]')
    suits_by_seat = dict(zip(SEATED, drawn, strict=True))
    slots.nth(0).fill("5" + suits_by_seat["Rūta"])
    for rank in ("7", "8", "A"):
        slots.nth(["7", "8", "A"].index(rank) + 1).click()
        page.locator("[data-rank-pad]").get_by_role("button", name=rank, exact=True).click()
    page.get_by_role("button", name="Record the trick").click()
    error = page.locator('[data-error-for="trick"]')
    error.filter(has_text="36-card deck").wait_for()
    assert error.inner_text() == (
        f"The 5{suits_by_seat['Rūta']} is not in this deal: the 36-card deck has only the ranks 6 to A.")
    assert Entry.objects.count() == 0
    assert page.js_errors == []


def test_offline_the_next_deal_keeps_the_32_card_deck(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    """The tablet starts the next deal from the deal's own options (offline-deal.js): a session
    of the 32-card deck goes on with 16 cards a seat, the pad's 7 to A, and the device's referee
    refuses a 6 as the server would."""
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="elgeta", user=scorer,
                                     players=[m["admin"], m["scorer"]], options={"deck": 32})
    deal = services.deal_start(session=session, user=scorer, dealer=1)
    # A random physical deal of the 32-card deck that ends by play in 16 tricks (all but the last
    # recorded on the server; the last is determined, so the screen has it filled in).
    kwargs, entries = random_deal(random.Random(27), 2, {"deck": 32}, finish_early=False, max_tricks=400)
    assert (kwargs["dealer"], len(entries), entries[-1]["type"]) == (1, 16, "trick")
    for entry in entries[:-1]:
        services.entry_add(deal_id=deal.pk, payload=entry, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")
    page.context.set_offline(True)
    page.locator('button[form="form-trick"]').click()
    finished = page.locator("[data-finished]")
    finished.wait_for()
    finished.locator('#form-next button[type="submit"]').click()
    page.get_by_role("heading", name="Trick 1 · Jonas leads").wait_for()  # Ona dealt the next deal
    assert page.locator("section[aria-labelledby=piles-h] .totals .value").all_inner_texts() == ["16", "16"]
    assert page.locator("[data-rank-pad] [data-rank]").all_inner_texts() == ["7", "8", "9", "10", "J", "Q", "K", "A"]
    page.locator("#r0-1").fill("6S")
    page.locator("#r0-0").fill("7H")
    page.locator('button[form="form-trick"]').click()
    page.wait_for_function("document.querySelector('[data-error-for=\"trick\"]').textContent.length > 0")
    assert page.locator('[data-error-for="trick"]').inner_text() == (
        "The 6S is not in this deal: the 32-card deck has only the ranks 7 to A.")
    assert Entry.objects.filter(deal__session=session).count() == len(entries) - 1  # offline: nothing sent yet
    assert page.js_errors == []
