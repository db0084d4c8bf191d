"""Seats named as players in the engine's explanations, on the server and on the tablet alike.

The engine writes "seat 2" in the ``text`` of its conclusions (it knows seats, not people);
the table wants "Rūta". This lives in the engine package, pure, so that the service and the
tablet's Pyodide glue share one implementation.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

_SEAT = re.compile(r"\b([Ss])eat (\d+)\b")


def with_names(value: Any, names: Sequence[str]) -> Any:
    """``value`` (a conclusion, a view, lists of them) with every ``text`` naming players."""
    if isinstance(value, dict):
        return {key: (name_seats(item, names) if key == "text" and isinstance(item, str) else with_names(item, names))
                for key, item in value.items()}
    if isinstance(value, list):
        return [with_names(item, names) for item in value]
    return value


def name_seats(text: str, names: Sequence[str]) -> str:
    """"seat 2" -> the name of seat 2 (a seat beyond the names stays as written)."""
    def name(match: re.Match[str]) -> str:
        index = int(match.group(2))
        return names[index] if 0 <= index < len(names) else match.group(0)

    return _SEAT.sub(name, text)
