"""A member's page on a phone (the rating chart, head to head with today's chance, the running
balance) and a season's table on the wall screen, in Chromium, checked with axe and shot."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.utils import timezone
from playwright.sync_api import expect

from referee import services
from scoring import seasons

from .conftest import PHONE, check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def evening_of_velnias(club_setup: dict[str, Any]) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    for table in (["admin", "scorer", "member", "Petras"], ["admin", "scorer", "Asta"]):
        session = services.session_start(club=club_setup["club"], game="velnias", user=scorer, stake=Decimal("0.10"),
                                         players=[m[name] for name in table])
        for n in range(4):
            deal = services.deal_start(session=session, user=scorer)
            counts = [0 if seat == n % len(table) else seat + 1 for seat in range(len(table))]
            services.entry_add(deal_id=deal.pk, user=scorer, payload={
                "type": "end", "condition": "empty_hand", "player": n % len(table), "hand_counts": counts})
        services.session_close(session=session, user=scorer)


def test_a_members_page_on_a_phone_and_a_season_on_the_wall(open_page: Any, club_setup: dict[str, Any]) -> None:
    evening_of_velnias(club_setup)
    m = club_setup["members"]
    today = timezone.localdate()
    season = seasons.season_create(club=club_setup["club"], user=club_setup["users"]["admin"], name="Žiema",
                                   start=today - timedelta(days=1), end=today + timedelta(days=60), best_of=5)
    page = open_page(club_setup["users"]["member"], size=PHONE)
    page.goto(f"/clubs/vilnius/members/{m['scorer'].pk}/?vs={m['admin'].pk}")
    chart = page.locator("svg.rating-chart")
    expect(chart).to_be_visible()
    assert chart.locator("a").count() == 2  # a dot per session, each a link
    expect(page.get_by_text(re.compile(r"Today Jonas finishes ahead of Ona with a chance of \d+%"))).to_be_visible()
    expect(page.locator(".member-facts")).to_contain_text("Running balance")
    box = chart.bounding_box()
    assert box is not None and box["width"] <= PHONE["width"]
    check_a11y(page)
    shoot(page, "member-phone")
    chart.locator("a").first.click()
    page.wait_for_url(re.compile(r"/sessions/\d+/$"))

    wall = open_page(club_setup["users"]["member"])
    wall.goto(f"/seasons/{season.pk}/?wall=1")
    rows = wall.locator(".season-row")
    expect(rows).to_have_count(5)
    first = rows.first
    assert first.locator(".season-place").inner_text() == "1"
    table = seasons.season_table(season)
    assert [r.locator(".season-name").inner_text() for r in rows.all()] == [r.name for r in table]
    assert float(first.locator(".season-score").inner_text()) == round(table[0].score, 1)
    check_a11y(wall)
    shoot(wall, "season-wall")
    assert page.js_errors == [] and wall.js_errors == []
