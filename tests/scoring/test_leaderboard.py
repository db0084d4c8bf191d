"""Leaderboards from the monthly aggregates: periods, minimum deals, head-to-head, member history."""

from __future__ import annotations

from datetime import date, datetime
from decimal import Decimal as D
from typing import Any

import pytest
from django.db.models import Count, IntegerField, Sum
from django.db.models.functions import Cast
from django.utils import timezone

from referee.errors import Refusal
from scoring import selectors
from scoring.models import DealResult, MemberDay, MemberMonth, MemberTotal
from tests.scoring.helpers import aggregates, play, start, undo, velnias_end

pytestmark = pytest.mark.django_db


def at(monkeypatch: Any, *args: int) -> None:
    """Make "now" a local time in the club's time zone (deals finish then)."""
    moment = timezone.make_aware(datetime(*args))
    monkeypatch.setattr(timezone, "now", lambda: moment)


#: (local finish time, caller, counts) of Velnias deals between Ona, Jonas and Rūta at 0.10 a point.
HISTORY = [
    ((2026, 1, 15, 20, 0), 0, [0, 4, 2]),  # Ona +6, Jonas -4, Rūta -2
    ((2026, 1, 31, 23, 30), 1, [3, 0, 2]),  # Jonas +5, Ona -3, Rūta -2 (last half hour of January)
    ((2026, 2, 1, 0, 30), 2, [1, 1, 0]),  # Rūta +2, Ona -1, Jonas -1 (first half hour of February)
    ((2026, 2, 14, 21, 0), 0, [0, 5, 5]),  # Ona +10, Jonas -5, Rūta -5
    ((2026, 3, 3, 19, 0), 1, [2, 0, 1]),  # Jonas +3, Ona -2, Rūta -1
]


@pytest.fixture
def history(club_setup, monkeypatch):
    session = start(club_setup, "velnias", ["admin", "scorer", "member"], stake="0.10")
    deals = []
    for moment, caller, counts in HISTORY:
        at(monkeypatch, *moment)
        deals.append(play(club_setup, session, [velnias_end("empty_hand", caller, counts)]))
    at(monkeypatch, 2026, 3, 20, 12, 0)
    return {"session": session, "deals": deals}


def totals(board: dict[str, Any]) -> dict[str, tuple[int, int, int | None, str | None]]:
    return {row["name"]: (row["deals"], row["wins"], row["points"], row["money"])
            for row in board["ranked"] + board["unranked"]}


def raw(club: Any, start: datetime, end: datetime) -> dict[str, tuple[int, int, int, D]]:
    """The same totals summed straight from the results (the slow way)."""
    rows = (DealResult.objects.filter(club=club, finished_at__gte=start, finished_at__lt=end)
            .values("member__name").annotate(d=Count("id"), w=Sum(Cast("won", IntegerField())), p=Sum("points"),
                                             m=Sum("money")))
    return {r["member__name"]: (r["d"], r["w"], r["p"], r["m"]) for r in rows}


def test_all_time_per_game(club_setup, history):
    board = selectors.leaderboard(club_setup["club"], game="velnias", min_deals=1)
    assert totals(board) == {"Ona": (5, 2, 10, "1.00"), "Jonas": (5, 2, -2, "-0.20"), "Rūta": (5, 1, -8, "-0.80")}
    assert board["period"] == {"name": "all", "start": None, "end": None}
    assert [row["rank"] for row in board["ranked"]] == [1, 2, 3]
    ordinals = [row["rating"]["ordinal"] for row in board["ranked"]]
    assert ordinals == sorted(ordinals, reverse=True)
    assert {row["name"]: row["win_rate"] for row in board["ranked"]} == {"Ona": 0.4, "Jonas": 0.4, "Rūta": 0.2}


def test_this_month_and_this_year(club_setup, history):
    month = selectors.leaderboard(club_setup["club"], period="month", min_deals=0)
    assert month["period"] == {"name": "month", "start": "2026-03-01", "end": "2026-03-31"}
    assert totals(month) == {"Ona": (1, 0, None, "-0.20"), "Jonas": (1, 1, None, "0.30"), "Rūta": (1, 0, None, "-0.10")}
    year = selectors.leaderboard(club_setup["club"], period="year", min_deals=0)
    assert totals(year)["Ona"] == (5, 2, None, "1.00")


@pytest.mark.parametrize(("start", "end"), [
    (date(2026, 2, 1), date(2026, 2, 28)),  # one whole month: aggregates only
    (date(2026, 1, 31), date(2026, 2, 1)),  # two partial months: results only
    (date(2026, 1, 20), date(2026, 3, 5)),  # partial, whole, partial
    (date(2026, 1, 1), date(2026, 3, 31)),  # whole months
    (date(2026, 2, 2), date(2026, 2, 13)),  # inside one month, no deal
])
def test_custom_periods_match_the_raw_sums(club_setup, history, start, end):
    board = selectors.leaderboard(club_setup["club"], game="velnias", period="custom", start=start, end=end,
                                  min_deals=0)
    low = timezone.make_aware(datetime.combine(start, datetime.min.time()))
    high = timezone.make_aware(datetime.combine(end, datetime.min.time())) + timezone.timedelta(days=1)
    expected = {name: (d, w, p, f"{m:.2f}") for name, (d, w, p, m) in raw(club_setup["club"], low, high).items()}
    assert totals(board) == expected


def test_january_edge_belongs_to_january_in_club_time(club_setup, history):
    """23:30 on 31 January in Vilnius is 21:30 UTC: a January deal, whatever the server's clock says."""
    jan = selectors.leaderboard(club_setup["club"], period="custom", start=date(2026, 1, 1),
                                end=date(2026, 1, 31), min_deals=0)
    assert totals(jan)["Jonas"] == (2, 1, None, "0.10")
    months = sorted(MemberMonth.objects.filter(member=club_setup["members"]["scorer"]).values_list("month", "deals"))
    assert months == [(date(2026, 1, 1), 2), (date(2026, 2, 1), 2), (date(2026, 3, 1), 1)]


def test_min_deals_splits_ranked_and_unranked(club_setup, history, monkeypatch):
    other = start(club_setup, "velnias", ["admin", "Petras", "Asta"], stake="0.10")
    play(club_setup, other, [velnias_end("empty_hand", 1, [3, 0, 2])])
    board = selectors.leaderboard(club_setup["club"], game="velnias", min_deals=5)
    assert {row["name"] for row in board["ranked"]} == {"Ona", "Jonas", "Rūta"}
    assert [(row["name"], row["deals"], row["rank"]) for row in board["unranked"]] == [
        (row["name"], 1, None) for row in board["unranked"]
    ]
    assert {row["name"] for row in board["unranked"]} == {"Petras", "Asta"}
    assert totals(board)["Ona"] == (6, 2, 7, "0.70")


def test_undo_restores_the_aggregates_exactly(club_setup, history, monkeypatch):
    before = aggregates()
    at(monkeypatch, 2026, 3, 20, 13, 0)
    deal = play(club_setup, history["session"], [velnias_end("empty_hand", 2, [4, 4, 0])])
    ruta = club_setup["members"]["member"]
    assert MemberMonth.objects.get(member=ruta, month=date(2026, 3, 1)).points == 7
    assert MemberDay.objects.get(member=ruta, day=date(2026, 3, 20)).points == 8
    assert MemberTotal.objects.get(member=ruta).points == -8 + 8
    undo(club_setup, deal)
    assert aggregates() == before
    assert not MemberDay.objects.filter(day=date(2026, 3, 20)).exists()


def test_bad_leaderboard_queries_are_refused(club_setup):
    club = club_setup["club"]
    with pytest.raises(Refusal, match="^Unknown game “poker”; choose one of elgeta, velnias, rukas, michigan, cheat.$"):
        selectors.leaderboard(club, game="poker")
    with pytest.raises(Refusal, match=r"^A custom period needs both start and end dates \(YYYY-MM-DD\).$"):
        selectors.leaderboard(club, period="custom", start=date(2026, 1, 1))
    with pytest.raises(Refusal, match=r"^The period's start \(2026-02-01\) is after its end \(2026-01-01\).$"):
        selectors.leaderboard(club, period="custom", start=date(2026, 2, 1), end=date(2026, 1, 1))
    with pytest.raises(Refusal, match="^Unknown period “week”; choose one of all, year, month, custom.$"):
        selectors.leaderboard(club, period="week")


def test_head_to_head(club_setup, history):
    ona, jonas = club_setup["members"]["admin"], club_setup["members"]["scorer"]
    data = selectors.head_to_head(club_setup["club"], ona, jonas)
    # Places (Ona, Jonas): 1-3, 2-1, 2-2 (both -1), 1-2, 3-1.
    assert (data["deals_together"], data["a_placed_higher"], data["b_placed_higher"], data["same_place"]) == (
        5, 2, 2, 1)
    # Between the two of them only: Jonas paid Ona 4 and 5; Ona paid Jonas 3 and 2: 4 points x 0.10.
    assert data["net_money"] == "0.40"
    assert data["games"] == {"velnias": {"deals": 5, "a_higher": 2, "b_higher": 2, "same": 1, "net_money": "0.40"}}


def test_head_to_head_refuses_the_same_member_twice(club_setup):
    ona = club_setup["members"]["admin"]
    with pytest.raises(Refusal, match="^Choose two different members.$"):
        selectors.head_to_head(club_setup["club"], ona, ona)


def test_member_history(club_setup, history):
    data = selectors.member_history(club_setup["members"]["admin"])
    assert data["games"]["velnias"]["deals"] == 5
    assert data["games"]["velnias"]["points"] == 10
    assert data["games"]["velnias"]["money"] == "1.00"
    assert [(m["month"], m["deals"], m["points"]) for m in data["months"]] == [
        ("2026-03", 1, -2), ("2026-02", 2, 9), ("2026-01", 2, 3),
    ]
    assert data["sessions"] == [{"session": history["session"].pk, "game": "velnias", "date": "2026-03-03",
                                 "deals": 5, "wins": 2, "points": 10, "total": 10, "money": "1.00"}]
