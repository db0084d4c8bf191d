"""Seat order at a session's start, in real Chromium: tap the players in the order
they sit (a tap again takes a player out), drag or use the arrows to change it, on a tablet and
on a phone; without JavaScript the ticks and typed seat numbers still do it."""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import Session

from .conftest import PHONE, TABLET, check_a11y, shoot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def row(page: Any, kind: str, name: str) -> Any:
    """The member's tap target (``.seat-pick``) or their row at the table (``.seat-item``), by exact name."""
    return page.locator(kind).filter(has=page.locator(".seat-name").get_by_text(name, exact=True))


def tap(page: Any, name: str) -> None:
    row(page, ".seat-pick", name).click()


def badges(page: Any, names: list[str]) -> list[str]:
    return [row(page, ".seat-pick", name).locator(".seat-no").inner_text() for name in names]


def at_the_table(page: Any) -> list[str]:
    return page.locator("[data-seat-order] .seat-name").all_inner_texts()


def seated() -> list[str]:
    session = Session.objects.get()
    return [seat.member.name for seat in session.seats.select_related("member").order_by("number")]


def drag(page: Any, name: str, onto: str) -> None:
    """Press on ``name``'s row at the table, move it over ``onto``'s row's top edge, let go."""
    item = row(page, ".seat-item", name).bounding_box()
    target = row(page, ".seat-item", onto).bounding_box()
    page.mouse.move(item["x"] + 30, item["y"] + item["height"] / 2)
    page.mouse.down()
    for step in range(1, 9):
        y = item["y"] + item["height"] / 2 + (target["y"] + 4 - item["y"] - item["height"] / 2) * step / 8
        page.mouse.move(item["x"] + 30, y)
    page.mouse.up()


@pytest.mark.parametrize("size", [TABLET, PHONE], ids=["tablet", "phone"])
def test_seats_by_taps_and_drag(open_page: Any, club_setup: dict[str, Any], size: dict[str, int]) -> None:
    page = open_page(club_setup["users"]["scorer"], size=size)
    page.goto("/clubs/vilnius/sessions/new/")
    page.locator("label.tile", has_text="Rūkas").click()
    assert page.get_by_text("Nobody is seated yet: tap the players above.").is_visible()
    assert not page.get_by_label("Seat of Ona").is_visible()  # typing is the fallback without JavaScript
    for name in ("Rūta", "Ona", "Petras", "Jonas"):
        tap(page, name)
    assert badges(page, ["Rūta", "Ona", "Petras", "Jonas", "Asta"]) == ["1", "2", "3", "4", ""]
    assert at_the_table(page) == ["Rūta", "Ona", "Petras", "Jonas"]
    tap(page, "Ona")  # a tap again takes Ona out; the others close up
    assert badges(page, ["Rūta", "Ona", "Petras", "Jonas"]) == ["1", "", "2", "3"]
    assert page.locator("[data-seat-said]").inner_text() == "Ona is not seated"
    tap(page, "Ona")
    assert at_the_table(page) == ["Rūta", "Petras", "Jonas", "Ona"]
    page.get_by_role("button", name="Move Ona one seat earlier").click()
    assert at_the_table(page) == ["Rūta", "Petras", "Ona", "Jonas"]
    assert page.locator("[data-seat-said]").inner_text() == "Ona: seat 3"
    drag(page, "Jonas", onto="Rūta")
    assert at_the_table(page) == ["Jonas", "Rūta", "Petras", "Ona"]
    assert badges(page, ["Jonas", "Rūta", "Petras", "Ona"]) == ["1", "2", "3", "4"]
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    if size == TABLET:  # shoot() takes both sizes
        shoot(page, "session-start-seats")
    check_a11y(page)
    page.get_by_role("button", name="Start the session").click()
    page.get_by_role("heading", name="Rūkas: deal 1").wait_for()
    assert seated() == ["Jonas", "Rūta", "Petras", "Ona"]
    assert page.js_errors == []


def test_a_refused_start_keeps_the_tapped_order(open_page: Any, club_setup: dict[str, Any]) -> None:
    page = open_page(club_setup["users"]["scorer"])
    page.goto("/clubs/vilnius/sessions/new/")
    page.locator("label.tile", has_text="Pašėlęs Velnias").click()
    for name in ("Petras", "Ona"):
        tap(page, name)
    page.get_by_role("button", name="Start the session").click()
    page.locator("#players-error").wait_for()
    assert page.locator("#players-error").inner_text() == (
        "Pašėlęs Velnias is played by 3 to 8 players; 2 chosen.")
    assert at_the_table(page) == ["Petras", "Ona"]
    tap(page, "Rūta")
    page.get_by_role("button", name="Start the session").click()
    page.get_by_role("heading", name="Pašėlęs Velnias: deal 1").wait_for()
    assert seated() == ["Petras", "Ona", "Rūta"]


def test_without_javascript_the_ticks_and_typed_seats_still_work(browser: Any, live_server: Any,
                                                                 club_setup: dict[str, Any]) -> None:
    context = browser.new_context(viewport=PHONE, locale="en", base_url=live_server.url, java_script_enabled=False)
    context.add_cookies([{"name": "django_language", "value": "en", "url": live_server.url}])
    try:
        page = context.new_page()
        page.set_default_timeout(10_000)
        sign_in(page, "scorer")
        page.goto("/clubs/vilnius/sessions/new/")
        assert not page.get_by_text("Nobody is seated yet").is_visible()
        page.locator("input[name=game][value]").nth(0).wait_for(state="attached")
        page.locator("label.tile", has_text="Rūkas").click()
        for name, seat in (("Asta", "2"), ("Tomas", "1"), ("Eglė", "3")):
            page.get_by_label(name, exact=True).check()
            page.get_by_label(f"Seat of {name}").fill(seat)
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        shoot(page, "session-start-seats-no-js")
        page.get_by_role("button", name="Start the session").click()
        page.get_by_role("heading", name="Rūkas: deal 1").wait_for()
        assert seated() == ["Tomas", "Asta", "Eglė"]
    finally:
        context.close()
