"""``manage.py backup_clubs [SLUG ...] [--dir DIR] [--keep N]``: what the scheduled task does
(``web.backups``), by hand: each club's backup file, then retention."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from referee.models import Club
from web import backups


class Command(BaseCommand):
    help = "Write each club's backup (its export, gzipped) to BACKUP_DIR and keep the newest BACKUP_KEEP per club."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("slugs", nargs="*", help="Only these clubs (default: every club).")
        parser.add_argument("--dir", default=None, help="Directory to write to (default: BACKUP_DIR).")
        parser.add_argument("--keep", type=int, default=None,
                            help="Files kept per club (default: BACKUP_KEEP; 0 keeps every file).")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["keep"] is not None and options["keep"] < 0:
            raise CommandError("--keep is how many files to keep per club: 1 or more, or 0 to keep every file.")
        known = set(Club.objects.filter(slug__in=options["slugs"]).values_list("slug", flat=True))
        missing = sorted(set(options["slugs"]) - known)
        if missing:
            raise CommandError(f"There is no club {', '.join(f'“{slug}”' for slug in missing)}; nothing was written.")
        run = backups.backup_clubs(slugs=options["slugs"] or None, keep=options["keep"],
                                   directory=Path(options["dir"]) if options["dir"] else None)
        for path in run.written:
            self.stdout.write(str(path))
        for path in run.pruned:
            self.stderr.write(f"deleted (retention): {path}")
        if run.failed:
            raise CommandError("Backup failed for " + "; ".join(f"{slug}: {error}"
                                                                 for slug, error in sorted(run.failed.items())))
