"""Compile every ``locale/*/LC_MESSAGES/*.po`` to ``.mo`` with polib: no GNU gettext needed.

``make messages`` runs this. The compiled ``.mo`` files are committed too, so a fresh
checkout speaks Lithuanian without any compile step; run this after editing a ``.po``.
``--check`` compiles nothing and fails when a ``.mo`` is missing or differs from what its
``.po`` compiles to (or a translation drops a placeholder of its message), so CI catches a
forgotten compile; it compares contents, not file times, which a fresh clone does not keep.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import polib
from django.conf import settings
from django.core.management.base import BaseCommand, CommandError

PLACEHOLDER = re.compile(r"%\(\w+\)s|\{\w+\}")


def catalogues() -> list[Path]:
    found: list[Path] = []
    for root in settings.LOCALE_PATHS:
        found.extend(sorted(Path(root).glob("*/LC_MESSAGES/*.po")))
    return found


def placeholder_problems(po: polib.POFile) -> list[str]:
    """Translations whose placeholders differ from their message's (they would break at render time)."""
    problems = []
    for entry in po.translated_entries():
        pairs = (
            [(entry.msgid_plural or entry.msgid, text) for text in entry.msgstr_plural.values()]
            if entry.msgid_plural else [(entry.msgid, entry.msgstr)]
        )
        for source, text in pairs:
            wanted = set(PLACEHOLDER.findall(source))
            got = set(PLACEHOLDER.findall(text))
            # A plural's count may be left out of a form ("one chip"), never anything else.
            if got - wanted or wanted - got - {"%(count)s", "%(n)s", "%(counter)s"}:
                problems.append(f"{entry.msgid!r}: {sorted(wanted)} vs {sorted(got)} in {text!r}")
    return problems


class Command(BaseCommand):
    help = "Compile the project's .po catalogues to .mo with polib (no GNU gettext needed)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--check", action="store_true", help="Only check that every .mo is up to date.")

    def handle(self, *args: Any, **options: Any) -> None:
        failures: list[str] = []
        for po_path in catalogues():
            mo_path = po_path.with_suffix(".mo")
            po = polib.pofile(str(po_path))
            failures.extend(f"{po_path}: {problem}" for problem in placeholder_problems(po))
            if options["check"]:
                if not mo_path.exists() or mo_path.read_bytes() != po.to_binary():
                    failures.append(f"{mo_path} is missing or out of date with {po_path.name}: run compile_messages")
                continue
            po.save_as_mofile(str(mo_path))
            self.stdout.write(f"compiled {po_path} ({po.percent_translated()}% translated) -> {mo_path.name}")
        if failures:
            raise CommandError("\n".join(failures))
