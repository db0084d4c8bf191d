"""The Celery task that rates a club's deals after commit (see ``scoring.ratings``).

A thin wrapper: the rating step is ``ratings.settle``; this module only puts it on a worker
when ``scoring.background.ratings_due`` is sent (connected in ``ScoringConfig.ready``).

Every web process holds back the deals that finish while a task it sent has not run yet
(``background.SETTLE_DELAY``); here, the processes also share that among themselves through
the broker's Redis (``_claimed``): with gunicorn's workers each sending its own task, a club
night paid for one task per worker per delay, and on the worker a task costs about the same
for one deal as for many.
"""

from __future__ import annotations

import logging
from functools import cache
from typing import Any

from celery import shared_task
from django.conf import settings
from django.db import transaction

from scoring.ratings import rating as ratings

log = logging.getLogger(__name__)


# The task keeps the name it had before the module moved: messages queued by an older web
# process still find it.
@shared_task(bind=True, name="scoring.rating_tasks.settle_ratings", max_retries=5, default_retry_delay=1,
             acks_late=True)
def settle_ratings(self: Any, club_id: int, games: list[str]) -> int:
    """Idempotent: a stream with nothing waiting is left as it is. A stream's lock keeps its
    workers in order; a failure (a deadlock, a lost connection) is retried."""
    try:
        # One transaction for the task's streams (one commit). Locks are taken in the order the
        # streams are given, a game's before ``all`` (``ratings.announce``), as by every task.
        with transaction.atomic():
            return sum(ratings.settle(club_id=club_id, game=game) for game in games)
    except Exception as error:  # noqa: BLE001 - every failure is retried; events stay queued
        raise self.retry(exc=error) from error


#: The share of the countdown for which a claim holds. A task runs ``countdown`` after it was
#: sent, later than its claim expires, so a deal that saw the claim has committed before the
#: task reads the events; the margin covers a worker whose clock runs a little ahead.
CLAIM_SHARE = 0.8


def request_settle(sender: object, *, club_id: int, games: list[str], countdown: float | None = None,
                   **kwargs: Any) -> None:
    """Receiver of ``ratings_due``: enqueue the rating step (in-process when no broker is configured),
    ``countdown`` seconds from now when given (deals finishing meanwhile join it), unless another
    process has sent one for these streams that has not run yet."""
    claimed = _claim(club_id, games, countdown) if countdown else None
    if claimed is not None:
        games = [game for game in games if game in claimed]
        if not games:
            return
    try:
        settle_ratings.apply_async((club_id, list(games)), countdown=countdown)
    except Exception:
        _release(club_id, claimed or [])  # the next deal sends again
        raise


def _key(club_id: int, game: str) -> str:
    return f"kortos:ratings-sent:{club_id}:{game}"


@cache
def _redis() -> Any:
    """The broker's Redis (None for any other broker); redis-py's pool starts afresh in a forked
    worker."""
    url = str(getattr(settings, "CELERY_BROKER_URL", "") or "")
    if not url.startswith(("redis://", "rediss://", "unix://")):
        return None
    import redis

    return redis.Redis.from_url(url)


def _claim(club_id: int, games: list[str], countdown: float) -> list[str] | None:
    """The streams this process now sends a task for (the others have one on its way), or None
    when nothing can be shared (no Redis broker, or it did not answer: then every stream)."""
    client = _redis()
    if client is None:
        return None
    try:
        with client.pipeline(transaction=False) as pipe:
            for game in games:
                pipe.set(_key(club_id, game), 1, nx=True, px=max(1, int(countdown * CLAIM_SHARE * 1000)))
            won = pipe.execute()
    except Exception:  # noqa: BLE001 - sending a task of its own is always right
        log.warning("could not share the rating tasks through the broker's Redis", exc_info=True)
        return None
    return [game for game, ok in zip(games, won, strict=True) if ok]


def _release(club_id: int, games: list[str]) -> None:
    client = _redis()
    if client is None or not games:
        return
    try:
        client.delete(*[_key(club_id, game) for game in games])
    except Exception:  # noqa: BLE001 - the claim expires within the countdown anyway
        log.warning("could not release a rating task's claim", exc_info=True)
