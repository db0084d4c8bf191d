"""Summaries built by a real Celery worker through a real broker (Redis in CI, db 14).

Each test gets its own queue (so parallel runs and other tests never take its messages),
switches eager mode off, and starts an embedded worker in a thread when it wants one. The
worker thread reads the same test database, so these tests use ``transactional_db``: what
the test commits is what the worker sees. They skip locally without CELERY_BROKER_URL and
fail in CI (REQUIRE_SERVICES=1) if the broker is missing.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import pytest
from celery.contrib.testing.worker import start_worker
from celery.signals import task_postrun
from django.db import OperationalError, connections
from kombu import Queue

from config.celery import app
from scoring import tasks
from scoring.models import SessionSummary
from scoring.tasks import enqueue

from .summary_sessions import close, velnias_evening

pytestmark = [pytest.mark.worker, pytest.mark.django_db(transaction=True)]

TIMEOUT = 30.0


@dataclass
class Broker:
    queue: str
    #: (task id, return value) of every task the worker finished.
    finished: list[tuple[str, Any]] = field(default_factory=list)

    def waiting(self) -> int:
        """Messages waiting in this test's queue."""
        with app.connection_for_write() as connection:
            return int(Queue(self.queue, channel=connection.default_channel).queue_declare().message_count)

    def purge(self) -> None:
        with app.connection_for_write() as connection:
            Queue(self.queue, channel=connection.default_channel).declare()
            connection.default_channel.queue_purge(self.queue)

    def remove(self) -> None:
        """Delete the queue and the broker's bookkeeping of it (nothing is left in Redis)."""
        with app.connection_for_write() as connection:
            channel = connection.default_channel
            channel.queue_delete(self.queue)
            channel.client.delete(f"_kombu.binding.{self.queue}", f"_kombu.binding_permanent.{self.queue}")

    @contextmanager
    def worker(self) -> Iterator[None]:
        with start_worker(app, pool="solo", concurrency=1, perform_ping_check=False, queues=[self.queue],
                          shutdown_timeout=TIMEOUT, loglevel="WARNING"):
            yield


@pytest.fixture
def english(settings: Any) -> None:
    settings.LANGUAGE_CODE = "en"


@pytest.fixture
def broker(require_broker: str, settings: Any, english: None) -> Iterator[Broker]:
    queue = f"summaries-test-{uuid.uuid4().hex[:12]}"
    settings.SUMMARY_QUEUE = queue
    settings.SUMMARY_RETRY_BACKOFF = 0
    saved = {key: app.conf[key] for key in ("task_always_eager", "broker_url")}
    app.conf.task_always_eager = False
    app.conf.broker_url = require_broker
    app._pool = None  # a pool made for another broker URL must not be reused
    state = Broker(queue)

    def on_finished(task_id: str | None = None, retval: Any = None, **_kwargs: Any) -> None:
        state.finished.append((str(task_id), retval))
        # The worker thread's connection must not outlive the test (PostgreSQL would refuse
        # to drop the test database while it is open).
        connections.close_all()

    task_postrun.connect(on_finished, weak=False)
    state.purge()
    try:
        yield state
    finally:
        task_postrun.disconnect(on_finished)
        state.remove()
        app.amqp.queues._consume_from = None  # the embedded worker selected our queue only
        app.conf.task_always_eager = saved["task_always_eager"]
        app.conf.broker_url = saved["broker_url"]
        app._pool = None
        tasks.progress_observer = None
        tasks.inject_failures(0)


def wait_for(check: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if check():
                return
        except OperationalError:
            pass  # SQLite: the worker thread holds the table for a moment
        time.sleep(0.05)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def summary_of(session_id: int) -> SessionSummary:
    return SessionSummary.objects.get(session_id=session_id)


def done(session_id: int) -> Callable[[], bool]:
    return lambda: summary_of(session_id).state in ("done", "failed")


def test_the_worker_builds_the_summary_and_shows_progress(club_setup: Any, broker: Broker, api: Any) -> None:
    seen: list[tuple[int, str]] = []
    at_forty, go_on = threading.Event(), threading.Event()

    def observe(session_id: int, percent: int) -> None:
        seen.append((percent, summary_of(session_id).state))
        if percent == 40:
            at_forty.set()
            go_on.wait(TIMEOUT)

    tasks.progress_observer = observe
    session = velnias_evening(club_setup)
    close(club_setup, session)
    client = api(club_setup["users"]["member"])
    url = f"/api/sessions/{session.pk}/summary/"
    body = client.get(url).json()
    assert (body["state"], body["progress"], body["message"]) == (
        "pending", 0, "Waiting for a worker to build the summary.")
    with broker.worker():
        assert at_forty.wait(TIMEOUT), "the build never reached 40%"
        body = client.get(url).json()
        assert (body["state"], body["progress"], body["message"]) == (
            "running", 40, "Building the summary: 40% done.")
        go_on.set()
        wait_for(done(session.pk), "the summary")
    assert seen == [(5, "running"), (20, "running"), (40, "running"), (70, "running"), (90, "running"),
                    (100, "done")]
    summary = summary_of(session.pk)
    assert (summary.state, summary.progress, summary.attempts, summary.error) == ("done", 100, 1, "")
    assert [(r["name"], r["total"], r["place"], r["money"]) for r in summary.data["standings"]] == [
        ("Jonas", 17, 1, "8.50"), ("Ona", 2, 2, "1.00"), ("Rūta", -19, 3, "-9.50")]
    # The summary's figures are the standings the session pages show.
    standings = client.get(f"/api/sessions/{session.pk}/standings/").json()
    assert {t["seat"]: (t["total"], t["place"], t["money"]) for t in standings["totals"]} == {
        r["seat"]: (r["total"], r["place"], r["money"]) for r in summary.data["standings"]}
    assert client.get(url + "?format=csv").content.decode() == summary.csv
    assert broker.finished[-1] == (summary.task_id, "built")


def test_a_failed_attempt_is_retried_by_the_worker(club_setup: Any, broker: Broker) -> None:
    rows: list[tuple[int, str, int, str]] = []

    def observe(session_id: int, percent: int) -> None:
        row = summary_of(session_id)
        rows.append((percent, row.state, row.attempts, row.error))

    tasks.progress_observer = observe
    tasks.inject_failures(1)
    session = velnias_evening(club_setup)
    close(club_setup, session)
    with broker.worker():
        wait_for(done(session.pk), "the summary")
    assert rows[:3] == [
        (5, "running", 1, ""),
        (20, "running", 1, ""),  # ... and the injected failure
        (5, "running", 2, "InjectedFailure: injected failure at 20%"),  # the retry
    ]
    summary = summary_of(session.pk)
    assert (summary.state, summary.attempts, summary.error) == ("done", 2, "")


def test_after_the_last_retry_it_is_failed_and_can_be_tried_again(
    club_setup: Any, broker: Broker, settings: Any, api: Any
) -> None:
    settings.SUMMARY_MAX_RETRIES = 2
    tasks.inject_failures(100)
    session = velnias_evening(club_setup)
    close(club_setup, session)
    client = api(club_setup["users"]["scorer"])
    url = f"/api/sessions/{session.pk}/summary/"
    with broker.worker():
        wait_for(done(session.pk), "the summary to fail")
        summary = summary_of(session.pk)
        assert (summary.state, summary.attempts, summary.error) == (
            "failed", 3, "InjectedFailure: injected failure at 20%")
        body = client.get(url).json()
        assert (body["state"], body["can_retry"]) == ("failed", True)
        tasks.inject_failures(0)
        response = client.post(url + "retry/")
        assert response.status_code == 202
        wait_for(lambda: summary_of(session.pk).state == "done", "the retried summary")
    summary = summary_of(session.pk)
    assert (summary.state, summary.attempts, summary.error) == ("done", 1, "")
    assert [(r["name"], r["total"]) for r in summary.data["standings"]] == [("Jonas", 17), ("Ona", 2), ("Rūta", -19)]


def test_a_rerun_on_the_worker_changes_nothing(club_setup: Any, broker: Broker) -> None:
    session = velnias_evening(club_setup)
    close(club_setup, session)
    with broker.worker():
        wait_for(done(session.pk), "the summary")
        first = summary_of(session.pk)
        task_id = enqueue(first.pk)
        wait_for(lambda: (task_id, "unchanged") in broker.finished, "the re-run")
    again = summary_of(session.pk)
    assert (again.state, again.data, again.html, again.csv, again.chart_svg, again.fingerprint) == (
        "done", first.data, first.html, first.csv, first.chart_svg, first.fingerprint)


def test_closing_with_no_worker_running_then_starting_one(club_setup: Any, broker: Broker) -> None:
    session = velnias_evening(club_setup)
    close(club_setup, session)
    session.refresh_from_db()
    assert session.status == "closed"
    time.sleep(0.5)
    assert summary_of(session.pk).state == "pending"
    assert broker.waiting() == 1  # the message waits in the broker; nothing is lost
    with broker.worker():
        wait_for(done(session.pk), "the summary")
    assert summary_of(session.pk).state == "done"
    assert broker.waiting() == 0


def test_a_task_for_a_session_that_no_longer_exists_just_ends(club_setup: Any, broker: Broker) -> None:
    gone = velnias_evening(club_setup)
    close(club_setup, gone)
    gone_task = summary_of(gone.pk).task_id
    gone.delete()
    kept = velnias_evening(club_setup)
    close(club_setup, kept)
    with broker.worker():
        wait_for(done(kept.pk), "the other summary")
    assert (gone_task, "gone") in broker.finished
    assert summary_of(kept.pk).state == "done"
    assert broker.waiting() == 0
