"""``manage.py restore_club FILE`` or ``manage.py restore_club --latest SLUG [--dir DIR]``:
restore a backup file (``backup_clubs``' gzipped ones, or ``export_club``'s JSON) into this
database, as ``import_club`` does: all or nothing, into a database where its ids are free."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from referee.errors import Refusal
from web import backups


class Command(BaseCommand):
    help = "Restore a club from a backup file (or its newest one with --latest SLUG) into this database."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", nargs="?", default=None, help="The backup file.")
        parser.add_argument("--latest", metavar="SLUG", default=None, help="Restore this club's newest backup.")
        parser.add_argument("--dir", default=None, help="Where --latest looks (default: BACKUP_DIR).")

    def handle(self, *args: Any, **options: Any) -> None:
        if (options["file"] is None) == (options["latest"] is None):
            raise CommandError("Name a backup file, or --latest SLUG for a club's newest backup (not both).")
        if options["latest"] is not None:
            directory = Path(options["dir"]) if options["dir"] else backups.backup_dir()
            path = backups.latest_backup(directory, options["latest"])
            if path is None:
                raise CommandError(f"There is no backup of “{options['latest']}” in {directory}.")
        else:
            path = Path(options["file"])
        try:
            club = backups.restore_backup(path)
        except (OSError, ValueError) as error:
            raise CommandError(f"Cannot read {path}: {error}") from error
        except Refusal as refusal:
            raise CommandError(refusal.message) from refusal
        self.stderr.write(self.style.SUCCESS(
            f"Restored {club.name} ({club.slug}) from {path}: {club.members.count()} members, "
            f"{club.sessions.count()} sessions."
        ))
