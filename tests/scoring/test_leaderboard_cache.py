"""The leaderboard's totals cached per club version (``scoring.board_version``): a read between
two deals is a cache hit, and the read after a deal finishes, an undo, a correction, a close
that settles chips or a rebuild shows it at once (the leaderboard is never behind the
aggregates). Names and ratings are read fresh on every read.

The writes commit for real here (``transaction=True``): the version is renewed after commit.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext, override_settings
from django.utils import timezone

from referee import services
from referee.models import Member
from scoring import board_version, selectors
from scoring import services as scoring_services
from scoring.models import OVERALL, MemberDay, MemberMonth, MemberTotal, Rating
from tests.scoring.helpers import start, velnias_end

pytestmark = pytest.mark.django_db(transaction=True)

AGGREGATE_TABLES = tuple(model._meta.db_table for model in (MemberDay, MemberMonth, MemberTotal))


@pytest.fixture(autouse=True)
def cached() -> Iterator[None]:
    board_version._changing().clear()
    with override_settings(LEADERBOARD_CACHE=True):
        yield


def periods() -> list[dict[str, Any]]:
    today = timezone.localdate()
    return [
        {}, {"game": "velnias"}, {"period": "year"}, {"period": "month", "game": "velnias"},
        # partial months at both edges (day rows) and the whole months between
        {"period": "custom", "start": today - timedelta(days=75), "end": today},
        {"period": "custom", "start": today, "end": today},
    ]


def board(club: Any, **query: Any) -> tuple[dict[str, Any], bool]:
    """The board and whether it was read from the cache (no statement over the aggregates)."""
    with CaptureQueriesContext(connection) as queries:
        answer = selectors.leaderboard(club, min_deals=0, **query)
    summed = any(table in q["sql"] for q in queries.captured_queries for table in AGGREGATE_TABLES)
    return answer, not summed


def uncached(club: Any, **query: Any) -> dict[str, Any]:
    with override_settings(LEADERBOARD_CACHE=False):
        return selectors.leaderboard(club, min_deals=0, **query)


def assert_current(club: Any) -> None:
    """Every period's board (cached or not) equals the one computed from the aggregates now."""
    for query in periods():
        assert board(club, **query)[0] == uncached(club, **query), query


def deals_of(answer: dict[str, Any]) -> dict[str, int]:
    return {row["name"]: row["deals"] for row in answer["ranked"] + answer["unranked"]}


def finish(setup: dict[str, Any], session: Any, caller: int, counts: list[int]) -> Any:
    user = setup["users"]["scorer"]
    deal = services.deal_start(session=session, user=user)
    services.entry_add(deal_id=deal.pk, payload=velnias_end("empty_hand", caller, counts), user=user)
    return deal


def test_a_read_between_deals_is_a_hit_and_each_change_shows_at_once(club_setup):
    setup, club = club_setup, club_setup["club"]
    user = setup["users"]["scorer"]
    session = start(setup, "velnias", ["admin", "scorer", "member"], stake="0.10")
    finish(setup, session, 0, [0, 4, 2])
    for query in periods():
        first, hit = board(club, **query)
        assert not hit
        again, hit = board(club, **query)
        assert hit and again == first == uncached(club, **query)
    # A deal finishes: the next read of every period counts it.
    deal = finish(setup, session, 1, [3, 0, 2])
    for query in periods():
        answer, hit = board(club, **query)
        assert not hit and deals_of(answer) == {"Ona": 2, "Jonas": 2, "Rūta": 2}
        assert answer == uncached(club, **query)
    # A correction (the deal finishes again with other figures), then an undo.
    services.entry_correct(deal_id=deal.pk, seq=1, payload=velnias_end("empty_hand", 2, [5, 5, 0]), user=user)
    assert_current(club)
    answer, _hit = board(club, game="velnias")
    assert {row["name"]: row["points"] for row in answer["ranked"] + answer["unranked"]} == {
        "Ona": 6 - 5, "Jonas": -4 - 5, "Rūta": -2 + 10}
    services.entry_undo(deal_id=deal.pk, user=user)
    for query in periods():
        answer, hit = board(club, **query)
        assert not hit and deals_of(answer) == {"Ona": 1, "Jonas": 1, "Rūta": 1}
    assert_current(club)


def test_what_a_close_settles_shows_at_once_and_goes_with_a_reopen(club_setup):
    setup, club = club_setup, club_setup["club"]
    user = setup["users"]["scorer"]
    session = start(setup, "michigan", ["admin", "scorer", "member"], stake="0.10")
    deal = services.deal_start(session=session, user=user)
    for entry in ({"type": "prize", "card": "AS", "player": 0}, {"type": "out", "player": 2, "hand_counts": [3, 4, 0]}):
        services.entry_add(deal_id=deal.pk, payload=entry, user=user)
    before, _hit = board(club, game="michigan")
    assert board(club, game="michigan") == (before, True)
    services.session_close(session=session, user=user)
    after, hit = board(club, game="michigan")
    assert not hit and after != before and after == uncached(club, game="michigan")
    services.session_reopen(session=session, user=user)
    assert board(club, game="michigan") == (before, False)


def test_a_rolled_back_change_retires_nothing_and_its_own_transaction_reads_it(club_setup):
    setup, club = club_setup, club_setup["club"]
    session = start(setup, "velnias", ["admin", "scorer", "member"])
    finish(setup, session, 0, [0, 4, 2])
    before, _hit = board(club)

    class Abandon(Exception):
        pass

    with pytest.raises(Abandon), transaction.atomic():
        finish(setup, session, 1, [3, 0, 2])
        inside, hit = board(club)  # the transaction's own change, not the cached board
        assert not hit and deals_of(inside) == {"Ona": 2, "Jonas": 2, "Rūta": 2}
        raise Abandon
    assert board(club) == (before, True)


def test_names_and_ratings_are_read_fresh_on_every_read(club_setup):
    setup, club = club_setup, club_setup["club"]
    session = start(setup, "velnias", ["admin", "scorer", "member"])
    finish(setup, session, 0, [0, 4, 2])
    board(club)
    Member.objects.filter(pk=setup["members"]["admin"].pk).update(name="Ona B.")
    Rating.objects.filter(club=club, game=OVERALL, member=setup["members"]["member"]).update(mu=40.0, sigma=1.0)
    answer, hit = board(club)
    assert hit
    rows = {row["name"]: row for row in answer["ranked"] + answer["unranked"]}
    assert set(rows) == {"Ona B.", "Jonas", "Rūta"}
    assert rows["Rūta"]["rating"]["mu"] == 40.0 and rows["Rūta"]["rating"]["ordinal"] == 37.0
    assert answer == uncached(club)


def test_a_rebuild_retires_the_cached_totals(club_setup):
    setup, club = club_setup, club_setup["club"]
    session = start(setup, "velnias", ["admin", "scorer", "member"])
    finish(setup, session, 0, [0, 4, 2])
    right, _hit = board(club)
    MemberTotal.objects.filter(club=club).update(deals=99)  # a hand edit: the cache does not know
    assert board(club) == (right, True)
    scoring_services.rebuild_club(club=club)
    assert board(club) == (right, False)


def test_a_failing_cache_is_a_miss(club_setup, monkeypatch):
    setup, club = club_setup, club_setup["club"]
    session = start(setup, "velnias", ["admin", "scorer", "member"])
    finish(setup, session, 0, [0, 4, 2])
    right = uncached(club)

    def down(*_args: Any, **_kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    for name in ("get", "get_many", "set", "add"):
        monkeypatch.setattr(board_version.cache, name, down)
    assert board(club) == (right, False)
    finish(setup, session, 1, [3, 0, 2])  # the entry commits although the version cannot be renewed
    assert deals_of(board(club)[0]) == {"Ona": 2, "Jonas": 2, "Rūta": 2}


def test_the_cache_is_off_with_a_per_process_cache_unless_asked():
    memory = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}
    shared = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": "redis://x"}}
    with override_settings(LEADERBOARD_CACHE=None, CACHES=memory):
        assert not board_version.enabled()
    with override_settings(LEADERBOARD_CACHE=None, CACHES=shared):
        assert board_version.enabled()
    with override_settings(LEADERBOARD_CACHE=False, CACHES=shared):
        assert not board_version.enabled()
