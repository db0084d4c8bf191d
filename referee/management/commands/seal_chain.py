"""``manage.py seal_chain [<club>...]``: give every row that no audit-chain record covers yet
its record, in the order the rows were written (``referee.chain_seal``). The migration that
brought the chain did this once for the history before it; this is for a club restored from a
file without a chain, or rows written by a tool that bypassed the services. Idempotent."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from referee.chain_seal import seal_club
from referee.models import Club


class Command(BaseCommand):
    help = "Seal rows that no audit-chain record covers yet into their club's chain, in the order they were written."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("clubs", nargs="*", help="Club addresses (default: every club).")

    def handle(self, *args: Any, **options: Any) -> None:
        clubs = Club.objects.order_by("pk")
        if options["clubs"]:
            clubs = clubs.filter(slug__in=options["clubs"])
            missing = set(options["clubs"]) - set(clubs.values_list("slug", flat=True))
            if missing:
                raise CommandError(f"There is no club “{sorted(missing)[0]}”.")
        for club in clubs:
            added = seal_club(club.pk)
            self.stdout.write(f"{club.slug}: {added} records added")
