"""Rebuilding a club's derived tables from its results: the leaderboard aggregates, the
ratings and the closed sessions' season results. Used after a restore (``import_club``), and
safe to run at any time: the result is exactly what the incremental updates
(``scoring.results``, ``scoring.ratings``, ``scoring.seasons.ensure_results``) maintain.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone

from referee.models import Club, Seat, Session, SessionStatus
from scoring import board_version, seasons
from scoring.ratings import rating as ratings

from .models import AGGREGATES, OVERALL, ChipMovement, DealResult, RatingStream, RatingUpdate, SessionResult


def rebuild_club(*, club: Club) -> None:
    """Recompute the club's day, month and all-time aggregates, every rating stream, and the
    results a season counts (written as each session closed, so a restore has none)."""
    with transaction.atomic():
        _rebuild_aggregates(club)
        SessionResult.objects.filter(club=club).delete()
        seasons.ensure_results(Session.objects.filter(club=club, status=SessionStatus.CLOSED))
        RatingUpdate.objects.filter(stream__club=club).delete()
        RatingStream.objects.filter(club=club).delete()
        games = set(DealResult.objects.filter(club=club).values_list("game", flat=True).distinct())
        for game in sorted(games):
            ratings.recompute(club_id=club.pk, game=game)
        if games:
            ratings.recompute(club_id=club.pk, game=OVERALL)


def _rebuild_aggregates(club: Club) -> None:
    # (game, bucket date or None, member) -> [deals, wins, points, money]; the buckets are the
    # club's local day and month of each result, as ``results._bump`` files them.
    sums: dict[str, dict[tuple[str, date | None, int], list[Any]]] = {
        "day": defaultdict(lambda: [0, 0, 0, Decimal("0")]),
        "month": defaultdict(lambda: [0, 0, 0, Decimal("0")]),
        "total": defaultdict(lambda: [0, 0, 0, Decimal("0")]),
    }

    def add(game: str, moment: Any, member: int, deals: int, wins: int, points: int, money: Decimal) -> None:
        local = timezone.localtime(moment)
        keys = {"day": local.date(), "month": date(local.year, local.month, 1), "total": None}
        for bucket, key in keys.items():
            row = sums[bucket][(game, key, member)]
            row[0] += deals
            row[1] += wins
            row[2] += points
            row[3] += money

    for game, moment, member, won, points, money in DealResult.objects.filter(club=club).values_list(
        "game", "finished_at", "member_id", "won", "points", "money"
    ).iterator(chunk_size=5000):
        add(game, moment, member, 1, int(won), points, money)
    # What a close settled (Mičiganas' M3 split) counts as points and money, not as deals.
    splits = ChipMovement.objects.filter(session__club=club, deal__isnull=True).select_related(
        "session"
    )
    # One query for every seat of the club's sessions, not one per movement.
    members = {
        (session, number): member
        for session, number, member in Seat.objects.filter(session__club=club).values_list(
            "session_id", "number", "member_id"
        )
    }
    for move in splits:
        assert move.target_seat is not None  # a close shares chips out to seats
        member = members[(move.session_id, move.target_seat)]
        add(move.session.game, move.at, member, 0, 0, move.chips, move.chips * move.session.stake)

    board_version.changed(club.pk)  # the leaderboard's cached totals retire once this commits
    for model, bucket in AGGREGATES:
        model.objects.filter(club=club).delete()  # type: ignore[attr-defined]
        name = bucket or "total"
        model.objects.bulk_create(  # type: ignore[attr-defined]
            (
                model(club=club, game=game, member_id=member, deals=d, wins=w, points=p, money=m,
                      **({bucket: key} if bucket else {}))
                for (game, key, member), (d, w, p, m) in sums[name].items()
                if (d, w, p, m) != (0, 0, 0, 0)
            ),
            batch_size=1000,
        )
