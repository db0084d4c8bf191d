"""The one interface every game implements, and the small shared pieces they use.

A game is a stateless object (one instance per game in ``GAMES``) whose methods take and
return immutable deal states. The deal state is a pure function of (players, options,
entries): ``apply`` never mutates its input, so a caller can keep the previous state for
an instant undo and the snapshot stored in the database is exactly ``to_dict(state)``.

Refusals (:class:`IllegalEntry`, :class:`InvalidSetup`, :class:`Seat`, ``gettext_noop``)
live in ``errors``, below ``cards`` and this module; they are re-exported here.
"""

from __future__ import annotations

import random
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, ClassVar, Generic, Literal, TypedDict, TypeVar

from .cards import parse_notation
from .errors import IllegalEntry, InvalidSetup, Seat, Term, gettext_noop, message_repr

__all__ = [
    "SNAPSHOT_VERSION", "ChipMovementView", "Game", "GameView", "HouseRule", "HouseRuleKind", "IllegalEntry",
    "InvalidSetup", "MoneyRule", "Outcome", "OutcomeView", "Seat", "Term", "Unit", "ViewHeader", "competition_ranking",
    "deal_over", "entry_keys", "entry_type", "gettext_noop", "message_repr", "read_bool", "read_choice",
    "read_count", "read_list", "read_seat",
]

#: The version every game's snapshot carries; ``from_dict`` refuses any other.
SNAPSHOT_VERSION = 1


class OutcomeView(TypedDict):
    """A finished deal in a view: see :class:`Outcome`."""

    points: list[int]
    placements: list[int]
    winners: list[int]


class ViewHeader(TypedDict):
    """What every game's view opens with: the tablet reads these alike for every game."""

    game: str
    players: int
    dealer: int
    first_player: int
    finished: bool
    #: The seat expected to act, when the referee knows it.
    turn: int | None
    outcome: OutcomeView | None


#: Chips moving in a deal's ledger (Mičiganas): ``from``/``to`` a seat (int) or a prize card
#: (its canonical text); ``reason`` why. The functional form, since ``from`` is a keyword.
ChipMovementView = TypedDict("ChipMovementView", {"from": int | str, "to": int | str, "chips": int, "reason": str})

#: The referee's conclusion from the last entry, as each game describes it.
L = TypeVar("L")


class GameView(ViewHeader, Generic[L]):
    """A game's view: the shared header, the last conclusion, then the game's own keys."""

    last: L


@dataclass(frozen=True)
class Outcome:
    """A finished deal: ``points[i]`` in the game's own unit, ``placements[i]`` (1 = best)."""

    points: tuple[int, ...]
    placements: tuple[int, ...]
    #: Seats sharing first place in a draw, or the single winner; empty when not meaningful.
    winners: tuple[int, ...] = ()

    def view(self) -> OutcomeView:
        return {"points": list(self.points), "placements": list(self.placements), "winners": list(self.winners)}

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
    #: The table may draw it by lot instead of choosing it (the game's ``draw_by_lot``).
    by_lot: bool = False


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
    def view(self, state: S) -> GameView[Any]: ...

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

    def chip_movements(self, state: S) -> list[ChipMovementView]:
        """The deal's chip ledger, in order: ``{"from", "to", "chips", "reason"}`` where from/to
        is a seat (int) or a prize card (text). Empty for games played without chips."""
        return []

    def close_movements(self, last_state: S) -> list[ChipMovementView]:
        """Chip movements that settle the session at its close, given its last finished deal
        (Mičiganas M3: the chips left on the prize cards shared out). Same shape as
        ``chip_movements``; empty for games that settle nothing at close."""
        return []

    def draw_by_lot(self, key: str, players: int, rng: random.Random) -> object:
        """A value of the house rule ``key`` (one marked ``by_lot``) drawn by lot for this many
        players, written as the option is, so that it is stored like a chosen one."""
        raise InvalidSetup(
            gettext_noop("Option {key} of {game} is chosen, not drawn by lot."), key=key, game=self.name
        )

    # -- the pieces every snapshot and view share ---------------------------------------------

    def snapshot_header(self, state: S, options: Mapping[str, object]) -> dict[str, Any]:
        """What every snapshot opens with: the game, the snapshot version, the seats, the options."""
        players, dealer = self.seats(state)
        return {"game": self.slug, "version": SNAPSHOT_VERSION, "players": players, "dealer": dealer,
                "options": dict(options)}

    def check_snapshot(self, data: Mapping[str, Any]) -> None:
        """Refuse a snapshot of another game or version (``from_dict`` then reads the rest)."""
        if data.get("game") != self.slug or data.get("version") != SNAPSHOT_VERSION:
            raise ValueError(f"not a version {SNAPSHOT_VERSION} {self.name} snapshot")

    def view_header(self, state: S, *, turn: int | None) -> ViewHeader:
        """The header of ``view``: a deal is finished exactly when it has an outcome."""
        players, dealer = self.seats(state)
        outcome = self.outcome(state)
        return {
            "game": self.slug,
            "players": players,
            "dealer": dealer,
            "first_player": (dealer + 1) % players,
            "finished": outcome is not None,
            "turn": turn,
            "outcome": None if outcome is None else outcome.view(),
        }

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
    """The entry's ``type``, refusing anything that is not a known entry of this game.

    Field names that are not text are refused first: nothing else in such an entry can be
    described (a JSON body never has them; a Python caller might).
    """
    allowed = tuple(allowed)
    if not isinstance(entry, Mapping):
        raise IllegalEntry(gettext_noop("An entry must be an object with a \"type\"."))
    if not all(isinstance(key, str) for key in entry):
        raise IllegalEntry(gettext_noop("The fields of an entry must be named by text."))
    kind = entry.get("type")
    if kind not in allowed:
        raise IllegalEntry(
            gettext_noop("Unknown entry type {kind}; this game records {allowed}."),
            kind=message_repr(kind), allowed=", ".join(allowed),
        )
    assert isinstance(kind, str)
    return kind


def _plain(value: object) -> str:
    """Text as it is, anything else (a number used as a field name) as a safe repr."""
    return value if isinstance(value, str) else message_repr(value)


def entry_keys(entry: Mapping[str, Any], *required: str, optional: Iterable[str] = ()) -> None:
    """Refuse missing or superfluous fields, so a typo is never silently ignored."""
    missing = [key for key in required if key not in entry]
    if missing:
        # Terms, not text: the screen names the entry and its fields in the club's words.
        raise IllegalEntry(
            gettext_noop("The {kind} entry needs {fields}."),
            kind=Term(_plain(entry.get("type"))), fields=[Term(key) for key in missing],
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
            field=Term(field), last=players - 1, value=message_repr(value),
        )
    return value


def read_list(value: object, field: str, length: int | None = None) -> list[Any]:
    """A JSON list, optionally of an exact length."""
    if not isinstance(value, list):
        raise IllegalEntry(gettext_noop("{field} must be a list."), field=Term(field))
    if length is not None and len(value) != length:
        raise IllegalEntry(
            gettext_noop("{field} must list {expected} values, one per seat; it lists {count}."),
            field=Term(field), expected=length, count=len(value),
        )
    return value


def read_count(value: object, field: str) -> int:
    """A whole number of cards (not a bool, not a float)."""
    if value is None:  # a field left empty on the tablet: say so, not "not None"
        raise IllegalEntry(gettext_noop("{field} is missing: give a whole number."), field=Term(field))
    if not isinstance(value, int) or isinstance(value, bool):
        raise IllegalEntry(
            gettext_noop("{field} must be a whole number, not {value}."), field=Term(field), value=message_repr(value)
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
            field=field, choices=", ".join(choices), value=message_repr(value),
        )
    assert isinstance(value, str)
    return value


def deal_over() -> IllegalEntry:
    return IllegalEntry(gettext_noop("This deal has ended; nothing more can be recorded in it."))
