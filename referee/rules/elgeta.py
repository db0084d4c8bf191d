"""Elgeta ("Beggar"): a trick game of ranks only, played from piles nobody may reorder.

Rules (RULES.md section 1, read from the seed ``000_502ed600ba8c1367.txt``):

* 2 to 4 players and any deck without jokers (E5, option ``deck``): 52 cards (ranks 2 to
  ace, 13 a suit, the default), 36 (6 to ace, 9 a suit) or 32 (7 to ace, 8 a suit). With 4
  players each holds every card of one suit; with 3 one suit is left out; with 2 one holds
  both red suits (H, D) and the other both black (S, C). Option ``suits`` says which suit(s)
  each seat holds; the table may draw them by lot (:func:`draw_suits`). Every player
  shuffles their own pile face down, so the referee never knows its order. A card outside
  the session's deck is refused naming the deck.
* The first player (the seat after the dealer) leads the first trick. In a trick the
  players still in turn their top card in turn, the leader first, then clockwise. The
  highest rank takes every card on the table; suits never matter.
* If two or more cards tie for the highest rank, **every** player still in (not only the
  tied ones) adds one more card and the highest of the new cards takes all the cards on
  the table; earlier ranks no longer matter. This repeats while the new round ties.
* The taker puts the captured cards under their pile in the order they were played
  (round by round, each round in play order from the leader) and leads the next trick.
* A player with no cards left after a trick is out (a "beggar"); the last player holding
  cards wins the deal.

House rules:

* E1 (``drop``, behaviour): a player who has nothing left to add in a tie-break round adds
  nothing (``null``) and the round is decided among the cards added. If nobody adds a
  card, the deal ends as a draw among the players still in.
* E2 (option ``all_aces``, default on): when, after a trick, one player holds every ace
  in play, the deal ends at once with that player as the winner; the others still in are
  ranked by the cards they hold (more is better).
* E3 (fixed): once the referee proves the deal repeats for ever (the same piles and
  leader recur), the scorer may close it with a ``finish`` entry as a draw among the
  players still in the cycle.
* E4 (option ``strict_order``, default on): captured cards come back in the order above.
  Off: the referee only checks that a turned card is one the player holds.

Determinism, the referee's strongest check: until a player has played through their own
pile the referee knows the *set* of cards they may turn; afterwards it knows the *exact*
next card. Once every player still in has played through their own pile the rest of the
deal is fixed and the referee forecasts it (:class:`Forecast`): who wins and after how
many tricks, or a proven cycle.

Placement: the winner is 1st; players who went out are ranked by when (last out ranks
higher) and players out in the same trick share a place. In a draw the players still in
share 1st place. Points: 1 to the winner, 0 to everyone else (0 to all in a draw).

Entries: ``{"type": "trick", "rounds": [[card | null, ...], ...]}`` (each round in play
order from the leader, one card per player still in) and ``{"type": "finish"}`` (close a
deal whose rest is forecast: its result, or a draw for a proven cycle).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
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
    read_bool,
    read_list,
)
from .cards import ACE, JACK, KING, QUEEN, SUITS, Card, CardError, Notation, card_from_text, format_card, parse_card
from .elgeta_forecast import (
    FORECAST_HORIZON,
    Cycle,
    Ending,
    Forecast,
    Projection,
    Result,
    play_out,
    rank_seats,
)
from .errors import IllegalEntry, InvalidSetup, Seat, Term, gettext_noop, message_repr

DEFAULT_SUITS: Mapping[int, tuple[str, ...]] = {2: ("HD", "SC"), 3: ("S", "C", "D"), 4: ("S", "C", "D", "H")}

#: E5: the decks the seed allows ("bet kokią kaladę be džokerių"), by size: each suit's lowest
#: rank (a full deck runs down to the two, "iki dviakės"; the short ones stop at the six or seven).
DECKS: Mapping[int, int] = {52: 2, 36: 6, 32: 7}
DEFAULT_DECK = 52

_MISSING: Any = object()

_RANK_PLURALS = {
    2: "twos", 3: "threes", 4: "fours", 5: "fives", 6: "sixes", 7: "sevens", 8: "eights", 9: "nines",
    10: "tens", JACK: "jacks", QUEEN: "queens", KING: "kings", ACE: "aces",
}


# -- the state -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ElgetaOptions:
    suits: tuple[str, ...]
    all_aces: bool
    strict_order: bool
    notation: Notation
    deck: int = DEFAULT_DECK

    @property
    def lowest(self) -> int:
        """The lowest rank in the deck (2, 6 or 7)."""
        return DECKS[self.deck]


@dataclass(frozen=True)
class Pile:
    """One seat's cards: the unturned part of its own pile (order unknown to the referee)
    and the captured cards beneath it, in the exact order they come back."""

    initial: frozenset[Card]
    captured: tuple[Card, ...]

    @property
    def size(self) -> int:
        return len(self.initial) + len(self.captured)


@dataclass(frozen=True)
class TrickRecord:
    """The last trick, as the referee read it (the view's ``last``)."""

    order: tuple[int, ...]
    rounds: tuple[tuple[Card | None, ...], ...]
    #: None when nobody could add a card to a tie-break round (E1 draw).
    taker: int | None
    out: tuple[int, ...]


@dataclass(frozen=True)
class ElgetaState:
    players: int
    dealer: int
    options: ElgetaOptions
    piles: tuple[Pile, ...]
    leader: int
    tricks: int
    #: The trick (1-based) after which each seat went out; None while in.
    out_at: tuple[int | None, ...]
    #: Cards left on the table: only after an E1 draw, when nobody could take them.
    table: tuple[Card, ...]
    last: TrickRecord | None
    result: Result | None
    projection: Projection | None

    @property
    def in_seats(self) -> tuple[int, ...]:
        return tuple(seat for seat, when in enumerate(self.out_at) if when is None)


@dataclass(frozen=True)
class ExpectedCard:
    """What a seat can turn next: ``exact`` when the referee knows it, else one of ``possible``."""

    exact: Card | None
    possible: frozenset[Card]


# -- small pure pieces of the rules ----------------------------------------------------------


def play_order(leader: int, out_at: Sequence[int | None]) -> tuple[int, ...]:
    """Seats still in, from the leader clockwise."""
    n = len(out_at)
    return tuple(seat for seat in ((leader + i) % n for i in range(n)) if out_at[seat] is None)


def highest(cards: Sequence[Card | None]) -> tuple[int, ...]:
    """Positions of the cards of the highest rank in a round (nulls never count).

    One position: that card takes the trick; several: a tie; none: nobody added a card.
    """
    ranks = [card.rank for card in cards if card is not None]
    if not ranks:
        return ()
    top = max(ranks)
    return tuple(i for i, card in enumerate(cards) if card is not None and card.rank == top)


def trick_taker(rounds: Sequence[Sequence[Card | None]]) -> int | None:
    """Position (in play order) of the player taking a complete trick; None if nobody can.

    Only the last round decides: the earlier ones tied, and ties no longer matter.
    """
    best = highest(rounds[-1])
    return best[0] if len(best) == 1 else None


# -- reading a trick ---------------------------------------------------------------------------


class _Hand:
    """A seat's cards while one trick is read (mutable scratch, never stored)."""

    def __init__(self, seat: int, pile: Pile, own: frozenset[Card], strict: bool) -> None:
        self.seat = seat
        self.own = own
        self.strict = strict
        self.initial = set(pile.initial)
        self.captured = list(pile.captured)
        self.next = 0  # strict order: captured cards are consumed from the front

    @property
    def left(self) -> int:
        return len(self.initial) + len(self.captured) - self.next

    def take(self, card: Card) -> None:
        player = Seat(self.seat)
        if card in self.initial:
            self.initial.discard(card)
            return
        if not self.strict:
            if card in self.captured:
                self.captured.remove(card)
                return
            if card in self.own:
                raise IllegalEntry(gettext_noop("{player} has already turned the {card}."), player=player, card=card)
            raise IllegalEntry(gettext_noop("{player} does not hold the {card}."), player=player, card=card)
        if self.initial:
            if card in self.captured[self.next:]:
                raise IllegalEntry(
                    gettext_noop(
                        "{player} cannot turn the {card} yet: captured cards come up only after their own "
                        "pile, which still holds {count} cards."
                    ),
                    player=player, card=card, count=len(self.initial),
                )
            if card in self.own:
                raise IllegalEntry(gettext_noop("{player} has already turned the {card}."), player=player, card=card)
            raise IllegalEntry(gettext_noop("The {card} is not in {player}'s pile."), player=player, card=card)
        expected = self.captured[self.next]
        if card != expected:
            raise IllegalEntry(
                gettext_noop(
                    "{player}'s next card is the {expected}, not the {card}: captured cards come back in the "
                    "order they were played."
                ),
                player=player, expected=expected, card=card,
            )
        self.next += 1

    def pile(self) -> Pile:
        return Pile(frozenset(self.initial), tuple(self.captured[self.next:]))


def _read_card(value: object, notation: Notation) -> Card:
    if not isinstance(value, str):
        raise IllegalEntry(
            gettext_noop("A card must be written as text (e.g. \"QS\"), not {value}."), value=message_repr(value)
        )
    try:
        return parse_card(value, notation)
    except CardError as err:
        raise IllegalEntry(err.template, **err.params) from err


# -- options -----------------------------------------------------------------------------------


def read_deck(value: object) -> int:
    """Option ``deck`` (E5): 52, 36 or 32 cards."""
    # Only whole numbers: 52.0 compares equal to 52 but is not how a deck is written.
    if not isinstance(value, int) or isinstance(value, bool) or value not in DECKS:
        raise InvalidSetup(
            gettext_noop("Option deck must be 52, 36 or 32 (cards in the deck), not {value}."),
            value=message_repr(value),
        )
    return value


def draw_suits(players: int, rng: random.Random) -> tuple[str, ...]:
    """The seats' suits drawn by lot ("galima tai nustatyti ir burtų keliu"), each possible
    deal of the suits equally likely: 4 players, an order of the four suits (24); 3, three of
    the four in some order (24); 2, which seat gets the reds and which the blacks (2).
    Written like the option ``suits``, so a drawn deal is stored as a chosen one."""
    if players == 2:
        return rng.choice((("HD", "SC"), ("SC", "HD")))
    if players not in DEFAULT_SUITS:
        raise InvalidSetup(
            gettext_noop("Suits are drawn for 2 to 4 players, not {count}."), count=message_repr(players)
        )
    return tuple(rng.sample(SUITS, players))


def read_suits(value: object, players: int) -> tuple[str, ...]:
    """Option ``suits``: one string of suit letters per seat, dealt as RULES.md says."""
    if value is None:
        return DEFAULT_SUITS[players]
    example = ", ".join(f'"{suits}"' for suits in DEFAULT_SUITS[players])
    if not isinstance(value, (list, tuple)):
        raise InvalidSetup(
            gettext_noop("Option suits must be a list with one entry per seat, e.g. [{example}]."), example=example
        )
    if len(value) != players:
        raise InvalidSetup(
            gettext_noop("Option suits must list {players} entries, one per seat; it lists {count}."),
            players=players, count=len(value),
        )
    width = 2 if players == 2 else 1
    owner: dict[str, int] = {}
    for seat, suits in enumerate(value):
        if (
            not isinstance(suits, str)
            or len(suits) != width
            or any(letter not in SUITS for letter in suits)
            or len(set(suits)) != len(suits)
        ):
            if width == 2:
                template = gettext_noop(
                    "Option suits: {player} must hold two different suits written as letters S, C, D, H "
                    "(e.g. \"HD\"), not {value}."
                )
            else:
                template = gettext_noop(
                    "Option suits: {player} must hold one suit written as a letter S, C, D or H, not {value}."
                )
            raise InvalidSetup(template, player=Seat(seat), value=message_repr(suits))
        for letter in suits:
            if letter in owner:
                raise InvalidSetup(
                    gettext_noop("Option suits: the {suit} suit is given to both {first} and {second}."),
                    suit=letter, first=Seat(owner[letter]), second=Seat(seat),
                )
            owner[letter] = seat
    if players == 2 and {frozenset(value[0]), frozenset(value[1])} != {frozenset("HD"), frozenset("SC")}:
        raise InvalidSetup(
            gettext_noop(
                "Option suits: with 2 players one seat holds both red suits (HD) and the other both black suits (SC)."
            )
        )
    return tuple(value)


# -- the game ----------------------------------------------------------------------------------


class Elgeta(Game[ElgetaState]):
    slug = "elgeta"
    name = "Elgeta"
    name_lt = "Elgeta"
    min_players = 2
    max_players = 4
    option_defaults: ClassVar[Mapping[str, object]] = {
        "deck": DEFAULT_DECK, "suits": None, "all_aces": True, "strict_order": True,
    }
    house_rules = (
        HouseRule("deck", "choice", tuple(DECKS)),
        HouseRule("suits", "suits", by_lot=True),
        HouseRule("all_aces", "bool"),
        HouseRule("strict_order", "bool"),
    )
    unit = Unit("deals_won", gettext_noop("deals won"))
    money_rule = MoneyRule.PAIR_DIFFERENCE

    # -- setup ---------------------------------------------------------------------------------

    def new_deal(self, *, players: int, dealer: int, options: Mapping[str, Any] | None = None) -> ElgetaState:
        opts = self.check_setup(players, dealer, options)
        suits = read_suits(opts["suits"], players)
        rules = ElgetaOptions(
            suits=suits,
            all_aces=read_bool(opts["all_aces"], "all_aces"),
            strict_order=read_bool(opts["strict_order"], "strict_order"),
            notation=opts["notation"],
            deck=read_deck(opts["deck"]),
        )
        piles = tuple(Pile(_own_cards(held, rules.lowest), ()) for held in suits)
        return ElgetaState(
            players=players, dealer=dealer, options=rules, piles=piles, leader=(dealer + 1) % players,
            tricks=0, out_at=(None,) * players, table=(), last=None, result=None, projection=None,
        )

    def seats(self, state: ElgetaState) -> tuple[int, int]:
        return state.players, state.dealer

    def draw_by_lot(self, key: str, players: int, rng: random.Random) -> object:
        if key == "suits":
            return list(draw_suits(players, rng))
        return super().draw_by_lot(key, players, rng)

    # -- entries -------------------------------------------------------------------------------

    def apply(self, state: ElgetaState, entry: object) -> ElgetaState:
        kind = entry_type(entry, ("trick", "finish"))
        assert isinstance(entry, Mapping)
        if kind == "finish":
            entry_keys(entry)
            if state.result is not None:
                raise deal_over()
            return self._finish(state)
        entry_keys(entry, "rounds")
        if state.result is not None:
            raise deal_over()
        return self._trick(state, entry["rounds"])

    def _trick(self, state: ElgetaState, value: object) -> ElgetaState:
        raw_rounds = read_list(value, "rounds")
        if not raw_rounds:
            raise IllegalEntry(gettext_noop("A trick needs at least one round of cards."))
        rules = state.options
        order = play_order(state.leader, state.out_at)
        hands = {
            seat: _Hand(seat, state.piles[seat], _own_cards(rules.suits[seat], rules.lowest), rules.strict_order)
            for seat in order
        }
        in_play = frozenset("".join(rules.suits))
        on_table: set[Card] = set()
        table: list[Card] = []
        rounds: list[tuple[Card | None, ...]] = []
        decided = False
        taker: int | None = None
        for number, raw in enumerate(raw_rounds, 1):
            if decided:
                if taker is None:
                    raise IllegalEntry(
                        gettext_noop(
                            "Nobody added a card in round {number}, so the trick ended there; round {extra} "
                            "cannot follow."
                        ),
                        number=number - 1, extra=number,
                    )
                raise IllegalEntry(
                    gettext_noop(
                        "Round {number} is already decided ({player} takes with the {card}), so round {extra} "
                        "cannot follow."
                    ),
                    number=number - 1, player=Seat(taker), card=_taking_card(rounds),
                    extra=number,
                )
            cards = self._round(number, raw, order, hands, in_play, on_table, rules)
            table.extend(card for card in cards if card is not None)
            rounds.append(cards)
            best = highest(cards)
            if len(best) != 1 and best:
                continue
            decided = True
            taker = order[best[0]] if best else None
        if not decided:
            last = rounds[-1]
            tied = [last[i] for i in highest(last)]
            raise IllegalEntry(
                gettext_noop(
                    "Round {number} is a tie ({cards}), so every player still in adds one more card: round "
                    "{next} is missing."
                ),
                number=len(rounds), cards=tied, next=len(rounds) + 1,
            )
        return self._after_trick(state, order, hands, tuple(rounds), tuple(table), taker)

    def _round(
        self,
        number: int,
        raw: object,
        order: tuple[int, ...],
        hands: Mapping[int, _Hand],
        in_play: frozenset[str],
        on_table: set[Card],
        rules: ElgetaOptions,
    ) -> tuple[Card | None, ...]:
        if not isinstance(raw, list):
            raise IllegalEntry(
                gettext_noop("Round {number} must be a list of cards, one per player still in."), number=number
            )
        if len(raw) < len(order):
            raise IllegalEntry(
                gettext_noop(
                    "Round {number} has no card from {missing}: it needs one per player still in, in play order "
                    "{order}."
                ),
                number=number, missing=[Seat(seat) for seat in order[len(raw):]], order=[Seat(s) for s in order],
            )
        if len(raw) > len(order):
            raise IllegalEntry(
                gettext_noop(
                    "Round {number} lists {count} cards, but only {expected} players are still in, in play order "
                    "{order}."
                ),
                number=number, count=len(raw), expected=len(order), order=[Seat(s) for s in order],
            )
        cards: list[Card | None] = []
        for seat, text in zip(order, raw, strict=True):
            hand = hands[seat]
            if text is None:
                if hand.left:
                    raise IllegalEntry(
                        gettext_noop(
                            "{player} still has cards, so they add one in round {number}; {empty} is only for a "
                            "player with nothing left to add."
                        ),
                        player=Seat(seat), number=number, empty=Term("null"),
                    )
                cards.append(None)
                continue
            if not hand.left:
                raise IllegalEntry(
                    gettext_noop("{player} has no cards left to add in round {number}: write null for them."),
                    player=Seat(seat), number=number,
                )
            card = _read_card(text, rules.notation)
            if card.rank < rules.lowest:
                raise IllegalEntry(
                    gettext_noop(
                        "The {card} is not in this deal: the {deck}-card deck has only the ranks {lowest} to {ace}."
                    ),
                    card=card, deck=rules.deck, lowest=Card(rules.lowest), ace=Card(ACE),
                )
            if card in on_table:
                raise IllegalEntry(gettext_noop("The {card} is already on the table in this trick."), card=card)
            if card.suit not in in_play:
                raise IllegalEntry(
                    gettext_noop("The {card} is not in this deal: its suit was left out."), card=card
                )
            hand.take(card)
            on_table.add(card)
            cards.append(card)
        return tuple(cards)

    def _after_trick(
        self,
        state: ElgetaState,
        order: tuple[int, ...],
        hands: Mapping[int, _Hand],
        rounds: tuple[tuple[Card | None, ...], ...],
        table: tuple[Card, ...],
        taker: int | None,
    ) -> ElgetaState:
        piles = list(state.piles)
        for seat, hand in hands.items():
            piles[seat] = hand.pile()
        tricks = state.tricks + 1
        if taker is None:
            # E1: every player still in is empty-handed and the cards stay on the table.
            first = tuple(sorted(order))
            draw = Result(Ending.NO_CARDS, None, first, rank_seats(state.out_at, first, [0] * state.players))
            return replace(
                state, piles=tuple(piles), tricks=tricks, table=table, projection=None, result=draw,
                last=TrickRecord(order, rounds, None, ()),
            )
        piles[taker] = Pile(piles[taker].initial, piles[taker].captured + table)
        out = tuple(seat for seat in order if piles[seat].size == 0)
        out_at = tuple(tricks if seat in out else when for seat, when in enumerate(state.out_at))
        ending: Ending | None = None
        if len(order) - len(out) == 1:
            ending = Ending.LAST_PLAYER
        elif (
            state.options.all_aces
            and any(card.rank == ACE for card in table)  # only the taker gains cards, and only these
            and _aces(piles[taker]) == _aces_in_play(state)
        ):
            ending = Ending.ALL_ACES
        result = None
        if ending is not None:
            result = Result(ending, taker, (taker,), rank_seats(out_at, (taker,), [pile.size for pile in piles]))
        new = ElgetaState(
            players=state.players, dealer=state.dealer, options=state.options, piles=tuple(piles), leader=taker,
            tricks=tricks, out_at=out_at, table=(), last=TrickRecord(order, rounds, taker, out), result=result,
            projection=None,
        )
        if result is not None:
            return new
        return replace(new, projection=self._projection(new, state.projection))

    def _projection(self, state: ElgetaState, previous: Projection | None) -> Projection | None:
        """The stored forecast: kept while valid (the rest of the deal is fixed), else simulated."""
        if not state.options.strict_order:
            return None
        if previous is not None and (previous.result is not None or state.tricks < previous.until):
            return previous
        if any(state.piles[seat].initial for seat in state.in_seats):
            return None
        piles = [bytearray(card.rank for card in pile.captured) for pile in state.piles]
        return play_out(
            piles, state.leader, list(state.out_at), state.tricks,
            all_aces=state.options.all_aces, aces=_aces_in_play(state), limit=FORECAST_HORIZON,
        )

    def _finish(self, state: ElgetaState) -> ElgetaState:
        if not state.options.strict_order:
            raise IllegalEntry(
                gettext_noop(
                    "With strict order (E4) off the referee cannot foresee the rest of the deal, so it cannot be "
                    "finished early: record its tricks."
                )
            )
        projection = state.projection
        if projection is None:
            waiting = [Seat(seat) for seat in state.in_seats if state.piles[seat].initial]
            raise IllegalEntry(
                gettext_noop(
                    "The rest of the deal is not determined yet: {players} must first play through their own pile."
                ),
                players=waiting,
            )
        if projection.result is None:
            raise IllegalEntry(
                gettext_noop(
                    "The referee has simulated the next {count} tricks and the deal neither ends nor repeats "
                    "within them, so it cannot be finished yet."
                ),
                count=projection.until - state.tricks,
            )
        return replace(state, result=replace(projection.result, by_finish=True), projection=None, last=None)

    # -- reading the state ---------------------------------------------------------------------

    def outcome(self, state: ElgetaState) -> Outcome | None:
        result = state.result
        if result is None:
            return None
        points = tuple(int(seat == result.winner) for seat in range(state.players))
        return Outcome(points=points, placements=result.placements, winners=result.first)

    def expected(self, state: ElgetaState) -> dict[int, ExpectedCard]:
        """For each seat still in a running deal: its next card when known, else the cards it may turn."""
        if state.result is not None:
            return {}
        found: dict[int, ExpectedCard] = {}
        for seat in state.in_seats:
            pile = state.piles[seat]
            if state.options.strict_order:
                possible = pile.initial if pile.initial else frozenset(pile.captured[:1])
            else:
                possible = pile.initial | frozenset(pile.captured)
            exact = next(iter(possible)) if len(possible) == 1 else None
            found[seat] = ExpectedCard(exact, possible)
        return found

    def forecast(self, state: ElgetaState) -> Forecast | None:
        """The rest of the deal once every player still in has played through their own pile.

        None while a pile's order is still unknown, with strict order off, or after the end.
        """
        projection = state.projection
        if projection is None or state.result is not None:
            return None
        result = projection.result
        if result is None:
            return Forecast(None, None, (), projection.until - state.tricks, None, ())
        cycle = None
        tricks = projection.until - state.tricks
        if projection.cycle_length is not None and projection.cycle_start is not None:
            starts_after = max(0, projection.cycle_start - state.tricks)
            cycle = Cycle(projection.cycle_length, starts_after)
            tricks = starts_after + projection.cycle_length
        return Forecast(result.ending, result.winner, result.first, tricks, cycle, result.placements)

    def view(self, state: ElgetaState) -> ElgetaView:
        expected = self.expected(state)
        forecast = self.forecast(state)
        running = state.result is None
        return {
            **self.view_header(state, turn=state.leader if running else None),
            "leader": state.leader,
            "in": list(state.in_seats),
            "counts": [pile.size for pile in state.piles],
            "initial_left": [len(pile.initial) for pile in state.piles],
            "tricks": state.tricks,
            "table": [card.text for card in state.table],
            "options": _options_dict(state.options),
            "expected": [_expected_dict(expected.get(seat)) for seat in range(state.players)],
            "forecast": _forecast_dict(forecast),
            "ending": state.result.ending.value if state.result else None,
            "last": _last_dict(state),
        }

    # -- snapshots -----------------------------------------------------------------------------

    def to_dict(self, state: ElgetaState) -> dict[str, Any]:
        return {
            **self.snapshot_header(state, _options_dict(state.options)),
            "piles": [
                {
                    "initial": [card.text for card in sorted(pile.initial)],
                    "captured": [card.text for card in pile.captured],
                }
                for pile in state.piles
            ],
            "leader": state.leader,
            "tricks": state.tricks,
            "out_at": list(state.out_at),
            "table": [card.text for card in state.table],
            "last": None if state.last is None else {
                "order": list(state.last.order),
                "rounds": [[None if card is None else card.text for card in cards] for cards in state.last.rounds],
                "taker": state.last.taker,
                "out": list(state.last.out),
            },
            "result": _result_dict(state.result),
            "projection": None if state.projection is None else {
                "result": _result_dict(state.projection.result),
                "until": state.projection.until,
                "cycle_length": state.projection.cycle_length,
                "cycle_start": state.projection.cycle_start,
            },
        }

    def from_dict(self, data: Mapping[str, Any]) -> ElgetaState:
        self.check_snapshot(data)
        players = _int(data["players"])
        options = data["options"]
        rules = ElgetaOptions(
            suits=tuple(str(s) for s in options["suits"]),
            all_aces=bool(options["all_aces"]),
            strict_order=bool(options["strict_order"]),
            notation="lt" if options["notation"] == "lt" else "en",
            # Snapshots from before E5 were all of the full deck.
            deck=read_deck(options.get("deck", DEFAULT_DECK)),
        )
        last = data["last"]
        projection = data.get("projection", _MISSING)
        piles = tuple(
            Pile(frozenset(_cards(pile["initial"])), tuple(_cards(pile["captured"]))) for pile in data["piles"]
        )
        if len(piles) != players or len(rules.suits) != players:
            raise ValueError("piles and suits must match the number of players")
        state = ElgetaState(
            players=players,
            dealer=_int(data["dealer"]),
            options=rules,
            piles=piles,
            leader=_int(data["leader"]),
            tricks=_int(data["tricks"]),
            out_at=tuple(None if when is None else _int(when) for when in data["out_at"]),
            table=tuple(_cards(data["table"])),
            last=None if last is None else TrickRecord(
                order=tuple(_int(seat) for seat in last["order"]),
                rounds=tuple(
                    tuple(None if text is None else card_from_text(text) for text in cards) for cards in last["rounds"]
                ),
                taker=None if last["taker"] is None else _int(last["taker"]),
                out=tuple(_int(seat) for seat in last["out"]),
            ),
            result=_result_from(data["result"]),
            projection=None if projection is None or projection is _MISSING else Projection(
                result=_result_from(projection["result"]),
                until=_int(projection["until"]),
                cycle_length=None if projection["cycle_length"] is None else _int(projection["cycle_length"]),
                cycle_start=None if projection["cycle_start"] is None else _int(projection["cycle_start"]),
            ),
        )
        if projection is _MISSING and state.result is None:
            # A position written by hand (tests, a repaired deal): work its forecast out.
            state = replace(state, projection=self._projection(state, None))
        return state


# -- helpers -------------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _own_cards(suits: str, lowest: int) -> frozenset[Card]:
    """The cards a seat was dealt: its suits from the deck's lowest rank to the ace (cached: a
    new trick must not rebuild them)."""
    return frozenset(Card(rank, suit) for suit in suits for rank in range(lowest, ACE + 1))


def _aces(pile: Pile) -> int:
    return sum(1 for card in pile.initial if card.rank == ACE) + sum(1 for card in pile.captured if card.rank == ACE)


def _aces_in_play(state: ElgetaState) -> int:
    return sum(len(suits) for suits in state.options.suits)


def _taking_card(rounds: Sequence[tuple[Card | None, ...]]) -> Card:
    last = rounds[-1]
    card = last[highest(last)[0]]
    assert card is not None
    return card


def _int(value: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"expected a whole number, not {value!r}")
    return value


def _cards(values: object) -> list[Card]:
    if not isinstance(values, list):
        raise ValueError("expected a list of cards")
    return [card_from_text(str(text)) for text in values]


def _result_dict(result: Result | None) -> dict[str, Any] | None:
    if result is None:
        return None
    return {
        "ending": result.ending.value,
        "winner": result.winner,
        "first": list(result.first),
        "placements": list(result.placements),
        "by_finish": result.by_finish,
    }


def _result_from(data: Any) -> Result | None:
    if data is None:
        return None
    return Result(
        ending=Ending(data["ending"]),
        winner=None if data["winner"] is None else _int(data["winner"]),
        first=tuple(_int(seat) for seat in data["first"]),
        placements=tuple(_int(place) for place in data["placements"]),
        by_finish=bool(data["by_finish"]),
    )


def _options_dict(options: ElgetaOptions) -> ElgetaOptionsView:
    return {
        "deck": options.deck,
        "suits": list(options.suits),
        "all_aces": options.all_aces,
        "strict_order": options.strict_order,
        "notation": options.notation,
    }


def _expected_dict(expected: ExpectedCard | None) -> ExactCard | PossibleCards | None:
    if expected is None:
        return None
    if expected.exact is not None:
        return {"exact": expected.exact.text}
    return {"possible": [card.text for card in sorted(expected.possible)]}


def _forecast_dict(forecast: Forecast | None) -> ForecastView | None:
    if forecast is None:
        return None
    return {
        "determined": True,
        "settled": forecast.settled,
        "ending": None if forecast.ending is None else forecast.ending.value,
        "winner": forecast.winner,
        "winners": list(forecast.winners),
        "tricks": forecast.tricks,
        "cycle": None if forecast.cycle is None else {
            "length": forecast.cycle.length, "starts_after": forecast.cycle.starts_after,
        },
        "placements": list(forecast.placements) if forecast.settled else None,
    }


def _seats_text(seats: Sequence[int]) -> str:
    names = [f"seat {seat}" for seat in seats]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def _ranks_text(ranks: Sequence[int]) -> str:
    words = [_RANK_PLURALS[rank] for rank in ranks]
    if len(words) == 1:
        return f"a tie of {words[0]}"
    if len(words) == 2:
        return f"ties of {words[0]} and {words[1]}"
    return f"{len(words)} tied rounds"


def _result_text(result: Result) -> str:
    if result.ending is Ending.LAST_PLAYER:
        return f"Seat {result.winner} holds every card and wins the deal."
    if result.ending is Ending.ALL_ACES:
        return f"Seat {result.winner} holds every ace and wins the deal."
    if result.ending is Ending.NO_CARDS:
        return f"The deal is a draw between {_seats_text(result.first)}."
    return f"The deal repeats for ever: a draw between {_seats_text(result.first)}."


def _last_dict(state: ElgetaState) -> FinishView | TrickView | None:
    result = state.result
    if result is not None and result.by_finish:
        return {
            "kind": "finish",
            "ending": result.ending.value,
            "winner": result.winner,
            "text": "Finished from the forecast. " + _result_text(result),
        }
    record = state.last
    if record is None:
        return None
    notation = state.options.notation
    ties = [cards[highest(cards)[0]] for cards in record.rounds[:-1]]
    tie_ranks = [card.rank for card in ties if card is not None]
    taken = sum(1 for cards in record.rounds for card in cards if card is not None)
    if record.taker is None:
        text = f"Nobody could add a card after {_ranks_text(tie_ranks)}."
    else:
        card = _taking_card(record.rounds)
        if tie_ranks:
            text = f"Seat {record.taker} takes {taken} cards after {_ranks_text(tie_ranks)}."
        else:
            text = f"Seat {record.taker} takes {taken} cards with the {format_card(card, notation)}."
    if record.out:
        verb = "is" if len(record.out) == 1 else "are"
        text += f" {_seats_text(record.out).capitalize()} {verb} out."
    if result is not None:
        text += " " + _result_text(result)
    return {
        "kind": "trick",
        "text": text,
        "taker": record.taker,
        "order": list(record.order),
        "rounds": [[None if card is None else card.text for card in cards] for cards in record.rounds],
        "cards": taken,
        "ties": tie_ranks,
        "out": list(record.out),
        "ending": None if result is None else result.ending.value,
    }


# -- the tablet's view -----------------------------------------------------------------------------


class ElgetaOptionsView(TypedDict):
    deck: int
    suits: list[str]
    all_aces: bool
    strict_order: bool
    notation: Notation


class ExactCard(TypedDict):
    """The card a seat turns next, known exactly."""

    exact: str


class PossibleCards(TypedDict):
    """The cards a seat may turn next, one of which it will."""

    possible: list[str]


class CycleView(TypedDict):
    length: int
    starts_after: int


class ForecastView(TypedDict):
    """The rest of a determined deal (see :class:`Forecast`)."""

    determined: bool
    settled: bool
    ending: str | None
    winner: int | None
    winners: list[int]
    tricks: int
    cycle: CycleView | None
    placements: list[int] | None


class FinishView(TypedDict):
    """The deal was finished from the forecast."""

    kind: str
    ending: str
    winner: int | None
    text: str


class TrickView(TypedDict):
    """The last trick: its rounds in play order, who took how many cards, who went out."""

    kind: str
    text: str
    taker: int | None
    order: list[int]
    rounds: list[list[str | None]]
    cards: int
    ties: list[int]
    out: list[int]
    ending: str | None


#: The seats still in the deal, in seat order; the functional form, since ``in`` is a keyword.
SeatsIn = TypedDict("SeatsIn", {"in": list[int]})


class ElgetaView(GameView[FinishView | TrickView | None], SeatsIn):
    leader: int
    table: list[str]
    counts: list[int]
    initial_left: list[int]
    tricks: int
    options: ElgetaOptionsView
    expected: list[ExactCard | PossibleCards | None]
    forecast: ForecastView | None
    ending: str | None


GAME = Elgeta()
