"""The leaderboard's totals cached in two parts (``scoring.board_version``): the days before this
month under the club's past version, the rest under its current version. A deal finishing today
leaves a past month's board cached; a correction or an undo of an older deal shows at once in
every period, as does today's deal. The writes commit for real (``transaction=True``).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date, datetime, timedelta
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone

from referee import services
from scoring import board_version, leaderboard, selectors
from scoring.models import MemberDay, MemberMonth, MemberTotal
from tests.scoring.helpers import start, velnias_end

pytestmark = pytest.mark.django_db(transaction=True)

AGGREGATE_TABLES = tuple(model._meta.db_table for model in (MemberDay, MemberMonth, MemberTotal))


@pytest.fixture(autouse=True)
def cached() -> Iterator[None]:
    board_version._changing().clear()
    with override_settings(LEADERBOARD_CACHE=True):
        yield


def board(club: Any, **query: Any) -> tuple[dict[str, Any], bool]:
    """The board and whether it was read from the cache alone (no statement over the aggregates)."""
    with CaptureQueriesContext(connection) as queries:
        answer = selectors.leaderboard(club, min_deals=0, **query)
    summed = any(table in q["sql"] for q in queries.captured_queries for table in AGGREGATE_TABLES)
    return answer, not summed


def uncached(club: Any, **query: Any) -> dict[str, Any]:
    with override_settings(LEADERBOARD_CACHE=False):
        return selectors.leaderboard(club, min_deals=0, **query)


def deals_of(answer: dict[str, Any]) -> dict[str, int]:
    return {row["name"]: row["deals"] for row in answer["ranked"] + answer["unranked"]}


def points_of(answer: dict[str, Any]) -> dict[str, int]:
    return {row["name"]: row["points"] for row in answer["ranked"] + answer["unranked"]}


def old_day() -> date:
    """A day of an earlier month (40 days back is never in this month)."""
    return timezone.localdate() - timedelta(days=40)


def periods() -> list[dict[str, Any]]:
    today, old = timezone.localdate(), old_day()
    month_start = date(old.year, old.month, 1)
    month_end = leaderboard._next_month(month_start) - timedelta(days=1)
    return [
        {}, {"game": "velnias"}, {"period": "year"}, {"period": "month"},
        {"period": "custom", "start": today, "end": today},  # today
        {"period": "custom", "start": month_start, "end": month_end, "game": "velnias"},  # the old deal's month
        {"period": "custom", "start": old - timedelta(days=3), "end": old + timedelta(days=3)},  # days only
        {"period": "custom", "start": old - timedelta(days=50), "end": today},  # past and this month together
    ]


def past_month() -> dict[str, Any]:
    return periods()[5]


def assert_current(club: Any) -> None:
    """Every period's board (cached or not) equals the one computed from the aggregates now."""
    for query in periods():
        assert board(club, **query)[0] == uncached(club, **query), query


def finish(setup: dict[str, Any], session: Any, caller: int, counts: list[int]) -> Any:
    user = setup["users"]["scorer"]
    deal = services.deal_start(session=session, user=user)
    services.entry_add(deal_id=deal.pk, payload=velnias_end("empty_hand", caller, counts), user=user)
    return deal


def test_a_deal_today_leaves_a_past_month_cached_and_an_older_deals_changes_show_at_once(club_setup, monkeypatch):
    setup, club = club_setup, club_setup["club"]
    user = setup["users"]["scorer"]
    earlier = start(setup, "velnias", ["admin", "scorer", "member"], stake="0.10")
    real_now = timezone.now
    then = timezone.make_aware(datetime.combine(old_day(), datetime.min.time())) + timedelta(hours=20)
    monkeypatch.setattr(timezone, "now", lambda: then)
    old = finish(setup, earlier, 0, [0, 4, 2])
    monkeypatch.setattr(timezone, "now", real_now)
    tonight = start(setup, "velnias", ["admin", "scorer", "member"], stake="0.10")
    finish(setup, tonight, 1, [3, 0, 2])
    for query in periods():
        first, hit = board(club, **query)
        assert not hit and first == uncached(club, **query), query
        assert board(club, **query) == (first, True), query
    assert deals_of(board(club, **past_month())[0]) == {"Ona": 1, "Jonas": 1, "Rūta": 1}

    # A deal today: the past month's board stays cached (nothing of it changed), every period
    # that holds today counts the deal at once.
    before = points_of(board(club, **past_month())[0])
    finish(setup, tonight, 2, [1, 1, 0])
    answer, hit = board(club, **past_month())  # (the ratings shown are the current ones: the deal moved them)
    assert hit and points_of(answer) == before and deals_of(answer) == {"Ona": 1, "Jonas": 1, "Rūta": 1}
    assert deals_of(board(club, period="custom", start=timezone.localdate(), end=timezone.localdate())[0]) == {
        "Ona": 2, "Jonas": 2, "Rūta": 2}
    assert deals_of(board(club)[0]) == {"Ona": 3, "Jonas": 3, "Rūta": 3}
    assert_current(club)

    # A correction of the older deal: its month (and every period that holds it) shows it at once.
    services.entry_correct(deal_id=old.pk, seq=1, payload=velnias_end("empty_hand", 2, [5, 5, 0]), user=user)
    answer, hit = board(club, **past_month())
    assert not hit and points_of(answer) == {"Ona": -5, "Jonas": -5, "Rūta": 10}
    assert_current(club)

    # An undo of the older deal: gone from every period at once.
    services.entry_undo(deal_id=old.pk, user=user)
    answer, hit = board(club, **past_month())
    assert not hit and deals_of(answer) == {}
    assert deals_of(board(club)[0]) == {"Ona": 2, "Jonas": 2, "Rūta": 2}
    assert_current(club)


@pytest.mark.parametrize(("now", "day", "past"), [
    ("2026-03-15 12:00", "2026-03-15", False),  # this month: the current version only
    ("2026-03-15 12:00", "2026-02-28", True),  # an earlier month
    ("2026-03-31 23:50", "2026-03-31", True),  # within the margin of the month's turn
    ("2026-03-31 23:40", "2026-03-31", False),
    ("2026-04-01 00:05", "2026-03-31", True),
])
def test_a_change_renews_the_past_version_when_its_day_may_be_summed_as_past(monkeypatch, now, day, past):
    at = timezone.make_aware(datetime.fromisoformat(now))
    monkeypatch.setattr(timezone, "now", lambda: at)
    first, _stored = board_version.cached(99, "nothing")
    assert first is not None
    moment = timezone.make_aware(datetime.fromisoformat(day) + timedelta(hours=12))
    board_version.changed(99, moment)  # outside a transaction: as once it commits
    second, _stored = board_version.cached(99, "nothing")
    assert second is not None and second.current != first.current
    assert (second.past != first.past) is past
    board_version.changed(99)  # any day (a rebuild): both
    third, _stored = board_version.cached(99, "nothing")
    assert third is not None and third.current != second.current and third.past != second.past
