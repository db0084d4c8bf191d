"""Rūkas ("Fog"): a trick game of simultaneous choices, for 2 to 8 players.

Rules (RULES.md section 3, the product's reading of the seed by K.-H. Koch):

* Every player holds the same 13 ranks, 2 to ace (one suit each; a double deck above
  four players). Suits never matter, so the referee records bare ranks.
* Each trick every player chooses one card face down; then the cards are revealed one by
  one, starting with the leader and going clockwise. The first player (the seat after the
  dealer) leads the first trick; the taker of a trick reveals first in the next.
* A player plays each rank exactly once: 13 tricks make a deal.
* Adjudication, processing the cards in reveal order (order matters):

  1. A card whose rank already appeared in this trick is cancelled, and so is every
     earlier live card of that rank (all same-named cards cancel each other).
  2. Otherwise, a 7 revealed while a live ace lies on the table beats that ace: the ace
     is dead, the 7 stays live and is marked as its beater. A 7 does not beat an ace
     revealed after it.
  3. The would-be taker is a live ace if there is one. Else, under R1 ``seven_takes``
     (default), a live 7 that beat an ace; else the highest live card. Then, while a live
     card exactly one rank below the would-be taker exists, it becomes the would-be taker
     (a Q takes from a K, a J from that Q, ...; nothing takes from an ace this way).
     R1 ``next_highest``: a beaten ace just leaves and the 7 counts as an ordinary card.
  4. If no card is live, nobody takes the trick. R2 ``void`` (default): no point, and the
     same leader reveals first next. R2 ``carry``: the next trick's taker also gets this
     trick's point; consecutive void tricks add up; points still pending after the 13th
     trick are lost.

* A trick is worth one point to its taker (plus any carried points). Placements rank the
  seats by points, ties sharing a place.

Entry: ``{"type": "trick", "cards": [rank, ...]}``, one rank per player in reveal order
from the leader, in the session's notation (a full card is accepted, its suit ignored).
Options: ``seven_after_ace`` (R1), ``void_trick`` (R2), ``notation``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar, TypedDict

from .base import (
    Game,
    GameView,
    HouseRule,
    MoneyRule,
    Outcome,
    Unit,
    deal_over,
    entry_keys,
    entry_type,
    read_choice,
    read_list,
)
from .cards import ACE, RANK_NAMES_EN, RANK_TEXT_EN, RANK_VALUES, Card, CardError, Notation, parse_notation, parse_rank
from .errors import IllegalEntry, Seat, gettext_noop, message_repr

TRICKS_PER_DEAL = 13
SEVEN = 7


class SevenAfterAce(StrEnum):
    """R1: what a 7 that beat an ace is worth at the end of the trick."""

    SEVEN_TAKES = "seven_takes"
    NEXT_HIGHEST = "next_highest"


class VoidTrick(StrEnum):
    """R2: what happens to the point of a trick that nobody takes."""

    VOID = "void"
    CARRY = "carry"


class CardStatus(StrEnum):
    """A revealed card's fate in its trick."""

    CANCELLED = "cancelled"  # a card of the same rank appeared in the trick
    BEATEN = "beaten"  # an ace beaten by a later 7
    LIVE = "live"  # still in play, but not the taker
    TAKER = "taker"


class Basis(StrEnum):
    """Where the would-be taker came from in step 3 (before the one-lower chain)."""

    ACE = "ace"
    SEVEN_BEAT_ACE = "seven_beat_ace"
    HIGHEST = "highest"
    VOID = "void"


@dataclass(frozen=True)
class TrickResult:
    """The adjudication of one trick; every index is a position in reveal order."""

    #: Position of the taker, or None when no card is live (a void trick).
    taker: int | None
    status: tuple[CardStatus, ...]
    #: Ranks whose cards cancelled each other, in order of first appearance.
    cancelled: tuple[int, ...]
    #: The ace beaten by a 7 and the 7 that beat it (that 7 may have been cancelled later).
    beaten_ace: int | None
    beater: int | None
    basis: Basis
    #: The would-be taker of step 3, then each card that took from the one before.
    chain: tuple[int, ...]


def trick_taker(ranks: Sequence[int], seven_after_ace: str = SevenAfterAce.SEVEN_TAKES) -> TrickResult:
    """Adjudicate a trick given its ranks (2..14) in reveal order (steps 1-4 of the rules)."""
    rule = SevenAfterAce(seven_after_ace)
    status = [CardStatus.LIVE] * len(ranks)
    seen: set[int] = set()
    cancelled: list[int] = []
    live_ace: int | None = None
    beaten_ace: int | None = None
    beater: int | None = None
    for index, rank in enumerate(ranks):
        if rank in seen:
            status[index] = CardStatus.CANCELLED
            for earlier in range(index):
                # A beaten ace stays beaten: only live cards are cancelled.
                if ranks[earlier] == rank and status[earlier] is CardStatus.LIVE:
                    status[earlier] = CardStatus.CANCELLED
            if rank not in cancelled:
                cancelled.append(rank)
            if live_ace is not None and status[live_ace] is not CardStatus.LIVE:
                live_ace = None
            continue
        seen.add(rank)
        if rank == SEVEN and live_ace is not None:
            status[live_ace] = CardStatus.BEATEN
            beaten_ace, beater, live_ace = live_ace, index, None
        elif rank == ACE:
            live_ace = index

    live = {ranks[i]: i for i in range(len(ranks)) if status[i] is CardStatus.LIVE}
    if not live:
        return TrickResult(None, tuple(status), tuple(cancelled), beaten_ace, beater, Basis.VOID, ())
    if ACE in live:
        start, basis = live[ACE], Basis.ACE
    elif rule is SevenAfterAce.SEVEN_TAKES and beater is not None and status[beater] is CardStatus.LIVE:
        start, basis = beater, Basis.SEVEN_BEAT_ACE
    else:
        # Live ranks are distinct (step 1), so the highest is unique.
        start, basis = live[max(live)], Basis.HIGHEST
    chain = [start]
    if basis is not Basis.ACE:
        while ranks[chain[-1]] - 1 in live:
            chain.append(live[ranks[chain[-1]] - 1])
    status[chain[-1]] = CardStatus.TAKER
    return TrickResult(chain[-1], tuple(status), tuple(cancelled), beaten_ace, beater, basis, tuple(chain))


def reveal_order(leader: int, players: int) -> tuple[int, ...]:
    """The seats in the order they reveal: the leader, then clockwise."""
    return tuple((leader + step) % players for step in range(players))


_COUNT_WORDS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def _name(rank: int) -> str:
    return RANK_NAMES_EN[rank]


def _plural(rank: int) -> str:
    name = _name(rank)
    return name + ("es" if name.endswith("x") else "s")


def explain_trick(ranks: Sequence[int], result: TrickResult, seats: Sequence[int]) -> str:
    """A plain English sentence saying who takes the trick and why (seats as "seat N")."""
    reasons: list[str] = []
    # The beating comes first: a later seven may cancel the beater, but the ace stays beaten.
    if result.beaten_ace is not None and result.beater is not None:
        reasons.append(
            f"the seven of seat {seats[result.beater]} beat the ace of seat {seats[result.beaten_ace]}"
        )
    for rank in result.cancelled:
        count = sum(1 for r in ranks if r == rank)
        reasons.append(f"the {_COUNT_WORDS.get(count, str(count))} {_plural(rank)} cancel each other")
    if result.taker is None:
        reasons.append("no card is left in play")
        return "Nobody takes the trick: " + "; ".join(reasons) + "."
    start = result.chain[0]
    if result.basis is Basis.ACE:
        reasons.append("the ace stands, since no seven was revealed after it")
    elif result.basis is Basis.SEVEN_BEAT_ACE:
        reasons.append("the seven that beat the ace would take the trick")
    else:
        reasons.append(f"the {_name(ranks[start])} is the highest card in play")
    for higher, lower in zip(result.chain, result.chain[1:]):
        reasons.append(f"the {_name(ranks[lower])}, one rank lower, takes from the {_name(ranks[higher])}")
    last = ranks[result.taker]
    if result.basis is not Basis.ACE and last > 2:
        reasons.append(f"no {_name(last - 1)} is in play to take from the {_name(last)}")
    return f"Seat {seats[result.taker]} takes the trick with the {_name(last)}: " + "; ".join(reasons) + "."


# -- state ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LastTrick:
    """The latest trick, kept so the view can explain it (a trick is at most 8 ranks)."""

    leader: int
    ranks: tuple[int, ...]
    #: Points the taker received (1 plus carried points), 0 for a void trick.
    awarded: int


@dataclass(frozen=True)
class RukasState:
    players: int
    dealer: int
    seven_after_ace: SevenAfterAce
    void_trick: VoidTrick
    notation: Notation
    #: The seat that reveals first in the next trick.
    leader: int
    tricks_played: int
    #: Points per seat: tricks taken plus carried points.
    points: tuple[int, ...]
    #: Ranks each seat has already played this deal.
    played: tuple[frozenset[int], ...]
    #: Points of void tricks waiting for the next taker (R2 carry only).
    pending: int = 0
    void_tricks: int = 0
    #: Points still pending after the 13th trick (R2 carry), which nobody gets.
    lost: int = 0
    last: LastTrick | None = None

    @property
    def finished(self) -> bool:
        return self.tricks_played >= TRICKS_PER_DEAL


# -- the tablet's view -----------------------------------------------------------------------------


class RukasOptions(TypedDict):
    seven_after_ace: str
    void_trick: str
    notation: Notation


class CancelledRank(TypedDict):
    rank: str
    seats: list[int]


class BeatenAce(TypedDict):
    ace: int
    by: int


class TrickReason(TypedDict):
    """Why the taker took the trick (``basis``), in seats."""

    basis: str
    cancelled: list[CancelledRank]
    beaten: BeatenAce | None
    chain: list[int]


class RukasLastView(TypedDict):
    """The last trick: its cards in reveal order, what happened to each, the taker and why."""

    taker: int | None
    cards: list[str]
    reveal_order: list[int]
    status: list[str]
    reason: TrickReason
    points: int
    carried: int
    text: str


class RukasView(GameView[RukasLastView | None]):
    options: RukasOptions
    leader: int
    tricks_played: int
    tricks_left: int
    tricks: list[int]
    played: list[list[str]]
    pending: int
    void_tricks: int
    lost: int


# -- reading entries -----------------------------------------------------------------------------


def _read_rank(value: object, notation: Notation, seat: int) -> int:
    if not isinstance(value, str):
        raise IllegalEntry(gettext_noop("A card must be written as text, not {value}."), value=message_repr(value))
    if not value.strip():
        # Whose card is missing: the screen shows this beside that player's slot.
        raise IllegalEntry(gettext_noop("{player}'s card is missing."), player=Seat(seat))
    try:
        return parse_rank(value, notation)
    except CardError as err:
        raise IllegalEntry(err.template, **err.params) from err


_RANK_BY_TEXT = {text: rank for rank, text in RANK_TEXT_EN.items()}


def _rank_text(rank: int) -> str:
    return RANK_TEXT_EN[rank]


class Rukas(Game[RukasState]):
    """Rūkas: record each trick's ranks in reveal order; the referee says who takes it."""

    slug = "rukas"
    name = "Rūkas"
    name_lt = "Rūkas"
    min_players = 2
    max_players = 8
    option_defaults: ClassVar[Mapping[str, object]] = {
        "seven_after_ace": SevenAfterAce.SEVEN_TAKES.value,
        "void_trick": VoidTrick.VOID.value,
    }
    house_rules = (
        HouseRule("seven_after_ace", "choice", tuple(c.value for c in SevenAfterAce)),
        HouseRule("void_trick", "choice", tuple(c.value for c in VoidTrick)),
    )
    #: One point per trick taken.
    unit = Unit("points", gettext_noop("tricks"), counted=(gettext_noop("%(n)s trick"), gettext_noop("%(n)s tricks")))
    money_rule = MoneyRule.PAIR_DIFFERENCE

    def new_deal(self, *, players: int, dealer: int, options: Mapping[str, Any] | None = None) -> RukasState:
        opts = self.check_setup(players, dealer, options)
        seven = read_choice(opts["seven_after_ace"], "seven_after_ace", [c.value for c in SevenAfterAce])
        void = read_choice(opts["void_trick"], "void_trick", [c.value for c in VoidTrick])
        return RukasState(
            players=players,
            dealer=dealer,
            seven_after_ace=SevenAfterAce(seven),
            void_trick=VoidTrick(void),
            notation=opts["notation"],
            leader=(dealer + 1) % players,
            tricks_played=0,
            points=(0,) * players,
            played=(frozenset(),) * players,
        )

    def apply(self, state: RukasState, entry: object) -> RukasState:
        entry_type(entry, ("trick",))
        assert isinstance(entry, Mapping)
        if state.finished:
            raise deal_over()
        entry_keys(entry, "cards")
        texts = read_list(entry["cards"], "cards", state.players)
        order = reveal_order(state.leader, state.players)
        ranks = tuple(_read_rank(text, state.notation, seat) for seat, text in zip(order, texts))
        for seat, rank in zip(order, ranks):
            if rank in state.played[seat]:
                left = [Card(r) for r in RANK_VALUES if r not in state.played[seat]]
                raise IllegalEntry(
                    gettext_noop("{player} has already played their {rank} this deal; they still hold {left}."),
                    player=Seat(seat), rank=Card(rank), left=left,
                )
        return self._play(state, order, ranks)

    def _play(self, state: RukasState, order: tuple[int, ...], ranks: tuple[int, ...]) -> RukasState:
        result = trick_taker(ranks, state.seven_after_ace)
        played = list(state.played)
        for seat, rank in zip(order, ranks):
            played[seat] = played[seat] | {rank}
        points = list(state.points)
        pending, leader, awarded, voids = state.pending, state.leader, 0, state.void_tricks
        if result.taker is None:
            voids += 1
            if state.void_trick is VoidTrick.CARRY:
                pending += 1
        else:
            leader = order[result.taker]
            awarded = 1 + pending
            points[leader] += awarded
            pending = 0
        tricks = state.tricks_played + 1
        lost = 0
        if tricks == TRICKS_PER_DEAL:
            lost, pending = pending, 0
        return replace(
            state,
            leader=leader,
            tricks_played=tricks,
            points=tuple(points),
            played=tuple(played),
            pending=pending,
            void_tricks=voids,
            lost=lost,
            last=LastTrick(state.leader, ranks, awarded),
        )

    def outcome(self, state: RukasState) -> Outcome | None:
        if not state.finished:
            return None
        return Outcome.by_points(state.points)

    def seats(self, state: RukasState) -> tuple[int, int]:
        return state.players, state.dealer

    # -- snapshots -----------------------------------------------------------------------------

    def to_dict(self, state: RukasState) -> dict[str, Any]:
        last = state.last
        return {
            **self.snapshot_header(state, _options_view(state)),
            "leader": state.leader,
            "tricks_played": state.tricks_played,
            "points": list(state.points),
            "played": [[_rank_text(r) for r in sorted(ranks)] for ranks in state.played],
            "pending": state.pending,
            "void_tricks": state.void_tricks,
            "lost": state.lost,
            "last": None if last is None else {
                "leader": last.leader,
                "cards": [_rank_text(r) for r in last.ranks],
                "awarded": last.awarded,
            },
        }

    def from_dict(self, data: Mapping[str, Any]) -> RukasState:
        self.check_snapshot(data)
        players = _int(data["players"])
        if not self.min_players <= players <= self.max_players:
            raise ValueError("player count out of range")
        options = data["options"]
        raw_last = data["last"]
        last = None
        if raw_last is not None:
            last = LastTrick(
                leader=_int(raw_last["leader"]),
                ranks=tuple(_RANK_BY_TEXT[text] for text in raw_last["cards"]),
                awarded=_int(raw_last["awarded"]),
            )
        points = tuple(_int(p) for p in data["points"])
        played = tuple(frozenset(_RANK_BY_TEXT[text] for text in ranks) for ranks in data["played"])
        if len(points) != players or len(played) != players:
            raise ValueError("one value per seat expected")
        tricks_played = _int(data["tricks_played"])
        if not 0 <= tricks_played <= TRICKS_PER_DEAL or any(len(ranks) != tricks_played for ranks in played):
            raise ValueError("every seat plays one rank per trick")
        seats = range(players)
        if _int(data["dealer"]) not in seats or _int(data["leader"]) not in seats:
            raise ValueError("dealer and leader must be seats")
        if last is not None and (last.leader not in seats or len(last.ranks) != players):
            raise ValueError("the last trick has one card per seat")
        return RukasState(
            players=players,
            dealer=_int(data["dealer"]),
            seven_after_ace=SevenAfterAce(options["seven_after_ace"]),
            void_trick=VoidTrick(options["void_trick"]),
            notation=parse_notation(options["notation"]),
            leader=_int(data["leader"]),
            tricks_played=tricks_played,
            points=points,
            played=played,
            pending=_int(data["pending"]),
            void_tricks=_int(data["void_tricks"]),
            lost=_int(data["lost"]),
            last=last,
        )

    # -- the tablet ----------------------------------------------------------------------------

    def view(self, state: RukasState) -> RukasView:
        return {
            **self.view_header(state, turn=None if state.finished else state.leader),
            "last": self._last_view(state),
            "options": _options_view(state),
            "leader": state.leader,
            "tricks_played": state.tricks_played,
            "tricks_left": TRICKS_PER_DEAL - state.tricks_played,
            "tricks": list(state.points),
            "played": [[_rank_text(r) for r in sorted(ranks)] for ranks in state.played],
            "pending": state.pending,
            "void_tricks": state.void_tricks,
            "lost": state.lost,
        }

    def _last_view(self, state: RukasState) -> RukasLastView | None:
        last = state.last
        if last is None:
            return None
        order = reveal_order(last.leader, state.players)
        result = trick_taker(last.ranks, state.seven_after_ace)
        taker = None if result.taker is None else order[result.taker]
        text = explain_trick(last.ranks, result, order)
        if taker is not None and last.awarded > 1:
            text += f" Seat {taker} also collects {last.awarded - 1} carried point(s)."
        elif taker is None and state.void_trick is VoidTrick.VOID:
            text += f" No point; seat {state.leader} reveals first again."
        elif taker is None and state.finished:
            text += f" The {state.lost} pending point(s) are lost: no trick is left to take them."
        elif taker is None:
            text += f" Its point waits for the next taker ({state.pending} pending)."
        cancelled: list[CancelledRank] = [
            {"rank": _rank_text(rank), "seats": [order[i] for i, r in enumerate(last.ranks) if r == rank]}
            for rank in result.cancelled
        ]
        beaten: BeatenAce | None = None
        if result.beaten_ace is not None and result.beater is not None:
            beaten = {"ace": order[result.beaten_ace], "by": order[result.beater]}
        return {
            "taker": taker,
            "cards": [_rank_text(r) for r in last.ranks],
            "reveal_order": list(order),
            "status": [s.value for s in result.status],
            "reason": {
                "basis": result.basis.value,
                "cancelled": cancelled,
                "beaten": beaten,
                "chain": [order[i] for i in result.chain],
            },
            "points": last.awarded,
            "carried": max(0, last.awarded - 1),
            "text": text,
        }


def _options_view(state: RukasState) -> RukasOptions:
    return {
        "seven_after_ace": state.seven_after_ace.value,
        "void_trick": state.void_trick.value,
        "notation": state.notation,
    }


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"whole number expected, not {value!r}")
    return value


GAME = Rukas()
