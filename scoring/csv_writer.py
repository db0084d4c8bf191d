"""CSV for spreadsheets: the one writer of every export (standings, ledger, settlement,
leaderboard, the session summary).

A club's treasurer opens these files in a spreadsheet, which runs a cell beginning with
``=``, ``+``, ``-``, ``@``, a tab or a carriage return as a formula: a member named
``=HYPERLINK(...)`` would be a live link. Such a text cell is written with a leading
apostrophe, which spreadsheets show as text. Numbers stay numbers: ``-3`` (an int, a
Decimal, or text that reads as a plain number, like the money ``"-12.50"``) is written as is.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from decimal import Decimal
from typing import Any, Protocol

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?")


class _Out(Protocol):
    def write(self, text: str, /) -> Any: ...


def cell(value: Any) -> Any:
    """``value`` as a spreadsheet reads it safely: numbers unchanged, formula-like text quoted."""
    if value is None:
        return ""
    if isinstance(value, (int, float, Decimal)):
        return value
    text = str(value)
    if text.startswith(FORMULA_STARTS) and not _PLAIN_NUMBER.fullmatch(text):
        return "'" + text
    return text


class SpreadsheetWriter:
    """``csv.writer`` whose every cell goes through :func:`cell`."""

    def __init__(self, out: _Out, **options: Any) -> None:
        self._writer = csv.writer(out, **options)

    def writerow(self, row: Iterable[Any]) -> None:
        self._writer.writerow([cell(value) for value in row])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for row in rows:
            self.writerow(row)
