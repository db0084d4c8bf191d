"""The Celery task that recomputes a stale rating stream (see ``scoring.ratings``)."""

from __future__ import annotations

from celery import shared_task

from . import ratings


@shared_task(bind=True, max_retries=5, default_retry_delay=10, acks_late=True)
def recompute_ratings(self: object, club_id: int, game: str) -> int:
    """Idempotent: recomputing a stream that is no longer stale gives the same ratings."""
    return ratings.recompute(club_id=club_id, game=game)
