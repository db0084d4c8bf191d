"""Elgeta recorded offline in real Chromium with the network cut: the tablet's engine
referees every trick, its tie-break rounds are asked for and filled in on the device as the
server's preview does, a beggar goes out, the deal ends and the next one starts on the device,
a refusal reads as the server's; and, once a deal is determined, the forecast and the finish
from it. Back online every entry is stored once, in order, with the tablet's results, and what
the tablet said of each entry is what the server's explain() says of it."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.utils import translation
from playwright.sync_api import expect

from bench.elgeta_play import long_deal, shuffled_piles, tricks
from referee import services
from referee.games import PAGES
from referee.models import Deal, Entry
from referee.presenters import show_card, show_rank, split_card
from referee.refusals import refusal_from
from referee.rules import GAMES, IllegalEntry

from .conftest import PHONE, TABLET, check_a11y, shoot
from .offline_steps import back_online_to_next_deal, open_ready, reload_offline, report_times, verdict_times

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GAME = GAMES["elgeta"]
PAGES_ELGETA = PAGES["elgeta"]
NAMES = ["Ona", "Jonas", "Rūta"]
SUITS = ["S", "C", "D"]
#: A shuffle of the three one-suit piles (seat 0 leading) whose deal lasts 25 tricks: five of them
#: need tie-break rounds, Rūta goes out as a beggar, and Ona ends it holding every ace.
SEED = 563


def deal_entries(players: int, dealer: int, suits: list[str], seed: int) -> list[dict[str, Any]]:
    """The deal's tricks (canonical cards) from one shuffle of the piles, up to its end."""
    state = GAME.new_deal(players=players, dealer=dealer, options={"suits": suits})
    entries = []
    for entry in tricks(players, dealer, shuffled_piles(players, random.Random(seed), suits)):
        state = GAME.apply(state, entry)
        entries.append(entry)
        if GAME.view(state)["finished"]:
            break
    return entries


def said_by_server(entries: list[Any], players: int, dealer: int, options: dict[str, Any], notation: str,
                   language: str, names: list[str]) -> list[list[str]]:
    """The server's explain() of each entry, in the reader's language."""
    state = GAME.new_deal(players=players, dealer=dealer, options=options)
    said = []
    with translation.override(language):
        for entry in entries:
            state = GAME.apply(state, entry)
            view = GAME.view(state)
            said.append(PAGES_ELGETA.explain(view, view["last"], names, notation))
    return said


def conclusion(page: Any) -> list[str]:
    return page.locator("[data-conclusion] p").all_inner_texts()


def tap_trick(page: Any, rounds: list[list[str | None]], notation: str) -> None:
    """The trick tapped on the rank pad, round by round: each tie-break round appears when the
    referee (the device's, offline) asks for it; a card it already knows is filled in."""
    pad = page.locator("[data-rank-pad]")
    for index, cards in enumerate(rounds):
        row = page.locator(f'#form-trick [data-round="{index}"]')
        row.wait_for()
        fields = row.locator("[data-card-input]")
        assert fields.count() == len(cards)
        for position, card in enumerate(cards):
            field = fields.nth(position)
            if card is None:
                assert field.get_attribute("readonly") is not None  # "no card to add"
                continue
            if not field.input_value():
                # One suit per pile: the rank names the card (the slot knows its possible cards).
                pad.get_by_role("button", name=show_rank(split_card(card)[0], notation), exact=True).click()
            assert field.input_value() == show_card(card, notation), (index, position)


def as_typed(rounds: list[list[str | None]], notation: str) -> list[list[str | None]]:
    return [[None if card is None else show_card(card, notation) for card in cards] for cards in rounds]


def test_a_whole_elgeta_deal_offline_in_lithuanian_and_the_next_deal_started(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    options = {"suits": SUITS, "notation": "lt"}
    session = services.session_start(club=club_setup["club"], game="elgeta", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"]], options=options)
    deal = services.deal_start(session=session, user=scorer, dealer=2)
    entries = deal_entries(3, 2, SUITS, SEED)
    assert len(entries) == 25 and sum(len(e["rounds"]) > 1 for e in entries) == 5
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/", language="lt")
    record = page.locator('button[form="form-trick"]')

    page.context.set_offline(True)
    # A refusal first: Ona holds spades, not the Q of clubs. The device says what the server says.
    page.locator("#r0-0").fill("D♣")
    for seat, card in ((1, "2♣"), (2, "3♦")):
        page.locator(f"#r0-{seat}").fill(card)
    record.click()
    error = page.locator('[data-error-for="trick"]')
    with pytest.raises(IllegalEntry) as refused:
        GAME.apply(GAME.from_dict(deal.state), {"type": "trick", "rounds": [["D♣", "2♣", "3♦"]]})
    with translation.override("lt"):
        expected_refusal = refusal_from(refused.value, session, names=NAMES).message
    assert "D♣" in expected_refusal
    page.wait_for_function("document.querySelector('[data-error-for=\"trick\"]').textContent.length > 0")
    assert error.inner_text() == expected_refusal
    assert page.locator("[data-live]").get_attribute("data-seq") == "0"  # nothing kept
    shoot(page, "offline-elgeta-refused")
    for seat in (2, 1, 0):
        page.locator(f"#r0-{seat}").fill("")
    page.locator("#r0-0").focus()  # the pad fills the slot in focus: Ona's, as at the start

    said_offline: list[list[str]] = []
    state = GAME.from_dict(deal.state)
    beggars = []
    times: list[float] = []
    first_tie = next(n for n, e in enumerate(entries, start=1) if len(e["rounds"]) > 1)
    for number, entry in enumerate(entries, start=1):
        if number == first_tie:
            # The first tie: the device's referee asks for round 2 with the server's message.
            tap_trick(page, entry["rounds"][:1], "lt")
            page.locator('#form-trick [data-round="1"]').wait_for()
            with pytest.raises(IllegalEntry) as tie:
                GAME.apply(state, {"type": "trick", "rounds": as_typed(entry["rounds"][:1], "lt")})
            with translation.override("lt"):
                assert page.locator("[data-pad-msg]").inner_text() == refusal_from(tie.value, session, NAMES).message
            assert page.locator('#form-trick [data-round="1"] legend').inner_text() == "2 ratas: lygiųjų ratas"
            tap_trick(page, entry["rounds"], "lt")
            page.locator("[data-preview-box]:not([hidden])").wait_for()
            shoot(page, "offline-elgeta-tie-break")
            check_a11y(page)  # the rounds, the preview and the piles drawn on the device
        else:
            tap_trick(page, entry["rounds"], "lt")
        page.locator('button[form="form-trick"]').click()
        page.wait_for_selector(f"[data-live][data-seq='{number}']", state="attached")
        state = GAME.apply(state, {"type": "trick", "rounds": as_typed(entry["rounds"], "lt")})
        beggars += GAME.view(state)["last"]["out"]
        said_offline.append(conclusion(page))
        if number == 3:
            shoot(page, "offline-elgeta-trick-3")
        if number == 12:
            # A reload while offline: the device's queue and state draw the deal as it was.
            times += verdict_times(page)
            reload_offline(page)
            page.wait_for_selector("[data-live][data-seq='12']", state="attached")
            assert conclusion(page) == said_offline[-1]
            expect(page.locator("#sync")).to_contain_text("12")
    assert beggars == [2]  # Rūta went out on the way
    finished = page.locator("[data-finished]")
    finished.wait_for()
    shoot(page, "offline-elgeta-deal-over")
    totals_offline = page.locator("[data-session-totals] .value").all_inner_texts()
    piles_offline = page.locator("section[aria-labelledby=piles-h]").inner_text()

    # The next deal, started on the device (Ona deals, Jonas leads), and its first trick.
    finished.locator('#form-next button[type="submit"]').click()
    page.get_by_role("heading", name="1 kirtis · pradeda Jonas").wait_for()
    assert page.evaluate("location.hash").startswith("#client-")
    second = deal_entries(3, 0, SUITS, SEED + 1)[0]
    tap_trick(page, second["rounds"], "lt")
    page.locator('button[form="form-trick"]').click()
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")
    said_second = conclusion(page)
    times += verdict_times(page)
    # The second reload while offline: the deal started on this device is drawn again from the
    # device's state (its fresh form, then its first trick), with the same next trick to record.
    form_before = page.locator("#form-trick").inner_text()
    client = page.evaluate("location.hash")
    reload_offline(page)
    assert page.evaluate("location.hash") == client
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")
    assert conclusion(page) == said_second
    assert page.locator("#form-trick").inner_text() == form_before
    assert Entry.objects.filter(deal__session=session).count() == 0  # nothing reached the server

    assert len(times) == 26
    report_times("Elgeta", times)

    # Back online: the queue goes to the server in order, and the screen moves to the new deal.
    back_online_to_next_deal(page, deal)
    stored = list(Entry.objects.filter(deal=deal).order_by("seq"))
    assert [e.seq for e in stored] == list(range(1, 26)) and all(e.active for e in stored)
    assert [e.payload for e in stored] == [{"type": "trick", "rounds": as_typed(e["rounds"], "lt")} for e in entries]
    # The server's results are the tablet's engine's, and the tablet said what the server says.
    state = GAME.new_deal(players=3, dealer=2, options=options)
    for kept in stored:
        state = GAME.apply(state, kept.payload)
        assert kept.result["taker"] == GAME.view(state)["last"]["taker"]
    said = said_by_server([e.payload for e in stored], 3, 2, options, "lt", "lt", NAMES)
    assert said_offline == said
    new = Deal.objects.get(session=session, number=2)
    assert new.dealer == 0 and new.client_id
    kept = Entry.objects.get(deal=new)
    assert kept.payload["rounds"] == as_typed(second["rounds"], "lt")
    assert said_second == said_by_server([kept.payload], 3, 0, options, "lt", "lt", NAMES)[0]
    # The server's page of the first deal shows what the tablet showed.
    page.goto(f"/deals/{deal.pk}/")
    assert conclusion(page) == said_offline[-1]
    assert page.locator("[data-session-totals] .value").all_inner_texts() == totals_offline
    assert page.locator("section[aria-labelledby=piles-h]").inner_text() == piles_offline
    assert page.js_errors == []


@pytest.mark.parametrize("size", [pytest.param(TABLET, id="tablet"), pytest.param(PHONE, id="phone")])
def test_a_determined_deal_offline_its_forecast_and_the_finish_from_it(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any], size: dict[str, int]
) -> None:
    """English, two players holding two suits each: the trick that makes the deal determined is
    typed offline; the forecast comes as the server words it, the next trick is filled in whole
    (one tap), and the deal is finished from the forecast, all on the device."""
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    names = ["Ona", "Jonas"]
    session = services.session_start(club=club_setup["club"], game="elgeta", user=scorer,
                                     players=[m["admin"], m["scorer"]])
    deal = services.deal_start(session=session, user=scorer)
    piles, _seed = long_deal(60)
    played = tricks(2, deal.dealer, piles)
    # On the server: every trick but the last one before the deal is determined.
    upcoming = next(played)
    while GAME.view(GAME.apply(GAME.from_dict(Deal.objects.get(pk=deal.pk).state), upcoming))["forecast"] is None:
        services.entry_add(deal_id=deal.pk, payload=upcoming, user=scorer)
        upcoming = next(played)
    before = Deal.objects.get(pk=deal.pk).seq
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/", size=size)
    assert page.locator("[data-forecast]").count() == 0

    page.context.set_offline(True)
    # The trick typed card by card (each seat holds two suits, so the suit is typed too).
    for index, cards in enumerate(upcoming["rounds"]):
        row = page.locator(f'#form-trick [data-round="{index}"]')
        row.wait_for()
        for position, card in enumerate(cards):
            field = row.locator("[data-card-input]").nth(position)
            if card is not None and not field.input_value():
                field.fill(show_card(card, "en"))
                field.dispatch_event("change")
            assert field.input_value() == ("" if card is None else show_card(card, "en"))
    page.locator('button[form="form-trick"]').click()
    page.wait_for_selector(f"[data-live][data-seq='{before + 1}']", state="attached")
    said_each = [conclusion(page)]
    state = GAME.apply(GAME.from_dict(Deal.objects.get(pk=deal.pk).state), upcoming)
    view = GAME.view(state)
    with translation.override("en"):
        server_screen = PAGES_ELGETA.screen(view, names, "en", state=GAME.to_dict(state), finished=False)
    assert page.locator("[data-forecast]").inner_text() == server_screen["forecast_text"]
    # The next trick is known whole, tie-breaks included: as the server would fill it in.
    expected_rows = [[slot["value"] for slot in row["slots"]] for row in server_screen["rounds"]]
    shown_rows = [page.locator(f'#form-trick [data-round="{i}"] [data-card-input]').evaluate_all(
        "inputs => inputs.map((i) => i.value)") for i in range(len(expected_rows))]
    assert shown_rows == expected_rows
    assert page.locator("#form-trick [data-round]").count() == len(expected_rows)
    page.locator("[data-preview-box]:not([hidden])").wait_for()  # the device's preview of it
    shoot(page, f"offline-elgeta-determined-{size['width']}")
    check_a11y(page)  # the forecast and its finish form drawn on the device
    page.locator('button[form="form-trick"]').click()
    page.wait_for_selector(f"[data-live][data-seq='{before + 2}']", state="attached")
    said_each.append(conclusion(page))
    page.get_by_role("button", name="Finish the deal from the forecast").click()
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    said_offline = conclusion(page)
    said_each.append(said_offline)
    assert said_offline[0] == "Finished from the forecast."
    shoot(page, f"offline-elgeta-finished-{size['width']}")
    times = verdict_times(page)
    assert len(times) == 3
    report_times("Elgeta determined", times)

    page.context.set_offline(False)
    page.wait_for_function("document.querySelector('[data-live]').dataset.version.indexOf('device-') !== 0",
                           timeout=60_000)
    stored = list(Entry.objects.filter(deal=deal).order_by("seq"))
    assert len(stored) == before + 3
    assert stored[-1].payload == {"type": "finish"}
    assert Deal.objects.get(pk=deal.pk).status == "finished"
    said = said_by_server([e.payload for e in stored], 2, deal.dealer, {}, "en", "en", names)
    assert said[before:] == said_each  # each of the three entries recorded offline
    page.locator("[data-finished]").wait_for()
    assert conclusion(page) == said_offline
    assert page.js_errors == []


def test_the_seed_tie_of_aces_offline_a_half_entered_tie_break_survives_a_reload(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    """The seed's trick (test_elgeta.py's, online) with the network cut: the device's referee
    asks for the tie-break round in the server's words; two of its cards are tapped, the page is
    reloaded, and the half-entered trick comes back whole (its draft) to be finished."""
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="elgeta", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]],
                                     options={"suits": ["S", "D", "H", "C"]})
    deal = services.deal_start(session=session, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")
    page.context.set_offline(True)
    pad = page.locator("[data-rank-pad]")
    for rank in ("J", "A", "A", "4"):
        pad.get_by_role("button", name=rank, exact=True).click()
    page.locator('[data-round="1"]').wait_for()
    assert page.locator('[data-round="1"] legend').inner_text() == "Round 2: tie-break"
    assert page.locator("[data-pad-msg]").inner_text() == (
        "Round 1 is a tie (AD, AH), so every player still in adds one more card: round 2 is missing."
    )
    for rank in ("6", "7"):
        pad.get_by_role("button", name=rank, exact=True).click()
    reload_offline(page)
    page.locator('[data-round="1"]').wait_for()
    values = "inputs => inputs.map((i) => i.value)"
    typed = [page.locator(f'[data-round="{row}"] [data-card-input]').evaluate_all(values) for row in (0, 1)]
    assert typed == [["J♠", "A♦", "A♥", "4♣"], ["6♠", "7♦", "", ""]]
    page.locator('[data-round="1"] [data-card-input]').nth(2).focus()
    for rank in ("9", "Q"):
        pad.get_by_role("button", name=rank, exact=True).click()
    page.locator("[data-preview-box]").get_by_text("Petras takes 8 cards after 1 tie-break round.").wait_for()
    page.get_by_role("button", name="Record the trick").click()
    page.get_by_role("heading", name="Trick 2 · Petras leads").wait_for()
    assert conclusion(page) == ["Petras takes 8 cards after 1 tie-break round."]
    assert page.locator("section[aria-labelledby=piles-h] .value").all_inner_texts() == ["11", "11", "11", "19"]

    page.context.set_offline(False)
    page.wait_for_function("document.querySelector('[data-live]').dataset.version.indexOf('device-') !== 0",
                           timeout=60_000)
    assert [e.payload for e in Entry.objects.filter(deal=deal)] == [
        {"type": "trick", "rounds": [["J♠", "A♦", "A♥", "4♣"], ["6♠", "7♦", "9♥", "Q♣"]]}]
    assert conclusion(page) == ["Petras takes 8 cards after 1 tie-break round."]
    assert page.js_errors == []
