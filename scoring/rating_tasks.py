"""The Celery task that recomputes a stale rating stream (see ``scoring.ratings``).

A thin wrapper: the recompute is ``ratings.recompute``; this module only puts it on a
worker when ``scoring.background.ratings_stale`` is sent (connected in ``ScoringConfig.ready``).
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from . import ratings


@shared_task(bind=True, max_retries=5, default_retry_delay=10, acks_late=True)
def recompute_ratings(self: object, club_id: int, game: str) -> int:
    """Idempotent: recomputing a stream that is no longer stale gives the same ratings."""
    return ratings.recompute(club_id=club_id, game=game)


def request_recompute(sender: object, *, club_id: int, game: str, **kwargs: Any) -> None:
    """Receiver of ``ratings_stale``: enqueue the recompute (in-process when no broker is configured)."""
    recompute_ratings.delay(club_id, game)
