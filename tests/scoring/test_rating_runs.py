"""The worker rates the finished deals waiting in a row in one pass: as many
statements for forty deals as for two, and the very ratings of rating them one by one."""

from __future__ import annotations

import math
import random
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import TestCase
from django.test.utils import CaptureQueriesContext

from referee import services
from scoring.models import OVERALL, DealResult, RatingEvent, RatingPoint, RatingStream, RatingUpdate
from scoring.ratings import rating as ratings
from tests.scoring.helpers import start, velnias_end
from tests.scoring.test_ratings_after_commit import in_order, stored

pytestmark = pytest.mark.django_db


def finish_unrated(setup: dict[str, Any], deals: int, names: list[str] | None = None) -> list[int]:
    """``deals`` Velnias deals finished, their rating steps left waiting (no worker ran)."""
    session = start(setup, "velnias", names or ["admin", "scorer", "member"])
    user = setup["users"]["scorer"]
    finished = []
    with TestCase.captureOnCommitCallbacks(execute=False):
        for n in range(deals):
            deal = services.deal_start(session=session, user=user)
            players = deal.session.seats.count()
            counts = [0 if seat == n % players else 1 + (seat + n) % 4 for seat in range(players)]
            services.entry_add(deal_id=deal.pk, payload=velnias_end("empty_hand", n % players, counts), user=user)
            finished.append(deal.pk)
    return finished


def settle_counting(club_id: int, game: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert ratings.settle(club_id=club_id, game=game) > 0
    return len(queries.captured_queries)


def test_a_run_of_deals_costs_the_statements_of_one(club_setup):
    club = club_setup["club"].pk
    finish_unrated(club_setup, ratings.KEEP_UPDATES + 1)
    for game in ("velnias", OVERALL):  # the streams exist, and steps are dropped, from now on
        ratings.settle(club_id=club, game=game)
    finish_unrated(club_setup, 2)
    few = settle_counting(club, "velnias")
    finish_unrated(club_setup, 60, ["Petras", "Asta", "Tomas", "member"])
    # The rating history's 240 points are one INSERT, or one per batch where the database
    # limits a statement's parameters (SQLite: 999, six per point).
    fields = [RatingPoint._meta.get_field(name) for name in ("stream", "seq", "deal", "member", "mu", "sigma")]
    batches = math.ceil(240 / connection.ops.bulk_batch_size(fields, [None] * 240))
    assert settle_counting(club, "velnias") == few + batches - 1
    assert settle_counting(club, OVERALL) == few + batches - 1
    assert stored(club, "velnias") == in_order(club, "velnias")
    assert stored(club, OVERALL) == in_order(club, OVERALL)
    stream = RatingStream.objects.get(club_id=club, game="velnias")
    assert (stream.last_seq, stream.stale) == (ratings.KEEP_UPDATES + 63, False)
    # Only the last steps are kept, numbered as if taken one by one.
    kept = RatingUpdate.objects.filter(stream=stream).order_by("seq").values_list("seq", flat=True)
    assert list(kept) == list(range(64, ratings.KEEP_UPDATES + 64))
    assert not RatingEvent.objects.exists()


def test_undo_of_the_last_deal_of_a_run_takes_back_exactly_its_step(club_setup):
    club = club_setup["club"].pk
    deals = finish_unrated(club_setup, 5)
    for game in ("velnias", OVERALL):
        ratings.settle(club_id=club, game=game)
    last = RatingUpdate.objects.get(stream__club_id=club, stream__game="velnias", deal_id=deals[-1])
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.entry_undo(deal_id=deals[-1], user=club_setup["users"]["scorer"])
    assert RatingStream.objects.get(club_id=club, game="velnias").last_seq == last.seq - 1
    assert stored(club, "velnias") == in_order(club, "velnias")


def late_deal(setup: dict[str, Any], later: int) -> None:
    """A deal whose transaction commits (its event arrives) after ``later`` deals that finished
    after it were rated, as when tables finish deals at the same moment."""
    club = setup["club"].pk
    late = finish_unrated(setup, 1)
    RatingEvent.objects.filter(deal_id__in=late).delete()  # as if its transaction had not committed yet
    finish_unrated(setup, later, ["Petras", "Asta", "member"])
    ratings.settle(club_id=club, game="velnias")
    assert RatingStream.objects.get(club_id=club, game="velnias").last_seq == later
    at = DealResult.objects.filter(deal_id=late[0]).first().finished_at
    RatingEvent.objects.bulk_create(ratings.events(deal_id=late[0], club_id=club, game="velnias", finished_at=at,
                                                   reopened=False))
    finish_unrated(setup, 2, ["Tomas", "scorer", "admin"])  # more deals behind it


def test_a_deal_committed_late_takes_the_later_steps_back_and_rates_them_again(club_setup, monkeypatch):
    club = club_setup["club"].pk
    late_deal(club_setup, 3)
    monkeypatch.setattr(ratings, "recompute", lambda **kwargs: pytest.fail("recomputed"))
    ratings.settle(club_id=club, game="velnias")
    assert stored(club, "velnias") == in_order(club, "velnias")
    stream = RatingStream.objects.get(club_id=club, game="velnias")
    assert (stream.last_seq, stream.stale) == (6, False)
    # The steps are those of rating in finishing order: the late deal is the first.
    steps = list(RatingUpdate.objects.filter(stream=stream).order_by("seq").values_list("finished_at", "deal_id"))
    assert steps == sorted(steps) and len(steps) == 6


def test_a_deal_committed_later_than_the_kept_steps_recomputes_the_stream(club_setup):
    club = club_setup["club"].pk
    late_deal(club_setup, ratings.KEEP_UPDATES + 1)
    ratings.settle(club_id=club, game="velnias")
    assert stored(club, "velnias") == in_order(club, "velnias")
    stream = RatingStream.objects.get(club_id=club, game="velnias")
    assert (stream.last_seq, stream.stale) == (ratings.KEEP_UPDATES + 4, False)


@pytest.mark.parametrize("seed", range(4))
def test_events_arriving_out_of_finishing_order_give_the_ratings_in_order(club_setup, seed):
    """Random rounds: deals of several tables finish; some of their events arrive a round or two
    late (their transactions committed after later deals were rated), some deals are undone;
    after every rating step each stream equals rating its results in finishing order."""
    rng = random.Random(seed)
    club = club_setup["club"].pk
    tables = [["admin", "scorer", "member"], ["Petras", "Asta", "member"], ["Tomas", "Eglė", "Marius", "admin"]]
    held: list[RatingEvent] = []
    for _round in range(8):
        for names in rng.sample(tables, rng.randint(1, 3)):
            finish_unrated(club_setup, rng.randint(1, 3), names)
        if rng.random() < 0.3:
            last = RatingEvent.objects.filter(reopened=False).order_by("-id").first()
            with TestCase.captureOnCommitCallbacks(execute=False):
                services.entry_undo(deal_id=last.deal_id, user=club_setup["users"]["scorer"])
        waiting = list(RatingEvent.objects.order_by("id"))
        late = [event for event in waiting if not event.reopened and rng.random() < 0.3]
        RatingEvent.objects.filter(pk__in=[event.pk for event in late]).delete()
        back, held = held, late
        for event in back:
            event.pk = None
        RatingEvent.objects.bulk_create(back)
        for game in ("velnias", OVERALL):
            ratings.settle(club_id=club, game=game)
            if not RatingEvent.objects.filter(game=game).exists() and not held:
                assert stored(club, game) == in_order(club, game)
    RatingEvent.objects.bulk_create(held)
    for game in ("velnias", OVERALL):
        ratings.settle(club_id=club, game=game)
        assert stored(club, game) == in_order(club, game), game


class _RolledBack(Exception):
    pass


def settled_rows(club: int, game: str, *, prepared_way: bool, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Settle the stream one way or the other and read back every row it wrote; rolled back."""
    from scoring.ratings import store as rating_store

    found: list[Any] = []
    with monkeypatch.context() as patch:
        patch.setattr(rating_store, "enabled", lambda: prepared_way)
        try:
            with transaction.atomic():
                with CaptureQueriesContext(connection) as queries:
                    taken = ratings.settle(club_id=club, game=game)
                stream = RatingStream.objects.get(club_id=club, game=game)
                found = [taken, len(queries.captured_queries), (stream.last_seq, stream.stale), stored(club, game),
                         list(RatingUpdate.objects.filter(stream=stream).order_by("seq").values_list(
                             "deal_id", "seq", "finished_at", "before")),
                         list(RatingPoint.objects.filter(stream=stream).order_by("seq", "member_id").values_list(
                             "seq", "deal_id", "member_id", "mu", "sigma")),
                         RatingEvent.objects.filter(club_id=club, game=game).count()]
                raise _RolledBack
        except _RolledBack:
            pass
    return found


@pytest.mark.parametrize("first, then", [(0, 3), (4, 2), (2, ratings.KEEP_UPDATES + 3)])
def test_the_prepared_run_writes_the_rows_the_orm_writes(club_setup, require_postgres, monkeypatch, first, then):
    """On PostgreSQL the everyday run (finished deals after the latest rated one) is three
    statements (the lock, one read, one write), and writes exactly the rows of the ORM's way:
    ratings, steps with the ratings before each (only the last ones kept), the stream's last
    step, no event left."""
    club = club_setup["club"].pk
    if first:
        finish_unrated(club_setup, first)
        for game in ("velnias", OVERALL):
            ratings.settle(club_id=club, game=game)
    finish_unrated(club_setup, then, ["Petras", "Asta", "member"])
    for game in ("velnias", OVERALL):
        prepared_way = settled_rows(club, game, prepared_way=True, monkeypatch=monkeypatch)
        orm_way = settled_rows(club, game, prepared_way=False, monkeypatch=monkeypatch)
        if first:  # (a club's first deals make its streams first: two statements more)
            assert prepared_way[1] == 3
        assert prepared_way[1] < orm_way[1]
        assert prepared_way[0] == orm_way[0] == then
        assert prepared_way[2:] == orm_way[2:]
        assert prepared_way[-1] == 0 and prepared_way[2][0] == first + then
        ratings.settle(club_id=club, game=game)
        assert stored(club, game) == in_order(club, game)


def test_a_run_with_a_reopened_deal_goes_the_orms_way(club_setup, require_postgres):
    club = club_setup["club"].pk
    deals = finish_unrated(club_setup, 3)
    with TestCase.captureOnCommitCallbacks(execute=False):
        services.entry_undo(deal_id=deals[-1], user=club_setup["users"]["scorer"])
    with CaptureQueriesContext(connection) as queries:
        assert ratings.settle(club_id=club, game="velnias") == 4
    assert len(queries.captured_queries) > 3
    assert stored(club, "velnias") == in_order(club, "velnias")
