"""Scheduled backups (``web.backups``, the task ``web.backup_clubs``, ``manage.py backup_clubs``
and ``restore_club``): names, retention, a failed write, the schedule. The restore itself is
proved by the drill (tests/test_backup_drill.py)."""

from __future__ import annotations

import errno
import gzip
import json
import os
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from web import backups
from web.club_export import export_club

pytestmark = pytest.mark.django_db

MOMENT = datetime(2026, 12, 5, 3, 30, 0, tzinfo=UTC)


def at(hours: int) -> datetime:
    return MOMENT + timedelta(hours=hours)


def test_a_backup_is_the_clubs_export_gzipped_under_its_slug_and_utc_time(club_setup: Any, tmp_path: Path) -> None:
    run = backups.backup_clubs(directory=tmp_path, now=datetime(2026, 12, 5, 5, 30, 7, tzinfo=UTC))
    assert [p.name for p in run.written] == ["kaunas-20261205T053007Z.json.gz", "vilnius-20261205T053007Z.json.gz"]
    assert run.failed == {} and run.pruned == []
    data = json.loads(gzip.decompress(run.written[1].read_bytes()))
    expected = export_club(club_setup["club"])
    assert data["club"] == expected["club"] and data["members"] == expected["members"]
    assert data["records"] == expected["records"] and data["version"] == 2
    assert backups.read_backup(run.written[1]) == data
    assert os.stat(run.written[1]).st_mode & 0o777 == 0o600  # password hashes: owner only
    assert sorted(p.name for p in tmp_path.iterdir()) == [p.name for p in run.written]  # no leftovers


def test_retention_keeps_the_newest_files_of_each_club(club_setup: Any, tmp_path: Path) -> None:
    for hours in range(5):
        run = backups.backup_clubs(directory=tmp_path, keep=3, now=at(hours))
    # The last run wrote 07:30 and deleted 04:30 (03:30 went the run before).
    assert [p.name for p in run.pruned] == ["kaunas-20261205T043000Z.json.gz", "vilnius-20261205T043000Z.json.gz"]
    assert [p.name for p in backups.backups_of(tmp_path, "vilnius")] == [
        "vilnius-20261205T053000Z.json.gz", "vilnius-20261205T063000Z.json.gz", "vilnius-20261205T073000Z.json.gz"]
    assert len(backups.backups_of(tmp_path, "kaunas")) == 3
    assert backups.latest_backup(tmp_path, "vilnius") == tmp_path / "vilnius-20261205T073000Z.json.gz"


def test_retention_counts_each_club_alone_and_leaves_other_files(club_setup: Any, tmp_path: Path) -> None:
    backups.backup_clubs(directory=tmp_path, keep=1, now=at(0), slugs=["kaunas"])
    (tmp_path / "notes.txt").write_text("the operator's own file")
    (tmp_path / "vilnius-old.json").write_text("{}")  # not a backup's name: never deleted
    for hours in (1, 2):
        backups.backup_clubs(directory=tmp_path, keep=1, now=at(hours), slugs=["vilnius"])
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "kaunas-20261205T033000Z.json.gz", "notes.txt", "vilnius-20261205T053000Z.json.gz", "vilnius-old.json"]
    backups.backup_clubs(directory=tmp_path, keep=0, now=at(3), slugs=["vilnius"])  # 0: keep every file
    assert len(backups.backups_of(tmp_path, "vilnius")) == 2


def test_a_partial_file_left_by_a_killed_worker_is_removed_once_stale(club_setup: Any, tmp_path: Path) -> None:
    stale = tmp_path / ".vilnius-20261201T033000Z.json.gz.abc123.partial"
    fresh = tmp_path / ".vilnius-20261205T033000Z.json.gz.def456.partial"
    another_club = tmp_path / ".vilnius-senjorai-20261201T033000Z.json.gz.ghi789.partial"
    for path in (stale, fresh, another_club):
        path.write_bytes(b"half a file")
    old = time.time() - backups.PARTIAL_STALE_SECONDS - 60
    os.utime(stale, (old, old))
    os.utime(another_club, (old, old))
    run = backups.backup_clubs(directory=tmp_path, now=at(0), slugs=["vilnius"])
    assert run.pruned == [stale] and not stale.exists()
    assert fresh.exists()  # perhaps another worker's file being written now
    assert another_club.exists()  # club "vilnius-senjorai" cleans up its own


def test_a_failed_write_leaves_no_partial_file_and_keeps_the_older_backups(
    club_setup: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = backups.backup_clubs(directory=tmp_path, keep=1, now=at(0))
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    real_fsync = os.fsync

    def disk_full(fd: int) -> None:
        if os.path.basename(os.readlink(f"/proc/self/fd/{fd}")).startswith(".vilnius-"):
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(backups.os, "fsync", disk_full)
    run = backups.backup_clubs(directory=tmp_path, keep=1, now=at(1))
    assert run.failed == {"vilnius": "OSError: [Errno 28] No space left on device"}
    # Kaunas was still written (and its older file pruned); Vilnius' older file is untouched.
    assert [p.name for p in run.written] == ["kaunas-20261205T043000Z.json.gz"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["kaunas-20261205T043000Z.json.gz",
                                                          "vilnius-20261205T033000Z.json.gz"]
    assert (tmp_path / "vilnius-20261205T033000Z.json.gz").read_bytes() == before["vilnius-20261205T033000Z.json.gz"]
    assert first.written[1].name == "vilnius-20261205T033000Z.json.gz"


def test_the_task_fails_naming_the_club_after_writing_the_others(
    club_setup: Any, tmp_path: Path, settings: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from web.tasks import BackupFailed, backup_clubs

    settings.BACKUP_DIR = tmp_path
    real = backups.export_club

    def broken(club: Any, **kwargs: Any) -> Any:
        if club.slug == "vilnius":
            raise RuntimeError("the database went away")
        return real(club, **kwargs)

    monkeypatch.setattr(backups, "export_club", broken)
    with pytest.raises(BackupFailed, match=r"^vilnius: RuntimeError: the database went away$"):
        backup_clubs.apply(throw=True)
    assert [p.name.split("-")[0] for p in tmp_path.iterdir()] == ["kaunas"]


def test_the_task_writes_every_club_and_reports_what_it_wrote(club_setup: Any, tmp_path: Path, settings: Any) -> None:
    from web.tasks import backup_clubs

    settings.BACKUP_DIR = tmp_path
    settings.BACKUP_KEEP = 2
    for _ in range(3):
        result = backup_clubs.apply(throw=True).get()
        time.sleep(1.01)  # names are to the second
    assert [Path(p).parent for p in result["written"]] == [tmp_path, tmp_path]
    assert len(result["pruned"]) == 2
    assert len(backups.backups_of(tmp_path, "vilnius")) == 2 == len(backups.backups_of(tmp_path, "kaunas"))


def test_the_beat_schedule_sends_the_task_daily_in_utc() -> None:
    from celery.schedules import crontab
    from django.conf import settings

    from config.celery import app

    app.loader.import_default_modules()  # what a worker does at start: autodiscovery finds web.tasks
    entry = settings.CELERY_BEAT_SCHEDULE["backup-clubs"]
    assert entry["task"] == "web.backup_clubs" and "web.backup_clubs" in app.tasks
    assert entry["schedule"] == crontab(minute="30", hour="3")
    assert app.conf.beat_schedule["backup-clubs"]["task"] == "web.backup_clubs"


def test_the_commands_back_up_and_say_plainly_what_is_wrong(club_setup: Any, tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    call_command("backup_clubs", "vilnius", dir=str(tmp_path), keep=2)
    written = capsys.readouterr().out.split()
    assert [Path(p).name.split("-")[0] for p in written] == ["vilnius"]
    with pytest.raises(CommandError, match="^There is no club “nowhere”; nothing was written.$"):
        call_command("backup_clubs", "vilnius", "nowhere", dir=str(tmp_path))
    with pytest.raises(CommandError, match="^--keep is how many files to keep per club: 1 or more, or 0 to keep"):
        call_command("backup_clubs", dir=str(tmp_path), keep=-1)
    assert len(list(tmp_path.iterdir())) == 1
    with pytest.raises(CommandError, match=f"^There is no backup of “kaunas” in {tmp_path}.$"):
        call_command("restore_club", latest="kaunas", dir=str(tmp_path))
    with pytest.raises(CommandError, match=r"^Name a backup file, or --latest SLUG"):
        call_command("restore_club")
    with pytest.raises(CommandError, match=r"^Cannot read .*missing.json.gz: \[Errno 2\]"):
        call_command("restore_club", str(tmp_path / "missing.json.gz"))


def test_restoring_over_the_living_club_is_refused_and_changes_nothing(club_setup: Any, tmp_path: Path) -> None:
    from django.utils import translation

    from referee.models import Club, Member

    backups.backup_clubs(directory=tmp_path, slugs=["vilnius"], now=at(0))
    counts = (Club.objects.count(), Member.objects.count())
    with translation.override("en"), pytest.raises(
        CommandError, match="^A club with the address “vilnius” already exists here; nothing was imported.$"
    ):
        call_command("restore_club", latest="vilnius", dir=str(tmp_path))
    assert (Club.objects.count(), Member.objects.count()) == counts


def test_a_schedule_that_is_not_a_crontab_line_is_refused_at_start_up() -> None:
    import subprocess
    import sys

    from tests.live_server import ROOT

    env = {**os.environ, "BACKUP_SCHEDULE": "daily", "DJANGO_SETTINGS_MODULE": "config.settings", "DEBUG": "1"}
    result = subprocess.run([sys.executable, "-c", "import django; django.setup()"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert ("BACKUP_SCHEDULE is “daily”: it takes a crontab line of five fields, minute hour day-of-month month "
            "day-of-week, e.g. “30 3 * * *” (03:30 UTC daily), or nothing for no schedule.") in result.stderr


@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_club_is_read_in_one_repeatable_read_snapshot(
    club_setup: Any, tmp_path: Path, require_postgres: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import connection

    seen = []
    real = backups.export_club

    def watched(club: Any, **kwargs: Any) -> Any:
        with connection.cursor() as cursor:
            cursor.execute("SHOW transaction_isolation")
            isolation = cursor.fetchone()[0]
            cursor.execute("SHOW transaction_read_only")
            seen.append((club.slug, isolation, cursor.fetchone()[0]))
        return real(club, **kwargs)

    monkeypatch.setattr(backups, "export_club", watched)
    backups.backup_clubs(directory=tmp_path, now=at(0))
    assert seen == [("kaunas", "repeatable read", "on"), ("vilnius", "repeatable read", "on")]
