"""What the referee says when it refuses something: the bottom of the engine, importing none of it.

Errors a person at the table can cause (a card nobody can hold, a count beyond the hand,
an entry after the deal ended) raise :class:`IllegalEntry`. Its message is a template with
named parameters so that the service can render seats as players' names, cards in the
session's notation, and translate the sentence into the session's language;
``str(error)`` is the plain English rendering.

Every other engine module imports this one (``cards`` too, for its option refusals), and
this one imports none of them: a card in a message is anything :class:`Notated`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

#: The two ways the club writes cards (``cards`` reads and writes them; messages show them).
Notation = Literal["en", "lt"]

#: Integers this large are named, not written out: their digits help nobody at the table
#: (and ``repr`` refuses the largest).
ENORMOUS = 10**12


def gettext_noop(message: str) -> str:
    """Mark an engine message for translation without importing Django.

    ``makemessages`` collects strings wrapped in ``gettext_noop``; the service translates
    the template at render time in the session's language.
    """
    return message


def message_repr(value: object, limit: int = 60) -> str:
    """``repr`` for a message: never fails (huge ints, deep structures) and never floods the screen."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= ENORMOUS:
        return "an enormous number"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return "an unreadable value"
    return text if len(text) <= limit else text[: limit - 3] + "..."


@dataclass(frozen=True)
class Seat:
    """A seat named inside an error message: rendered as the player's name when known."""

    index: int


@dataclass(frozen=True)
class Term:
    """A thing the engine knows by its key (an entry's field, an entry type, a condition) named
    inside an error message: the game's page module gives the club's word for it, and without
    words it shows as the key (the plain English rendering that Python callers read)."""

    key: str


@runtime_checkable
class Notated(Protocol):
    """A value a message shows in the session's notation (a card)."""

    def notated(self, notation: Notation) -> str: ...


class IllegalEntry(ValueError):
    """An entry (or a deal setup) that the referee refuses; nothing was changed.

    ``template`` uses ``str.format`` fields; values may be :class:`Seat`, cards, lists of
    cards, or plain values. ``str(error)`` renders seats as "seat N".
    """

    def __init__(self, template: str, **params: object) -> None:
        self.template = template
        self.params = params
        super().__init__(self.render())

    def render(
        self,
        names: Sequence[str] | None = None,
        translate: Callable[[str], str] | None = None,
        notation: Notation = "en",
        words: Mapping[str, str] | None = None,
    ) -> str:
        """The message for a person: seats as ``names``, the template through ``translate``,
        cards in ``notation`` and each :class:`Term` as ``words[key]`` (already translated)."""

        def show(value: object) -> str:
            if isinstance(value, Term):
                return words.get(value.key, value.key) if words else value.key
            if isinstance(value, Seat):
                if names is not None and 0 <= value.index < len(names):
                    return names[value.index]
                return f"seat {value.index}"
            if isinstance(value, Notated):
                return value.notated(notation)
            if isinstance(value, int) and not isinstance(value, bool):
                return message_repr(value)
            if isinstance(value, (list, tuple, frozenset, set)):
                items = sorted(value) if isinstance(value, (set, frozenset)) else value
                return ", ".join(show(v) for v in items)
            return str(value)

        template = translate(self.template) if translate else self.template
        rendered = {key: show(value) for key, value in self.params.items()}
        try:
            message = template.format(**rendered)
        except (KeyError, IndexError, ValueError):
            # A broken translation must never hide the refusal itself.
            message = self.template.format(**rendered)
        if names is None:
            return message
        # Shown to a person: a sentence opening with a field name ("player must be…") gets
        # its capital. The plain English rendering (str) stays exactly as written.
        return message[:1].upper() + message[1:]

    @property
    def terms(self) -> list[str]:
        """The keys of the things this refusal names (fields first met first): the screen puts
        the message beside the control that holds the first one it has."""
        found: list[str] = []
        for value in self.params.values():
            for item in value if isinstance(value, (list, tuple)) else (value,):
                if isinstance(item, Term) and item.key not in found:
                    found.append(item.key)
        return found


class InvalidSetup(IllegalEntry):
    """``new_deal`` was given an unknown option, a bad value or a player count out of range."""
