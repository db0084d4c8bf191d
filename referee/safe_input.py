"""Reading untrusted input: whole numbers, dates and JSON, for the API and the pages alike.

Each reader (``read_int``, ``read_date``, ``read_json``) refuses what would otherwise crash
further in (a 500): digits that ``str.isdigit()`` accepts but ``int()`` does not (``"²"``),
numbers no id column holds, dates whose next month is past year 9999, JSON nested deeper
than the recursion limit, NUL characters (PostgreSQL stores no NUL in text or jsonb) and non-finite numbers
(``1e999`` reads as infinity, which jsonb cannot hold).
"""

from __future__ import annotations

import json
import math
from datetime import date
from typing import Any

#: The largest value of a 64-bit id column (PostgreSQL ``bigint``, SQLite ``integer``).
MAX_ID = 2**63 - 1
#: Dates outside these read as no date: the leaderboard counts to the month after the end.
FIRST_DAY = date(1900, 1, 1)
LAST_DAY = date(9998, 12, 31)
#: No entry, option set or form the club sends nests deeper than a handful of levels.
MAX_JSON_DEPTH = 32


def is_row_id(value: int) -> bool:
    """Whether an id column can hold ``value``: a larger (or non-positive) one names no row, and
    PostgreSQL would refuse it outright (a 500), so the caller answers "not found" instead."""
    return 0 < value <= MAX_ID


class UnsafeJSON(ValueError):
    """JSON that parses but cannot be stored or processed; the message says why."""


def read_int(text: Any, *, low: int = 0, high: int = MAX_ID) -> int | None:
    """``text`` as a whole number from ``low`` to ``high``, or None for anything else.

    Only ASCII digits count (an optional leading minus when ``low`` is negative): ``"²"``
    and other Unicode digits read as None, as does a number of more than 19 digits.
    """
    if isinstance(text, bool):
        return None
    if isinstance(text, int):
        number = text
    else:
        if not isinstance(text, str):
            return None
        body = text.strip()
        digits = body[1:] if body.startswith("-") else body
        if not digits or len(digits) > 19 or not (digits.isascii() and digits.isdigit()):
            return None
        number = int(body)
    return number if low <= number <= high else None


def read_date(text: Any) -> date | None:
    """A YYYY-MM-DD date from 1900-01-01 to 9998-12-31, or None."""
    if not isinstance(text, str) or len(text) != 10 or not text.isascii():
        return None
    try:
        day = date.fromisoformat(text)
    except ValueError:
        return None
    return day if FIRST_DAY <= day <= LAST_DAY else None


def _refuse_constant(name: str) -> Any:
    raise UnsafeJSON(f"{name} is not a number JSON allows.")


def read_json(data: bytes | str) -> Any:
    """``json.loads`` that raises ``ValueError`` (``UnsafeJSON`` for the checks of :func:`check`)
    for anything the service cannot take, instead of a RecursionError or a later database error."""
    try:
        value = json.loads(data, parse_constant=_refuse_constant)
    except RecursionError:
        raise UnsafeJSON(f"It nests deeper than {MAX_JSON_DEPTH} levels.") from None
    check(value)
    return value


def check(value: Any) -> None:
    """Raise ``UnsafeJSON`` for nesting deeper than ``MAX_JSON_DEPTH``, a NUL character in
    any text or key, or a number that is not finite. Iterative: depth cannot crash it."""
    pending: list[tuple[Any, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, str):
            if "\x00" in item:
                raise UnsafeJSON("Text may not contain the NUL character (\\u0000).")
        elif isinstance(item, float):
            if not math.isfinite(item):
                raise UnsafeJSON("Numbers must be finite.")
        elif isinstance(item, (dict, list)):
            if depth > MAX_JSON_DEPTH:
                raise UnsafeJSON(f"It nests deeper than {MAX_JSON_DEPTH} levels.")
            if isinstance(item, dict):
                pending.extend((key, depth) for key in item)
                pending.extend((child, depth + 1) for child in item.values())
            else:
                pending.extend((child, depth + 1) for child in item)
