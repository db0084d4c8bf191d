"""Every sentence the engine marks for translation has its Lithuanian translation in the catalogue.

The service renders a refusal by translating its template in the session's language; a
template missing from ``locale/lt/LC_MESSAGES/django.po`` would reach a Lithuanian table in
English. Templates are read from the source (``gettext_noop("...")`` anywhere under
referee/rules), so a new message cannot be forgotten.
"""

from __future__ import annotations

import ast
from pathlib import Path

import polib

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "referee" / "rules"
CATALOGUE = ROOT / "locale" / "lt" / "LC_MESSAGES" / "django.po"


def engine_messages() -> set[str]:
    found: set[str] = set()
    for path in RULES.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call) and getattr(node.func, "id", None) == "gettext_noop"
                and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            ):
                found.add(node.args[0].value)
    return found


def test_every_engine_message_is_translated() -> None:
    # A plural pair (a unit's counted words, the plan's sentences) is marked as two strings.
    entries = polib.pofile(str(CATALOGUE)).translated_entries()
    translated = {entry.msgid for entry in entries} | {entry.msgid_plural for entry in entries if entry.msgid_plural}
    messages = engine_messages()
    assert len(messages) > 80
    assert sorted(messages - translated) == []
