"""``manage.py verify_chain <club> | --file export.json [--anchor SEQ:HASH]``: verify a club's
audit chain in this database, or in an export file, and name the first record that does not
match (``referee.chain_verify``). Exits with an error when the chain does not hold."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from referee.chain_seal import verify_club
from referee.chain_verify import Verdict
from referee.errors import Refusal
from referee.models import Club
from web.chain_file import verify_file


def parse_anchor(text: str | None) -> tuple[int, str] | None:
    """``SEQ:HASH`` (the hash, or its first 12 or more characters) as noted from the verify page."""
    if not text:
        return None
    seq, _, digest = text.partition(":")
    digest = digest.strip().lower()
    if not seq.strip().isdigit() or len(digest) < 12 or any(c not in "0123456789abcdef" for c in digest):
        raise CommandError("--anchor is SEQ:HASH, e.g. 1234:9f2c4e01ab37 (the hash's first 12 characters or more).")
    return int(seq), digest


class Command(BaseCommand):
    help = "Verify a club's audit chain (or an export file's) and name the first record that does not match."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("club", nargs="?", help="The club's address, e.g. vilnius.")
        parser.add_argument("--file", "-f", default=None, help="Verify this export file instead of the database.")
        parser.add_argument("--anchor", default=None,
                            help="SEQ:HASH of a head noted earlier: the chain must still hold that record.")

    def handle(self, *args: Any, **options: Any) -> None:
        anchor = parse_anchor(options["anchor"])
        if options["file"]:
            try:
                data = json.loads(Path(options["file"]).read_text(encoding="utf-8"))
            except (OSError, ValueError) as error:
                raise CommandError(f"Cannot read {options['file']}: {error}") from error
            try:
                verdict = verify_file(data, anchor=anchor)
            except Refusal as refusal:
                raise CommandError(refusal.message) from refusal
        else:
            club = Club.objects.filter(slug=options["club"] or "").first()
            if club is None:
                raise CommandError(f"There is no club “{options['club']}”.")
            verdict = verify_club(club.pk, anchor=anchor)
        self._report(verdict)

    def _report(self, verdict: Verdict) -> None:
        if not verdict.ok:
            raise CommandError(verdict.message)
        self.stdout.write(verdict.message)
        self.stdout.write(f"Head: record {verdict.head_seq}, hash {verdict.head_hash}")
