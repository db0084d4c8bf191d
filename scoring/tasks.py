"""Celery tasks of the scoring app: building a closed session's summary in the background.

The task takes a session id, so it stays valid whatever happened since it was queued: a
session that no longer exists just ends the task, a reopened one waits for the next
close, and a re-run on unchanged data stores nothing new. A failed attempt is retried with
exponential backoff (``SUMMARY_RETRY_BACKOFF`` seconds, doubling, at most 5 minutes) up to
``SUMMARY_MAX_RETRIES`` times; after the last one the summary is marked failed with the
error, and the API offers to try again.

The task is a thin wrapper around ``scoring.summary_services``; this module is the only one
that sends it (:func:`enqueue`, also the receiver of ``background.summary_requested``).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from celery import shared_task
from celery.signals import worker_init
from django.conf import settings

from scoring.summaries import services as summary_services
from scoring.summaries.services import build_and_store, record_failure

logger = logging.getLogger(__name__)

MAX_BACKOFF = 300


class InjectedFailure(RuntimeError):
    """Raised by :func:`inject_failures` (tests of retries and final failures)."""


#: Observer of progress, ``hook(session_id, percent)``: the worker tests watch the states with it.
progress_observer: Callable[[int, int], None] | None = None
_injected = {"failures": 0, "at": 20}
_injected_lock = threading.Lock()


def inject_failures(count: int, at: int = 20) -> None:
    """Make the next ``count`` attempts fail when they reach ``at`` percent (for tests)."""
    with _injected_lock:
        _injected["failures"], _injected["at"] = count, at


def _hook(session_id: int, percent: int) -> None:
    if progress_observer is not None:
        progress_observer(session_id, percent)
    with _injected_lock:
        fail = _injected["failures"] > 0 and percent == _injected["at"]
        if fail:
            _injected["failures"] -= 1
    if fail:
        raise InjectedFailure(f"injected failure at {percent}%")


def backoff(retries: int) -> float:
    base = float(getattr(settings, "SUMMARY_RETRY_BACKOFF", 2))
    return float(min(MAX_BACKOFF, base * (2**retries)))


@shared_task(bind=True, name="scoring.build_session_summary", acks_late=True)
def build_session_summary(self: Any, session_id: int) -> str:
    """Build and store the summary of session ``session_id`` (idempotent; retried)."""
    max_retries = int(getattr(settings, "SUMMARY_MAX_RETRIES", 3))
    task_id = self.request.id
    try:
        return build_and_store(session_id=session_id, task_id=task_id, progress_hook=_hook)
    except Exception as error:
        final = self.request.retries >= max_retries
        record_failure(session_id=session_id, task_id=task_id, error=error, final=final)
        if final:
            logger.exception("summary of session %s failed for good", session_id)
            return "failed"
        logger.warning("summary of session %s failed (attempt %s): %s", session_id, self.request.retries + 1, error)
        raise self.retry(exc=error, countdown=backoff(self.request.retries), max_retries=max_retries) from error


@worker_init.connect
def warm_summary(**_kwargs: Any) -> None:
    """Build one small summary's HTML, CSV and chart (nothing read or stored) when a worker
    starts, before its pool's processes fork from it: the template is compiled and the site
    language's catalogue loaded once, so the first summary a process builds pays no more than
    the next ( the chart no longer imports matplotlib, which cost 0.35-0.55 s here)."""
    from referee.rules import GAMES
    from scoring.summaries.summary import build

    game = next(iter(GAMES))
    players = [{"seat": seat, "name": name, "member": seat} for seat, name in enumerate(("A", "B"))]
    facts = {
        "version": 0, "players": players, "facts": {},
        "session": {"id": 0, "club": "", "club_slug": "", "game": game, "status": "closed", "date": "2026-01-01",
                    "created_at": "", "closed_at": None, "stake": "0.10", "currency": "EUR", "coin": None,
                    "options": {}},
        "deals": [{"number": 1, "dealer": 0, "points": [1, 0], "placements": [1, 2], "winners": [0]}],
        "scoring": {
            "standings": {"unit": "points", "unit_label": "", "m3": None, "deals": [
                {"deal": 1, "dealer": 0, "values": [1, 0], "placements": [1, 2], "money": ["0.10", "0.00"],
                 "running": [1, 0]}],
                "totals": [{"seat": 0, "name": "A", "total": 1, "place": 1, "money": "0.10"},
                           {"seat": 1, "name": "B", "total": 0, "place": 2, "money": "0.00"}]},
            "settlement": {"transfers": [], "coin": None, "nets": []},
        },
    }
    try:
        build(facts)
    except Exception:  # a warm-up never keeps a worker from starting; the first summary pays instead
        logger.warning("could not build the warm-up summary", exc_info=True)


def enqueue(summary_id: int) -> str | None:
    """Send the build of summary ``summary_id`` to the workers; None if the broker is out of reach."""
    return summary_services.enqueue(summary_id, send=build_session_summary.apply_async)


def summary_requested(sender: object, *, summary_id: int, **kwargs: Any) -> None:
    """Receiver of ``background.summary_requested`` (sent after the requesting transaction commits)."""
    enqueue(summary_id)
