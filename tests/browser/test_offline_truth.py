"""The offline table tells the truth, in real Chromium with the network cut at the
moments a club evening cuts it:

1. entries recorded online, then the Wi-Fi drops and the tablet reloads: the screen is the deal
   as the tablet last knew it (its own entries, what its polls saw), says how old that is, and
   the tablet's referee judges against it (Velnias, Mičiganas; a phone watching the table too);
2. a conflict over this tablet's own stored entry names the deal, marks the entry as this
   tablet's (never "another device"), and offers only the choices that can succeed;
3. the sync line follows real answers within a second, never keeps a conflict's words after
   the choice, and its "last synced" is the last save, online ones included, ticking;
4. signing out without the network says what happens and never lands on a browser error page;
   the offline page afterwards says the screens were forgotten, not "never opened".
"""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import expect

from referee import services
from referee.models import Deal, Entry

from .conftest import PHONE, TABLET, shoot
from .offline_steps import open_ready, reload_offline
from .test_offline_recording import velnias_end

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: What the page's queue holds, and the keys this device had stored on the server.
QUEUE = """async () => {
  const { openQueue } = await import("/static/js/offline/queue.js");
  const queue = await openQueue();
  const answer = { waiting: (await queue.list()).map((r) => r.key), sent: await queue.sentKeys() };
  queue.close();
  return answer;
}"""


def velnias_deal(club_setup: dict[str, Any]) -> Deal:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    return services.deal_start(session=session, user=scorer)


def ended_online(open_page: Any, club_setup: dict[str, Any], caller: int, counts: list[int]) -> tuple[Deal, Any]:
    """A Velnias deal whose end the scorer recorded online, its screen open on the tablet."""
    deal = velnias_deal(club_setup)
    page = open_ready(open_page, club_setup["users"]["scorer"], f"/deals/{deal.pk}/")
    velnias_end(page, caller, counts)
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    return deal, page


def kept_note(page: Any) -> str:
    note = page.locator("[data-kept-note]")
    expect(note).to_be_visible()
    return note.inner_text()


@pytest.mark.parametrize("size", [pytest.param(TABLET, id="tablet"), pytest.param(PHONE, id="phone")])
def test_a_velnias_end_recorded_online_is_what_an_offline_reload_shows(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any], size: dict[str, int]
) -> None:
    deal = velnias_deal(club_setup)
    page = open_ready(open_page, club_setup["users"]["scorer"], f"/deals/{deal.pk}/", size=size)
    velnias_end(page, 1, [2, 3, 4, 5])
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    totals_online = page.locator("[data-session-totals] .value").all_inner_texts()
    assert Entry.objects.filter(deal=deal).count() == 1

    page.context.set_offline(True)
    reload_offline(page)
    # The finished deal as the tablet last knew it: no empty form, the totals with this deal.
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    assert page.locator("#form-end").count() == 0
    assert page.locator("[data-session-totals] .value").all_inner_texts() == totals_online
    assert re.fullmatch(r"Not connected: this screen is as this device last knew it, as of \d\d:\d\d \(now\)\.",
                        kept_note(page)), kept_note(page)
    expect(page.locator("#sync")).to_contain_text("Offline: nothing waiting")
    shoot(page, f"offline-truth-velnias-reload-{size['width']}")
    # Nothing to record twice: the next action is the next deal, started on the device.
    page.get_by_role("button", name="Start deal 2").click()
    page.locator("form#form-end").wait_for()

    page.context.set_offline(False)
    page.wait_for_url(re.compile(rf"/deals/(?!{deal.pk}/)\d+/$"), timeout=60_000)
    assert Entry.objects.filter(deal=deal).count() == 1  # stored once, never twice
    assert Deal.objects.filter(session=deal.session).count() == 2
    expect(page.locator("[data-kept-note]")).to_be_hidden()
    assert page.js_errors == []


def test_a_michigan_prize_recorded_online_is_what_the_offline_referee_judges_against(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any], api: Any
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="michigan", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")
    page.get_by_role("radio", name="Q♦: 5 chips").check()
    page.locator("#form-prize").get_by_role("radio", name="Jonas", exact=True).check()
    page.locator("#form-prize button[type=submit]").click()
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")

    page.context.set_offline(True)
    reload_offline(page)
    page.wait_for_selector("[data-live][data-seq='1']", state="attached")
    assert page.get_by_role("radio", name="Q♦: 0 chips").is_disabled()
    # Jonas played the Q♦: the tablet's referee refuses ten cards left, as the server would.
    page.locator("#form-out").get_by_role("radio", name="Petras", exact=True).check()
    for seat, count in ((0, 3), (1, 10), (2, 4)):
        page.locator(f"#left-{seat}").fill(str(count))
    page.locator("#form-out button[type=submit]").click()
    beside = page.locator('#form-out [data-error-for-player="Jonas"]')
    beside.wait_for(state="visible")
    # Word for word the server's refusal of the same entry (which stores nothing either).
    server = api(scorer).post(f"/api/deals/{deal.pk}/entries/", {
        "type": "out", "player": 3, "hand_counts": [3, 10, 4, 0], "expected_seq": 1}, format="json",
                                HTTP_ACCEPT_LANGUAGE="en")
    assert server.status_code == 400
    assert beside.inner_text() == server.json()["error"]
    assert "at most 9 of their 10 cards left, not 10" in beside.inner_text()
    assert page.evaluate(QUEUE)["waiting"] == []
    assert page.js_errors == []


def test_a_phone_watching_the_table_reloads_offline_to_what_its_polls_saw(
    open_page: Any, club_setup: dict[str, Any], api: Any
) -> None:
    deal = velnias_deal(club_setup)
    phone = open_page(club_setup["users"]["member"], size=PHONE)
    phone.goto(f"/deals/{deal.pk}/")
    phone.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null")
    scorer = api(club_setup["users"]["scorer"])
    answer = scorer.post(f"/api/deals/{deal.pk}/entries/", {
        "type": "end", "condition": "last_card", "player": 2, "hand_counts": [3, 4, 5, 1]}, format="json")
    assert answer.status_code == 201
    phone.get_by_role("heading", name="Deal 1 is over").wait_for(timeout=15_000)  # its poll saw it

    phone.context.set_offline(True)
    phone.reload()
    phone.get_by_role("heading", name="Deal 1 is over").wait_for()
    assert "as of" in kept_note(phone)
    shoot(phone, "offline-truth-watcher-reload")
    assert phone.js_errors == []


def test_a_conflict_over_this_tablets_own_stored_entry_says_so_and_offers_what_can_succeed(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    deal = velnias_deal(club_setup)
    scorer = club_setup["users"]["scorer"]
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")
    # This tablet stored the deal's end, but its screen never drew it (the answer came, the new
    # screen did not): what the tablet's online path remembers, its screen behind.
    key = page.evaluate("""async (url) => {
      const { post } = await import("/static/js/table/shared.js");
      const { openQueue } = await import("/static/js/offline/queue.js");
      const key = "online-" + crypto.randomUUID();
      const answer = await post(url, { type: "end", condition: "last_card", player: 1, hand_counts: [2, 3, 4, 5],
                                       idempotency_key: key, expected_seq: 0 });
      const queue = await openQueue();
      await queue.rememberSent(key);
      queue.close();
      return answer.status === 201 ? key : "status " + answer.status;
    }""", f"/api/deals/{deal.pk}/entries/")
    assert key.startswith("online-"), key
    page.context.set_offline(True)
    velnias_end(page, 1, [2, 3, 4, 5])  # the same end again, on the screen that did not show it
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    page.context.set_offline(False)

    dialog = page.get_by_role("dialog", name="Two versions of deal 1")
    dialog.wait_for(timeout=30_000)
    text = " ".join(dialog.inner_text().split())
    assert "Pašėlęs Velnias · Ona, Jonas, Rūta, Petras" in text
    assert "The server already holds entries this tablet sent before it heard back" in text
    assert "Another device" not in text and "another device" not in text
    assert "Reload and try again" not in text
    assert dialog.locator(".conflict-server .conflict-own").all_inner_texts() == ["from this tablet"]
    # The deal is over on the server: nothing can go after its end, so that is not offered.
    choices = dialog.locator("[data-choice]")
    assert choices.evaluate_all("bs => bs.map((b) => b.dataset.choice)") == ["keep_server", "use_mine"]
    assert dialog.locator("[data-choice=keep_server]").get_attribute("class") == "big primary"
    shoot(page, "offline-truth-conflict-velnias-finished")

    dialog.locator("[data-choice=keep_server]").click()
    expect(dialog).to_be_hidden(timeout=15_000)
    # The line says what is true now, within a second: nothing waits, all saved.
    expect(page.locator("#sync")).to_contain_text("All saved", timeout=2_000)
    expect(page.locator("#sync")).not_to_contain_text("choose which to keep")
    assert [e.idempotency_key for e in Entry.objects.filter(deal=deal, active=True)] == [key]
    assert page.js_errors == []


def test_the_sync_line_follows_real_answers_and_its_times_are_true(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    deal, page = ended_online(open_page, club_setup, 0, [1, 2, 3, 4])
    saved_at = time.strftime("%H:%M")
    line = page.locator("#sync")

    page.context.set_offline(True)
    expect(line).to_contain_text("Offline: nothing waiting", timeout=2_000)
    # The online save was a sync: its time is the one said, not an older one.
    assert re.search(r"last synced (\d\d:\d\d) \(now\)", line.inner_text()), line.inner_text()
    page.context.set_offline(False)
    expect(line).not_to_contain_text("Offline", timeout=1_500)
    expect(line).to_contain_text("All saved")
    assert saved_at[:2] in line.inner_text()

    # The relative time ticks on its own: two minutes later it says so without any new answer.
    page.clock.install()
    page.clock.fast_forward("02:30")
    expect(line).to_contain_text("minutes ago", timeout=15_000)
    assert page.js_errors == []


def test_signing_out_offline_says_what_happens_and_the_offline_page_says_why_nothing_is_kept(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    deal = velnias_deal(club_setup)
    scorer = club_setup["users"]["scorer"]
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/")
    page.context.set_offline(True)
    velnias_end(page, 2, [3, 4, 5, 1])  # one entry waits on the device
    page.get_by_role("heading", name="Deal 1 is over").wait_for()

    page.get_by_role("button", name=re.compile("Sign out")).click()
    dialog = page.get_by_role("dialog", name="No network: sign out on this tablet only?")
    dialog.wait_for()
    text = " ".join(dialog.inner_text().split())
    assert "Entries waiting on this tablet: 1." in text
    assert "The screens this tablet keeps for you are forgotten now." in text
    shoot(page, "offline-truth-sign-out")
    dialog.get_by_role("button", name="Sign out on this tablet").click()
    page.get_by_role("heading", name="Signed out on this tablet").wait_for()
    shoot(page, "offline-truth-signed-out")
    assert page.url.endswith(f"/deals/{deal.pk}/")  # never the browser's error page
    assert page.evaluate(QUEUE)["waiting"] != []  # the entry stays on the device

    page.goto(f"/deals/{deal.pk}/")
    assert page.locator("[data-offline-page]").count() == 1
    expect(page.locator("[data-forgotten]")).to_be_visible()
    expect(page.locator("[data-never-opened]")).to_be_hidden()

    # Back online, the sign-out reaches the server from the first page that loads.
    page.context.set_offline(False)
    page.goto("/")
    page.wait_for_url(re.compile(r"/login/"), timeout=15_000)
    assert page.js_errors == []


def test_the_sync_under_lost_answers_and_a_slow_network_stores_each_entry_once_in_order(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    """Four tricks recorded offline; back online, the first answer is lost after the server
    stored the trick, and every answer is slow (1.5 s): each trick is stored once, in order,
    and the screen is the server's deal."""
    from .conftest import rukas_deal
    from .test_offline_recording import record_trick
    from .test_offline_recording import rukas_deal as legal_tricks

    deal = rukas_deal(club_setup)
    page = open_ready(open_page, club_setup["users"]["scorer"], f"/deals/{deal.pk}/")
    page.context.set_offline(True)
    for seq, (order, ranks, _taker) in enumerate(legal_tricks(deal.dealer)[:4], start=1):
        record_trick(page, order, ranks, seq)
    # The screen draws each verdict before the device's storage has it: wait for the fourth there.
    expect(page.locator("#sync")).to_contain_text("4 entries kept on this device")
    waiting = page.evaluate(QUEUE)["waiting"]
    assert len(waiting) == 4

    seen: list[str] = []

    def faulty(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        seen.append(route.request.post_data_json["idempotency_key"])
        answer = route.fetch()  # the server stores it
        time.sleep(1.5)
        if len(seen) == 1:
            route.abort()  # ... and its answer never reaches the tablet
        else:
            route.fulfill(response=answer)

    page.context.route(re.compile(r"/api/deals/\d+/entries/$"), faulty)
    page.context.set_offline(False)
    page.get_by_role("heading", name=re.compile("Trick 5 of 13")).wait_for(timeout=60_000)
    expect(page.locator("#sync")).to_contain_text("All saved", timeout=10_000)
    stored = list(Entry.objects.filter(deal=deal).order_by("seq").values_list("seq", "idempotency_key", "active"))
    assert stored == [(n, key, True) for n, key in enumerate(waiting, start=1)]  # once each, in order
    assert seen[0] == seen[1] == waiting[0], seen  # the lost answer's entry was sent again, same key
    assert page.evaluate(QUEUE)["waiting"] == []
    assert page.js_errors == []


def test_a_deal_start_whose_answer_is_lost_is_the_deal_the_tablet_shows_and_the_server_starts_once(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    deal, page = ended_online(open_page, club_setup, 1, [2, 3, 4, 5])
    lost: list[str] = []

    def lose_the_answer(route: Any) -> None:
        body = route.request.post_data_json
        lost.append(body["client_id"])
        # The server starts the deal (as the request asked) ...
        services.deal_start(session=deal.session, user=club_setup["users"]["scorer"],
                            dealer=body.get("dealer"), client_id=body["client_id"])
        route.abort()  # ... and the tablet never hears

    page.context.route(re.compile(r"/api/sessions/\d+/deals/$"), lose_the_answer)
    page.get_by_role("button", name="Start deal 2").click()
    # Drawn by the tablet itself. The wait spans the server's own start of the deal, which runs
    # in this test's thread inside the route (on SQLite it queues behind the live server's
    # writes), then the abort and the engine's new deal: 10 s was once too short on a loaded
    # machine, never wrong.
    page.locator("form#form-end").wait_for(timeout=30_000)
    # (Chromium routes the request as the page sends it and again as the service worker lets it
    # through: one client id either way.)
    assert lost and set(lost) == {lost[0]} and lost[0].startswith("client-"), lost
    page.context.unroute(re.compile(r"/api/sessions/\d+/deals/$"))
    page.context.set_offline(True)
    reload_offline(page)
    page.locator("form#form-end").wait_for()
    assert "deal 2" in page.get_by_role("heading", level=1).inner_text()

    page.context.set_offline(False)
    page.wait_for_url(re.compile(rf"/deals/(?!{deal.pk}/)\d+/$"), timeout=60_000)
    assert Deal.objects.filter(session=deal.session).count() == 2  # the same deal, started once
    second = Deal.objects.get(session=deal.session, number=2)
    assert page.url.endswith(f"/deals/{second.pk}/")
    assert page.js_errors == []


def test_the_address_of_a_deal_started_here_shows_that_deal_offline_after_the_server_accepted_it(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    """The tablet starts deal 2 itself (the answer to its start was lost); the sync then has the
    server accept it and the screen moves to the server's page. Offline, the tablet's earlier
    address of that deal (a reload that raced the move, or the browser's back) is deal 2, never
    the finished deal 1 whose page it sits on."""
    deal, page = ended_online(open_page, club_setup, 1, [2, 3, 4, 5])
    page.context.route(re.compile(r"/api/sessions/\d+/deals/$"), lambda route: route.abort())
    page.get_by_role("button", name="Start deal 2").click()
    page.locator("form#form-end").wait_for(timeout=30_000)
    started_here = page.url
    assert "#client-" in started_here, started_here
    page.context.unroute(re.compile(r"/api/sessions/\d+/deals/$"))
    page.evaluate("window.dispatchEvent(new Event('online'))")  # the sync tries again at once
    page.wait_for_url(re.compile(rf"/deals/(?!{deal.pk}/)\d+/$"), timeout=60_000)
    second = Deal.objects.get(session=deal.session, number=2)
    page.locator("#deal[data-offline=ready]").wait_for(state="attached", timeout=60_000)

    page.context.set_offline(True)
    page.goto(started_here)
    page.wait_for_url(re.compile(rf"/deals/{second.pk}/$"), timeout=30_000)
    page.locator("form#form-end").wait_for()
    assert "deal 2" in page.get_by_role("heading", level=1).inner_text().lower()
    assert Deal.objects.filter(session=deal.session).count() == 2
    assert page.js_errors == []


def test_a_reload_after_a_sync_whose_new_screen_never_came_shows_the_synced_tricks(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]
) -> None:
    from .conftest import rukas_deal
    from .test_offline_recording import record_trick
    from .test_offline_recording import rukas_deal as legal_tricks

    deal = rukas_deal(club_setup)
    page = open_ready(open_page, club_setup["users"]["scorer"], f"/deals/{deal.pk}/")
    page.context.set_offline(True)
    for seq, (order, ranks, _taker) in enumerate(legal_tricks(deal.dealer)[:3], start=1):
        record_trick(page, order, ranks, seq)
    expect(page.locator("#sync")).to_contain_text("3 entries kept on this device")
    live = re.compile(rf"/deals/{deal.pk}/live/")
    refused: list[str] = []

    def never(route: Any) -> None:  # the server's screen never comes back
        refused.append(route.request.url)
        route.abort()

    page.context.route(live, never)
    page.context.set_offline(False)
    # Everything is sent; the line then says "All saved", or, once the refused screen has made the
    # server look unreachable again (the network gone, as far as the tablet can tell), "Offline:
    # nothing waiting": which one a busy machine shows first is a race the tablet rightly reports.
    expect(page.locator("#sync")).to_contain_text(re.compile("All saved|nothing waiting"), timeout=30_000)
    assert Entry.objects.filter(deal=deal, active=True).count() == 3
    # The sync says "All saved" as its last entry is stored and asks for the server's screen
    # just after; the refused answer can come a moment later on a busy machine.
    for _ in range(150):
        if refused:
            break
        page.wait_for_timeout(100)
    assert refused, "the screen asked for the server's screen and did not get it"
    page.context.set_offline(True)
    page.context.unroute(live)
    reload_offline(page)
    page.wait_for_selector("[data-live][data-seq='3']", state="attached")
    page.get_by_role("heading", name=re.compile("Trick 4 of 13")).wait_for()
    assert page.evaluate(QUEUE)["waiting"] == []
    page.context.set_offline(False)
    page.wait_for_function("document.querySelector('[data-live]').dataset.version.startsWith('3.')",
                           timeout=15_000)  # the server's own screen again, by its poll
    assert page.js_errors == []
