"""Apgaudinėjimas (Cheat) recorded with the network cut, in real Chromium: the
tablet's engine referees each placement, challenge and last card let stand, the screen (whose
turn, the counts, the forms the deal allows) is drawn from its view at once, a refusal shows the
server's message, a reload keeps the deal, the loser deals the next deal on the device; back
online every entry is stored once, in order, the server's results equal the tablet's, and every
verdict the tablet showed is word for word the server's explain() of that entry."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.utils import translation
from playwright.sync_api import expect

from referee import services
from referee.games import PAGES
from referee.models import Deal, Entry
from referee.presenters import show_rank
from referee.refusals import refusal_from
from referee.rules import GAMES, IllegalEntry

from .conftest import PHONE, check_a11y, shoot
from .offline_steps import back_online_to_next_deal, open_ready, reload_offline, report_times, verdict_times, within_aim

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

GAME = GAMES["cheat"]
CHEAT = PAGES["cheat"]


def cheat_plan(players: int, dealer: int, options: dict[str, Any], *, challenges: dict[int, str],
               stands: set[int], until: int | None = None) -> list[dict[str, Any]]:
    """A legal deal's entries as the server's engine sees them: the player in turn places, except
    at the entry numbers in ``challenges`` ("lie": a rank other than the announced one is revealed,
    "truth": the announced rank) and ``stands`` (a last card let stand while the next player could
    still place); a last card waiting for its only possible answer is let stand. Stops at the
    deal's end (or after ``until`` entries)."""
    state = GAME.new_deal(players=players, dealer=dealer, options=options)
    plan: list[dict[str, Any]] = []
    while not GAME.view(state)["finished"] and (until is None or len(plan) < until):
        view = GAME.view(state)
        number = len(plan) + 1
        entry: dict[str, Any]
        if number in challenges and view["can_challenge"]:
            announced = view["last_announced"]
            revealed = announced if challenges[number] == "truth" else ("2" if announced != "2" else "3")
            entry = {"type": "challenge", "challenger": view["challengers"][-1], "revealed": revealed}
        elif view["can_stand"] and (not view["can_place"] or number in stands):
            entry = {"type": "stands"}
        else:
            entry = {"type": "place", "player": view["turn"]}
        state = GAME.apply(state, entry)
        plan.append(entry)
    return plan


def record(page: Any, entry: dict[str, Any], seq: int, names: list[str], notation: str) -> None:
    """One entry through the screen as the scorer taps it; waits for the device's verdict."""
    if entry["type"] == "place":
        page.locator("#form-place button[type=submit]").click()
    elif entry["type"] == "stands":
        page.locator("#form-stands button[type=submit]").click()
    else:
        challenge(page, names[entry["challenger"]], show_rank(entry["revealed"], notation))
        page.locator("#form-challenge button[type=submit]").click()
    page.wait_for_selector(f"[data-live][data-seq='{seq}']", state="attached")


def challenge(page: Any, challenger: str, rank: str) -> None:
    box = page.locator("details#challenge")
    if box.get_attribute("open") is None:
        box.locator("summary").click()
    page.locator("#form-challenge").get_by_role("radio", name=challenger, exact=True).check()
    page.locator("#form-challenge [data-rank-pad]").get_by_role("button", name=rank, exact=True).click()


def said(page: Any) -> list[str]:
    return page.locator("[data-conclusion] p").all_inner_texts()


def server_words(deal: Deal, names: list[str], notation: str, language: str) -> tuple[list[list[str]], list[str]]:
    """From the stored entries: the server's explain() after each entry and describe_entry of each."""
    state = GAME.new_deal(players=deal.session.seats.count(), dealer=deal.dealer, options=deal.session.options)
    sentences, lines = [], []
    with translation.override(language):
        for entry in Entry.objects.filter(deal=deal, active=True).order_by("seq"):
            state = GAME.apply(state, entry.payload)
            view = GAME.view(state)
            sentences.append(CHEAT.explain(view, view["last"], names, notation))
            lines.append(CHEAT.describe_entry(entry.payload, entry.result, names, notation))
    return sentences, lines


def refusal_text(session: Any, state_entries: list[dict[str, Any]], entry: dict[str, Any], language: str) -> str:
    """The server's refusal of ``entry`` after ``state_entries``, in ``language``."""
    deal = Deal.objects.filter(session=session).order_by("number").first()
    assert deal is not None
    state = GAME.new_deal(players=session.seats.count(), dealer=deal.dealer, options=session.options)
    for earlier in state_entries:
        state = GAME.apply(state, earlier)
    with translation.override(language), pytest.raises(IllegalEntry) as refused:
        GAME.apply(state, entry)
    with translation.override(language):
        return refusal_from(refused.value, session).message


#: The game's part of the live box (templates/referee/games/cheat.html) as a tree of (tag, attributes,
#: own text, children), whitespace aside; the values that differ from one rendering to the next
#: (the CSRF token, the no-JavaScript idempotency key) left out.
GAME_PART = """() => {
  const walk = (el) => {
    const fresh = el.name === "csrfmiddlewaretoken" || el.name === "idempotency_key";
    const attrs = Array.from(el.attributes).filter((a) => !(fresh && a.name === "value"))
      .map((a) => a.name + "=" + a.value.trim()).sort();
    const text = Array.from(el.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent.trim())
      .filter(Boolean).join(" ");
    return [el.tagName, attrs, text, Array.from(el.children, walk)];
  };
  return Array.from(document.querySelector("[data-live]").querySelectorAll(
    ':scope > section[aria-labelledby="turn-h"], :scope > section[aria-labelledby="counts-h"], :scope > .stack'), walk);
}"""


def waiting_lines(page: Any) -> list[str]:
    """The entry list as the device shows it (newest first): each line's own text, without its
    number and its "waiting to be sent" tag."""
    return page.evaluate("""() => Array.from(document.querySelectorAll('details[data-keep-open="entries"] li'),
      (li) => Array.from(li.childNodes).filter((n) => n.nodeType === 3).map((n) => n.textContent).join("").trim())""")


def test_a_whole_cheat_deal_and_the_next_one_start_offline(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    names = ["Ona", "Jonas", "Rūta"]
    session = services.session_start(club=club_setup["club"], game="cheat", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"]])
    deal = services.deal_start(session=session, user=scorer)
    plan = cheat_plan(3, deal.dealer, session.options, challenges={3: "lie", 7: "truth", 12: "truth"}, stands=set())
    assert {e["type"] for e in plan} == {"place", "challenge", "stands"}
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")

    page.context.set_offline(True)
    shown: list[list[str]] = []
    refused = False
    for seq, entry in enumerate(plan, start=1):
        if entry["type"] == "challenge" and not refused:
            # A joker where the deal has none: refused on the device with the server's words,
            # nothing kept, and the form stays as typed to fix.
            challenge(page, names[entry["challenger"]], "2")
            page.locator("#revealed").fill("X")
            page.locator("#form-challenge button[type=submit]").click()
            error = page.locator('[data-error-for="challenge"]')
            error.filter(has_text=re.compile(".")).wait_for()
            assert error.inner_text() == refusal_text(session, plan[:seq - 1], {**entry, "revealed": "X"}, "en")
            assert error.inner_text() == "There are no jokers in this deal."
            assert page.locator("[data-live]").get_attribute("data-seq") == str(seq - 1)
            shoot(page, "offline-cheat-refused")
            page.locator("#revealed").fill("")
            refused = True
        record(page, entry, seq, names, "en")
        shown.append(said(page))
        if seq == 2:
            # The challenge form names the last card placed, as the server draws it.
            placer = names[(deal.dealer + 2) % 3]
            assert page.locator("details#challenge summary").inner_text() == f"Challenge {placer}'s card (announced 2)"
        if seq == 20:
            counts = page.locator("section[aria-labelledby=counts-h] .value").all_inner_texts()
            reload_offline(page)
            page.wait_for_selector("[data-live][data-seq='20']", state="attached")
            assert page.locator("section[aria-labelledby=counts-h] .value").all_inner_texts() == counts
            assert said(page) == shown[-1]
            expect(page.locator("#sync")).to_contain_text("20 entries kept on this device")
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    counts_offline = page.locator("section[aria-labelledby=counts-h] .value").all_inner_texts()
    totals_offline = page.locator("[data-session-totals] .value").all_inner_texts()
    lines_offline = waiting_lines(page)
    finished = page.locator("[data-finished] tbody").inner_text()
    part_offline = page.evaluate(GAME_PART)
    assert [part[1] for part in part_offline] == [["aria-labelledby=counts-h"]]  # over: the counts only
    assert page.locator("#form-place, #form-stands, #form-challenge").count() == 0
    shoot(page, "offline-cheat-deal-over")

    # The loser (the apgavikas) deals the next deal, started on the device.
    state = GAME.new_deal(players=3, dealer=deal.dealer, options=session.options)
    for entry in plan:
        state = GAME.apply(state, entry)
    loser = GAME.view(state)["loser"]
    page.get_by_role("button", name="Start deal 2").click()
    first = (loser + 1) % 3
    page.locator("[data-turn]", has_text=names[first]).wait_for()
    assert page.locator("[data-announce]").inner_text() == "A"
    assert page.locator(".deal-meta strong").first.inner_text() == names[loser]
    assert page.locator("details#challenge").count() == 0
    second = cheat_plan(3, loser, session.options, challenges={}, stands=set(), until=2)
    for seq, entry in enumerate(second, start=1):
        record(page, entry, seq, names, "en")
    second_said = said(page)
    turn = page.locator("[data-turn]").inner_text()
    times = verdict_times(page)  # since the first reload
    # A half-typed challenge, then a reload in the deal started here: the page kept is the first
    # deal's, the device draws this one, and the draft comes back into the form it drew.
    challenge(page, names[loser], "7")
    page.wait_for_timeout(500)  # the draft is saved as typed (drafts.js)
    client = page.evaluate("location.hash")
    reload_offline(page)
    assert page.evaluate("location.hash") == client
    page.wait_for_selector("[data-live][data-seq='2']", state="attached")
    assert page.locator("[data-turn]").inner_text() == turn
    assert said(page) == second_said
    page.wait_for_function("document.getElementById('revealed').value === '7'")
    assert page.locator(f"#form-challenge input[type=radio][value='{loser}']").is_checked()
    placer = names[(loser + 2) % 3]
    assert page.locator("details#challenge summary").inner_text() == f"Challenge {placer}'s card (announced 2)"
    shoot(page, "offline-cheat-deal-2")
    expect(page.locator("#sync")).to_contain_text(f"{len(plan) + 3} entries kept on this device")  # + 1 deal start
    assert Entry.objects.filter(deal__session=session).count() == 0  # nothing reached the server

    times += verdict_times(page)  # none since the second reload
    assert len(times) == len(plan) - 20 + 2
    report_times("Apgaudinėjimas", times)

    # Back online: the queue goes to the server in order, and the screen opens the new deal's page.
    back_online_to_next_deal(page, deal)
    entries = list(Entry.objects.filter(deal=deal).order_by("seq"))
    assert [e.payload for e in entries] == plan
    assert all(e.active for e in entries)
    replay = GAME.new_deal(players=3, dealer=deal.dealer, options=session.options)
    for entry, stored in zip(plan, entries, strict=True):
        replay = GAME.apply(replay, entry)
        assert stored.result == GAME.view(replay)["last"]
    sentences, lines = server_words(deal, names, "en", "en")
    assert shown == sentences  # every verdict the tablet showed, word for word the server's
    assert lines_offline == lines[::-1][:len(lines_offline)]
    new = Deal.objects.get(session=session, number=2)
    assert new.dealer == loser and new.client_id
    assert [e.payload for e in Entry.objects.filter(deal=new).order_by("seq")] == second
    assert server_words(new, names, "en", "en")[0][-1] == second_said
    # The server's page of the first deal shows what the tablet showed.
    page.goto(f"/deals/{deal.pk}/")
    assert page.locator("section[aria-labelledby=counts-h] .value").all_inner_texts() == counts_offline
    assert page.locator("[data-session-totals] .value").all_inner_texts() == totals_offline
    assert page.locator("[data-finished] tbody").inner_text() == finished
    assert said(page) == shown[-1]
    assert page.evaluate(GAME_PART) == part_offline  # the drawer drew what the server's template renders
    assert page.js_errors == []


def test_cheat_offline_in_lithuanian_on_a_phone(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    """Lithuanian screen and notation, two jokers, four players: a truthful challenge shown with
    its suit, a last card let stand, a refusal in Lithuanian; synced, the same words as the server."""
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    names = ["Ona", "Jonas", "Rūta", "Petras"]
    session = services.session_start(club=club_setup["club"], game="cheat", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]],
                                     options={"notation": "lt", "jokers": 2})
    deal = services.deal_start(session=session, user=scorer)
    plan = cheat_plan(4, deal.dealer, session.options, challenges={3: "lie", 6: "truth"}, stands=set(), until=8)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/", size=PHONE, language="lt")
    assert page.locator("[data-announce]").inner_text() == "T"

    page.context.set_offline(True)
    shown: list[list[str]] = []
    for seq, entry in enumerate(plan, start=1):
        if seq == 6:
            # The placer cannot challenge their own card: the device refuses in Lithuanian.
            placer = next(e for e in reversed(plan[:seq - 1]) if e["type"] == "place")["player"]
            own = {"type": "challenge", "challenger": placer, "revealed": "X"}
            expected = refusal_text(session, plan[:seq - 1], own, "lt")
            assert page.locator("#form-challenge").get_by_role("radio", name=names[placer], exact=True).count() == 0
            page.evaluate("""(seat) => { const form = document.getElementById('form-challenge');
              form.querySelector('input[name="f:challenger:int"][type=hidden]').value = String(seat);
              form.querySelector('#revealed').value = 'X';
              form.querySelectorAll('input[type=radio]').forEach((r) => { r.checked = false; }); }""", placer)
            page.locator("details#challenge summary").click()
            page.locator("#form-challenge button[type=submit]").click()
            error = page.locator('[data-error-for="challenge"]')
            error.filter(has_text=re.compile(".")).wait_for()
            assert error.inner_text() == expected
            page.locator("#revealed").fill("")
            page.locator("details#challenge summary").click()
        if seq == 6:
            # The truth, seen with its suit: the joker key and the suit pad.
            challenge(page, names[entry["challenger"]], show_rank(entry["revealed"], "lt"))
            page.locator("#form-challenge [data-suit-pad] button").nth(3).click()
            assert page.locator("#revealed").input_value() == show_rank(entry["revealed"], "lt") + "♥"
            assert page.locator("#form-challenge [data-rank-pad] [data-rank=X]").count() == 1
            shoot(page, "offline-cheat-lt-challenge")
            page.locator("#form-challenge button[type=submit]").click()
            page.wait_for_selector(f"[data-live][data-seq='{seq}']", state="attached")
            plan[seq - 1] = {**entry, "revealed": show_rank(entry["revealed"], "lt") + "♥"}
        else:
            record(page, entry, seq, names, "lt")
        shown.append(said(page))
    lines_offline = waiting_lines(page)
    part_offline = page.evaluate(GAME_PART)
    assert len(part_offline) == 3 and page.locator("#form-challenge").count() == 1
    shoot(page, "offline-cheat-lt")
    page.locator("details#challenge summary").click()
    check_a11y(page)  # the screen the tablet drew, its challenge form open
    page.locator("details#challenge summary").click()
    times = verdict_times(page)
    within_aim(times)

    page.context.set_offline(False)
    page.wait_for_selector(f"[data-live]:not([data-version^=device])[data-seq='{len(plan)}']", state="attached",
                           timeout=60_000)
    entries = list(Entry.objects.filter(deal=deal).order_by("seq"))
    assert [e.payload for e in entries] == plan
    sentences, lines = server_words(deal, names, "lt", "lt")
    assert shown == sentences
    assert lines_offline == lines[::-1][:len(lines_offline)]
    assert said(page) == shown[-1]
    # Element for element, the turn, the counts and the forms the tablet drew are the server's.
    assert page.evaluate(GAME_PART) == part_offline
    assert page.js_errors == []
