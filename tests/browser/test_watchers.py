"""Phones watching the table: a member's browser sees the scorer's entries within seconds,
without reloading, and never gets recording controls; the club's leaderboard reads on a wall."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee import services

from .conftest import PHONE, check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_second_browser_sees_the_tables_update(open_page: Any, club_setup: dict[str, Any]) -> None:
    m = club_setup["members"]
    scorer = club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="rukas", user=scorer, options={"notation": "lt"},
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]])
    deal = services.deal_start(session=session, user=scorer)
    table = open_page(scorer)
    table.goto(f"/deals/{deal.pk}/")
    phone = open_page(club_setup["users"]["member"], size=PHONE)
    phone.goto(f"/deals/{deal.pk}/")
    assert phone.get_by_role("button", name="Record the trick").count() == 0
    assert phone.get_by_text("Watching: updates arrive by themselves").is_visible()
    other_phone = open_page(club_setup["users"]["admin"], size=PHONE)
    other_phone.goto(f"/sessions/{session.pk}/")
    assert other_phone.get_by_text("Deal 1 is being played: 0 entries so far.").is_visible()

    pad = table.locator("[data-rank-pad]")
    for rank in ("3", "9", "9", "V", "4"):
        pad.get_by_role("button", name=rank, exact=True).click()
    table.get_by_role("button", name="Record the trick").click()
    table.get_by_text("Petras takes", exact=True).wait_for()

    # No reload on the phones: the deal screen and the session page update by themselves.
    phone.get_by_text("Petras takes", exact=True).wait_for(timeout=6_000)
    assert phone.locator("[data-conclusion]").inner_text().startswith("Petras takes the trick with V")
    other_phone.get_by_text("Deal 1 is being played: 1 entry so far.").wait_for(timeout=6_000)
    shoot(phone, "watcher-deal")
    check_a11y(phone)
    shoot(other_phone, "watcher-session")
    check_a11y(other_phone)


def test_a_second_tablet_sees_the_first_ones_entry_and_polls_answer_304(
    open_page: Any, club_setup: dict[str, Any]
) -> None:
    """Both tablets record; each sees the other's entry without reloading. While nothing
    changes the polls are answered 304 (the screen's version sent back, nothing rendered)."""
    m = club_setup["members"]
    scorer = club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="rukas", user=scorer, options={"notation": "lt"},
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]])
    deal = services.deal_start(session=session, user=scorer)
    first = open_page(scorer)
    first.goto(f"/deals/{deal.pk}/")
    second = open_page(club_setup["users"]["admin"])
    polls: list[int] = []
    second.on("response", lambda response: polls.append(response.status) if "/live/" in response.url else None)
    second.goto(f"/deals/{deal.pk}/")
    session_page = open_page(club_setup["users"]["member"], size=PHONE)
    session_polls: list[int] = []
    session_page.on("response", lambda r: session_polls.append(r.status) if "/live/" in r.url else None)
    session_page.goto(f"/sessions/{session.pk}/")
    second.wait_for_timeout(4_500)  # the tablet polls every 3 s, the session page every 3 s
    assert polls and set(polls) == {304}, polls
    assert session_polls and set(session_polls) == {304}, session_polls

    def record_trick(tablet: Any, ranks: tuple[str, ...]) -> None:
        pad = tablet.locator("[data-rank-pad]")
        for rank in ranks:
            pad.get_by_role("button", name=rank, exact=True).click()
        tablet.get_by_role("button", name="Record the trick").click()

    record_trick(first, ("3", "9", "9", "V", "4"))
    first.get_by_text("Petras takes", exact=True).wait_for()
    second.get_by_text("Petras takes", exact=True).wait_for(timeout=6_000)
    assert 200 in polls[polls.index(304):]
    assert second.locator("[data-conclusion]").inner_text().startswith("Petras takes the trick with V")
    session_page.get_by_text("Deal 1 is being played: 1 entry so far.").wait_for(timeout=6_000)
    # And back: the second tablet records, the first sees it.
    record_trick(second, ("5", "6", "K", "2", "3"))
    second.get_by_text("Ona takes", exact=True).wait_for()
    first.get_by_text("Ona takes", exact=True).wait_for(timeout=6_000)
    assert first.js_errors == [] and second.js_errors == [] and session_page.js_errors == []
    shoot(second, "second-tablet")


def test_the_leaderboard_per_game_and_on_the_wall(open_page: Any, club_setup: dict[str, Any]) -> None:
    m = club_setup["members"]
    scorer = club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    for counts in ([3, 2, 6, 1], [1, 4, 4, 2]):
        deal = services.deal_start(session=session, user=scorer)
        services.entry_add(deal_id=deal.pk, user=scorer, payload={
            "type": "end", "condition": "last_card", "player": 0, "hand_counts": counts})
    page = open_page(club_setup["users"]["member"])
    page.goto("/clubs/vilnius/leaderboard/?game=velnias&min_deals=1")
    page.get_by_role("heading", name="Leaderboard: Pašėlęs Velnias").wait_for()
    rows = page.locator("table.board tbody tr")
    assert rows.count() == 4
    assert rows.first.locator("th").inner_text() == "Ona"
    assert rows.first.locator("td").nth(2).inner_text() == "2"  # deals
    shoot(page, "leaderboard")
    check_a11y(page)
    page.get_by_role("link", name="Wall screen").click()
    page.wait_for_url(re.compile("wall=1"))
    assert page.locator("body.wall").count() == 1
    page.goto("/clubs/vilnius/leaderboard/?game=velnias&min_deals=1&wall=1&theme=light")
    shoot(page, "leaderboard-wall-light")
    check_a11y(page)
    page.get_by_role("link", name="Ona", exact=True).click()
    page.get_by_role("heading", name="Ona", exact=True).wait_for()
    page.get_by_label("Against").select_option(label="Jonas")
    page.get_by_role("button", name="Compare").click()
    page.get_by_text("Ona and Jonas played 2 deals together").wait_for()
    shoot(page, "member-history")
    check_a11y(page)
