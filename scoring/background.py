"""What scoring asks its Celery workers to do, without importing them.

Services decide *that* work must be done in the background (deals wait for their rating
step, a summary is pending) and announce it with one of these signals, sent only when the
transaction commits: a rolled-back change asks for nothing. The task modules
(``scoring.tasks``, ``scoring.rating_tasks``) hold the receivers, and they are the only
places that call ``.delay``/``apply_async``; ``ScoringConfig.ready`` connects them. So tasks
import services and never the reverse, and a service can be run and tested without Celery.
"""

from __future__ import annotations

import time
from typing import Any

from django.db import transaction
from django.dispatch import Signal

#: A session's summary is pending and must be built: ``summary_id``.
summary_requested = Signal()
#: A club's rating streams have deals waiting for their rating step (or a recompute):
#: ``club_id``, ``games`` (the streams: games and/or ``all``).
ratings_due = Signal()


def after_commit(signal: Signal, **kwargs: Any) -> None:
    """Send ``signal`` with ``kwargs`` once the current transaction commits (at once outside one);
    ``ratings_due`` only when no task already on its way takes the streams (``_send_ratings_due``).

    Robust: the change has committed by then, so a broker that is down is logged, never the
    request's answer (a finishing entry answered 500 although it was stored). The work waits:
    rating events stay queued and the next deal, or the next read of the leaderboard
    (``ratings.request_settle_if_pending``), asks again; a summary that could not be queued
    says so on its page and can be retried (``summary_services.enqueue``)."""
    # A named function, not a partial: Django names a failed robust hook by its __qualname__.
    def send_after_commit() -> None:
        if signal is ratings_due:
            _send_ratings_due(**kwargs)
        else:
            signal.send(sender=None, **kwargs)

    transaction.on_commit(send_after_commit, robust=True)


#: How long after a deal's end its rating step runs on a worker. The deals that a club's tables
#: finish meanwhile go in the same task: one publish to the broker and one settle for many deals,
#: where each finishing entry paid for its own. Well within the second in which the
#: ratings settle on an idle worker.
SETTLE_DELAY = 0.25
#: (club, stream) -> when the rating task this process sent for it runs (wall clock, as the
#: task's ETA): until then, a deal that commits needs no task of its own.
_scheduled: dict[tuple[int, str], float] = {}


def _send_ratings_due(*, club_id: int, games: list[str]) -> None:
    """Make sure a worker takes these streams' events: a task this process sent that has not
    run yet takes them (it runs SETTLE_DELAY after it was sent and reads the events committed
    until then); otherwise a new one is sent."""
    from celery import current_app

    if current_app.conf.task_always_eager:
        # No worker, no delay: the task runs in this process now (nothing may wait on a timer).
        ratings_due.send(sender=None, club_id=club_id, games=games)
        return
    now = time.time()
    due = [game for game in games if _scheduled.get((club_id, game), 0.0) <= now]
    if not due:
        return
    ratings_due.send(sender=None, club_id=club_id, games=due, countdown=SETTLE_DELAY)
    if len(_scheduled) > 10_000:  # a long-running process forgets the runs that are over
        for key in [key for key, at in _scheduled.items() if at <= now]:
            del _scheduled[key]
    # Only once it is sent: a failed send leaves the next deal to send one (and reads to ask again).
    for game in due:
        _scheduled[(club_id, game)] = now + SETTLE_DELAY
