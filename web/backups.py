"""Backups on a schedule: each club's export (``web.club_export``) written to ``BACKUP_DIR``.

One file per club and run, ``<slug>-<UTC time>.json.gz`` (``vilnius-20261205T033000Z.json.gz``),
the same JSON that ``manage.py export_club`` writes, gzipped. It is written beside its final
name under a hidden ``.partial`` name, synced, and renamed: a reader (or the next restore)
sees a whole file or none, never half of one, even when the disk fills or the worker is killed
mid-write. After each club's file the oldest of its files beyond ``BACKUP_KEEP`` are deleted,
so a failed run never costs an older good one.

On PostgreSQL a club is read in one REPEATABLE READ, READ ONLY transaction: the export's
dozen queries see one moment, so a backup taken during a club night never holds an entry
without its deal's result, or a result without its ledger.

The files hold password hashes and every member's name (as the export does): the directory is
as private as the database; files are created readable by their owner only.

``restore_backup`` is ``manage.py import_club`` for these files; ``manage.py restore_club``
calls it, with ``--latest SLUG`` to pick the club's newest file.
"""

from __future__ import annotations

import gzip
import json
import logging
import os
import re
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from referee.models import Club

from .club_export import export_club, import_club

logger = logging.getLogger(__name__)

SUFFIX = ".json.gz"
STAMP = "%Y%m%dT%H%M%SZ"
NAME = re.compile(r"^(?P<slug>[-\w]+)-(?P<stamp>\d{8}T\d{6}Z)\.json\.gz$")
#: A ``.partial`` file older than this was left by a process killed mid-write; the next run of
#: its club removes it (a younger one may still be being written by another worker).
PARTIAL_STALE_SECONDS = 24 * 3600


@dataclass
class BackupRun:
    """What one run wrote, deleted by retention, and which clubs failed (slug -> error)."""

    written: list[Path] = field(default_factory=list)
    pruned: list[Path] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)


def backup_dir() -> Path:
    return Path(settings.BACKUP_DIR)


def file_name(slug: str, moment: datetime) -> str:
    return f"{slug}-{moment.astimezone(UTC).strftime(STAMP)}{SUFFIX}"


def backups_of(directory: Path, slug: str) -> list[Path]:
    """The club's complete backup files, oldest first (the name's time orders them)."""
    if not directory.is_dir():
        return []
    found = []
    for path in directory.iterdir():
        match = NAME.match(path.name)
        if match and match["slug"] == slug:
            found.append((match["stamp"], path))
    return [path for _stamp, path in sorted(found)]


def latest_backup(directory: Path, slug: str) -> Path | None:
    files = backups_of(directory, slug)
    return files[-1] if files else None


def write_atomically(path: Path, content: bytes) -> None:
    """``content`` under ``path`` whole, or nothing there and no leftover: a temporary file in
    the same directory (so the rename cannot cross file systems), synced, then renamed over."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".partial")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    # The rename itself is durable only once the directory is synced.
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def _export_consistently(club: Club) -> dict[str, Any]:
    # SET TRANSACTION must be a transaction's first statement: inside a caller's transaction
    # (a test's) the export reads at the caller's level instead.
    outer = connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and not outer:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        return export_club(club)


def backup_club(club: Club, *, directory: Path | None = None, now: datetime | None = None) -> Path:
    """Write the club's backup file; return its path."""
    directory = directory or backup_dir()
    directory.mkdir(parents=True, exist_ok=True)
    data = _export_consistently(club)
    text = json.dumps(data, ensure_ascii=False, sort_keys=True).encode("utf-8")
    path = directory / file_name(club.slug, now or timezone.now())
    # mtime=0: the same history gives the same bytes, so two backups can be compared by hash.
    write_atomically(path, gzip.compress(text, mtime=0))
    return path


def prune(directory: Path, slug: str, keep: int) -> list[Path]:
    """Delete the club's files beyond the newest ``keep`` (0: none) and its stale ``.partial`` leftovers."""
    files = backups_of(directory, slug)
    gone = files[:-keep] if keep > 0 else []
    stale_before = time.time() - PARTIAL_STALE_SECONDS
    for path in directory.glob(f".{slug}-*.partial"):
        # ".<final name>.<random>.partial", as write_atomically names it: this club's only.
        match = NAME.match(path.name[1:].split(SUFFIX)[0] + SUFFIX)
        if match and match["slug"] == slug and path.stat().st_mtime < stale_before:
            gone.append(path)
    for path in gone:
        path.unlink(missing_ok=True)
    return gone


def backup_clubs(*, slugs: Iterable[str] | None = None, directory: Path | None = None, keep: int | None = None,
                 now: datetime | None = None) -> BackupRun:
    """Back up every club (or those named), each on its own: one club's failure is logged and
    reported, and the others are still written."""
    directory = directory or backup_dir()
    keep = settings.BACKUP_KEEP if keep is None else keep
    now = now or timezone.now()
    clubs = Club.objects.order_by("slug")
    if slugs is not None:
        clubs = clubs.filter(slug__in=list(slugs))
    run = BackupRun()
    for club in clubs:
        try:
            run.written.append(backup_club(club, directory=directory, now=now))
        except Exception as error:  # one club's trouble must not cost the others their backup
            logger.exception("backup of club %s failed", club.slug)
            run.failed[club.slug] = f"{type(error).__name__}: {error}"
            continue
        run.pruned += prune(directory, club.slug, keep)
    return run


def read_backup(path: Path) -> Any:
    """A backup file's data: gzipped (this module's files) or plain JSON (``export_club``'s)."""
    raw = path.read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return json.loads(raw.decode("utf-8"))


def restore_backup(path: Path) -> Club:
    """Restore a backup file into this database (``import_club``: all or nothing, into free ids)."""
    return import_club(read_backup(path))
