"""The rating history on a member's page: a point per rated deal, the chart (server-side SVG)
with a dot per session linking to it, and the history following an undo."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import TestCase

from referee import services
from scoring.models import OVERALL
from scoring.ratings import history
from scoring.ratings.rating import ordinal
from tests.scoring.helpers import close, play, start, velnias_end

pytestmark = pytest.mark.django_db


def played(setup: dict[str, Any]) -> list[Any]:
    sessions = []
    for caller in (0, 1):
        session = start(setup, "velnias", ["admin", "scorer", "member"])
        for n in range(3):
            play(setup, session, [velnias_end("empty_hand", (caller + n) % 3, [0 if s == (caller + n) % 3 else s + 1
                                                                              for s in range(3)])])
        close(setup, session)
        sessions.append(session)
    return sessions


def test_a_point_per_rated_deal_and_a_dot_per_session(club_setup: dict[str, Any], client: Any) -> None:
    sessions = played(club_setup)
    ona = club_setup["members"]["admin"]
    points = history.member_points(club_id=club_setup["club"].pk, member_id=ona.pk, game=OVERALL)
    assert [p.seq for p in points] == [1, 2, 3, 4, 5, 6]
    assert [p.session for p in points] == [sessions[0].pk] * 3 + [sessions[1].pk] * 3
    assert history.sessions_of(points) == [(sessions[0].pk, 2, 3), (sessions[1].pk, 5, 3)]
    client.force_login(club_setup["users"]["member"])
    page = client.get(f"/clubs/vilnius/members/{ona.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    svg = re.search(r"<svg[^>]*class=\"rating-chart\".*?</svg>", page, re.S)
    assert svg is not None
    assert re.findall(r'<a href="(/sessions/\d+/)"', svg.group(0)) == [f"/sessions/{s.pk}/" for s in sessions]
    assert f"Now {ordinal(points[-1].mu, points[-1].sigma):.1f} after 6 rated deals in 2 sessions." in page


def test_an_undone_deal_leaves_the_history(club_setup: dict[str, Any]) -> None:
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    play(club_setup, session, [velnias_end("empty_hand", 0, [0, 2, 3])])
    deal = play(club_setup, session, [velnias_end("empty_hand", 1, [2, 0, 3])])
    ona = club_setup["members"]["admin"]
    assert len(history.member_points(club_id=club_setup["club"].pk, member_id=ona.pk, game="velnias")) == 2
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.entry_undo(deal_id=deal.pk, user=club_setup["users"]["scorer"])
    assert [p.seq for p in history.member_points(club_id=club_setup["club"].pk, member_id=ona.pk,
                                                 game="velnias")] == [1]


def test_no_rated_deal_no_chart() -> None:
    assert history.chart_svg([]) == ""


def test_the_api_gives_the_points_in_json_and_csv(club_setup: dict[str, Any], api: Any) -> None:
    played(club_setup)
    ona = club_setup["members"]["admin"]
    member = api(club_setup["users"]["member"])
    answer = member.get(f"/api/clubs/vilnius/members/{ona.pk}/rating-history/?game=velnias").json()
    assert [p["seq"] for p in answer["points"]] == [1, 2, 3, 4, 5, 6] and answer["game"] == "velnias"
    last = answer["points"][-1]
    assert last["ordinal"] == pytest.approx(last["mu"] - 3 * last["sigma"], abs=1e-3)
    csv = member.get(f"/api/clubs/vilnius/members/{ona.pk}/rating-history/?format=csv").content.decode()
    assert csv.splitlines()[0] == "seq,deal,session,finished_at,mu,sigma,ordinal" and len(csv.splitlines()) == 7
    wrong = member.get(f"/api/clubs/vilnius/members/{ona.pk}/rating-history/?game=chess")
    assert wrong.status_code == 400 and wrong.json()["code"] == "invalid"


def test_the_leaderboard_draws_the_top_tens_lines_when_asked(club_setup: dict[str, Any], client: Any) -> None:
    played(club_setup)
    client.force_login(club_setup["users"]["member"])
    plain = client.get("/clubs/vilnius/leaderboard/?min_deals=1", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'class="rating-chart"' not in plain and "Show the top ten" in plain
    page = client.get("/clubs/vilnius/leaderboard/?min_deals=1&lines=1", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    svg = re.search(r"<svg[^>]*class=\"rating-chart\".*?</svg>", page, re.S)
    assert svg is not None and svg.group(0).count("<polyline") == 3  # Ona, Jonas, Rūta
