"""Pašėlęs Velnias ("Crazy Devil"): a race to build the ace piles, for 3 to 8 players.

Rules (RULES.md section 2, the product's reading of the seed by A. Borisevičius):

* One 52-card deck. The dealer lays 13 cards face down and 4 face up on the table and
  deals the other 35 equally: a hand is 35 // n cards, and the 35 % n left over also go
  face up (n=3: 11 each, 2 over; 4: 8, 3; 5: 7, 0; 6: 5, 5; 7: 5, 0; 8: 4, 3).
* On "Go!" everyone puts out aces and, as fast as they can, builds on them downwards
  (K, Q, J, ... 2) in the ace's colour. Face-up table cards may be used by anyone; whoever
  uses one turns a face-down card at once. A late card is taken back.
* The play is a physical race, so the referee records only how the deal ended, with each
  seat's cards left in hand (each between 1 and the hand size; only the caller of an
  ``empty_hand`` ending holds 0, since anyone else at 0 would have called stop first):

  - ``empty_hand``: ``player`` placed their last card and called stop. They gain the sum
    of the other counts; every other player loses their own count.
  - ``last_card``: ``player`` turned the 13th face-down card and could not place it. Every
    other player loses 10 and ``player`` gains 10 per other player; moreover each other
    player holding fewer cards than ``player`` gains the difference, and ``player`` loses
    the same.
  - ``blocked``: nobody can place a card (``player`` is null). The players with the
    fewest cards win; each of them collects from every other player the difference
    between that player's count and theirs (V1 ``each``, fixed: tied winners each collect
    in full).

* Points are zero-sum in every deal; money is points times the session's stake. Placements
  rank the seats by points, ties sharing a place.

Entry: ``{"type": "end", "condition": C, "player": seat|null, "hand_counts": [int per seat]}``
ends the deal. Options: ``notation`` only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar, TypedDict

from .base import (
    Game,
    GameView,
    MoneyRule,
    Outcome,
    Unit,
    competition_ranking,
    deal_over,
    entry_keys,
    entry_type,
    read_list,
    read_seat,
)
from .cards import Notation, parse_notation
from .errors import IllegalEntry, Seat, Term, gettext_noop, message_repr

DECK = 52
FACE_DOWN = 13
FACE_UP = 4
DEALT = DECK - FACE_DOWN - FACE_UP  # 35
LAST_CARD_PENALTY = 10


class Condition(StrEnum):
    """How the deal ended."""

    EMPTY_HAND = "empty_hand"
    LAST_CARD = "last_card"
    BLOCKED = "blocked"


def hand_size(players: int) -> int:
    """Cards dealt to each player."""
    return DEALT // players


def leftovers(players: int) -> int:
    """Cards that cannot be dealt equally; they lie face up beside the 4 table cards."""
    return DEALT % players


@dataclass(frozen=True)
class Payment:
    """``payer`` pays ``payee`` ``points`` points, for ``why`` (a reason code)."""

    payer: int
    payee: int
    points: int
    why: str


def score_deal(condition: str, player: int | None, counts: Sequence[int]) -> tuple[int, ...]:
    """Points per seat of a deal that ended as ``condition`` (counts already validated)."""
    kind = Condition(condition)
    n = len(counts)
    points = [0] * n
    if kind is Condition.EMPTY_HAND:
        if player is None:
            raise ValueError("empty_hand needs the player")
        for seat, count in enumerate(counts):
            if seat != player:
                points[seat] -= count
                points[player] += count
    elif kind is Condition.LAST_CARD:
        if player is None:
            raise ValueError("last_card needs the player")
        for seat, count in enumerate(counts):
            if seat == player:
                continue
            points[seat] -= LAST_CARD_PENALTY
            points[player] += LAST_CARD_PENALTY
            if count < counts[player]:
                points[seat] += counts[player] - count
                points[player] -= counts[player] - count
    else:
        fewest = min(counts)
        winners = [seat for seat, count in enumerate(counts) if count == fewest]
        for seat, count in enumerate(counts):
            # V1 "each": every tied winner collects the full difference.
            points[seat] -= len(winners) * (count - fewest)
        for seat in winners:
            points[seat] += sum(count - fewest for count in counts)
    return tuple(points)


def deal_payments(condition: str, player: int | None, counts: Sequence[int]) -> tuple[Payment, ...]:
    """Who pays whom what and why: the same totals as :func:`score_deal`, itemised."""
    kind = Condition(condition)
    payments: list[Payment] = []
    if kind is Condition.EMPTY_HAND:
        assert player is not None
        payments = [
            Payment(seat, player, count, "cards_left") for seat, count in enumerate(counts) if seat != player
        ]
    elif kind is Condition.LAST_CARD:
        assert player is not None
        for seat, count in enumerate(counts):
            if seat == player:
                continue
            payments.append(Payment(seat, player, LAST_CARD_PENALTY, "last_card"))
            if count < counts[player]:
                payments.append(Payment(player, seat, counts[player] - count, "fewer_cards"))
    else:
        fewest = min(counts)
        winners = [seat for seat, count in enumerate(counts) if count == fewest]
        for winner in winners:
            payments.extend(
                Payment(seat, winner, count - fewest, "more_cards")
                for seat, count in enumerate(counts)
                if count > fewest
            )
    return tuple(payments)


def winners_of(condition: str, player: int | None, counts: Sequence[int]) -> tuple[int, ...]:
    """The seats that won the deal: the caller, or in a blocked deal those with the fewest cards."""
    if Condition(condition) is Condition.BLOCKED:
        fewest = min(counts)
        return tuple(seat for seat, count in enumerate(counts) if count == fewest)
    assert player is not None
    return (player,)


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


def _payment_text(payment: Payment, counts: Sequence[int], viewer: int) -> str:
    """One payment as seen by ``viewer`` (the payer or the payee)."""
    if payment.why == "cards_left":
        why = f"seat {payment.payer} has {_cards(counts[payment.payer])} left"
    elif payment.why == "last_card":
        why = f"the penalty for losing to seat {payment.payee}'s last-card stop"
    elif payment.why == "fewer_cards":
        why = f"seat {payment.payee} holds {_cards(payment.points)} fewer than seat {payment.payer}"
    else:
        why = f"seat {payment.payer} holds {_cards(payment.points)} more than seat {payment.payee}"
    if viewer == payment.payer:
        return f"pays {payment.points} to seat {payment.payee} ({why})"
    return f"gets {payment.points} from seat {payment.payer} ({why})"


def explain_deal(condition: str, player: int | None, counts: Sequence[int]) -> list[str]:
    """One plain English line per seat: its points and every payment behind them."""
    points = score_deal(condition, player, counts)
    payments = deal_payments(condition, player, counts)
    lines = []
    for seat in range(len(counts)):
        mine = [p for p in payments if seat in (p.payer, p.payee)]
        detail = "; ".join(_payment_text(p, counts, seat) for p in mine) or "pays and gets nothing"
        lines.append(f"Seat {seat}: {points[seat]:+d} ({_cards(counts[seat])} in hand): {detail}.")
    return lines


def _headline(condition: Condition, player: int | None) -> str:
    if condition is Condition.EMPTY_HAND:
        return f"Seat {player} placed their last card and called stop."
    if condition is Condition.LAST_CARD:
        return f"Seat {player} turned the last face-down card, could not place it and called stop."
    return "Nobody could place a card; the fewest cards in hand win."


# -- the tablet's view -----------------------------------------------------------------------------


class NotationOption(TypedDict):
    notation: Notation


class TableCards(TypedDict):
    face_down: int
    face_up: int
    leftovers: int


#: One payment; the functional form, since ``from`` is a Python keyword.
PaymentView = TypedDict("PaymentView", {"from": int, "to": int, "points": int, "why": str})


class SeatLine(TypedDict):
    seat: int
    points: int
    text: str


class VelniasLastView(TypedDict):
    """The recorded end, scored and explained."""

    condition: str
    player: int | None
    hand_counts: list[int]
    points: list[int]
    winners: list[int]
    payments: list[PaymentView]
    seats: list[SeatLine]
    text: str


class VelniasView(GameView[VelniasLastView | None]):
    options: NotationOption
    hand_size: int
    table_cards: TableCards
    conditions: list[str]


# -- state ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Ending:
    """The recorded end of the deal."""

    condition: Condition
    player: int | None
    hand_counts: tuple[int, ...]


@dataclass(frozen=True)
class VelniasState:
    players: int
    dealer: int
    notation: Notation
    ending: Ending | None = None

    @property
    def finished(self) -> bool:
        return self.ending is not None


# -- reading the entry ---------------------------------------------------------------------------

_HUGE = 10**12


def _read_condition(value: object) -> Condition:
    for condition in Condition:
        if isinstance(value, str) and value == condition.value:
            return condition
    raise IllegalEntry(
        gettext_noop("{field} must be one of {choices}, not {value}."),
        field=Term("condition"), choices=[Term(c.value) for c in Condition], value=message_repr(value),
    )


def _read_player(value: object, condition: Condition, players: int) -> int | None:
    if condition is Condition.BLOCKED:
        if value is not None:
            raise IllegalEntry(
                gettext_noop("Nobody calls stop in a blocked deal, so player must be null, not {value}."),
                value=message_repr(value),
            )
        return None
    if value is None:
        if condition is Condition.EMPTY_HAND:
            raise IllegalEntry(
                gettext_noop("An {ending} ending needs the player who placed their last card."),
                ending=Term(Condition.EMPTY_HAND.value), field=Term("player"),
            )
        raise IllegalEntry(
            gettext_noop("A {ending} ending needs the player who turned the last face-down card."),
            ending=Term(Condition.LAST_CARD.value), field=Term("player"),
        )
    return read_seat(value, players)


def _shown(count: int) -> str:
    if count >= _HUGE:
        return f"more than {_HUGE}"
    if count <= -_HUGE:
        return f"less than {-_HUGE}"
    return str(count)


def _read_counts(value: object, condition: Condition, player: int | None, players: int) -> tuple[int, ...]:
    raw = read_list(value, "hand_counts", players)
    hand = hand_size(players)
    counts = []
    for seat, count in enumerate(raw):
        if count is None:  # a field left empty on the tablet: say so, not "not None"
            raise IllegalEntry(
                gettext_noop("The hand count of {player} is missing: give the number of cards they hold."),
                player=Seat(seat),
            )
        if not isinstance(count, int) or isinstance(count, bool):
            raise IllegalEntry(
                gettext_noop("The hand count of {player} must be a whole number, not {value}."),
                player=Seat(seat), value=message_repr(count),
            )
        caller = seat == player
        if condition is Condition.EMPTY_HAND and caller:
            if count != 0:
                raise IllegalEntry(
                    gettext_noop("{player} placed their last card and called stop, so they hold 0 cards, not {count}."),
                    player=Seat(seat), count=_shown(count),
                )
        elif count < 0:
            raise IllegalEntry(
                gettext_noop("{player} cannot hold {count} cards; a hand count is at least 1."),
                player=Seat(seat), count=_shown(count),
            )
        elif count == 0 and condition is Condition.LAST_CARD and caller:
            raise IllegalEntry(
                gettext_noop(
                    "{player} turned the last face-down card and could not place it, so they hold at least 1 card; "
                    "with an empty hand, record an {ending} ending."
                ),
                player=Seat(seat), ending=Term(Condition.EMPTY_HAND.value),
            )
        elif count == 0:
            raise IllegalEntry(
                gettext_noop(
                    "{player} holds 0 cards, but a player with an empty hand calls stop at once: "
                    "record an {ending} ending for them, or give their count (at least 1)."
                ),
                player=Seat(seat), ending=Term(Condition.EMPTY_HAND.value),
            )
        elif count > hand:
            raise IllegalEntry(
                gettext_noop("{player} holds {count} cards, but a hand in a {players}-player deal has only {hand}."),
                player=Seat(seat), count=_shown(count), players=players, hand=hand,
            )
        counts.append(count)
    return tuple(counts)


class Velnias(Game[VelniasState]):
    """Pašėlęs Velnias: one ``end`` entry records how the race ended; the referee scores it."""

    slug = "velnias"
    name = "Pašėlęs Velnias"
    name_lt = "Pašėlęs Velnias"
    min_players = 3
    max_players = 8
    option_defaults: ClassVar[Mapping[str, object]] = {}
    unit = Unit("points", gettext_noop("points"), counted=(gettext_noop("%(n)s point"), gettext_noop("%(n)s points")))
    money_rule = MoneyRule.AS_PLAYED

    def new_deal(self, *, players: int, dealer: int, options: Mapping[str, Any] | None = None) -> VelniasState:
        opts = self.check_setup(players, dealer, options)
        return VelniasState(players=players, dealer=dealer, notation=opts["notation"])

    def apply(self, state: VelniasState, entry: object) -> VelniasState:
        entry_type(entry, ("end",))
        assert isinstance(entry, Mapping)
        if state.finished:
            raise deal_over()
        entry_keys(entry, "condition", "player", "hand_counts")
        condition = _read_condition(entry["condition"])
        player = _read_player(entry["player"], condition, state.players)
        counts = _read_counts(entry["hand_counts"], condition, player, state.players)
        return replace(state, ending=Ending(condition, player, counts))

    def outcome(self, state: VelniasState) -> Outcome | None:
        ending = state.ending
        if ending is None:
            return None
        points = score_deal(ending.condition, ending.player, ending.hand_counts)
        return Outcome(
            points=points,
            placements=competition_ranking(points),
            winners=winners_of(ending.condition, ending.player, ending.hand_counts),
        )

    def seats(self, state: VelniasState) -> tuple[int, int]:
        return state.players, state.dealer

    # -- snapshots -----------------------------------------------------------------------------

    def to_dict(self, state: VelniasState) -> dict[str, Any]:
        ending = state.ending
        return {
            **self.snapshot_header(state, {"notation": state.notation}),
            "ending": None if ending is None else {
                "condition": ending.condition.value,
                "player": ending.player,
                "hand_counts": list(ending.hand_counts),
            },
        }

    def from_dict(self, data: Mapping[str, Any]) -> VelniasState:
        self.check_snapshot(data)
        players = _int(data["players"])
        dealer = _int(data["dealer"])
        if not self.min_players <= players <= self.max_players or not 0 <= dealer < players:
            raise ValueError("players or dealer out of range")
        raw = data["ending"]
        ending = None
        if raw is not None:
            # The entry's own checks (IllegalEntry is a ValueError): a snapshot holds only a valid ending.
            condition = _read_condition(raw["condition"])
            player = _read_player(raw["player"], condition, players)
            ending = Ending(condition, player, _read_counts(raw["hand_counts"], condition, player, players))
        return VelniasState(
            players=players, dealer=dealer, notation=parse_notation(data["options"]["notation"]), ending=ending
        )

    # -- the tablet ----------------------------------------------------------------------------

    def view(self, state: VelniasState) -> VelniasView:
        n = state.players
        return {
            # The race has no turns; the table records the end whenever it comes.
            **self.view_header(state, turn=None),
            "last": self._last_view(state),
            "options": {"notation": state.notation},
            "hand_size": hand_size(n),
            "table_cards": {
                "face_down": FACE_DOWN,
                "face_up": FACE_UP + leftovers(n),
                "leftovers": leftovers(n),
            },
            "conditions": [c.value for c in Condition],
        }

    def _last_view(self, state: VelniasState) -> VelniasLastView | None:
        ending = state.ending
        if ending is None:
            return None
        points = score_deal(ending.condition, ending.player, ending.hand_counts)
        lines = explain_deal(ending.condition, ending.player, ending.hand_counts)
        summary = ", ".join(f"seat {seat} {p:+d}" for seat, p in enumerate(points))
        return {
            "condition": ending.condition.value,
            "player": ending.player,
            "hand_counts": list(ending.hand_counts),
            "points": list(points),
            "winners": list(winners_of(ending.condition, ending.player, ending.hand_counts)),
            "payments": [
                {"from": p.payer, "to": p.payee, "points": p.points, "why": p.why}
                for p in deal_payments(ending.condition, ending.player, ending.hand_counts)
            ],
            "seats": [{"seat": seat, "points": points[seat], "text": line} for seat, line in enumerate(lines)],
            "text": f"{_headline(ending.condition, ending.player)} Points: {summary}.",
        }


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"whole number expected, not {value!r}")
    return value


GAME = Velnias()
