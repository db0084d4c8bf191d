"""Two tablets on one Rūkas deal in real Chromium, one of them offline (Playwright's offline
mode), and a server restarted while a tablet is offline.

- Tablet B (Ona) goes offline and records two tricks, refereed on the device; meanwhile
  tablet A (Jonas) records the first trick online. Back online, B's sync meets the 409 and B
  shows both versions. Each choice does what it says, checked through the API: keep the
  server's (A's trick only; B's two set aside), put mine after the server's (A's, then B's
  two, once each), use mine instead (asked once more; B's two, A's undone in the log with who
  chose). Nothing is lost: every trick entered is on the server or in B's set-aside list.
- A real gunicorn (tests/live_server.py) is killed and started again while the tablet is
  offline with two tricks waiting; the tablet comes back online while the server is still
  down, retries, and once the server answers every entry is stored exactly once, in order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.utils import translation
from playwright.sync_api import expect

from referee.games import explain_last
from referee.models import ChangeKind, DealChange
from referee.rules import GAMES
from tests.conftest import TABLET, is_postgres, sign_in
from tests.live_server import LiveServer, call, running_server

from .conftest import PHONE, SCREENSHOTS, rukas_deal, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: The other device's trick: every card cancels, nobody takes, and the same seat reveals
#: first again, so this tablet's tricks put on top of it get the verdicts the tablet gave.
OTHER = ["7", "7", "8", "8", "8"]
#: This tablet's two tricks (the seed trick: Petras takes with the jack; then the two takes).
MINE = [["3", "9", "9", "V", "4"], ["5", "6", "2", "6", "5"]]
#: Waiting for the sync and the engine: the engine's first load in Chromium takes seconds.
SLOW = 30_000

#: In the page: the device's queue and its set-aside list.
QUEUE = """async () => {
  const { openQueue } = await import("/static/js/offline/queue.js");
  const queue = await openQueue();
  const strip = (r) => ({ key: r.key, deal: r.deal, cards: r.payload ? r.payload.cards : null,
                          reason: r.reason || null });
  const answer = { waiting: (await queue.list()).map(strip), aside: (await queue.listAside()).map(strip) };
  queue.close();
  return answer;
}"""


def record_trick(page: Any, ranks: list[str]) -> None:
    pad = page.locator("[data-rank-pad]")
    for rank in ranks:
        pad.get_by_role("button", name=rank, exact=True).click()
    page.locator('button[form="form-trick"]').click()  # "Record the trick", in either language


def offline_ready(page: Any) -> None:
    """The tablet's engine is loaded: from now on it can record without the network."""
    page.wait_for_selector("#deal[data-offline='ready']", state="attached", timeout=SLOW)


def record_offline(page: Any) -> None:
    page.context.set_offline(True)
    for number, ranks in enumerate(MINE, start=1):
        record_trick(page, ranks)
        # The tablet's own referee answers at once: the next trick's form is drawn.
        page.wait_for_selector(f"[data-live][data-seq='{number}']", state="attached")
        page.locator("#form-trick h2", has_text=f"{number + 1}").wait_for()
    assert page.locator("[data-conclusion]").inner_text().strip(), "the verdict is on screen"


def stored(client: Any, deal: Any) -> list[tuple[int, list[str], str]]:
    entries = client.get(f"/api/deals/{deal.pk}/entries/").json()
    return [(e["seq"], e["payload"]["cards"], e["idempotency_key"]) for e in entries]


def two_tablets(open_page: Any, club_setup: dict[str, Any], api: Any,
                other_trick: list[str] = OTHER, language: str = "en") -> tuple[Any, Any, Any, Any]:
    """Tablet B offline with two tricks waiting; tablet A's trick on the server; B back online."""
    deal = rukas_deal(club_setup)
    users = club_setup["users"]
    other = open_page(users["scorer"])
    mine = open_page(users["admin"], language=language)
    other.goto(f"/deals/{deal.pk}/")
    mine.goto(f"/deals/{deal.pk}/")
    offline_ready(mine)
    record_offline(mine)
    record_trick(other, other_trick)
    other.get_by_role("heading", name=re.compile("Trick 2 of 13")).wait_for()
    client = api(users["scorer"])
    assert [cards for _seq, cards, _key in stored(client, deal)] == [other_trick]
    waiting = mine.evaluate(QUEUE)["waiting"]
    assert [r["cards"] for r in waiting] == MINE
    mine.context.set_offline(False)
    return deal, mine, client, waiting


def both_versions(page: Any) -> Any:
    dialog = page.get_by_role("dialog", name="Two versions of deal 1")
    dialog.wait_for(timeout=SLOW)
    server = [" ".join(t.split()) for t in dialog.locator(".conflict-server li").all_inner_texts()]
    mine = [" ".join(t.split()) for t in dialog.locator(".conflict-mine li").all_inner_texts()]
    # The verdicts as the recording screen words them (the game's drawer, in the page's language),
    # not the engine's own English text.
    assert server == ["#1 trick: 7 7 8 8 8 Nobody takes the trick: the cards 7 of Ona, Jonas cancel each other; "
                      "the cards 8 of Rūta, Petras, Asta cancel each other; no card is left in play. "
                      "No point; Ona reveals first again."]
    assert [line.split(" ", 3)[:3] for line in mine] == [["#1", "trick:", "3"], ["#2", "trick:", "5"]]
    assert mine[0] == ("#1 trick: 3 9 9 V 4 Petras takes the trick with V: the cards 9 of Jonas, Rūta cancel each "
                       "other; V is the highest card in play; no 10 is in play to take from V.")
    return dialog


def listed_aside(page: Any, reason: str) -> None:
    """The screen lists the set-aside tricks where the dialog said they would be."""
    box = page.locator("#set-aside")
    box.locator("summary", has_text="Set aside on this device (2)").wait_for(timeout=SLOW)
    box.locator("summary").click()
    items = [" ".join(t.split()) for t in box.locator("li").all_inner_texts()]
    assert [item.split(" · ")[0] for item in items] == ["#1 trick: 3 9 9 V 4", "#2 trick: 5 6 2 6 5"]
    assert all(reason in item for item in items), items


def test_keep_the_servers_version(open_page: Any, club_setup: dict[str, Any], api: Any,
                                  built_engine: dict[str, Any]) -> None:
    deal, mine, client, waiting = two_tablets(open_page, club_setup, api)
    dialog = both_versions(mine)
    dialog.get_by_role("button", name="Keep the server's").click()
    dialog.wait_for(state="detached", timeout=SLOW)
    assert [cards for _seq, cards, _key in stored(client, deal)] == [OTHER]
    queue = mine.evaluate(QUEUE)
    assert queue["waiting"] == []
    assert [(r["key"], r["cards"], r["reason"]) for r in queue["aside"]] == [
        (r["key"], r["cards"], "keep_server") for r in waiting]
    listed_aside(mine, "the server's version was kept")
    assert mine.js_errors == []


def test_put_mine_on_top_of_the_servers(open_page: Any, club_setup: dict[str, Any], api: Any,
                                        built_engine: dict[str, Any]) -> None:
    deal, mine, client, waiting = two_tablets(open_page, club_setup, api)
    dialog = both_versions(mine)
    dialog.get_by_role("button", name="Put mine after the server's").click()
    dialog.wait_for(state="detached", timeout=SLOW)
    mine.wait_for_function("document.querySelector('#sync').dataset.state === 'saved'", timeout=SLOW)
    entries = stored(client, deal)
    assert [(seq, cards) for seq, cards, _key in entries] == [(1, OTHER), (2, MINE[0]), (3, MINE[1])]
    assert [key for _seq, _cards, key in entries[1:]] == [r["key"] for r in waiting]  # each stored once
    queue = mine.evaluate(QUEUE)
    assert queue == {"waiting": [], "aside": []}
    # The screen shows the server's deal: three tricks recorded, the fourth to enter.
    mine.get_by_role("heading", name=re.compile("Trick 4 of 13")).wait_for(timeout=SLOW)
    assert mine.js_errors == []


#: The other device's trick taken by the seven after Rūta's ace: Asta reveals first next, so
#: on top of it this tablet's tricks are refereed again with other verdicts than it gave.
LEAD_MOVED = ["8", "T", "K", "D", "7"]


def test_mine_on_top_of_a_trick_that_moved_the_lead_is_refereed_again(
    open_page: Any, club_setup: dict[str, Any], api: Any, built_engine: dict[str, Any]
) -> None:
    deal, mine, client, waiting = two_tablets(open_page, club_setup, api, other_trick=LEAD_MOVED)
    dialog = mine.get_by_role("dialog", name="Two versions of deal 1")
    dialog.wait_for(timeout=SLOW)
    dialog.get_by_role("button", name="Put mine after the server's").click()
    dialog.wait_for(state="detached", timeout=SLOW)
    # The scorer chose: the server's verdicts on top are the answer, not a second conflict.
    mine.wait_for_function("document.querySelector('#sync').dataset.state === 'saved'", timeout=SLOW)
    assert mine.locator("dialog.conflict").count() == 0
    entries = client.get(f"/api/deals/{deal.pk}/entries/").json()
    assert [(e["seq"], e["payload"]["cards"], e["idempotency_key"]) for e in entries[1:]] == [
        (2, MINE[0], waiting[0]["key"]), (3, MINE[1], waiting[1]["key"])]
    assert (entries[0]["seq"], entries[0]["payload"]["cards"]) == (1, LEAD_MOVED)
    assert entries[1]["result"]["text"].startswith("Rūta takes the trick with the jack")
    assert mine.evaluate(QUEUE) == {"waiting": [], "aside": []}
    assert mine.js_errors == []


def test_use_mine_asks_first_then_replaces_the_servers_trick_in_one_step(
    open_page: Any, club_setup: dict[str, Any], api: Any, built_engine: dict[str, Any]
) -> None:
    deal, mine, client, waiting = two_tablets(open_page, club_setup, api)
    dialog = both_versions(mine)
    assert " ".join(dialog.inner_text().split()).count("Another device recorded in this deal") == 1
    assert dialog.locator("[data-choice]").evaluate_all("bs => bs.map((b) => b.dataset.choice)") == [
        "keep_server", "mine_on_top", "use_mine"]
    for size, label in ((TABLET, "tablet"), (PHONE, "phone")):
        mine.set_viewport_size(size)
        mine.screenshot(path=str(SCREENSHOTS / f"offline-conflict-rukas-trick-{label}.png"))
    mine.set_viewport_size(TABLET)
    dialog.get_by_role("button", name="Use mine instead of the server's").click()
    assert dialog.get_by_text("Use this tablet's entries instead of the server's?").is_visible()
    assert mine.evaluate(QUEUE)["waiting"] != [], "nothing happens before the second answer"
    dialog.get_by_role("button", name="Back").click()
    dialog.get_by_role("button", name="Use mine instead of the server's").click()
    dialog.get_by_role("button", name="Yes, use mine").click()
    dialog.wait_for(state="detached", timeout=SLOW)
    entries = stored(client, deal)
    assert [(seq, cards) for seq, cards, _key in entries] == [(1, MINE[0]), (2, MINE[1])]
    assert [key for _seq, _cards, key in entries] == [r["key"] for r in waiting]
    assert mine.evaluate(QUEUE) == {"waiting": [], "aside": []}
    # Nothing deleted: the other device's trick is in the log, undone, with who chose.
    change = DealChange.objects.get(deal=deal)
    assert (change.kind, change.replaced.payload["cards"], change.author) == (
        ChangeKind.TABLET_VERSION, OTHER, club_setup["users"]["admin"])
    mine.get_by_role("heading", name=re.compile("Trick 3 of 13")).wait_for(timeout=SLOW)
    expect(mine.locator("#sync")).to_contain_text("All saved", timeout=5_000)
    assert mine.js_errors == []


def test_the_verdicts_in_the_dialog_are_in_the_sessions_language(
    open_page: Any, club_setup: dict[str, Any], api: Any, built_engine: dict[str, Any]
) -> None:
    """The engine's own text of a verdict is English; a Lithuanian tablet says both sides'
    verdicts as its recording screen does, word for word the server's explain() in Lithuanian."""
    deal, mine, _client, _waiting = two_tablets(open_page, club_setup, api, language="lt")
    dialog = mine.locator("dialog.conflict")
    dialog.wait_for(timeout=SLOW)
    dialog.locator(".conflict-server li").first.wait_for()
    assert dialog.locator(".conflict-verdict[lang]").count() == 0, "no verdict falls back to the English text"
    server = dialog.locator(".conflict-server .conflict-verdict").all_inner_texts()
    mine_said = dialog.locator(".conflict-mine .conflict-verdict").all_inner_texts()
    game, names = GAMES["rukas"], ["Ona", "Jonas", "Rūta", "Petras", "Asta"]  # rukas_deal's seats
    state = game.new_deal(players=5, dealer=deal.dealer, options={"notation": "lt"})
    with translation.override("lt"):
        other = game.apply(state, {"type": "trick", "cards": OTHER})
        assert server == [" ".join(explain_last("rukas", game.view(other), names, "lt"))]
        first = game.apply(state, {"type": "trick", "cards": MINE[0]})
        second = game.apply(first, {"type": "trick", "cards": MINE[1]})
        assert mine_said == [" ".join(explain_last("rukas", game.view(s), names, "lt")) for s in (first, second)]
    assert not server[0].startswith("Nobody"), "not the engine's English text"
    shoot(mine, "offline-conflict-lt")
    assert mine.js_errors == []


# -- the server restarted while the tablet is offline ---------------------------------------------

@pytest.fixture
def gunicorn(tmp_path: Path, built_engine: dict[str, Any]) -> Iterator[tuple[LiveServer, dict[str, Any]]]:
    # One process on four threads: a browser asks several things at once (the page, its static
    # files, the poll, the sync).
    with running_server(tmp_path, settings.DATABASES["default"] if is_postgres() else None,
                        workers=1, threads=4) as served:
        yield served


def test_the_server_restarts_while_the_tablet_is_offline(
    browser: Any, gunicorn: tuple[LiveServer, dict[str, Any]]
) -> None:
    live, seeded = gunicorn
    token = seeded["token"]
    status, session = call(live.port, "POST", "/api/sessions/", {
        "club": "vilnius", "game": "rukas", "players": seeded["members"][:5], "options": {"notation": "lt"}}, token)
    assert status == 201, session
    status, deal = call(live.port, "POST", f"/api/sessions/{session['id']}/deals/", {"dealer": 4}, token)
    assert status == 201, deal
    url = f"http://127.0.0.1:{live.port}"
    context = browser.new_context(viewport=TABLET, locale="en", base_url=url)
    context.add_cookies([{"name": "django_language", "value": "en", "url": url}])
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        sign_in(page, "scorer")
        page.goto(f"/deals/{deal['id']}/")
        offline_ready(page)
        record_offline(page)
        waiting = page.evaluate(QUEUE)["waiting"]
        assert [r["cards"] for r in waiting] == MINE

        live.kill()  # SIGKILL, no goodbye
        context.set_offline(False)  # back online while the server is still down: the sync retries
        page.wait_for_function("['retrying', 'offline'].includes(document.querySelector('#sync').dataset.state)",
                               timeout=SLOW)
        assert len(page.evaluate(QUEUE)["waiting"]) == 2, "nothing leaves the queue while the server is down"
        live.start()
        page.wait_for_function("document.querySelector('#sync').dataset.state === 'saved'", timeout=60_000)

        status, entries = call(live.port, "GET", f"/api/deals/{deal['id']}/entries/?all=1", token=token)
        assert status == 200, entries
        assert [(e["seq"], e["payload"]["cards"], e["idempotency_key"], e["active"]) for e in entries] == [
            (1, MINE[0], waiting[0]["key"], True), (2, MINE[1], waiting[1]["key"], True)]
        assert page.evaluate(QUEUE) == {"waiting": [], "aside": []}
        page.get_by_role("heading", name=re.compile("Trick 3 of 13")).wait_for(timeout=SLOW)
        assert errors == []
    finally:
        context.close()
