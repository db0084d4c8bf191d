"""What scoring asks its Celery workers to do, without importing them.

Services decide *that* work must be done in the background (deals wait for their rating
step, a summary is pending) and announce it with one of these signals, sent only when the
transaction commits: a rolled-back change asks for nothing. The task modules
(``scoring.tasks``, ``scoring.rating_tasks``) hold the receivers, and they are the only
places that call ``.delay``/``apply_async``; ``ScoringConfig.ready`` connects them. So tasks
import services and never the reverse, and a service can be run and tested without Celery.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction
from django.dispatch import Signal

#: A session's summary is pending and must be built: ``summary_id``.
summary_requested = Signal()
#: A club's rating streams have deals waiting for their rating step (or a recompute):
#: ``club_id``, ``games`` (the streams: games and/or ``all``).
ratings_due = Signal()


def after_commit(signal: Signal, **kwargs: Any) -> None:
    """Send ``signal`` with ``kwargs`` once the current transaction commits (at once outside one)."""
    transaction.on_commit(partial(signal.send, sender=None, **kwargs))
