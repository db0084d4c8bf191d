"""``manage.py import_club FILE``: restore a club written by ``export_club`` into this
database (a new one, e.g. moving from SQLite to PostgreSQL), then rebuild its leaderboard
aggregates and ratings. All or nothing: a refused import changes nothing."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from referee.errors import Refusal
from web.club_export import import_club


class Command(BaseCommand):
    help = "Restore a club from an export_club JSON file into this (empty) database."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("file", help="The export file; '-' reads standard input.")

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            text = sys.stdin.read() if options["file"] == "-" else Path(options["file"]).read_text(encoding="utf-8")
            data = json.loads(text)
        except (OSError, ValueError) as error:
            raise CommandError(f"Cannot read {options['file']}: {error}") from error
        try:
            club = import_club(data)
        except Refusal as refusal:
            raise CommandError(refusal.message) from refusal
        self.stderr.write(self.style.SUCCESS(
            f"Imported {club.name} ({club.slug}): {club.members.count()} members, {club.sessions.count()} sessions."
        ))
