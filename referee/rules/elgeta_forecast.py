"""Elgeta's forecast: the rest of a deal whose every pile is known, simulated to its end or to
a proven cycle (RULES.md section 1, determinism and E3).

Once every player still in has played through their own pile the referee knows each pile's
exact order, and since suits never matter the ranks alone fix the rest of the deal:
:func:`play_out` plays it out (or finds the same piles and leader again: an endless cycle).
The game module (``elgeta``) stores the result as a :class:`Projection` and shows it as a
:class:`Forecast`; this module knows nothing of entries or options.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from .base import competition_ranking
from .cards import ACE

#: How many further tricks a forecast simulates before it gives up for now. Every random
#: deal measured ends within a few thousand tricks; this bound keeps one forecast well
#: under a second even for a deal that neither ends nor repeats soon. An unsettled
#: forecast is simulated again once play reaches its horizon.
FORECAST_HORIZON = 50_000


class Ending(Enum):
    """How a deal ends."""

    #: One player holds every card.
    LAST_PLAYER = "last_player"
    #: E2: one player holds every ace in play.
    ALL_ACES = "all_aces"
    #: E1: nobody could add a card to a tie-break round: a draw.
    NO_CARDS = "no_cards"
    #: E3: the deal provably repeats for ever and was closed as a draw.
    CYCLE = "cycle"


@dataclass(frozen=True)
class Result:
    """How a deal ended (or, inside a forecast, will end)."""

    ending: Ending
    winner: int | None
    #: Seats sharing first place: the winner alone, or everyone in a draw.
    first: tuple[int, ...]
    placements: tuple[int, ...]
    #: Closed by a ``finish`` entry from the forecast rather than played to the end.
    by_finish: bool = False


@dataclass(frozen=True)
class Projection:
    """A forecast as stored in the state, in absolute trick numbers so it never needs updating.

    ``result`` None means the simulation reached ``until`` without the deal ending or
    repeating; otherwise ``until`` is the trick after which the deal ends (or, for a cycle,
    after which the first repetition is proven).
    """

    result: Result | None
    until: int
    cycle_length: int | None = None
    cycle_start: int | None = None


@dataclass(frozen=True)
class Cycle:
    length: int
    #: Further tricks before the repeating part begins (0: it already has).
    starts_after: int


@dataclass(frozen=True)
class Forecast:
    """The rest of a determined deal, counted from the state it was asked for.

    ``ending`` None: the deal neither ends nor repeats within the next ``tricks`` tricks
    (the horizon); the referee looks further once play gets there.
    """

    ending: Ending | None
    winner: int | None
    winners: tuple[int, ...]
    #: Further tricks until the deal ends, or until the cycle's first repetition.
    tricks: int
    cycle: Cycle | None
    placements: tuple[int, ...]

    @property
    def settled(self) -> bool:
        return self.ending is not None


def rank_seats(out_at: Sequence[int | None], first: Sequence[int], held: Sequence[int]) -> tuple[int, ...]:
    """Placements: ``first`` share 1st; others still in by cards held (E2, more is better);
    the rest by the trick they went out in (later is better, the same trick shares a place)."""
    top = 1 << 62
    scores = [
        3 * top if seat in first else (2 * top + held[seat] if when is None else when)
        for seat, when in enumerate(out_at)
    ]
    return competition_ranking(scores)


def play_out(
    piles: list[bytearray],
    leader: int,
    out_at: list[int | None],
    tricks: int,
    *,
    all_aces: bool,
    aces: int,
    limit: int = FORECAST_HORIZON,
) -> Projection:
    """Simulate a deal whose every pile is known (ranks, top first) until it ends or repeats.

    ``piles`` and ``out_at`` are consumed. Suits never matter, so ranks alone fix the rest
    of the deal, and a recurring position (every pile by rank, and the leader) proves an
    endless cycle. Positions are kept as bytes keyed by the trick they were seen at; a
    player going out makes every earlier position unreachable, so that forgets them.
    """
    seats = [seat for seat, when in enumerate(out_at) if when is None]
    seen: dict[bytes, int] = {}
    join = b"\xff".join
    stop = tricks + limit
    while True:
        key = join(piles) + bytes((leader,))
        seen_at = seen.setdefault(key, tricks)
        if seen_at != tricks:
            first = tuple(seats)
            result = Result(Ending.CYCLE, None, first, rank_seats(out_at, first, [len(p) for p in piles]))
            return Projection(result, tricks, cycle_length=tricks - seen_at, cycle_start=seen_at)
        if tricks >= stop:
            return Projection(None, tricks)
        at = seats.index(leader)
        order = seats[at:] + seats[:at]
        table = bytearray()
        while True:
            best = 0
            taker = -1
            tie = False
            for seat in order:
                pile = piles[seat]
                if pile:
                    card = pile[0]
                    del pile[0]  # O(1): bytearray drops its head in place
                    table.append(card)
                    if card > best:
                        best, taker, tie = card, seat, False
                    elif card == best:
                        tie = True
            if not best:
                first = tuple(sorted(order))
                result = Result(Ending.NO_CARDS, None, first, rank_seats(out_at, first, [0] * len(piles)))
                return Projection(result, tricks + 1)
            if not tie:
                break
        piles[taker] += table
        leader = taker
        tricks += 1
        gone = [seat for seat in order if not piles[seat]]
        if gone:
            for seat in gone:
                out_at[seat] = tricks
            seats = [seat for seat in seats if piles[seat]]
            seen.clear()
            if len(seats) == 1:
                first = (taker,)
                result = Result(Ending.LAST_PLAYER, taker, first, rank_seats(out_at, first, [len(p) for p in piles]))
                return Projection(result, tricks)
        if all_aces and ACE in table and piles[taker].count(ACE) == aces:
            first = (taker,)
            result = Result(Ending.ALL_ACES, taker, first, rank_seats(out_at, first, [len(p) for p in piles]))
            return Projection(result, tricks)
