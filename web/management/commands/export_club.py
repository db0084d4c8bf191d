"""``manage.py export_club <slug> [--output FILE] [--without-passwords]``: a club's complete
history as one JSON file (see ``referee.club_export``)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from referee.models import Club
from web.club_export import export_club


class Command(BaseCommand):
    help = "Write a club's complete history (members, sessions, deals, every entry, results, summaries) to JSON."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("slug", help="The club's address, e.g. vilnius.")
        parser.add_argument("--output", "-o", default=None,
                            help="File to write (default: <slug>.json); '-' writes to standard output.")
        parser.add_argument("--without-passwords", action="store_true",
                            help="Export unusable passwords: members set new ones on the new server.")

    def handle(self, *args: Any, **options: Any) -> None:
        club = Club.objects.filter(slug=options["slug"]).first()
        if club is None:
            raise CommandError(f"There is no club “{options['slug']}”.")
        data = export_club(club, passwords=not options["without_passwords"])
        text = json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True)
        target = options["output"] or f"{club.slug}.json"
        if target == "-":
            sys.stdout.write(text + "\n")
            return
        Path(target).write_text(text + "\n", encoding="utf-8")
        self.stderr.write(self.style.SUCCESS(
            f"Exported {club.name}: {len(data['members'])} members, {len(data['sessions'])} sessions, "
            f"{len(data['deals'])} deals, {len(data['entries'])} entries -> {target}"
        ))
