"""The worker rates the finished deals waiting in a row in one pass (issue 15): as many
statements for forty deals as for two, and the very ratings of rating them one by one."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test import TestCase
from django.test.utils import CaptureQueriesContext

from referee import services
from scoring import ratings
from scoring.models import OVERALL, DealResult, RatingEvent, RatingStream, RatingUpdate
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
    assert settle_counting(club, "velnias") == few
    assert settle_counting(club, OVERALL) == few
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


def test_a_deal_that_belongs_before_the_latest_rated_one_recomputes_the_stream(club_setup):
    """A run whose deal finished before the stream's latest rated deal (it committed late) cannot
    be rated step by step: the stream is recomputed, and the ratings are those in finishing order."""
    club = club_setup["club"].pk
    late = finish_unrated(club_setup, 1)
    RatingEvent.objects.filter(deal_id__in=late).delete()  # as if its transaction had not committed yet
    finish_unrated(club_setup, 3, ["Petras", "Asta", "member"])
    ratings.settle(club_id=club, game="velnias")
    assert RatingStream.objects.get(club_id=club, game="velnias").last_seq == 3
    # The late deal's event arrives now, with more deals behind it.
    at = DealResult.objects.filter(deal_id=late[0]).first().finished_at
    RatingEvent.objects.bulk_create(ratings.events(deal_id=late[0], club_id=club, game="velnias", finished_at=at,
                                                   reopened=False))
    finish_unrated(club_setup, 2, ["Tomas", "scorer", "admin"])
    ratings.settle(club_id=club, game="velnias")
    assert stored(club, "velnias") == in_order(club, "velnias")
    assert RatingStream.objects.get(club_id=club, game="velnias").stale is False
