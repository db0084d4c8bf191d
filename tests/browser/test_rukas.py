"""Rūkas in the browser: a seed trick tapped in on the rank pad, its explanation, undo, and a
reload in the middle of the deal losing nothing."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect

from referee import services
from referee.models import Entry

from .boxes import record_clear_of_controls
from .conftest import PHONE, TABLET, check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def start_rukas(club_setup: dict[str, Any]) -> Any:
    m = club_setup["members"]
    session = services.session_start(
        club=club_setup["club"], game="rukas", user=club_setup["users"]["scorer"],
        players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]], options={"notation": "lt"},
    )
    return services.deal_start(session=session, user=club_setup["users"]["scorer"])


def tap_trick(page: Any, ranks: list[str]) -> None:
    pad = page.locator("[data-rank-pad]")
    for rank in ranks:
        pad.get_by_role("button", name=rank, exact=True).click()


def test_a_seed_trick_is_explained_then_undone(open_page: Any, club_setup: dict[str, Any]) -> None:
    deal = start_rukas(club_setup)
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    shoot(page, "rukas-1-empty")
    check_a11y(page)
    tap_trick(page, ["3", "9", "9", "V", "4"])
    slots = page.locator("[data-card-input]")
    assert [slots.nth(i).input_value() for i in range(5)] == ["3", "9", "9", "V", "4"]
    held: list[Any] = []
    page.route("**/api/deals/*/entries/", lambda route: held.append(route))  # the server is slow to answer
    page.get_by_role("button", name="Record the trick").click()
    page.wait_for_function("document.querySelector('#sync').dataset.state === 'saving'")
    expect(page.locator("#sync")).to_have_text("Saving…")
    shoot(page, "rukas-2-saving")
    # The screen says "Saving…" as the entry enters the tablet's queue, a moment before the
    # queue's request leaves: wait until the route holds it.
    for _ in range(200):
        if held:
            break
        page.wait_for_timeout(50)
    held[0].continue_()
    page.get_by_text("Petras takes", exact=True).wait_for()
    page.unroute("**/api/deals/*/entries/")
    assert page.locator("[data-conclusion]").inner_text() == (
        "Petras takes the trick with V: the cards 9 of Jonas, Rūta cancel each other; V is the highest card in play; "
        "no 10 is in play to take from V."
    )
    expect(page.locator("#sync")).to_have_text("Saved.")
    assert [e.payload for e in Entry.objects.filter(deal=deal, active=True)] == [
        {"type": "trick", "cards": ["3", "9", "9", "V", "4"]}
    ]
    shoot(page, "rukas-3-taken")
    check_a11y(page)

    page.get_by_role("button", name=re.compile("Undo: the trick 3 9 9 V 4")).click()
    page.get_by_text("Trick 1 of 13 · Ona reveals first").wait_for()
    expect(page.locator("#sync")).to_have_text("Undone.")
    assert Entry.objects.filter(deal=deal, active=True).count() == 0
    assert page.locator("[data-conclusion]").count() == 0
    assert page.js_errors == []


def test_a_played_rank_is_refused_on_the_pad_and_by_the_referee(open_page: Any, club_setup: dict[str, Any]) -> None:
    deal = start_rukas(club_setup)
    services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": ["3", "9", "9", "V", "4"]},
                       user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    # Petras took the trick and reveals first: his V is spent, so the pad refuses it and says why.
    assert page.get_by_text("Trick 2 of 13 · Petras reveals first").is_visible()
    v_button = page.locator("[data-rank-pad]").get_by_role("button", name="V", exact=True)
    assert v_button.get_attribute("aria-disabled") == "true"
    v_button.scroll_into_view_if_needed()
    page.locator("[data-rank-pad]").evaluate("pad => pad.scrollIntoView({block: 'center'})")  # clear of the Record bar
    v_button.click(force=True)  # a tap on a disabled rank still explains itself
    assert page.locator("[data-pad-msg]").inner_text() == "Petras has already played V this deal."
    # Typed anyway, the referee refuses it, next to Petras's card.
    page.locator("#card-3").fill("V")
    for seat, rank in ((4, "2"), (0, "K"), (1, "D"), (2, "T")):
        page.locator(f"#card-{seat}").fill(rank)
    page.locator("#card-2").press("Enter")
    error = page.locator('[data-error-for-player="Petras"]')
    error.wait_for()
    assert error.inner_text() == (
        "Petras has already played their V this deal; they still hold 2, 3, 4, 5, 6, 7, 8, 9, 10, D, K, T."
    )
    assert page.locator("#card-3").get_attribute("aria-invalid") == "true"
    assert Entry.objects.filter(deal=deal, active=True).count() == 1
    shoot(page, "rukas-4-refused")


def test_a_reload_in_the_middle_of_a_deal_loses_nothing(open_page: Any, club_setup: dict[str, Any]) -> None:
    deal = start_rukas(club_setup)
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    tap_trick(page, ["3", "9", "9", "V", "4"])
    page.get_by_role("button", name="Record the trick").click()
    page.get_by_text("Petras takes", exact=True).wait_for()
    # The network drops: the next trick's requests fail, the screen says it keeps retrying.
    page.route("**/api/deals/*/entries/", lambda route: route.abort())
    tap_trick(page, ["K", "D", "10", "8", "2"])
    page.get_by_role("button", name="Record the trick").click()
    page.wait_for_function("document.querySelector('#sync').dataset.state === 'retrying'")
    expect(page.locator("#sync")).to_contain_text("Retrying")
    expect(page.locator("#sync")).to_contain_text("kept on this device")
    # Kept in the device's queue (the one outbox), not beside it in localStorage.
    kept = page.evaluate("""async () => {
      const { openQueue } = await import('/static/js/offline/queue.js');
      return (await (await openQueue()).list())[0];
    }""")
    assert kept["payload"] == {"type": "trick", "cards": ["K", "D", "10", "8", "2"]}
    assert kept["online"] is True and kept["deal"] == deal.pk
    assert page.evaluate(f"localStorage.getItem('kortos.pending.{deal.pk}')") is None
    shoot(page, "rukas-5-retrying")
    # The scorer reloads with the connection back: the kept entry is sent with its key, once.
    page.unroute("**/api/deals/*/entries/")
    page.reload()
    page.get_by_text("Trick 3 of 13").wait_for()
    # The line says so once the device's queue has answered too (a moment later on a busy machine).
    try:
        page.wait_for_function("document.querySelector('#sync').dataset.state === 'saved'", timeout=30_000)
    except Exception as timeout:  # say what the line said instead, and what the device holds
        said = page.evaluate("""async () => {
          const line = document.querySelector('#sync');
          const { openQueue } = await import('/static/js/offline/queue.js');
          const queue = await openQueue();
          return { state: line.dataset.state, text: line.textContent, waiting: (await queue.list()).length,
                   pending: Object.keys(localStorage).filter((k) => k.startsWith('kortos.')) };
        }""")
        raise AssertionError(f"the sync line never said 'saved': {said}") from timeout
    entries = list(Entry.objects.filter(deal=deal, active=True).order_by("seq"))
    assert [e.payload["cards"] for e in entries] == [["3", "9", "9", "V", "4"], ["K", "D", "10", "8", "2"]]
    assert entries[1].idempotency_key == kept["key"]
    assert page.evaluate(f"localStorage.getItem('kortos.pending.{deal.pk}')") is None


def test_an_entry_kept_the_old_way_before_an_update_is_sent_once(open_page: Any, club_setup: dict[str, Any]) -> None:
    """A tablet updated mid-evening with an entry still in localStorage (the old online path's
    "kortos.pending.<deal>"): the page takes it into the queue, sends it with its key, and
    forgets the old copy."""
    deal = start_rukas(club_setup)
    page = open_page(club_setup["users"]["scorer"])
    # Kept from another page (the recording screen would read it as it starts, before this).
    page.goto("/")
    page.evaluate("""(deal) => localStorage.setItem('kortos.pending.' + deal, JSON.stringify({
      form: 'form-trick', key: 'kept-before-the-update',
      payload: { type: 'trick', cards: ['3', '9', '9', 'V', '4'] }, expected_seq: 0, at: Date.now() }))""", deal.pk)
    page.goto(f"/deals/{deal.pk}/")
    page.get_by_text("Petras takes", exact=True).wait_for()
    expect(page.locator("#sync")).to_have_text("Saved.")
    assert page.evaluate(f"localStorage.getItem('kortos.pending.{deal.pk}')") is None
    page.reload()
    page.get_by_text("Trick 2 of 13").wait_for()
    entries = list(Entry.objects.filter(deal=deal))
    assert [(e.seq, e.idempotency_key) for e in entries] == [(1, "kept-before-the-update")]
    assert page.js_errors == []


def test_a_lost_response_is_retried_with_the_same_key_and_stored_once(
    open_page: Any, club_setup: dict[str, Any]
) -> None:
    deal = start_rukas(club_setup)
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    lost = []

    def lose_first_response(route: Any) -> None:
        if not lost:
            lost.append(route.fetch())  # the server stores the entry, but the tablet never hears back
            route.abort()
        else:
            route.continue_()

    page.route("**/api/deals/*/entries/", lose_first_response)
    tap_trick(page, ["3", "9", "9", "V", "4"])
    page.get_by_role("button", name="Record the trick").click()
    page.get_by_text("Petras takes", exact=True).wait_for()
    assert lost[0].status == 201
    entries = list(Entry.objects.filter(deal=deal))
    assert len(entries) == 1 and entries[0].seq == 1
    expect(page.locator("#sync")).to_have_text("Saved.")


def wholly_on_screen(page: Any, selector: str) -> bool:
    """The element's whole box is inside the viewport and nothing else lies over its centre."""
    return bool(page.evaluate("""(sel) => {
      const el = document.querySelector(sel);
      const r = el.getBoundingClientRect();
      if (r.top < 0 || r.left < 0 || r.bottom > innerHeight + 0.5 || r.right > innerWidth + 0.5) return false;
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !!hit && el.contains(hit);
    }""", selector))


@pytest.mark.parametrize("size", [pytest.param(TABLET, id="tablet"), pytest.param(PHONE, id="phone")])
def test_the_rank_pad_and_record_are_on_screen_without_scrolling(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int]
) -> None:
    """A trick being entered: the whole rank pad and the Record button are on screen as the page
    opens (nothing scrolled) and after every tap, and the button lies over no slot or rank."""
    deal = start_rukas(club_setup)
    services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": ["3", "9", "9", "V", "4"]},
                       user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"], size=size)
    record = "Record the trick"
    for step in ("the first trick", "a trick after a verdict"):
        if step == "the first trick":
            fresh = start_rukas(club_setup)
            page.goto(f"/deals/{fresh.pk}/")
        else:
            page.goto(f"/deals/{deal.pk}/")
            page.locator("[data-conclusion]").wait_for()
        assert wholly_on_screen(page, "[data-rank-pad]"), f"{step}: the rank pad is not wholly on screen"
        assert wholly_on_screen(page, "[data-rank-pad] button:last-child"), f"{step}: the pad's last key is hidden"
        record_clear_of_controls(page, record, f"{step}, as the page opens")
        pad = page.locator("[data-rank-pad]")
        for rank in ("K", "D", "10", "8", "2"):
            pad.get_by_role("button", name=rank, exact=True).click()
            assert wholly_on_screen(page, "[data-rank-pad]"), f"{step}: the pad left the screen after {rank}"
            record_clear_of_controls(page, record, f"{step}, {rank} tapped")
    # Petras took the first trick and reveals first: the ranks went to him and round the table.
    assert [page.locator(f"#card-{seat}").input_value() for seat in (3, 4, 0, 1, 2)] == ["K", "D", "10", "8", "2"]
    shoot(page, f"rukas-6-pad-in-reach-{size['width']}")
    check_a11y(page)
    page.get_by_role("button", name=record).click()
    page.get_by_text("Trick 3 of 13", exact=False).first.wait_for()
    assert Entry.objects.filter(deal=deal, active=True).count() == 2
    assert page.js_errors == []
