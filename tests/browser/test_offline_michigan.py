"""Mičiganas recorded with the network cut, in real Chromium: the tablet's engine
referees each entry, the drawer (static/js/table/games/michigan.js) shows the verdict at once,
a refusal comes with the server's message, a reload keeps the deal, the next deal starts on the
device with the chips left on the prize cards; back online every entry is stored once, in order,
the server's results are the tablet's, and every verdict the tablet showed is the server's
explain() of that entry, word for word."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.utils import translation
from playwright.sync_api import expect

from referee import services
from referee.games import PAGES
from referee.models import Deal, Entry
from referee.refusals import refusal_from
from referee.rules import GAMES, IllegalEntry
from scoring.models import DealResult

from .conftest import PHONE, check_a11y, shoot
from .offline_steps import back_online_to_next_deal, open_ready, reload_offline, report_times, verdict_times

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NAMES = ["Ona", "Jonas", "Rūta", "Petras"]


def server_sentences(deal: Deal, language: str) -> list[list[str]]:
    """The server's explain() after each stored entry of the deal, in order."""
    session = deal.session
    game, pages = GAMES["michigan"], PAGES["michigan"]
    state = game.new_deal(players=len(NAMES), dealer=deal.dealer, options=deal.options)
    said = []
    with translation.override(language):
        for entry in Entry.objects.filter(deal=deal, active=True).order_by("seq"):
            state = game.apply(state, entry.payload)
            view = json.loads(json.dumps(game.view(state)))
            said.append(pages.explain_last(view, NAMES, session.notation))
    return said


def server_lines(deal: Deal, language: str) -> list[str]:
    """The server's describe_entry() of each stored entry, in order."""
    with translation.override(language):
        return [PAGES["michigan"].describe_entry(e.payload, e.result, NAMES, deal.session.notation)
                for e in Entry.objects.filter(deal=deal, active=True).order_by("seq")]


def shown(page: Any) -> list[str]:
    return page.locator("[data-conclusion] p").all_inner_texts()


def listed(page: Any) -> list[str]:
    """The entry list's lines as the tablet drew them (latest first), without '#n' and the tag."""
    return page.locator('details[data-keep-open="entries"] li').evaluate_all(
        "items => items.map((li) => li.childNodes[1].textContent.trim())")


def submit(page: Any, form: str, seq: int) -> list[str]:
    page.locator(f"#{form} button[type=submit]").click()
    page.wait_for_selector(f"[data-live][data-seq='{seq}']", state="attached")
    return shown(page)


def movement_list(page: Any) -> list[Any]:
    """The chip movements as listed: the summary, the line saying how many, the table's rows."""
    box = page.locator('details[data-keep-open="movements"]')
    return [box.locator("summary").inner_text(), box.locator("p.help").inner_text(),
            box.locator("tbody tr").all_inner_texts()]


def choose(page: Any, form: str, name: str) -> None:
    page.locator(f"#{form}").get_by_role("radio", name=name, exact=True).check()


def test_a_whole_michigan_deal_and_the_next_one_start_offline(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="michigan", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=scorer)  # Petras deals, Ona plays first
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")
    assert page.locator(".prize .chips").all_inner_texts() == ["5", "5", "5", "5"]

    page.context.set_offline(True)
    said: list[list[str]] = []
    choose(page, "form-exchange", "Ona")
    said.append(submit(page, "form-exchange", 1))
    assert said[-1] == ["Ona swapped their hand for the extra hand and now holds 11 cards."]
    assert page.locator("#form-exchange").count() == 0  # one swap a deal, before play
    page.get_by_role("radio", name="A♠: 5 chips").check()
    choose(page, "form-prize", "Jonas")
    said.append(submit(page, "form-prize", 2))
    assert said[-1] == ["Jonas takes 5 chips from the prize card A♠."]
    assert page.locator(".prize .chips").all_inner_texts() == ["0", "5", "5", "5"]
    assert page.locator(".prize .who").first.inner_text() == "Jonas took 5"
    assert page.get_by_role("radio", name="A♠: 0 chips").is_disabled()
    shoot(page, "offline-michigan-prize")
    choose(page, "form-misplay", "Rūta")
    said.append(submit(page, "form-misplay", 3))
    assert said[-1] == ["Rūta misplayed: they pay 1 chip to each other player and take no more prizes this deal."]
    page.get_by_role("radio", name="K♣: 5 chips").check()
    choose(page, "form-prize", "Rūta")
    said.append(submit(page, "form-prize", 4))
    assert said[-1] == ["Rūta has misplayed this deal, so K♣ counts as played and its 5 chips stay on it."]
    net = page.locator("section[aria-labelledby=net-h] .totals li")
    assert net.nth(2).locator(".sub").inner_text() == "misplayed: no prizes"
    assert page.locator("section[aria-labelledby=net-h] .value").all_inner_texts() == ["−3", "+2", "−7", "−7"]

    # A refusal offline: Jonas played the A♠, so he cannot hold 10 cards; nothing is queued.
    choose(page, "form-out", "Petras")
    page.locator("#left-1").fill("10")
    page.locator("#form-out button[type=submit]").click()
    beside = page.locator('#form-out [data-error-for-player="Jonas"]')
    beside.wait_for(state="visible")
    game = GAMES["michigan"]
    state = game.new_deal(players=4, dealer=deal.dealer, options={})
    for payload in ({"type": "exchange", "player": 0}, {"type": "prize", "card": "A♠", "player": 1},
                    {"type": "misplay", "player": 2}, {"type": "prize", "card": "K♣", "player": 2}):
        state = game.apply(state, payload)
    with pytest.raises(IllegalEntry) as refused:
        game.apply(state, {"type": "out", "player": 3, "hand_counts": [1, 10, 1, 0]})
    with translation.override("en"):
        assert beside.inner_text() == refusal_from(refused.value, session, NAMES).message
    assert page.locator("[data-live]").get_attribute("data-seq") == "4"
    assert page.locator("#left-1").input_value() == "10"  # kept as typed
    shoot(page, "offline-michigan-refused")
    times = verdict_times(page)

    # A reload while offline: the page, the queue and the device's state come back.
    reload_offline(page)
    page.wait_for_selector("[data-live][data-seq='4']", state="attached")
    assert shown(page) == said[-1]
    expect(page.locator("#sync")).to_contain_text("4 entries kept on this device")
    assert page.locator(".prize .chips").all_inner_texts() == ["0", "5", "5", "5"]

    choose(page, "form-out", "Petras")
    for seat, count in ((0, 3), (1, 2), (2, 4)):
        page.locator(f"#left-{seat}").fill(str(count))
    said.append(submit(page, "form-out", 5))
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    assert said[-1] == ["Petras went out: the others pay 1 chip per card left, 9 chips in all. The deal is over."]
    assert page.locator(".actions-grid").count() == 0 and page.locator("#form-prize").count() == 0
    points_offline = page.locator("[data-finished] tbody td.value").all_inner_texts()
    totals_offline = page.locator("[data-session-totals] .value").all_inner_texts()
    chips_offline = page.locator("section[aria-labelledby=net-h]").inner_text()
    lines_offline = listed(page)
    assert page.locator('details[data-keep-open="entries"] summary').inner_text() == "Recorded in this deal (5)"
    assert points_offline == ["−6", "0", "−11", "+2"]
    expect(page.locator("#sync")).to_contain_text("5 entries kept on this device")
    shoot(page, "offline-michigan-deal-over")
    check_a11y(page)  # the screen the device drew, as the server's screens are checked

    # The next deal, started on the device: Ona deals, the chips left on K♣, Q♦ and J♥ stay.
    page.get_by_role("button", name="Start deal 2").click()
    page.locator("#form-exchange").wait_for()
    assert page.evaluate("location.hash").startswith("#client-")
    assert page.locator(".prize .chips").all_inner_texts() == ["5", "10", "10", "10"]
    assert page.locator(".prize .who").all_inner_texts() == ["chips", "5 carried in", "5 carried in", "5 carried in"]
    assert page.locator("section[aria-labelledby=net-h] .value").all_inner_texts() == ["−8", "−4", "−4", "−4"]
    assert page.locator("[data-conclusion]").count() == 0
    # The dealer's tag moved to Ona; Petras keeps his name.
    names_next = page.locator("[data-session-totals] .name").all_inner_texts()
    assert [name.replace("dealer", "").strip() for name in names_next] == NAMES
    assert page.locator("[data-session-totals] .name .tag").count() == 1
    assert page.locator("[data-session-totals] li").first.locator(".tag").count() == 1
    shoot(page, "offline-michigan-deal-2")
    check_a11y(page)  # the fresh deal's forms, the swap form among them
    page.get_by_role("radio", name="Q♦: 10 chips").check()
    choose(page, "form-prize", "Rūta")
    said_next = submit(page, "form-prize", 1)
    assert said_next == ["Rūta takes 10 chips from the prize card Q♦."]
    assert page.locator("#form-exchange").count() == 0
    times += verdict_times(page)
    board_next = page.locator("section[aria-labelledby=board-h]").inner_text()
    # A second reload while offline: the deal started on this device is drawn again from its state.
    client = page.evaluate("location.hash")
    reload_offline(page)
    assert page.evaluate("location.hash") == client
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")
    assert shown(page) == said_next
    assert page.locator("section[aria-labelledby=board-h]").inner_text() == board_next
    assert page.locator("#form-exchange").count() == 0
    expect(page.locator("#sync")).to_contain_text("7 entries kept on this device")  # 6 entries, 1 deal start
    assert Entry.objects.filter(deal__session=session).count() == 0  # nothing reached the server

    assert len(times) == 6
    report_times("Mičiganas", times)

    # Back online: the queue goes to the server in order, and the screen moves to the new deal.
    back_online_to_next_deal(page, deal)
    entries = list(Entry.objects.filter(deal=deal).order_by("seq"))
    assert [e.seq for e in entries] == [1, 2, 3, 4, 5] and all(e.active for e in entries)
    assert [e.payload["type"] for e in entries] == ["exchange", "prize", "misplay", "prize", "out"]
    assert [r.points for r in DealResult.objects.filter(deal=deal).order_by("seat")] == [-6, 0, -11, 2]
    assert server_sentences(deal, "en") == said  # every verdict the tablet showed, word for word
    assert server_lines(deal, "en")[::-1] == lines_offline
    new = Deal.objects.get(session=session, number=2)
    assert new.dealer == 0 and new.client_id and new.options["pot"] == {"AS": 0, "KC": 5, "QD": 5, "JH": 5}
    assert server_sentences(new, "en") == [said_next]
    assert page.url.endswith(f"/deals/{new.pk}/")
    page.locator("[data-conclusion]").wait_for()
    assert shown(page) == said_next
    assert page.locator("[data-session-totals] .name").all_inner_texts() == names_next
    assert page.locator("section[aria-labelledby=board-h]").inner_text() == board_next
    # The server's rendering of the first deal is what the tablet drew.
    page.goto(f"/deals/{deal.pk}/")
    assert page.locator("[data-finished] tbody td.value").all_inner_texts() == points_offline
    assert page.locator("[data-session-totals] .value").all_inner_texts() == totals_offline
    assert page.locator("section[aria-labelledby=net-h]").inner_text() == chips_offline
    assert shown(page) == said[-1]
    assert page.js_errors == []


#: Live mode, card by card: (who, card as typed in Lithuanian notation).
LIVE_PLAYS = [(0, "5♥"), (1, "6♥"), (2, "7♥"), (3, "8♥"), (0, "9♥"), (1, "10♥"), (2, "V♥"), (3, "2♠"), (2, "3♣")]


def test_live_mode_in_lithuanian_card_by_card_offline(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    """The sequence, a prize taken on the way, a card out of sequence and a stop, on a phone in
    Lithuanian; each verdict and the board are the server's once synced."""
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="michigan", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]],
                                     options={"notation": "lt", "live": True})
    deal = services.deal_start(session=session, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/", size=PHONE, language="lt")

    page.context.set_offline(True)
    said: list[list[str]] = []
    for seq, (seat, card) in enumerate(LIVE_PLAYS, start=1):
        choose(page, "form-play", NAMES[seat])
        page.locator("#play-card").fill(card)
        said.append(submit(page, "form-play", seq))
        if seq == 1:
            # The next card is filled in for whoever holds it.
            assert page.locator("#play-card").input_value() == "6♥"
            assert page.locator("p.forecast .card").all_text_contents() == ["5♥ širdys", "6♥ širdys"]
        if seq == 7:
            shoot(page, "offline-michigan-live-lt")
    # Eight misplays called by the table: 16 antes + 1 prize + 3 + 24 penalties = 44 chip
    # movements, more than the screen lists (the latest 40, and a line saying so).
    for seq in range(len(LIVE_PLAYS) + 1, len(LIVE_PLAYS) + 9):
        choose(page, "form-misplay", NAMES[seq % 4])
        said.append(submit(page, "form-misplay", seq))
    page.locator('details[data-keep-open="movements"] summary').click()
    movements = movement_list(page)
    assert movements[:2] == ["Žetonų pervedimai šiame padalijime (44)",
                             "Paskutiniai 40 iš 44; visus rasite partijos apskaitoje."]
    assert len(movements[2]) == 40
    check_a11y(page)
    times = verdict_times(page)
    assert said[6][-1] == "Rūta ima žetonus nuo prizinės kortos V♥: 5 žetonai."
    assert said[7][-1] == "Ji netęsia sekos: klaida. Petras moka baudą kiekvienam kitam žaidėjui – 1 žetonas."
    assert said[8][-1] == "Stop: Rūta pradeda naują seką."
    forecast = page.locator("p.forecast").inner_text()
    board = page.locator("section[aria-labelledby=board-h]").inner_text()
    chips = page.locator("section[aria-labelledby=net-h]").inner_text()
    lines = listed(page)
    report_times("Mičiganas live", times)

    page.context.set_offline(False)
    page.wait_for_function("document.querySelector('[data-live]').dataset.version.indexOf('device-') !== 0",
                           timeout=60_000)
    entries = list(Entry.objects.filter(deal=deal).order_by("seq"))
    plays = [{"type": "play", "player": seat, "card": card} for seat, card in LIVE_PLAYS]
    misplays = [{"type": "misplay", "player": seq % 4} for seq in range(len(LIVE_PLAYS) + 1, len(LIVE_PLAYS) + 9)]
    assert [e.payload for e in entries] == plays + misplays
    assert [e.seq for e in entries] == list(range(1, len(LIVE_PLAYS) + 9)) and all(e.active for e in entries)
    assert server_sentences(deal, "lt") == said
    assert server_lines(deal, "lt")[::-1][:len(lines)] == lines
    # The server's screen is the one the tablet drew.
    assert page.locator("p.forecast").inner_text() == forecast
    assert page.locator("section[aria-labelledby=board-h]").inner_text() == board
    assert page.locator("section[aria-labelledby=net-h]").inner_text() == chips
    assert movement_list(page) == movements
    assert shown(page) == said[-1]
    assert page.js_errors == []
