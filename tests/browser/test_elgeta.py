"""Elgeta in the browser: the seed's tie of aces with its tie-break round added when the
referee asks for it; a determined deal whose next trick is filled in (one tap records it);
and the forecast with the deal finished from it."""

from __future__ import annotations

import re
from typing import Any

import pytest

from bench.elgeta_play import long_deal, tricks
from referee import services
from referee.models import Deal, Entry
from referee.rules import GAMES

from .boxes import record_clear_of_controls
from .conftest import PHONE, TABLET, check_a11y, shoot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_seed_tie_of_aces_and_its_tie_break_round(open_page: Any, club_setup: dict[str, Any]) -> None:
    m = club_setup["members"]
    session = services.session_start(
        club=club_setup["club"], game="elgeta", user=club_setup["users"]["scorer"],
        players=[m["admin"], m["scorer"], m["member"], m["Petras"]], options={"suits": ["S", "D", "H", "C"]},
    )
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    page.get_by_role("heading", name="Trick 1 · Ona leads").wait_for()
    shoot(page, "elgeta-1-empty")
    check_a11y(page)
    pad = page.locator("[data-rank-pad]")
    # Each pile is one suit, so a rank alone names the card.
    for rank in ("J", "A", "A", "4"):
        pad.get_by_role("button", name=rank, exact=True).click()
    first = page.locator('[data-round="0"] [data-card-input]')
    assert [first.nth(i).input_value() for i in range(4)] == ["J♠", "A♦", "A♥", "4♣"]
    # The referee sees the tie of aces and asks for a tie-break round.
    page.locator('[data-round="1"]').wait_for()
    assert page.locator('[data-round="1"] legend').inner_text() == "Round 2: tie-break"  # as the message counts
    assert page.locator("[data-pad-msg]").inner_text() == (
        "Round 1 is a tie (AD, AH), so every player still in adds one more card: round 2 is missing."
    )
    shoot(page, "elgeta-2-tie-break")
    for rank in ("6", "7", "9", "Q"):
        pad.get_by_role("button", name=rank, exact=True).click()
    preview = page.locator("[data-preview-box]")
    preview.get_by_text("Petras takes 8 cards after 1 tie-break round.").wait_for()
    page.get_by_role("button", name="Record the trick").click()
    page.get_by_role("heading", name="Trick 2 · Petras leads").wait_for()
    assert page.locator("[data-conclusion]").inner_text() == "Petras takes 8 cards after 1 tie-break round."
    assert Entry.objects.get(deal=deal).payload == {
        "type": "trick", "rounds": [["J♠", "A♦", "A♥", "4♣"], ["6♠", "7♦", "9♥", "Q♣"]]}
    counts = page.locator(".totals li .value").all_inner_texts()
    assert counts[:4] == ["11", "11", "11", "19"]  # Petras: 13 - 2 turned + 8 captured
    shoot(page, "elgeta-3-taken")
    check_a11y(page)


def test_a_determined_deal_one_tap_per_trick_and_finish_from_the_forecast(
    open_page: Any, club_setup: dict[str, Any]
) -> None:
    m = club_setup["members"]
    scorer = club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="elgeta", user=scorer,
                                     players=[m["admin"], m["scorer"]])
    deal = services.deal_start(session=session, user=scorer)
    piles, _seed = long_deal(60)
    game = GAMES["elgeta"]
    played = tricks(2, deal.dealer, piles)
    # Play until both own piles are played through: from then on the referee knows every card.
    while game.view(game.from_dict(Deal.objects.get(pk=deal.pk).state))["forecast"] is None:
        services.entry_add(deal_id=deal.pk, payload=next(played), user=scorer)
    before = Deal.objects.get(pk=deal.pk).seq
    expected = next(played)
    page = open_page(scorer)
    page.goto(f"/deals/{deal.pk}/")
    forecast = page.locator("[data-forecast]").inner_text()
    assert re.fullmatch(r"(Ona|Jonas) wins in \d+ tricks?\.|This deal never ends: .*", forecast), forecast
    # Every card of the next trick, tie-breaks included, is filled in: one tap records it.
    shoot(page, "elgeta-4-determined")
    check_a11y(page)
    page.get_by_role("button", name="Record the trick").click()
    page.wait_for_function(f"document.querySelector('[data-live]').dataset.seq === '{before + 1}'")
    stored = Entry.objects.get(deal=deal, seq=before + 1).payload
    assert [[None if c is None else c.replace("♠", "S").replace("♣", "C").replace("♦", "D").replace("♥", "H")
             for c in rnd] for rnd in stored["rounds"]] == expected["rounds"]
    page.get_by_role("button", name="Finish the deal from the forecast").click()
    page.get_by_role("heading", name=re.compile("Deal 1 is over")).wait_for()
    assert page.locator("[data-conclusion] p").first.inner_text() == "Finished from the forecast."
    assert Deal.objects.get(pk=deal.pk).status == "finished"
    shoot(page, "elgeta-5-finished")


@pytest.mark.parametrize("size", [pytest.param(TABLET, id="tablet"), pytest.param(PHONE, id="phone")])
def test_the_record_button_lies_over_no_card_field_at_any_step(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int]
) -> None:
    """The seed's tie of aces tapped in, its tie-break round and the preview: after every tap the
    Record button is wholly on screen and shares no area with a card field or a pad key."""
    m = club_setup["members"]
    session = services.session_start(
        club=club_setup["club"], game="elgeta", user=club_setup["users"]["scorer"],
        players=[m["admin"], m["scorer"], m["member"], m["Petras"]], options={"suits": ["S", "D", "H", "C"]},
    )
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"], size=size)
    page.goto(f"/deals/{deal.pk}/")
    record = "Record the trick"
    record_clear_of_controls(page, record, "the empty trick")
    pad = page.locator("[data-rank-pad]")
    for rank in ("J", "A", "A", "4", "6", "7", "9", "Q"):
        if rank == "6":
            page.locator('[data-round="1"]').wait_for()
        pad.get_by_role("button", name=rank, exact=True).click()
        record_clear_of_controls(page, record, f"{rank} tapped")
    page.locator("[data-preview-box]").get_by_text("Petras takes 8 cards after 1 tie-break round.").wait_for()
    record_clear_of_controls(page, record, "the preview shown")
    shoot(page, f"elgeta-6-record-clear-{size['width']}")
    page.get_by_role("button", name=record).click()
    page.get_by_role("heading", name="Trick 2 · Petras leads").wait_for()
    record_clear_of_controls(page, record, "the next trick")
    assert page.js_errors == []


def test_without_javascript_a_refused_tie_break_comes_back_as_typed(
    browser: Any, live_server: Any, club_setup: dict[str, Any]
) -> None:
    """JavaScript off: the form posts to the page. A tie-break round typed wrong is refused and
    the form comes back with both rounds as typed and no third round nobody asked for."""
    m = club_setup["members"]
    session = services.session_start(
        club=club_setup["club"], game="elgeta", user=club_setup["users"]["scorer"],
        players=[m["admin"], m["scorer"], m["member"], m["Petras"]], options={"suits": ["S", "D", "H", "C"]},
    )
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    context = browser.new_context(viewport=TABLET, locale="en", base_url=live_server.url, java_script_enabled=False)
    try:
        page = context.new_page()
        sign_in(page, "scorer")
        page.goto(f"/deals/{deal.pk}/")
        for seat, card in enumerate(["J♠", "A♦", "A♥", "4♣"]):
            page.locator(f"#r0-{seat}").fill(card)
        page.get_by_role("button", name="Add a tie-break round").click()
        page.locator('[data-round="1"]').wait_for()
        assert page.locator('[data-round="2"]').count() == 0
        for seat, card in enumerate(["6♠", "7♦", "9♥", "Q♠"]):  # Q♠: Petras holds clubs
            page.locator(f"#r1-{seat}").fill(card)
        page.get_by_role("button", name="Record the trick").click()
        page.locator('[data-error-for="trick"]').get_by_text("The QS is not in Petras's pile.").wait_for()
        typed = [[page.locator(f"#r{row}-{seat}").input_value() for seat in range(4)] for row in (0, 1)]
        assert typed == [["J♠", "A♦", "A♥", "4♣"], ["6♠", "7♦", "9♥", "Q♠"]]
        assert page.locator('[data-round="2"]').count() == 0
        page.locator("#r1-3").fill("Q♣")
        page.get_by_role("button", name="Record the trick").click()
        page.get_by_role("heading", name="Trick 2 · Petras leads").wait_for()
        assert Entry.objects.get(deal=deal).payload["rounds"] == [["J♠", "A♦", "A♥", "4♣"], ["6♠", "7♦", "9♥", "Q♣"]]
    finally:
        context.close()
