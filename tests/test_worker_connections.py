"""The Celery worker keeps its database connection from task to task, as a web process keeps
its one from request to request (Celery's Django fixup closed it around every task,
so each rating task of a club night started a PostgreSQL backend and planned its statements
again). Celery's own fixup is driven here as the worker drives it, around a task."""

from __future__ import annotations

import time
from typing import Any

import pytest
from celery.fixups.django import DjangoWorkerFixup
from django.db import connection

from config import celery
from scoring.ratings.tasks import settle_ratings

pytestmark = pytest.mark.django_db(transaction=True)


def around_a_task(fixup: DjangoWorkerFixup) -> None:
    """What the worker's signals do before and after a task runs."""
    fixup.on_task_prerun(sender=settle_ratings)
    celery.close_old_connections(sender=settle_ratings)
    fixup.on_task_postrun(sender=settle_ratings)
    celery.close_old_connections(sender=settle_ratings)


def test_the_connection_outlives_a_task(require_postgres: Any) -> None:
    connection.ensure_connection()
    opened = connection.connection
    around_a_task(DjangoWorkerFixup(celery.app))
    assert connection.connection is opened


def test_without_the_setting_celery_would_close_it(require_postgres: Any, monkeypatch: Any) -> None:
    monkeypatch.setitem(celery.app.conf, "CELERY_DB_REUSE_MAX", None)
    connection.ensure_connection()
    around_a_task(DjangoWorkerFixup(celery.app))
    assert connection.connection is None


def test_a_connection_past_its_age_is_closed_after_a_task(require_postgres: Any) -> None:
    connection.ensure_connection()
    connection.close_at = time.monotonic() - 1  # past CONN_MAX_AGE
    around_a_task(DjangoWorkerFixup(celery.app))
    assert connection.connection is None
    connection.ensure_connection()


def test_a_task_run_eagerly_inside_a_request_leaves_the_connection_alone(require_postgres: Any) -> None:
    connection.ensure_connection()
    opened = connection.connection
    connection.close_at = time.monotonic() - 1
    eager = type("EagerTask", (), {"request": type("Request", (), {"is_eager": True})()})()
    celery.close_old_connections(sender=eager)
    assert connection.connection is opened
