"""A Celery worker killed in the middle of building a summary.

A real worker process (``celery worker``, prefork pool, its own queue) builds the summary
of a closed session from the test's PostgreSQL database, through the Redis broker. The
test holds the results table locked, so the build stops inside ``gather`` with the
summary marked running, and then kills:

* only the pool process running the task: the worker notices the lost child and, with
  ``acks_late`` + ``reject_on_worker_lost``, puts the message back; the same task runs
  again and the summary is built (two attempts, the same task id);
* the whole worker (SIGKILL to its process group): the message stays unacknowledged in
  the broker until its visibility timeout (an hour), so the summary stays "running". The
  retry endpoint refuses while that could still be a live build, and accepts once the
  build is older than ``SUMMARY_STALE_AFTER``; a new worker then builds it.

Needs PostgreSQL (the worker process must see the test's database) and a broker: CI has
both; locally they skip without DATABASE_URL / CELERY_BROKER_URL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from config.celery import app
from scoring.models import SessionSummary

pytestmark = [pytest.mark.worker, pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 60.0


def wait_for(check: Callable[[], bool], what: str, timeout: float = TIMEOUT) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # "pid (comm) state ppid ...": comm may hold spaces, so split after the last ")".
        if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
            found.append(int(entry.name))
    return found


class Worker:
    """``celery -A config worker`` in its own process group, consuming one queue."""

    def __init__(self, queue: str, broker_url: str, log: Path) -> None:
        settings_dict = connection.settings_dict
        user, host = settings_dict["USER"] or "postgres", settings_dict["HOST"] or "127.0.0.1"
        password = f":{settings_dict['PASSWORD']}" if settings_dict["PASSWORD"] else ""
        database_url = f"postgres://{user}{password}@{host}:{settings_dict['PORT'] or 5432}/{settings_dict['NAME']}"
        self.env = {
            **{key: value for key, value in os.environ.items() if key != "DEBUG"},
            "DJANGO_SETTINGS_MODULE": "config.settings", "ALLOW_INSECURE_KEY": "1", "SECURE_BEHIND_TLS": "0",
            "DATABASE_URL": database_url, "CELERY_BROKER_URL": broker_url, "CONN_MAX_AGE": "0",
        }
        self.queue, self.log = queue, log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        output = open(self.log, "ab")  # noqa: SIM115 - kept open for the process's life
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "prefork", "--concurrency", "1",
             "-Q", self.queue, "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "INFO"],
            cwd=ROOT, env=self.env, stdout=output, stderr=output, start_new_session=True,
        )

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def kill(self) -> None:
        if self.process is None:
            return
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=30)
        self.process = None

    def log_tail(self) -> str:
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-40:]) if self.log.exists() else ""


@pytest.fixture
def queue(require_postgres: None, require_broker: str, settings: Any) -> Iterator[tuple[str, str]]:
    name = f"summaries-kill-{uuid.uuid4().hex[:12]}"
    settings.SUMMARY_QUEUE = name
    settings.LANGUAGE_CODE = "en"
    saved = {key: app.conf[key] for key in ("task_always_eager", "broker_url")}
    app.conf.task_always_eager = False
    app.conf.broker_url = require_broker
    app._pool = None
    try:
        yield name, require_broker
    finally:
        with app.connection_for_write() as conn:
            conn.default_channel.queue_purge(name)
            _forget_unacked(conn, name)
        app.conf.task_always_eager = saved["task_always_eager"]
        app.conf.broker_url = saved["broker_url"]
        app._pool = None


def _forget_unacked(conn: Any, queue: str) -> None:
    """The killed worker's message waits in Redis' unacked set for an hour; remove ours."""
    client = getattr(conn.default_channel, "client", None)
    if client is None:
        return
    for tag, payload in client.hgetall("unacked").items():
        if queue.encode() in payload:
            client.hdel("unacked", tag)
            client.zrem("unacked_index", tag)


@pytest.fixture
def lock_results() -> Iterator[Callable[[], Callable[[], None]]]:
    """``release = lock_results()``: hold scoring_dealresult in ACCESS EXCLUSIVE mode from
    another connection until released, so a summary build blocks inside ``gather`` after it
    has marked itself running."""
    import psycopg

    params = connection.get_connection_params()
    for key in ("cursor_factory", "context"):
        params.pop(key, None)
    lockers: list[Any] = []

    def lock() -> Callable[[], None]:
        locker = psycopg.connect(**params)
        locker.execute("LOCK TABLE scoring_dealresult IN ACCESS EXCLUSIVE MODE")
        lockers.append(locker)

        def release() -> None:
            if not locker.closed:
                locker.rollback()
                locker.close()

        return release

    try:
        yield lock
    finally:
        for locker in lockers:
            if not locker.closed:
                locker.close()


def closed_session(club_setup: dict[str, Any]) -> Any:
    from referee import services

    members, scorer = club_setup["members"], club_setup["users"]["scorer"]
    players = [members[name] for name in ("admin", "scorer", "member", "Petras")]
    session = services.session_start(club=club_setup["club"], game="velnias", players=players, user=scorer)
    deal = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=deal.pk, user=scorer, payload={
        "type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 5, 2, 4]})
    return session


def summary_of(session: Any) -> SessionSummary:
    return SessionSummary.objects.get(session=session)


def test_a_killed_pool_process_has_its_summary_task_redelivered(
    club_setup: dict[str, Any], queue: tuple[str, str], lock_results: Any, tmp_path: Path
) -> None:
    from referee import services

    session = closed_session(club_setup)
    services.session_close(session=session, user=club_setup["users"]["scorer"])
    release = lock_results()
    task_id = summary_of(session).task_id
    assert task_id
    worker = Worker(queue[0], queue[1], tmp_path / "worker.log")
    worker.start()
    try:
        wait_for(lambda: summary_of(session).state == "running", "the build to start")
        children = children_of(worker.pid)
        assert len(children) == 1, (children, worker.log_tail())
        os.kill(children[0], signal.SIGKILL)
        release()
        wait_for(lambda: summary_of(session).state == "done", "the redelivered task to build the summary")
    finally:
        worker.kill()
    summary = summary_of(session)
    assert (summary.state, summary.progress, summary.attempts, summary.task_id) == ("done", 100, 2, task_id)
    assert summary.data is not None and summary.error == ""
    log = worker.log.read_text(errors="replace")
    assert "WorkerLostError" in log
    assert log.count(f"build_session_summary[{task_id}] received") == 2


def test_a_summary_left_running_by_a_dead_worker_can_be_retried(
    club_setup: dict[str, Any], queue: tuple[str, str], lock_results: Any, tmp_path: Path,
    api: Any, settings: Any,
) -> None:
    from referee import services

    settings.SUMMARY_STALE_AFTER = 300
    session = closed_session(club_setup)
    services.session_close(session=session, user=club_setup["users"]["scorer"])
    release = lock_results()
    first_task = summary_of(session).task_id
    worker = Worker(queue[0], queue[1], tmp_path / "worker.log")
    worker.start()
    try:
        wait_for(lambda: summary_of(session).state == "running", "the build to start")
    finally:
        worker.kill()  # master and pool process, no goodbye: the message is never acknowledged
    release()
    time.sleep(1)
    assert summary_of(session).state == "running"

    client = api(club_setup["users"]["scorer"])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    retry = f"/api/sessions/{session.pk}/summary/retry/"
    refused = client.post(retry)
    assert (refused.status_code, refused.json()["error"]) == (409, "The summary is being built right now.")

    # Ten minutes later the build is clearly dead: the page offers to try again, and it works.
    SessionSummary.objects.filter(session=session).update(started_at=timezone.now() - timedelta(minutes=10))
    status = client.get(f"/api/sessions/{session.pk}/summary/").json()
    assert (status["state"], status["can_retry"], status["message"]) == (
        "running", True, "The summary has been building for too long; its worker may have stopped. Try again.")
    accepted = client.post(retry)
    assert accepted.status_code in (200, 202), accepted.content
    second_task = summary_of(session).task_id
    assert second_task and second_task != first_task
    worker = Worker(queue[0], queue[1], tmp_path / "worker2.log")
    worker.start()
    try:
        wait_for(lambda: summary_of(session).state == "done", "a new worker to build the summary")
    finally:
        worker.kill()
    summary = summary_of(session)
    assert (summary.state, summary.progress, summary.task_id) == ("done", 100, second_task)
