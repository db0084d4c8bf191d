"""Reading a recording form posted without JavaScript into an entry, as static/js/table/form.js builds it."""

from __future__ import annotations

import secrets
from typing import Any

from referee.safe_input import read_int


def new_key() -> str:
    """An idempotency key for a form rendered without JavaScript (a double submit is stored once)."""
    return "page-" + secrets.token_urlsafe(18)


def payload_from_form(data: Any) -> dict[str, Any]:
    """Build an entry from form fields named ``f:<field>:<kind>[:<index>]`` (static/js/table/form.js reads the
    same names): ``str``, ``int`` (empty is null), ``ints``/``strs`` (repeated fields, in order)
    and ``round`` (a list of lists; an empty card is null, as Elgeta's E1 records it)."""
    payload: dict[str, Any] = {}
    rounds: dict[str, dict[int, list[Any]]] = {}
    for name in data:
        if not name.startswith("f:"):
            continue
        parts = name.split(":")
        if len(parts) < 3:
            continue
        field, kind = parts[1], parts[2]
        values = data.getlist(name)
        if kind == "str":
            payload[field] = values[-1].strip()
        elif kind == "int":
            payload[field] = _int_or_text(values[-1])
        elif kind == "ints":
            payload[field] = [_int_or_text(value) for value in values]
        elif kind == "strs":
            payload[field] = [value.strip() for value in values]
        elif kind == "round" and len(parts) == 4 and (index := read_int(parts[3])) is not None:
            rounds.setdefault(field, {})[index] = [value.strip() or None for value in values]
    for field, by_index in rounds.items():
        payload[field] = [by_index[index] for index in sorted(by_index)]
    return payload


def _int_or_text(value: str) -> Any:
    text = value.strip()
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        return text  # the referee refuses it with a message naming the field
