"""The table never waits in real Chromium with the network cut (Playwright's offline
mode): the tablet's engine referees each entry, the screen shows its verdict at once (timed in
the page from the tap), deals are finished and the next one started on the device, and back
online the sync stores every entry once, in order, with the server's results equal to the
tablet's."""

from __future__ import annotations

import re
import statistics
from typing import Any

import pytest
from django.utils import translation
from playwright.sync_api import expect

from referee import services
from referee.games import describe_entry
from referee.models import Deal, Entry
from referee.rules import GAMES, IllegalEntry
from referee.rules.cards import RANK_TEXT_LT

from .conftest import PHONE, TABLET, shoot
from .offline_steps import open_ready, reload_offline, report_times, verdict_times

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


NAMES = ["Ona", "Jonas", "Rūta", "Petras", "Asta"]
RUKAS_RANKS = [RANK_TEXT_LT[v] for v in range(2, 15)]




def rukas_deal(dealer: int) -> list[tuple[list[int], list[str], int | None]]:
    """A whole legal Rūkas deal for five players: (reveal order, ranks, taker) per trick, each
    seat playing every rank once; the server's engine says who reveals first each time."""
    game = GAMES["rukas"]
    state = game.new_deal(players=5, dealer=dealer, options={"notation": "lt"})
    tricks = []
    for trick in range(13):
        leader = game.view(state)["leader"]
        order = [(leader + i) % 5 for i in range(5)]
        ranks = [RUKAS_RANKS[(trick * 3 + seat * 5) % 13] for seat in order]
        state = game.apply(state, {"type": "trick", "cards": ranks})
        tricks.append((order, ranks, game.view(state)["last"]["taker"]))
    return tricks


def record_trick(page: Any, order: list[int], ranks: list[str], seq: int) -> None:
    for seat, rank in zip(order, ranks, strict=True):
        page.locator(f"#card-{seat}").fill(rank)
    page.get_by_role("button", name="Record the trick").click()
    page.wait_for_selector(f"[data-live][data-seq='{seq}']", state="attached")








def test_a_whole_rukas_deal_and_the_next_ones_start_offline(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    names = NAMES
    session = services.session_start(
        club=club_setup["club"], game="rukas", user=scorer,
        players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]], options={"notation": "lt"},
    )
    deal = services.deal_start(session=session, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")
    tricks = rukas_deal(deal.dealer)

    page.context.set_offline(True)
    times: list[float] = []
    for number, (order, ranks, taker) in enumerate(tricks, start=1):
        record_trick(page, order, ranks, number)
        heading = page.locator("#last-trick-h").inner_text()
        said = f"{names[taker]} takes" if taker is not None else "nobody takes"
        assert heading == f"Trick {number}: {said}", heading
        if number == 1:
            shoot(page, "offline-rukas-trick-1")
        if number == 7:
            # A reload while offline: the service worker serves the page, the device's queue
            # and state draw the deal as it was, and the engine referees again.
            times += verdict_times(page)
            reload_offline(page)
            page.wait_for_selector("[data-live][data-seq='7']", state="attached")
            leader = tricks[7][0][0]
            page.get_by_role("heading", name=f"Trick 8 of 13 · {names[leader]} reveals first").wait_for()
            expect(page.locator("#sync")).to_contain_text("7 entries kept on this device")
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    tricks_shown = page.locator("section[aria-labelledby=deal-tricks-h] .totals .value").all_inner_texts()
    totals_shown = page.locator("[data-session-totals] .value").all_inner_texts()
    said_offline = page.locator("[data-conclusion]").inner_text()
    expect(page.locator("#sync")).to_contain_text("13 entries kept on this device")
    shoot(page, "offline-rukas-deal-over")

    # The next deal, started on the device: its dealer is the next seat, its form is fresh.
    page.get_by_role("button", name="Start deal 2").click()
    next_dealer = (deal.dealer + 1) % 5
    first = (next_dealer + 1) % 5
    page.get_by_role("heading", name=f"Trick 1 of 13 · {names[first]} reveals first").wait_for()
    assert page.evaluate("location.hash").startswith("#client-")
    # The heading, the breadcrumb and the window's title all name the deal started here.
    assert page.locator('.crumbs a[aria-current="page"]').inner_text() == "Deal 2"
    assert "deal 2" in page.title()
    second = rukas_deal(next_dealer)
    record_trick(page, *second[0][:2], 1)
    times += verdict_times(page)
    # The second reload while offline: the deal started on this device comes back too.
    client = page.evaluate("location.hash")
    reload_offline(page)
    assert page.evaluate("location.hash") == client
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")
    page.get_by_role("heading", name=f"Trick 2 of 13 · {names[second[1][0][0]]} reveals first").wait_for()
    assert page.locator('.crumbs a[aria-current="page"]').inner_text() == "Deal 2"
    assert page.locator("#last-trick-h").inner_text().startswith("Trick 1: ")
    expect(page.locator("#sync")).to_contain_text("15 entries kept on this device")  # 14 tricks, 1 deal start
    assert Entry.objects.filter(deal__session=session).count() == 0  # nothing reached the server

    assert len(times) == 14
    report_times("Rūkas", times)
    # A trick's verdict draws little: its median is measured at 17-25 ms (load average 10-20).
    assert statistics.median(times) < 50, times

    # Back online: the queue goes to the server in order, and the screen moves to the new deal.
    page.context.set_offline(False)
    # Once the second deal's entries are on the server, the screen opens its page.
    page.wait_for_url(re.compile(rf"/deals/(?!{deal.pk}/)\d+/$"), timeout=60_000)
    page.locator("#last-trick-h").wait_for()
    entries = list(Entry.objects.filter(deal=deal).order_by("seq"))
    assert [e.payload["cards"] for e in entries] == [ranks for _o, ranks, _t in tricks]
    assert [e.result["taker"] for e in entries] == [taker for _o, _r, taker in tricks]
    assert all(e.active for e in entries)
    new = Deal.objects.get(session=session, number=2)
    assert new.dealer == next_dealer and new.client_id
    assert [e.payload["cards"] for e in Entry.objects.filter(deal=new)] == [second[0][1]]
    assert page.url.endswith(f"/deals/{new.pk}/")
    # The server's rendering of the first deal says what the tablet said.
    page.goto(f"/deals/{deal.pk}/")
    assert page.locator("section[aria-labelledby=deal-tricks-h] .totals .value").all_inner_texts() == tricks_shown
    assert page.locator("[data-session-totals] .value").all_inner_texts() == totals_shown
    assert page.locator("[data-conclusion]").inner_text() == said_offline  # the same words as the tablet's
    assert page.js_errors == []


def velnias_end(page: Any, caller: int, counts: list[int]) -> None:
    page.locator("label.tile", has_text="Last face-down card").click()
    page.locator("[data-caller]").get_by_role("radio", name=NAMES[caller], exact=True).check()
    for seat, count in enumerate(counts):
        page.locator(f"#count-{seat}").fill(str(count))
    page.get_by_role("button", name="Record the end of the deal").click()


@pytest.mark.parametrize("size", [pytest.param(TABLET, id="tablet"), pytest.param(PHONE, id="phone")])
def test_five_velnias_deals_in_a_row_offline_then_synced(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any], size: dict[str, int]
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(
        club=club_setup["club"], game="velnias", user=scorer,
        players=[m["admin"], m["scorer"], m["member"], m["Petras"]],
    )
    deal = services.deal_start(session=session, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/", size=size)
    game = GAMES["velnias"]
    endings = [(n % 4, [(n + seat) % 5 + 1 for seat in range(4)]) for n in range(5)]
    expected_totals = [0, 0, 0, 0]
    dealer = deal.dealer

    page.context.set_offline(True)
    for number, (caller, counts) in enumerate(endings, start=1):
        velnias_end(page, caller, counts)
        page.get_by_role("heading", name=f"Deal {number} is over").wait_for()
        state = game.apply(game.new_deal(players=4, dealer=dealer, options={}),
                           {"type": "end", "condition": "last_card", "player": caller, "hand_counts": counts})
        points = game.outcome(state).points
        expected_totals = [t + p for t, p in zip(expected_totals, points, strict=True)]
        shown = page.locator("[data-finished] tbody tr td.value").all_inner_texts()
        assert shown == [("+" if p > 0 else "−" if p < 0 else "") + str(abs(p)) for p in points]
        assert page.locator("[data-conclusion]").inner_text().startswith(
            NAMES[caller] + " turned the last face-down card")
        if number == 1:
            shoot(page, f"offline-velnias-deal-over-{size['width']}")
        if number < 5:
            page.get_by_role("button", name=f"Start deal {number + 1}").click()
            page.locator("form#form-end").wait_for()
            dealer = (dealer + 1) % 4
    offline_totals = page.locator("[data-session-totals] .value").all_inner_texts()
    said_offline = page.locator("[data-conclusion]").inner_text()
    payments_offline = page.locator("section[aria-labelledby=payments-h]").inner_text()
    assert offline_totals == [("+" if t > 0 else "−" if t < 0 else "") + str(abs(t)) for t in expected_totals]
    expect(page.locator("#sync")).to_contain_text("9 entries kept on this device")  # 5 endings, 4 deal starts
    times = verdict_times(page)
    assert len(times) == 5
    report_times("Velnias", times)

    page.context.set_offline(False)
    # Once the fifth deal's entries are on the server, the screen opens its page.
    page.wait_for_url(re.compile(rf"/deals/(?!{deal.pk}/)\d+/$"), timeout=60_000)
    last = Deal.objects.get(session=session, number=5)
    assert page.url.endswith(f"/deals/{last.pk}/")
    deals = list(Deal.objects.filter(session=session).order_by("number"))
    assert [d.number for d in deals] == [1, 2, 3, 4, 5]
    assert [[e.payload for e in Entry.objects.filter(deal=d)] for d in deals] == [
        [{"type": "end", "condition": "last_card", "player": caller, "hand_counts": counts}]
        for caller, counts in endings
    ]
    # The standings the server keeps are the ones the tablet showed.
    page.locator("[data-finished]").wait_for()
    assert page.locator("[data-session-totals] .value").all_inner_texts() == offline_totals
    assert page.locator("[data-conclusion]").inner_text() == said_offline
    assert page.locator("section[aria-labelledby=payments-h]").inner_text() == payments_offline
    assert page.js_errors == []


def test_a_conflict_shows_both_versions_and_keeping_the_servers_sets_mine_aside(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any], api: Any
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(
        club=club_setup["club"], game="rukas", user=scorer,
        players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]], options={"notation": "lt"},
    )
    deal = services.deal_start(session=session, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")
    order, mine, _taker = rukas_deal(deal.dealer)[0]

    page.context.set_offline(True)
    record_trick(page, order, mine, 1)
    # Meanwhile another device records a different first trick on the server.
    theirs = ["T", "K", "D", "V", "10"]
    answer = api(scorer).post(f"/api/deals/{deal.pk}/entries/", {"type": "trick", "cards": theirs}, format="json")
    assert answer.status_code == 201

    page.context.set_offline(False)
    dialog = page.get_by_role("dialog")
    dialog.wait_for(timeout=30_000)
    assert "Another device recorded in this deal" in dialog.inner_text()
    assert " ".join(theirs) in dialog.locator(".conflict-server").inner_text()
    assert " ".join(mine) in dialog.locator(".conflict-mine").inner_text()
    # Only what can succeed: mine after theirs only if the referee takes my trick there.
    game = GAMES["rukas"]
    after_theirs = game.apply(game.new_deal(players=5, dealer=deal.dealer, options={"notation": "lt"}),
                              {"type": "trick", "cards": theirs})
    try:
        game.apply(after_theirs, {"type": "trick", "cards": mine})
        on_top = True
    except IllegalEntry:
        on_top = False
    offered = ["Keep the server's", *(["Put mine after the server's"] if on_top else []),
               "Use mine instead of the server's"]
    assert dialog.locator("[data-choice]").all_inner_texts() == offered
    shoot(page, "offline-conflict")
    dialog.get_by_role("button", name="Keep the server's").click()
    dialog.wait_for(state="detached")
    # The server's trick stays, alone; mine is set aside on the device, still readable.
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")
    assert [e.payload["cards"] for e in Entry.objects.filter(deal=deal)] == [theirs]
    aside = page.evaluate("""async () => {
      const { openQueue } = await import("/static/js/offline/queue.js");
      const queue = await openQueue();
      return { aside: (await queue.listAside()).map((r) => r.payload.cards), waiting: await queue.count() };
    }""")
    assert aside == {"aside": [mine], "waiting": 0}
    assert page.js_errors == []


QUEUED = """async () => {
  const { openQueue } = await import("/static/js/offline/queue.js");
  const queue = await openQueue();
  const cards = (await queue.list()).map((r) => [r.expected_seq, r.payload.cards ?? r.payload.player]);
  queue.close();
  return cards;
}"""


def test_undo_offline_takes_back_the_entry_waiting_on_the_device(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(
        club=club_setup["club"], game="rukas", user=scorer,
        players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]], options={"notation": "lt"},
    )
    deal = services.deal_start(session=session, user=scorer)
    tricks = rukas_deal(deal.dealer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")

    page.context.set_offline(True)
    for number in (1, 2):
        record_trick(page, *tricks[number - 1][:2], number)
    undo = page.locator("#form-undo button")
    # The button names the trick as the server's own undo button would.
    with translation.override("en"):
        label = [describe_entry("rukas", {"type": "trick", "cards": r}, None, NAMES, "lt") for _o, r, _t in tricks]
    assert undo.inner_text() == "↶ Undo: " + label[1]
    shoot(page, "offline-undo-before")
    undo.click()
    # The second trick leaves the queue; the screen is the engine's replay of what remains.
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")
    # The sync line is written once the queue has answered, a moment after the screen is drawn.
    expect(page.locator("#sync")).to_have_text(re.compile(r"^Undone\. · Offline: 1 entry kept on this device"))
    assert page.locator("#last-trick-h").inner_text().startswith("Trick 1: ")
    leader = tricks[1][0][0]
    page.get_by_role("heading", name=f"Trick 2 of 13 · {NAMES[leader]} reveals first").wait_for()
    # What was undone is back in the form, to fix and record again (as online).
    assert [page.locator(f"#card-{seat}").input_value() for seat in tricks[1][0]] == tricks[1][1]
    assert undo.inner_text() == "↶ Undo: " + label[0]
    assert page.evaluate(QUEUED) == [[0, tricks[0][1]]]
    shoot(page, "offline-undo-after")

    # A reload in between keeps it: one trick waits, and the screen says so.
    reload_offline(page)
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")
    assert page.evaluate(QUEUED) == [[0, tricks[0][1]]]
    # The first trick too: back to the empty deal, nothing left to undo.
    page.locator("#form-undo button").click()
    page.wait_for_selector("[data-live][data-seq='0']", state="attached")
    assert page.locator("#form-undo").count() == 0
    assert page.evaluate(QUEUED) == []
    # Recorded again, the deal goes on in order.
    for number in (1, 2):
        record_trick(page, *tricks[number - 1][:2], number)

    page.context.set_offline(False)
    page.wait_for_function("document.querySelector('#sync').dataset.state === 'saved'", timeout=60_000)
    entries = list(Entry.objects.filter(deal=deal).order_by("seq"))
    assert [(e.seq, e.payload["cards"], e.active) for e in entries] == [
        (1, tricks[0][1], True), (2, tricks[1][1], True)]
    assert page.js_errors == []


def test_undo_offline_of_a_stored_entry_says_it_needs_the_connection(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(
        club=club_setup["club"], game="rukas", user=scorer,
        players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]], options={"notation": "lt"},
    )
    deal = services.deal_start(session=session, user=scorer)
    tricks = rukas_deal(deal.dealer)
    services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": tricks[0][1]}, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/", size=PHONE, language="lt")

    page.context.set_offline(True)
    page.locator("#form-undo button").click()
    said = page.locator('[data-error-for="undo"]')
    said.wait_for()
    assert said.inner_text() == ("Šis įrašas jau išsaugotas serveryje: jam atšaukti reikia ryšio. "
                                 "Niekas nepakeista.")
    assert page.locator("[data-live]").get_attribute("data-seq") == "1"
    shoot(page, "offline-undo-stored-lt")
    # After one trick recorded here and undone, the stored one is offered again, and refused alike.
    record_trick_lt(page, *tricks[1][:2], 2)
    page.locator("#form-undo button").click()
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")
    expect(page.locator("#sync")).to_have_text(re.compile(r"^Atšaukta\."))
    page.locator("#form-undo button").click()
    said.wait_for()
    assert "jam atšaukti reikia ryšio" in said.inner_text()
    assert page.locator("[data-live]").get_attribute("data-seq") == "1"
    page.context.set_offline(False)
    assert [e.payload["cards"] for e in Entry.objects.filter(deal=deal, active=True)] == [tricks[0][1]]
    assert page.js_errors == []


def record_trick_lt(page: Any, order: list[int], ranks: list[str], seq: int) -> None:
    for seat, rank in zip(order, ranks, strict=True):
        page.locator(f"#card-{seat}").fill(rank)
    page.locator('button[form="form-trick"]').click()
    page.wait_for_selector(f"[data-live][data-seq='{seq}']", state="attached")


def test_undo_offline_of_a_deals_end_brings_its_form_back(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(
        club=club_setup["club"], game="velnias", user=scorer,
        players=[m["admin"], m["scorer"], m["member"], m["Petras"]],
    )
    deal = services.deal_start(session=session, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/", size=PHONE)
    page.context.set_offline(True)
    velnias_end(page, 1, [3, 2, 4, 1])
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    page.locator("#form-undo button").click()
    # The end leaves the queue, the deal runs again and its form is back with what was entered.
    page.wait_for_selector("[data-live][data-seq='0']", state="attached")
    page.locator("form#form-end").wait_for()
    assert page.locator("[data-finished]").count() == 0
    assert page.locator("section[aria-labelledby=payments-h]").count() == 0
    assert [page.locator(f"#count-{seat}").input_value() for seat in range(4)] == ["3", "2", "4", "1"]
    expect(page.locator("#sync")).to_have_text(re.compile(r"^Undone\."))
    assert page.evaluate(QUEUED) == []
    shoot(page, "offline-undo-velnias-end")
    # Entered again (another caller), it is the one the server stores once back online.
    velnias_end(page, 2, [3, 2, 4, 1])
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    page.context.set_offline(False)
    page.wait_for_function("document.querySelector('#sync').dataset.state === 'saved'", timeout=60_000)
    assert [e.payload["player"] for e in Entry.objects.filter(deal=deal)] == [2]
    assert page.js_errors == []
