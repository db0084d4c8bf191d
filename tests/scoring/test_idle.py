"""Inactivity: when the club lets uncertainty grow while members are away, a member who stopped
playing drops on the leaderboard, with how long they have been away shown."""

from __future__ import annotations

import math
from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from scoring import selectors
from scoring.models import MemberDay, RatingSettings
from tests.scoring.helpers import close, play, start, velnias_end

pytestmark = pytest.mark.django_db


def test_a_member_away_six_weeks_is_less_certain(club_setup: dict[str, Any]) -> None:
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    for _ in range(3):
        play(club_setup, session, [velnias_end("empty_hand", 0, [0, 2, 3])])
    close(club_setup, session)
    club, ona = club_setup["club"], club_setup["members"]["admin"]
    before = {row["name"]: row for row in selectors.leaderboard(club, game="velnias", min_deals=1)["ranked"]}
    # Ona last played six weeks and two days ago.
    MemberDay.objects.filter(member=ona).update(day=timezone.localdate() - timedelta(days=44))
    same = {row["name"]: row for row in selectors.leaderboard(club, game="velnias", min_deals=1)["ranked"]}
    assert same["Ona"]["rating"] == before["Ona"]["rating"] and "idle_weeks" not in same["Ona"]  # the setting is off
    RatingSettings.objects.create(club=club, idle_sigma_per_week=1.0)
    board = selectors.leaderboard(club, game="velnias", min_deals=1)
    after = {row["name"]: row for row in board["ranked"]}
    sigma = before["Ona"]["rating"]["sigma"]
    grown = math.sqrt(sigma**2 + 6.0**2)
    assert after["Ona"]["idle_weeks"] == 6
    assert after["Ona"]["rating"]["sigma"] == pytest.approx(grown, abs=5e-3)  # (the board rounds to 3 places)
    assert after["Ona"]["rating"]["ordinal"] == pytest.approx(before["Ona"]["rating"]["mu"] - 3 * grown, abs=2e-2)
    assert board["ranked"][0]["name"] != "Ona" and before["Ona"]["rank"] == 1  # she led; away, she does not
    assert after["Jonas"]["idle_weeks"] == 0


def test_only_an_admin_sets_it(club_setup: dict[str, Any], client: Any) -> None:
    client.force_login(club_setup["users"]["scorer"])
    assert client.post("/clubs/vilnius/leaderboard/settings/", {"idle_sigma_per_week": "0.5"}).status_code == 403
    client.force_login(club_setup["users"]["admin"])
    assert client.post("/clubs/vilnius/leaderboard/settings/", {"idle_sigma_per_week": "9"}).status_code == 400
    assert client.post("/clubs/vilnius/leaderboard/settings/", {"idle_sigma_per_week": "0,5"}).status_code == 302
    assert RatingSettings.objects.get().idle_sigma_per_week == 0.5
