"""Asking for a session's summary, retrying it, and reading its state for the API and pages.

Closing a session calls :func:`request_summary` inside the closing transaction: the summary
row is marked pending at once, and the Celery task is asked for (the signal
``background.summary_requested``, which ``scoring.tasks`` receives) only after the
transaction commits, so a worker never looks for a session that is not closed yet, and a
rolled-back close sends nothing. With no worker running the message waits in the broker;
with no broker reachable at all the summary stays pending with the reason, and can be
retried.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from celery import uuid
from django.conf import settings
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from referee.errors import Conflict, NotFound
from referee.models import Role, Session, SessionStatus
from referee.permissions import require_role
from scoring import background
from scoring.models import SessionSummary, SummaryState
from scoring.summaries import summary as build

logger = logging.getLogger(__name__)


def request_summary(*, session: Session, force: bool = False) -> SessionSummary:
    """Mark the session's summary pending and enqueue its build once the transaction commits.

    ``force`` rebuilds even when nothing changed (after a change to how summaries look).
    The previous summary stays readable, marked outdated, until the new one is stored.
    """
    with transaction.atomic():
        summary, _created = SessionSummary.objects.select_for_update().get_or_create(session=session)
        summary.state = SummaryState.PENDING
        summary.progress = 0
        summary.attempts = 0
        summary.error = ""
        summary.task_id = ""
        summary.requested_at = timezone.now()
        summary.started_at = None
        summary.finished_at = None
        changed = ["state", "progress", "attempts", "error", "task_id", "requested_at", "started_at", "finished_at"]
        if force:
            summary.fingerprint = ""
            changed.append("fingerprint")
        # Only what changed: the stored page, table and chart stay readable until the new
        # ones replace them, and are not written again with every close.
        summary.save(update_fields=changed)
        summary_id = summary.pk
        background.after_commit(background.summary_requested, summary_id=summary_id)
    return summary


def enqueue(summary_id: int, *, send: Callable[..., object]) -> str | None:
    """Send the build task with ``send`` (the task's ``apply_async``, passed in by
    ``scoring.tasks``); on a broker that cannot be reached, record why and return None."""
    summary = SessionSummary.objects.filter(pk=summary_id).values_list("session_id", flat=True).first()
    if summary is None:
        return None
    options: dict[str, Any] = {
        # Give up quickly on a dead broker: closing a session must not hang on it.
        "retry_policy": {"max_retries": 2, "interval_start": 0, "interval_step": 0.5, "interval_max": 1},
    }
    queue = getattr(settings, "SUMMARY_QUEUE", "")
    if queue:
        options["queue"] = queue
    try:
        # The id is stored before the message can run, so the task recognises itself.
        task_id = uuid()
        SessionSummary.objects.filter(pk=summary_id).update(task_id=task_id)
        send(args=[summary], task_id=task_id, **options)
    except Exception as error:  # noqa: BLE001 - any broker failure leaves the summary pending
        logger.warning("summary of session %s not queued: %s", summary, error)
        SessionSummary.objects.filter(pk=summary_id).update(
            task_id="", error=_("The summary could not be queued: the task queue is out of reach. Try again.")
        )
        return None
    return task_id


def retry_summary(*, session: Session, user: Any) -> SessionSummary:
    """Try again after a final failure (or a message that never reached the queue)."""
    require_role(user, session.club, Role.SCORER)
    summary = SessionSummary.objects.filter(session=session).first()
    if summary is None:
        raise NotFound(_("This session has no summary yet: it is built when the session is closed."))
    if session.status != SessionStatus.CLOSED:
        raise Conflict(_("This session is open; its summary is built again when it is closed."))
    if not can_retry(summary):
        messages = {
            SummaryState.DONE: _("The summary is already built; there is nothing to retry."),
            SummaryState.RUNNING: _("The summary is being built right now."),
            SummaryState.PENDING: _("The summary is waiting for a worker; it will be built as soon as one runs."),
        }
        raise Conflict(messages[SummaryState(summary.state)])
    return request_summary(session=session)


def can_retry(summary: SessionSummary) -> bool:
    return (
        summary.state == SummaryState.FAILED
        or (summary.state == SummaryState.PENDING and not summary.task_id)
        or is_stalled(summary)
    )


def is_stalled(summary: SessionSummary) -> bool:
    """Running for longer than any build takes: its worker died mid-task (killed, machine
    lost) and the broker will not hand the message out again before its visibility timeout,
    so the scorer may start it again. A late finish of the old task stores the same data."""
    stale_after = float(getattr(settings, "SUMMARY_STALE_AFTER", 300))
    return (
        summary.state == SummaryState.RUNNING
        and summary.started_at is not None
        and (timezone.now() - summary.started_at).total_seconds() > stale_after
    )


def summary_status(summary: SessionSummary, session: Session) -> dict[str, Any]:
    """What the API returns and the page polls: state, percent, the error, and the summary."""
    is_open = session.status != SessionStatus.CLOSED
    messages = {
        SummaryState.PENDING: _("Waiting for a worker to build the summary."),
        SummaryState.RUNNING: _("Building the summary: %(progress)s%% done.") % {"progress": summary.progress},
        SummaryState.DONE: _("The summary is ready."),
        SummaryState.FAILED: _("Building the summary failed: %(error)s") % {"error": summary.error},
    }
    message = messages[SummaryState(summary.state)]
    if is_stalled(summary):
        message = _("The summary has been building for too long; its worker may have stopped. Try again.")
    if summary.state == SummaryState.PENDING and summary.error:
        if summary.task_id:
            message = _("Attempt %(attempts)s failed (%(error)s); trying again shortly.") % {
                "attempts": summary.attempts, "error": summary.error}
        else:
            message = summary.error
    if is_open:
        message = _("The session was reopened; its summary is built again when it is closed.")
    return {
        "session": session.pk,
        "state": summary.state,
        "progress": summary.progress,
        "attempts": summary.attempts,
        "error": summary.error,
        "message": message,
        "can_retry": can_retry(summary) and not is_open,
        # The stored summary describes the session as it was at the last successful build.
        "outdated": summary.data is not None and (summary.state != SummaryState.DONE or is_open),
        "requested_at": _iso(summary.requested_at),
        "started_at": _iso(summary.started_at),
        "finished_at": _iso(summary.finished_at),
        "links": {
            "csv": reverse("api-session-summary", args=[session.pk]) + "?format=csv",
            "chart": reverse("session-summary-chart", args=[session.pk]),
            "retry": reverse("api-session-summary-retry", args=[session.pk]),
        },
        # Stored without words; its sentences are written in the reader's language.
        "summary": build.for_reader(summary.data),
    }


def summary_csv(summary: SessionSummary) -> str:
    """The deal table as CSV in the reader's (active) language, from the stored figures; the
    stored CSV (the site language's) only for a summary stored before it had them."""
    if summary.data is None or summary.data.get("version", 1) < 2:
        return summary.csv
    return build.render_csv(summary.data)


def _iso(moment: Any) -> str | None:
    return None if moment is None else timezone.localtime(moment).isoformat()


# -- the build itself (the task's body; also run in-process by the management command) ------


def build_and_store(*, session_id: int, task_id: str | None = None, progress_hook: Any = None) -> str:
    """Build and store the session's summary; returns what happened.

    ``"built"``: stored anew. ``"unchanged"``: the data matches the stored fingerprint, so
    the stored summary stands (a re-run changes nothing). ``"gone"``: the session or its
    summary no longer exists. ``"open"``: the session was reopened; it is built again at
    the next close. ``"superseded"``: a newer request owns the summary now.
    Exceptions propagate: the task retries them.
    """
    summary = SessionSummary.objects.filter(session_id=session_id).select_related("session").first()
    if summary is None:
        return "gone"
    if task_id and summary.task_id and summary.task_id != task_id:
        return "superseded"
    session = summary.session
    if session.status != SessionStatus.CLOSED:
        return "open"

    def report(percent: int) -> None:
        _mark(summary.pk, percent)
        if progress_hook is not None:
            progress_hook(session_id, percent)

    _mark(summary.pk, 5, start=True)
    if progress_hook is not None:
        progress_hook(session_id, 5)
    # Built in the site's language whoever triggered it, so a re-run gives the same bytes.
    with translation.override(settings.LANGUAGE_CODE):
        facts = build.gather(session)
    fingerprint = build.fingerprint(facts)
    report(20)
    if fingerprint == summary.fingerprint and summary.data is not None:
        _store(summary.pk, fingerprint=fingerprint, built=None)
        report_done(session_id, progress_hook)
        return "unchanged"
    built = build.build(facts, progress=report)
    _store(summary.pk, fingerprint=fingerprint, built=built)
    report_done(session_id, progress_hook)
    return "built"


def _mark(summary_id: int, progress: int, *, start: bool = False) -> None:
    """Store how far the build is (``start``: it is running, one attempt more, started now), in
    one statement. On PostgreSQL that statement's commit does not wait for the disk
    (``synchronous_commit`` off for its own transaction only, set by the statement itself): a
    build's five marks waited for five flushes, 10-12 ms each on this busy disk, about 50 ms of
    a 200-deal build's 0.2 s. A database crash may lose a mark (the row then shows
    an earlier step), never the summary: the stored result (``_store``) commits as any other
    write. Inside another transaction the setting would last for that transaction, so there
    the mark is a plain update."""
    table = SessionSummary._meta.db_table
    sets = ["progress = %s"]
    params: list[Any] = [progress]
    if start:
        sets += ["state = %s", "attempts = attempts + 1", "started_at = %s"]
        started = SessionSummary._meta.get_field("started_at").get_db_prep_save(timezone.now(), connection)
        params += [SummaryState.RUNNING.value, started]
    where = "id = %s"
    if connection.vendor == "postgresql" and not connection.in_atomic_block:
        where += " AND set_config('synchronous_commit', 'off', true) = 'off'"
    with connection.cursor() as cursor:
        cursor.execute(f"UPDATE {table} SET {', '.join(sets)} WHERE {where}", [*params, summary_id])  # noqa: S608


def _store(summary_id: int, *, fingerprint: str, built: dict[str, Any] | None) -> None:
    """The result, done, in one UPDATE (its own transaction: the row is locked while it is
    written, as a SELECT ... FOR UPDATE and a save() did in three round trips)."""
    fields: dict[str, Any] = {}
    if built is not None:
        fields.update(data=built["data"], html=built["html"], csv=built["csv"], chart_svg=built["chart_svg"])
    now = timezone.now()
    SessionSummary.objects.filter(pk=summary_id).update(
        **fields, fingerprint=fingerprint, state=SummaryState.DONE, progress=100, error="", finished_at=now,
        updated_at=now,
    )


def report_done(session_id: int, progress_hook: Any) -> None:
    if progress_hook is not None:
        progress_hook(session_id, 100)


def record_failure(*, session_id: int, task_id: str | None, error: BaseException, final: bool) -> None:
    """A failed attempt: pending again (a retry is coming) or, after the last one, failed."""
    text = f"{type(error).__name__}: {error}"[:500]
    updates: dict[str, Any] = {"error": text, "state": SummaryState.FAILED if final else SummaryState.PENDING}
    if final:
        updates["finished_at"] = timezone.now()
    rows = SessionSummary.objects.filter(session_id=session_id)
    if task_id:
        # A newer request may own the summary by now: never mark its work failed.
        rows = rows.filter(task_id__in=[task_id, ""])
    rows.update(**updates)
