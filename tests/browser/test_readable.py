"""Readable everywhere, in real Chromium at both sizes: the summary is in the
reader's language throughout, numbers are written one way per language, the wall screen has no
header, and no page is wider than the phone."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from referee import services

from .conftest import PHONE, TABLET, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Words that only one of the two languages writes in a summary.
LITHUANIAN = ("padalijim", "moka", "minuse", "pliuse", "Rezultatai", "Geriausias", "Taškai", "taškai", "sumok",
              "Kas kam")
ENGLISH = ("deal ", "pays", "is down", "is up", "Standings", "Best single deal", "Who pays whom", "points")


@pytest.fixture
def closed_evening(club_setup: dict[str, Any]) -> Any:
    m = club_setup["members"]
    admin = club_setup["users"]["admin"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=admin, stake=Decimal("0.10"),
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    for counts in ([3, 2, 6, 1], [1, 4, 4, 2], [2, 2, 5, 3]):
        deal = services.deal_start(session=session, user=admin)
        services.entry_add(deal_id=deal.pk, user=admin, payload={
            "type": "end", "condition": "last_card", "player": 3, "hand_counts": counts})
    services.session_close(session=session, user=admin)
    return session


def summary_text(page: Any, session: Any) -> str:
    page.goto(f"/sessions/{session.pk}/")
    summary = page.locator("section.session-summary")
    summary.wait_for()
    return str(summary.inner_text())


@pytest.mark.parametrize("size", [TABLET, PHONE], ids=["tablet", "phone"])
def test_the_summary_speaks_the_readers_language(open_page: Any, club_setup: dict[str, Any], closed_evening: Any,
                                                 size: dict[str, int]) -> None:
    english = open_page(club_setup["users"]["admin"], language="en", size=size)
    text = summary_text(english, closed_evening)
    assert [word for word in LITHUANIAN if word in text] == []
    assert "Points x the stake: Velnias points are already who pays whom." in text
    assert "Petras is up 8.70 EUR: deal 1 +3.00, deal 2 +2.90, deal 3 +2.80." in text
    assert "Across: deal number; up: running total in points." in text
    assert re.search(r"\d,\d\d", text) is None  # 8.70, never 8,70, under English
    shoot(english, f"readable-summary-en-{size['width']}")

    lithuanian = open_page(club_setup["users"]["admin"], language="lt", size=size)
    text = summary_text(lithuanian, closed_evening)
    assert [word for word in ENGLISH if word in text] == []
    assert "Petras pliuse 8,70 EUR: 1 padalijimas +3,00, 2 padalijimas +2,90, 3 padalijimas +2,80." in text
    assert re.search(r"\d\.\d\d", text) is None  # 8,70, never 8.70, under Lithuanian
    assert "-0.00" not in text and "−0,00" not in text
    shoot(lithuanian, f"readable-summary-lt-{size['width']}")

    # The chart is stored once for every reader: it carries no words at all.
    svg = lithuanian.request.get(f"/sessions/{closed_evening.pk}/summary/chart.svg").text()
    assert [word for word in (*LITHUANIAN, *ENGLISH, "deal") if f">{word}" in svg] == []


def test_numbers_read_one_way_per_language(open_page: Any, club_setup: dict[str, Any], closed_evening: Any) -> None:
    member = club_setup["members"]["Petras"]
    for language, money, rating in (("lt", "8,70", re.compile(r"^−?\d+,\d$")),
                                    ("en", "8.70", re.compile(r"^−?\d+\.\d$"))):
        page = open_page(club_setup["users"]["admin"], language=language, size=PHONE)
        page.goto(f"/clubs/vilnius/members/{member.pk}/")
        rows = page.locator("section[aria-labelledby=games-h] tbody tr")
        assert rows.first.locator("td").nth(3).inner_text() == money
        assert rating.match(rows.first.locator("td").nth(4).inner_text())
        page.goto("/clubs/vilnius/leaderboard/?min_deals=1")
        first = page.locator("table.board tbody tr").first
        assert first.locator("th").inner_text() == "Petras"
        assert rating.match(first.locator("td").nth(1).inner_text())
        assert first.locator("td").last.inner_text() == money


@pytest.mark.parametrize("size", [TABLET, PHONE], ids=["tablet", "phone"])
def test_the_wall_screen_is_light_large_and_has_no_header(open_page: Any, club_setup: dict[str, Any],
                                                          closed_evening: Any, size: dict[str, int]) -> None:
    page = open_page(club_setup["users"]["admin"], size=size)
    page.goto("/clubs/vilnius/leaderboard/?min_deals=1")
    # The phone shows the ranking before the (folded) game and period choice.
    board = page.locator("table.board").bounding_box()
    filters = page.locator("details.filters")
    assert filters.get_attribute("open") is None
    assert filters.locator("summary").inner_text() == "Game and period: All games · All time"
    if size is PHONE:
        assert board["y"] < filters.bounding_box()["y"]
    page.goto("/clubs/vilnius/leaderboard/?min_deals=1&wall=1")
    assert page.locator("header, .site-head").count() == 0
    assert page.get_by_role("button", name=re.compile("Sign out")).count() == 0
    assert "theme-light" in (page.locator("html").get_attribute("class") or "")
    cell = page.locator("table.board tbody td").nth(1)
    assert float(cell.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")) >= 28
    shoot(page, f"readable-wall-{size['width']}")
