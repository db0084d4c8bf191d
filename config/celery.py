"""The Celery app: configured from Django settings (CELERY_*)."""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("config")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# Celery's Django fixup closes every database connection before and after each task unless
# this is set, so each task opened a new one: a PostgreSQL backend started for every rating
# task of a club night (a few a second), its prepared statements planned again, and a third of
# the task's own CPU spent connecting (bench/bench_tables.py). With it, the fixup
# leaves them open and the handler below treats a task as Django treats a request.
app.conf.update(CELERY_DB_REUSE_MAX=2**31)


@task_prerun.connect
@task_postrun.connect
def close_old_connections(sender: Any = None, **kwargs: Any) -> None:
    """Around each task, as around each request: a connection past CONN_MAX_AGE, or left
    unusable by an error (a database restart fails one attempt, and its retry connects
    afresh), is closed. Not for a task run eagerly inside a request or a test's transaction."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    from django.db import close_old_connections as close

    close()
