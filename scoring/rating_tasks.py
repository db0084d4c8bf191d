"""The Celery task that rates a club's deals after commit (see ``scoring.ratings``).

A thin wrapper: the rating step is ``ratings.settle``; this module only puts it on a worker
when ``scoring.background.ratings_due`` is sent (connected in ``ScoringConfig.ready``).
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from . import ratings


@shared_task(bind=True, max_retries=5, default_retry_delay=1, acks_late=True)
def settle_ratings(self: Any, club_id: int, games: list[str]) -> int:
    """Idempotent: a stream with nothing waiting is left as it is. A stream's lock keeps its
    workers in order; a failure (a deadlock, a lost connection) is retried."""
    try:
        return sum(ratings.settle(club_id=club_id, game=game) for game in games)
    except Exception as error:  # noqa: BLE001 - every failure is retried; events stay queued
        raise self.retry(exc=error) from error


def request_settle(sender: object, *, club_id: int, games: list[str], countdown: float | None = None,
                   **kwargs: Any) -> None:
    """Receiver of ``ratings_due``: enqueue the rating step (in-process when no broker is configured),
    ``countdown`` seconds from now when given (deals finishing meanwhile join it)."""
    settle_ratings.apply_async((club_id, list(games)), countdown=countdown)
