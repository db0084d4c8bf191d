"""Celery tasks of the web floor: the scheduled club backups (``web.backups``).

Celery beat sends ``web.backup_clubs`` on ``BACKUP_SCHEDULE`` (``CELERY_BEAT_SCHEDULE`` in the
settings); a worker writes the files. Running it twice only writes newer files (retention keeps
the newest ``BACKUP_KEEP`` per club), so a redelivered message does no harm. A club that fails
fails the task, after every other club was written, so the failure shows in the worker's log
and in monitoring instead of passing quietly.
"""

from __future__ import annotations

from typing import Any

from celery import shared_task

from . import backups


class BackupFailed(RuntimeError):
    """Some clubs could not be backed up (the message names them and why)."""


@shared_task(name="web.backup_clubs", acks_late=True)
def backup_clubs() -> dict[str, Any]:
    run = backups.backup_clubs()
    if run.failed:
        raise BackupFailed("; ".join(f"{slug}: {error}" for slug, error in sorted(run.failed.items())))
    return {"written": [str(path) for path in run.written], "pruned": [str(path) for path in run.pruned]}
