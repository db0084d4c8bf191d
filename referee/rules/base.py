"""The one interface every game implements, and the small shared pieces they use.

A game is a stateless object (one instance per game in ``GAMES``) whose methods take and
return immutable deal states. The deal state is a pure function of (players, options,
entries): ``apply`` never mutates its input, so a caller can keep the previous state for
an instant undo and the snapshot stored in the database is exactly ``to_dict(state)``.

Errors a person at the table can cause (a card nobody can hold, a count beyond the hand,
an entry after the deal ended) raise :class:`IllegalEntry`. Its message is a template with
named parameters so that the service can render seats as players' names and translate the
sentence into the session's language; ``str(error)`` is the plain English rendering.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Generic, Literal, TypeVar

from .cards import Card, Notation, format_card, parse_notation, safe_repr


def gettext_noop(message: str) -> str:
    """Mark an engine message for translation without importing Django.

    ``makemessages`` collects strings wrapped in ``gettext_noop``; the service translates
    the template at render time in the session's language.
    """
    return message


@dataclass(frozen=True)
class Seat:
    """A seat named inside an error message: rendered as the player's name when known."""

    index: int


class IllegalEntry(ValueError):
    """An entry (or a deal setup) that the referee refuses; nothing was changed.

    ``template`` uses ``str.format`` fields; values may be :class:`Seat`, :class:`Card`,
    lists of cards, or plain values. ``str(error)`` renders seats as "seat N".
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
    ) -> str:
        def show(value: object) -> str:
            if isinstance(value, Seat):
                if names is not None and 0 <= value.index < len(names):
                    return names[value.index]
                return f"seat {value.index}"
            if isinstance(value, Card):
                return format_card(value, notation)
            if isinstance(value, int) and not isinstance(value, bool):
                return safe_repr(value)
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


class InvalidSetup(IllegalEntry):
    """``new_deal`` was given an unknown option, a bad value or a player count out of range."""


@dataclass(frozen=True)
class Outcome:
    """A finished deal: ``points[i]`` in the game's own unit, ``placements[i]`` (1 = best)."""

    points: tuple[int, ...]
    placements: tuple[int, ...]
    #: Seats sharing first place in a draw, or the single winner; empty when not meaningful.
    winners: tuple[int, ...] = ()

    @classmethod
    def by_points(cls, points: Sequence[int]) -> Outcome:
        """The usual outcome: placed by points (ties share a place), the seats placed first win."""
        placements = competition_ranking(points)
        return cls(
            points=tuple(points),
            placements=placements,
            winners=tuple(seat for seat, place in enumerate(placements) if place == 1),
        )


def competition_ranking(scores: Sequence[float], *, higher_is_better: bool = True) -> tuple[int, ...]:
    """Places 1, 2, 2, 4: ties share a place and the next place is skipped."""
    sign = -1 if higher_is_better else 1
    return tuple(1 + sum(1 for other in scores if sign * other < sign * score) for score in scores)


class MoneyRule(StrEnum):
    """How a deal's points become stakes won or paid (RULES.md, money)."""

    #: Each seat wins or pays its own points (Pašėlęs Velnias' payments, Mičiganas' chips).
    AS_PLAYED = "as_played"
    #: Every pair of players settles the difference of their points; zero-sum per deal.
    PAIR_DIFFERENCE = "pair_difference"


@dataclass(frozen=True)
class Unit:
    """What a session's totals count, in the game's own unit (RULES.md's table).

    ``sign`` turns a deal's points into that unit: Cheat's loser scores -1 point, one loss.
    """

    key: str
    #: English, marked for translation; the service shows it in the reader's language.
    label: str
    sign: Literal[1, -1] = 1

    def of(self, points: int) -> int:
        """A deal's points in this unit."""
        return self.sign * points

    @property
    def higher_is_better(self) -> bool:
        """More of it places a player higher (more points), or lower (more losses)."""
        return self.sign > 0


#: How the session start form offers a house rule: a switch, one of ``choices``, the suits of
#: the seats (Elgeta), the four prize cards (Mičiganas) or a number of chips.
HouseRuleKind = Literal["bool", "choice", "suits", "prizes", "chips"]


@dataclass(frozen=True)
class HouseRule:
    """One house rule a session can set: its option key, how it is chosen, its choices.

    The default is the game's ``option_defaults[key]``; labels and explanations are
    presentation and live with the game's page module.
    """

    key: str
    kind: HouseRuleKind
    choices: tuple[object, ...] = ()


S = TypeVar("S")


class Game(ABC, Generic[S]):
    """The shared interface: ``new_deal``, ``apply``, ``outcome``, ``to_dict``/``from_dict``.

    ``view`` returns the JSON-safe picture the tablet needs (whose turn, expected cards,
    counts, the last conclusion of the referee); ``next_dealer`` says who deals next.
    """

    slug: ClassVar[str]
    name: ClassVar[str]
    name_lt: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    #: Option key -> default (``notation`` is added for every game).
    option_defaults: ClassVar[Mapping[str, object]]
    #: The house rules a session may set, in the order the start form offers them.
    house_rules: ClassVar[tuple[HouseRule, ...]] = ()
    #: What the session's totals count.
    unit: ClassVar[Unit] = Unit("points", "points")
    #: How points become money.
    money_rule: ClassVar[MoneyRule] = MoneyRule.AS_PLAYED
    #: The next deal's dealer follows from how this one ended (Cheat: the loser deals), so a
    #: correction that changes the outcome would change who dealt the deals after it.
    dealer_follows_outcome: ClassVar[bool] = False

    @abstractmethod
    def new_deal(self, *, players: int, dealer: int, options: Mapping[str, Any] | None = None) -> S: ...

    @abstractmethod
    def apply(self, state: S, entry: object) -> S: ...

    @abstractmethod
    def outcome(self, state: S) -> Outcome | None: ...

    @abstractmethod
    def to_dict(self, state: S) -> dict[str, Any]: ...

    @abstractmethod
    def from_dict(self, data: Mapping[str, Any]) -> S: ...

    @abstractmethod
    def view(self, state: S) -> dict[str, Any]: ...

    def next_dealer(self, state: S) -> int:
        """The dealer of the next deal: one seat clockwise, unless the game says otherwise."""
        players, dealer = self.seats(state)
        return (dealer + 1) % players

    @abstractmethod
    def seats(self, state: S) -> tuple[int, int]:
        """(number of players, dealer seat) of the deal."""

    # -- what a deal means beyond itself (the service asks these; no game is named there) ------

    def carry_over(self, state: S) -> dict[str, Any]:
        """Options the next deal inherits from this finished one (Mičiganas: the chips left on
        the prize cards); merged over the session's options when the next deal starts."""
        return {}

    def money_units(self, points: Sequence[int]) -> list[int]:
        """Stakes each seat wins (+) or pays (-) for a deal with these points."""
        if self.money_rule is MoneyRule.PAIR_DIFFERENCE:
            total = sum(points)
            return [len(points) * p - total for p in points]
        return list(points)

    def chip_movements(self, state: S) -> list[dict[str, Any]]:
        """The deal's chip ledger, in order: ``{"from", "to", "chips", "reason"}`` where from/to
        is a seat (int) or a prize card (text). Empty for games played without chips."""
        return []

    def close_movements(self, last_state: S) -> list[dict[str, Any]]:
        """Chip movements that settle the session at its close, given its last finished deal
        (Mičiganas M3: the chips left on the prize cards shared out). Same shape as
        ``chip_movements``; empty for games that settle nothing at close."""
        return []

    # -- shared checks ------------------------------------------------------------------

    def check_setup(self, players: object, dealer: object, options: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate the player count, the dealer and the option keys; return options with defaults.

        Values are validated by each game; this only knows the keys.
        """
        if not isinstance(players, int) or isinstance(players, bool):
            raise InvalidSetup(gettext_noop("The number of players must be a whole number."))
        if not self.min_players <= players <= self.max_players:
            raise InvalidSetup(
                gettext_noop("{game} is played by {low} to {high} players, not {count}."),
                game=self.name, low=self.min_players, high=self.max_players, count=players,
            )
        if not isinstance(dealer, int) or isinstance(dealer, bool) or not 0 <= dealer < players:
            raise InvalidSetup(
                gettext_noop("The dealer must be a seat from 0 to {last}."), last=players - 1
            )
        given = dict(options or {})
        valid = {"notation", *self.option_defaults}
        unknown = sorted(set(given) - valid)
        if unknown:
            raise InvalidSetup(
                gettext_noop("Unknown option {unknown} for {game}; the valid options are {valid}."),
                unknown=", ".join(unknown), game=self.name, valid=", ".join(sorted(valid)),
            )
        merged: dict[str, Any] = {"notation": "en", **self.option_defaults, **given}
        merged["notation"] = parse_notation(merged["notation"])
        return merged


# -- reading entries: shape checks shared by every game --------------------------------------


def entry_type(entry: object, allowed: Iterable[str]) -> str:
    """The entry's ``type``, refusing anything that is not a known entry of this game."""
    allowed = tuple(allowed)
    if not isinstance(entry, Mapping):
        raise IllegalEntry(gettext_noop("An entry must be an object with a \"type\"."))
    kind = entry.get("type")
    if kind not in allowed:
        raise IllegalEntry(
            gettext_noop("Unknown entry type {kind}; this game records {allowed}."),
            kind=safe_repr(kind), allowed=", ".join(allowed),
        )
    assert isinstance(kind, str)
    return kind


def message_repr(value: object) -> str:
    """repr() for a message, even of a huge int or a deep structure (which repr refuses)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**12:
        return "an enormous number"
    try:
        text = repr(value)
    except (ValueError, RecursionError):
        return "an unreadable value"
    return text if len(text) <= 60 else text[:57] + "..."


def strict_entry_type(entry: object, allowed: tuple[str, ...]) -> str:
    """``entry_type``, refusing first what it cannot describe (non-text field names, huge numbers)."""
    if isinstance(entry, Mapping):
        if not all(isinstance(key, str) for key in entry):
            raise IllegalEntry(gettext_noop("The fields of an entry must be named by text."))
        kind = entry.get("type")
        if kind not in allowed:
            raise IllegalEntry(
                gettext_noop("Unknown entry type {kind}; this game records {allowed}."),
                kind=message_repr(kind), allowed=", ".join(allowed),
            )
    return entry_type(entry, allowed)


def _plain(value: object) -> str:
    """Text as it is, anything else (a number used as a field name) as a safe repr."""
    return value if isinstance(value, str) else safe_repr(value)


def entry_keys(entry: Mapping[str, Any], *required: str, optional: Iterable[str] = ()) -> None:
    """Refuse missing or superfluous fields, so a typo is never silently ignored."""
    missing = [key for key in required if key not in entry]
    if missing:
        raise IllegalEntry(
            gettext_noop("The {kind} entry needs {fields}."), kind=_plain(entry.get("type")), fields=", ".join(missing)
        )
    extra = sorted(_plain(key) for key in set(entry) - {"type", *required, *optional})
    if extra:
        raise IllegalEntry(
            gettext_noop("The {kind} entry does not take {fields}."),
            kind=_plain(entry.get("type")), fields=", ".join(extra),
        )


def read_seat(value: object, players: int, field: str = "player") -> int:
    """A seat number 0..players-1."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < players:
        raise IllegalEntry(
            gettext_noop("{field} must be a seat from 0 to {last}, not {value}."),
            field=field, last=players - 1, value=safe_repr(value),
        )
    return value


def read_list(value: object, field: str, length: int | None = None) -> list[Any]:
    """A JSON list, optionally of an exact length."""
    if not isinstance(value, list):
        raise IllegalEntry(gettext_noop("{field} must be a list."), field=field)
    if length is not None and len(value) != length:
        raise IllegalEntry(
            gettext_noop("{field} must list {expected} values, one per seat; it lists {count}."),
            field=field, expected=length, count=len(value),
        )
    return value


def read_count(value: object, field: str) -> int:
    """A whole number of cards (not a bool, not a float)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalEntry(
            gettext_noop("{field} must be a whole number, not {value}."), field=field, value=safe_repr(value)
        )
    return value


def read_bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidSetup(gettext_noop("Option {field} must be true or false."), field=field)
    return value


def read_choice(value: object, field: str, choices: Sequence[str]) -> str:
    if value not in choices:
        raise InvalidSetup(
            gettext_noop("Option {field} must be one of {choices}, not {value}."),
            field=field, choices=", ".join(choices), value=safe_repr(value),
        )
    assert isinstance(value, str)
    return value


def deal_over() -> IllegalEntry:
    return IllegalEntry(gettext_noop("This deal has ended; nothing more can be recorded in it."))
