"""Mičiganas ("Michigan"): a chip game of sequences and prize cards, for 3 to 8 players.

Rules (RULES.md section 4, the product's reading of the seed by A. Borisevičius):

* A 52-card deck, plus four prize cards laid out on the table: an ace, a king, a queen and
  a jack of four different suits (option ``prizes``, default AS KC QD JH).
* Before every deal each player puts ``ante`` chips (M1, default 1) on EACH prize card, the
  dealer ``dealer_ante`` (default 2) instead. Chips left on a prize card from the previous
  deal (option ``pot``) stay there.
* All 52 cards are dealt into n+1 hands, one card at a time clockwise, starting with the
  extra hand, which lies to the dealer's left (before the first player). The first
  52 % (n+1) hands in that order get one card more: see :func:`dealing_sizes`.
* The first player, or if they decline the next, and so on, may swap their hand unseen for
  the extra hand (at most one swap per deal; the hand sizes swap with it).
* Play: the first player starts a sequence in any suit with the lowest card they hold in
  it; whoever holds the next higher card of that suit plays it, and so on. When nobody can
  continue (the card is face down in the extra hand or the hand given up, or an ace or the
  highest remaining card was played) the last player to play starts again with their lowest
  card of another suit (the same suit only if they have no other): a "stop".
* Whoever plays a card equal to a prize card takes the chips on it. A prize card can be
  played only once per deal.
* A player who plays wrongly (not their lowest card of the suit, or out of turn/sequence)
  pays ``misplay_penalty`` (M2, default 1) chips to every other player, and may not take a
  prize for the rest of the deal: prizes taken earlier are kept; a prize card they play
  later counts as played and its chips stay on it.
* The deal ends when a player plays their last card: every other player pays them one chip
  per card left in hand. Chips left on the prize cards carry into the next deal
  (:meth:`Michigan.pot_after`); M3 (sharing them at session close) is session-level, see
  :func:`split_pot`.
* A deal's points are each seat's net chips in it; placements rank the seats by net chips.
  Zero-sum with the prize cards: sum(points) + (chips on the prize cards at the end - the
  ``pot`` carried in) == 0.

Manual mode (default) records what happened, in order: ``{"type": "exchange", "player": s}``,
``{"type": "prize", "card": c, "player": s}``, ``{"type": "misplay", "player": s}`` and
``{"type": "out", "player": s, "hand_counts": [...]}`` (which ends the deal).

Live mode (``live: true``) records every card: ``{"type": "play", "player": s, "card": c}``,
plus ``exchange`` (before the first card) and ``misplay`` (for a wrong play the referee
cannot see). The referee knows each hand's size, never its cards, but knows every card
played. It keeps the current sequence (its last card) and the "starter", the player who
played the sequence's last card and so starts the next one.

Options: ``prizes`` (four canonical cards), ``ante`` (1), ``dealer_ante`` (2),
``misplay_penalty`` (1), ``live`` (false), ``pot`` (a dict prize card -> chips carried in,
keys exactly the prize cards; the default None means 0 on each), ``notation``.

Interpretations (where RULES.md leaves the referee to decide):

* Hand sizes follow the formula "the first 52 % (n+1) hands get one more". RULES.md's
  example for n=4 ("the extra hand and the first two players get 11") would deal 53
  cards; with 52 only the extra hand and the first player get 11.
* A card that continues the sequence (the next higher card of its suit) is always a
  continuation, whoever plays it (one player may hold several cards in a row).
  Otherwise a card from the starter is a new start (the first start of the deal, or a
  stop), and a card from anyone else is a misplay: it is penalised, counts as played (it
  has left the hand), and the sequence and the starter stay as they were. The first card
  of the deal must come from the first player.
* The referee cannot tell whether a stop was premature (the next card may lie face down)
  or whether a start in the same suit was allowed; it trusts the table on both.
* Each misplay pays the penalty again; the ban on prizes just continues.
* "Not the lowest card of the suit" is flagged when a player plays a card of a suit
  lower than their latest start in that suit not yet flagged (the lower card must have
  been in their hand at that start). One play flags at most once per suit; the start is
  then forgotten, so further lower cards do not pay again. A ``misplay`` entry for a
  player in live mode forgets all their starts (the table has already judged them), so
  the same wrong start is not paid twice. The flag is applied before the card's own
  effects: a prize card that reveals the earlier wrong start is not taken. A card can be
  both a misplay (out of sequence) and the proof of an earlier wrong start: two penalties.
* In live mode ``turn`` is the starter when the sequence cannot continue (no card yet, an
  ace, or the next card already played), else None (whoever holds the next card plays);
  ``sequence.next`` names that card.
* Manual mode does not track the order of play: ``prize`` and ``misplay`` entries are
  taken in the order recorded. The ``out`` entry's counts are checked against each seat's
  hand size (after a swap, the hand it now holds) less the prize cards it has played this
  deal, the only cards the referee has seen leave a hand. A ``misplay`` entry does not
  lower the bound: a start that was not the lowest is recorded after the card was played
  (perhaps a prize card, already counted), so it names no card of its own.
* Movements of zero chips (an ante of 0, a prize card with no chips) are not listed.
* ``Outcome.winners`` are the seats placed first by net chips.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from typing import Any, ClassVar, TypedDict

from .base import (
    ChipMovementView,
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
    read_count,
    read_list,
    read_seat,
)
from .cards import (
    ACE,
    JACK,
    KING,
    QUEEN,
    SUIT_NAMES_EN,
    SUITS,
    Card,
    CardError,
    Notation,
    card_from_text,
    format_card,
    parse_card,
    parse_notation,
)
from .errors import IllegalEntry, InvalidSetup, Seat, gettext_noop, message_repr

DECK_SIZE = 52
PRIZE_RANKS = (ACE, KING, QUEEN, JACK)
DEFAULT_PRIZES = ("AS", "KC", "QD", "JH")
ENTRY_TYPES = ("exchange", "prize", "misplay", "out", "play")


class Reason(StrEnum):
    """Why chips moved (the ``reason`` of a ledger movement)."""

    ANTE = "ante"
    PRIZE = "prize"
    MISPLAY = "misplay"
    PAYOUT = "payout"
    #: M3: the chips left on the prize cards shared out when the session closes.
    SPLIT = "split"


class PlayKind(StrEnum):
    """What the referee made of a card in live mode."""

    START = "start"  # the first sequence of the deal
    CONTINUE = "continue"  # the next higher card of the sequence's suit
    STOP = "stop"  # a new start by the starter, ending the sequence
    MISPLAY = "misplay"  # out of turn or out of sequence


class EventKind(StrEnum):
    EXCHANGE = "exchange"
    PRIZE = "prize"
    MISPLAY = "misplay"
    OUT = "out"
    PLAY = "play"


@dataclass(frozen=True)
class Movement:
    """Chips moving in the deal's ledger; an end is a seat (int) or a prize card (canonical text)."""

    source: int | str
    target: int | str
    chips: int
    reason: Reason


@dataclass(frozen=True)
class PrizePlay:
    """A prize card played this deal: ``chips`` were on it; ``taken`` unless the player had misplayed."""

    card: Card
    player: int
    chips: int
    taken: bool


@dataclass(frozen=True)
class Event:
    """What the referee concluded from the last entry (the view turns it into words)."""

    kind: EventKind
    player: int
    card: Card | None = None
    play: PlayKind | None = None
    #: An earlier start by this player, proven by this card not to have been their lowest.
    flagged: Card | None = None
    prize: PrizePlay | None = None
    #: Misplay penalties this entry applied (0, 1 or 2).
    penalties: int = 0


@dataclass(frozen=True)
class MichiganState:
    players: int
    dealer: int
    notation: Notation
    prizes: tuple[Card, ...]
    ante: int
    dealer_ante: int
    misplay_penalty: int
    live: bool
    #: Chips on each prize card carried in from the previous deal (before the antes).
    pot_in: tuple[int, ...]
    #: Chips on each prize card now.
    pot: tuple[int, ...]
    #: Net chips per seat in this deal, antes included.
    net: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    extra_size: int
    misplays: tuple[int, ...]
    #: The ledger after the antes (those follow from the options: see ``ante_movements``).
    movements: tuple[Movement, ...] = ()
    prizes_played: tuple[PrizePlay, ...] = ()
    exchanged: int | None = None
    #: Something other than the exchange has been recorded (the swap is then too late).
    begun: bool = False
    out_player: int | None = None
    hand_counts: tuple[int, ...] | None = None
    # Live mode only.
    played: frozenset[Card] = frozenset()
    played_count: tuple[int, ...] = ()
    #: The last card of the current sequence (None before the first start).
    sequence: Card | None = None
    #: The player who starts the next sequence: the first player, then whoever played last in sequence.
    starter: int = 0
    #: Per seat, per suit (SUITS order): rank of their latest start not yet flagged, 0 if none.
    pending_starts: tuple[tuple[int, ...], ...] = ()
    last: Event | None = None

    @property
    def finished(self) -> bool:
        return self.out_player is not None


# -- the tablet's view -----------------------------------------------------------------------------


class MichiganOptions(TypedDict):
    notation: Notation
    prizes: list[str]
    ante: int
    dealer_ante: int
    misplay_penalty: int
    live: bool


class MichiganViewOptions(MichiganOptions):
    #: Chips carried in on each prize card, by card.
    pot: dict[str, int]


class PrizeView(TypedDict):
    card: str
    player: int
    chips: int
    taken: bool


class EventFacts(TypedDict):
    player: int
    card: str | None
    play: str | None
    flagged: str | None
    prize: PrizeView | None
    penalties: int


class MichiganLastView(EventFacts):
    """The last entry: what the referee made of it, and in words."""

    type: str
    penalty_each: int
    out: bool
    text: str


class SequenceView(TypedDict):
    """Live mode: the sequence being played and the card that would continue it."""

    suit: str | None
    card: str
    starter: int
    next: str | None


class MichiganView(GameView[MichiganLastView | None]):
    options: MichiganViewOptions
    live: bool
    prizes: list[str]
    pot: dict[str, int]
    pot_before: dict[str, int]
    prizes_played: list[PrizeView]
    misplays: list[int]
    misplayed: list[int]
    net: list[int]
    hand_sizes: list[int]
    extra_hand_size: int
    exchanged: int | None
    can_exchange: bool
    cards_left: list[int] | None
    out_player: int | None
    sequence: SequenceView | None
    starter: int | None
    played: list[str] | None
    movements: list[ChipMovementView]


# -- pure rules ----------------------------------------------------------------------------------


def dealing_sizes(players: int) -> tuple[int, ...]:
    """Sizes of the n+1 hands in dealing order: the extra hand, the first player, ..., the dealer.

    52 cards one at a time: each hand gets 52 // (n+1), and the first 52 % (n+1) one more.
    """
    hands = players + 1
    base, more = divmod(DECK_SIZE, hands)
    return tuple(base + 1 if index < more else base for index in range(hands))


def deal_sizes(players: int, dealer: int) -> tuple[int, tuple[int, ...]]:
    """(extra hand size, hand size per seat) before any swap."""
    order = dealing_sizes(players)
    sizes = [0] * players
    for step in range(players):
        sizes[(dealer + 1 + step) % players] = order[1 + step]
    return order[0], tuple(sizes)


def next_card(card: Card) -> Card | None:
    """The card that continues a sequence ending in ``card``: one rank higher, same suit (none after an ace)."""
    return None if card.rank == ACE else Card(card.rank + 1, card.suit)


def classify_play(card: Card, player: int, sequence: Card | None, starter: int) -> PlayKind:
    """A continuation if ``card`` follows the sequence; else a start by the starter, or a misplay."""
    if sequence is not None and card == next_card(sequence):
        return PlayKind.CONTINUE
    if player == starter:
        return PlayKind.START if sequence is None else PlayKind.STOP
    return PlayKind.MISPLAY


def split_pot(chips: int, players: int, last_dealer: int) -> tuple[int, ...]:
    """M3 at session close: share ``chips`` equally; the remainder one each from the seat after the last dealer."""
    share, rest = divmod(chips, players)
    result = [share] * players
    for step in range(rest):
        result[(last_dealer + 1 + step) % players] += 1
    return tuple(result)


def _chips_word(chips: int) -> str:
    return f"{chips} chip" if chips == 1 else f"{chips} chips"


# -- reading entries and options -----------------------------------------------------------------


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _read_card(value: object, notation: Notation) -> Card:
    if not isinstance(value, str):
        raise IllegalEntry(gettext_noop("A card must be written as text, not {value}."), value=message_repr(value))
    try:
        return parse_card(value, notation)
    except CardError as err:
        raise IllegalEntry(err.template, **err.params) from err


def _read_counts(value: object, players: int) -> tuple[int, ...]:
    counts = read_list(value, "hand_counts", players)
    for seat, count in enumerate(counts):
        if count is None:  # a field left empty on the tablet: name whose count, not "hand_counts[2]"
            raise IllegalEntry(
                gettext_noop("The hand count of {player} is missing: give the number of cards they hold."),
                player=Seat(seat),
            )
    return tuple(read_count(count, f"hand_counts[{seat}]") for seat, count in enumerate(counts))


def _canonical_card(text: object) -> Card | None:
    """A full card written exactly in canonical text (as options are), else None."""
    if not isinstance(text, str):
        return None
    try:
        card = card_from_text(text)
    except CardError:
        return None
    if card.suit is None or format_card(card) != text:
        return None
    return card


def _option_chips(value: object, field: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise InvalidSetup(
            gettext_noop("Option {field} must be a whole number of chips, 0 or more, not {value}."),
            field=field, value=message_repr(value),
        )
    return value


def _option_prizes(value: object) -> tuple[Card, ...]:
    if not isinstance(value, (list, tuple)) or len(value) != len(PRIZE_RANKS):
        raise InvalidSetup(
            gettext_noop("Option prizes must list four cards, e.g. {example}, not {value}."),
            example='["AS", "KC", "QD", "JH"]', value=message_repr(value),
        )
    cards: list[Card] = []
    for text in value:
        card = _canonical_card(text)
        if card is None:
            raise InvalidSetup(
                gettext_noop("Option prizes: {value} is not a card in canonical text (rank, then S, C, D or H)."),
                value=message_repr(text),
            )
        cards.append(card)
    if sorted(card.rank for card in cards) != sorted(PRIZE_RANKS):
        raise InvalidSetup(
            gettext_noop("The prize cards must be an ace, a king, a queen and a jack, not {cards}."), cards=cards
        )
    if len({card.suit for card in cards}) != len(cards):
        raise InvalidSetup(gettext_noop("The prize cards must be of four different suits, not {cards}."), cards=cards)
    return tuple(cards)


def _option_pot(value: object, prizes: tuple[Card, ...]) -> tuple[int, ...]:
    if value is None:
        return (0,) * len(prizes)
    names = [card.text for card in prizes]
    if not isinstance(value, Mapping) or set(value) != set(names):
        raise InvalidSetup(
            gettext_noop("Option pot must give the chips on each prize card ({prizes}) and nothing else, not {value}."),
            prizes=list(prizes), value=message_repr(value),
        )
    return tuple(_option_chips(value[name], f"pot[{name}]") for name in names)


# -- the game ------------------------------------------------------------------------------------


class Michigan(Game[MichiganState]):
    """Mičiganas: record prizes, misplays and who went out (or, live, every card); keep the chip ledger."""

    slug = "michigan"
    name = "Michigan"
    name_lt = "Mičiganas"
    min_players = 3
    max_players = 8
    #: ``pot`` None means no chips carried in (0 on each prize card).
    option_defaults: ClassVar[Mapping[str, object]] = {
        "prizes": list(DEFAULT_PRIZES),
        "ante": 1,
        "dealer_ante": 2,
        "misplay_penalty": 1,
        "live": False,
        "pot": None,
    }
    #: ``pot`` is not offered: it is carried from deal to deal (``carry_over``).
    house_rules = (
        HouseRule("prizes", "prizes"), HouseRule("ante", "chips"), HouseRule("dealer_ante", "chips"),
        HouseRule("misplay_penalty", "chips"), HouseRule("live", "bool"),
    )
    unit = Unit("chips", gettext_noop("chips"), counted=(gettext_noop("%(n)s chip"), gettext_noop("%(n)s chips")))
    money_rule = MoneyRule.AS_PLAYED

    def new_deal(self, *, players: int, dealer: int, options: Mapping[str, Any] | None = None) -> MichiganState:
        opts = self.check_setup(players, dealer, options)
        prizes = _option_prizes(opts["prizes"])
        ante = _option_chips(opts["ante"], "ante")
        dealer_ante = _option_chips(opts["dealer_ante"], "dealer_ante")
        penalty = _option_chips(opts["misplay_penalty"], "misplay_penalty")
        live = read_bool(opts["live"], "live")
        pot_in = _option_pot(opts["pot"], prizes)
        antes = tuple(dealer_ante if seat == dealer else ante for seat in range(players))
        extra, sizes = deal_sizes(players, dealer)
        return MichiganState(
            players=players,
            dealer=dealer,
            notation=opts["notation"],
            prizes=prizes,
            ante=ante,
            dealer_ante=dealer_ante,
            misplay_penalty=penalty,
            live=live,
            pot_in=pot_in,
            pot=tuple(chips + sum(antes) for chips in pot_in),
            net=tuple(-len(prizes) * chips for chips in antes),
            hand_sizes=sizes,
            extra_size=extra,
            misplays=(0,) * players,
            played_count=(0,) * players if live else (),
            starter=(dealer + 1) % players,
            pending_starts=((0,) * len(SUITS),) * players if live else (),
        )

    # -- entries -------------------------------------------------------------------------------

    def apply(self, state: MichiganState, entry: object) -> MichiganState:
        kind = entry_type(entry, ENTRY_TYPES)
        assert isinstance(entry, Mapping)
        if state.finished:
            raise deal_over()
        if kind == "exchange":
            entry_keys(entry, "player")
            return self._exchange(state, read_seat(entry["player"], state.players))
        if kind == "misplay":
            entry_keys(entry, "player")
            return self._misplay(state, read_seat(entry["player"], state.players))
        if state.live and kind in ("prize", "out"):
            raise IllegalEntry(
                gettext_noop(
                    "This deal is recorded card by card (live mode): the referee works out prizes and who "
                    "went out from the cards, so record each card with a play entry."
                )
            )
        if not state.live and kind == "play":
            raise IllegalEntry(
                gettext_noop(
                    "This deal is not recorded card by card (live mode is off): record prizes, misplays and "
                    "who went out instead."
                )
            )
        if kind == "prize":
            entry_keys(entry, "card", "player")
            player = read_seat(entry["player"], state.players)
            return self._prize(state, _read_card(entry["card"], state.notation), player)
        if kind == "out":
            entry_keys(entry, "player", "hand_counts")
            player = read_seat(entry["player"], state.players)
            return self._out(state, player, _read_counts(entry["hand_counts"], state.players))
        entry_keys(entry, "player", "card")
        player = read_seat(entry["player"], state.players)
        return self._play(state, player, _read_card(entry["card"], state.notation))

    def _exchange(self, state: MichiganState, player: int) -> MichiganState:
        if state.exchanged is not None:
            raise IllegalEntry(
                gettext_noop("Only one swap with the extra hand is allowed per deal; {player} has already swapped."),
                player=Seat(state.exchanged),
            )
        if state.begun:
            raise IllegalEntry(
                gettext_noop("Too late to swap with the extra hand: play has already begun in this deal.")
            )
        sizes = list(state.hand_sizes)
        sizes[player], extra = state.extra_size, sizes[player]
        return replace(
            state, hand_sizes=tuple(sizes), extra_size=extra, exchanged=player,
            last=Event(EventKind.EXCHANGE, player),
        )

    def _misplay(self, state: MichiganState, player: int) -> MichiganState:
        state = _penalise(state, player)
        if state.live:
            # The table has judged this player's play itself: do not charge their earlier starts again.
            pending = list(state.pending_starts)
            pending[player] = (0,) * len(SUITS)
            state = replace(state, pending_starts=tuple(pending))
        return replace(state, begun=True, last=Event(EventKind.MISPLAY, player, penalties=1))

    def _prize(self, state: MichiganState, card: Card, player: int) -> MichiganState:
        if card not in state.prizes:
            raise IllegalEntry(
                gettext_noop("{card} is not a prize card; the prize cards are {prizes}."),
                card=card, prizes=list(state.prizes),
            )
        for earlier in state.prizes_played:
            if earlier.card == card:
                raise IllegalEntry(
                    gettext_noop("{card} has already been played this deal, by {player}."),
                    card=card, player=Seat(earlier.player),
                )
        state, prize = _play_prize(state, card, player)
        return replace(state, begun=True, last=Event(EventKind.PRIZE, player, card=card, prize=prize))

    def _out(self, state: MichiganState, player: int, counts: tuple[int, ...]) -> MichiganState:
        if counts[player] != 0:
            raise IllegalEntry(
                gettext_noop("{player} went out, so they hold 0 cards, not {count}."),
                player=Seat(player), count=counts[player],
            )
        for seat, count in enumerate(counts):
            if seat != player:
                _check_count_left(state, seat, count)
        state = _payout(state, player, counts)
        return replace(state, begun=True, last=Event(EventKind.OUT, player))

    def _play(self, state: MichiganState, player: int, card: Card) -> MichiganState:
        if card in state.played:
            raise IllegalEntry(gettext_noop("{card} has already been played this deal."), card=card)
        kind = classify_play(card, player, state.sequence, state.starter)
        suit = SUITS.index(card.suit or "")
        penalties = 0
        flagged: Card | None = None
        own = list(state.pending_starts[player])
        if own[suit] > card.rank:
            # They held this card when they started the suit higher: that start was not their lowest.
            flagged = Card(own[suit], card.suit)
            own[suit] = 0
            state = _penalise(state, player)
            penalties += 1
        if kind in (PlayKind.START, PlayKind.STOP):
            own[suit] = card.rank
        pending = list(state.pending_starts)
        pending[player] = tuple(own)
        counts = list(state.played_count)
        counts[player] += 1
        state = replace(state, pending_starts=tuple(pending), played=state.played | {card}, played_count=tuple(counts))
        if kind is PlayKind.MISPLAY:
            state = _penalise(state, player)
            penalties += 1
        else:
            state = replace(state, sequence=card, starter=player)
        prize: PrizePlay | None = None
        if card in state.prizes:
            state, prize = _play_prize(state, card, player)
        if counts[player] == state.hand_sizes[player]:
            left = tuple(size - done for size, done in zip(state.hand_sizes, counts))
            state = _payout(state, player, left)
        event = Event(EventKind.PLAY, player, card=card, play=kind, flagged=flagged, prize=prize, penalties=penalties)
        return replace(state, begun=True, last=event)

    # -- results -------------------------------------------------------------------------------

    def outcome(self, state: MichiganState) -> Outcome | None:
        if not state.finished:
            return None
        return Outcome.by_points(state.net)

    def seats(self, state: MichiganState) -> tuple[int, int]:
        return state.players, state.dealer

    def pot_after(self, state: MichiganState) -> dict[str, int]:
        """Chips on each prize card now (at the end: what the next deal's ``pot`` option carries in)."""
        return {card.text: chips for card, chips in zip(state.prizes, state.pot)}

    def carry_over(self, state: MichiganState) -> dict[str, Any]:
        """The chips left on the prize cards go into the next deal's ``pot``."""
        return {"pot": self.pot_after(state)}

    def chip_movements(self, state: MichiganState) -> list[ChipMovementView]:
        return self.ledger(state)

    def close_movements(self, last_state: MichiganState) -> list[ChipMovementView]:
        """M3: the chips left on the prize cards shared out (``split_pot``), each share taken
        from the prize cards in prize order so that every card ends empty."""
        cards = [card for card, chips in self.pot_after(last_state).items() if chips]
        left = [chips for chips in self.pot_after(last_state).values() if chips]
        players, dealer = self.seats(last_state)
        shares = split_pot(sum(left), players, dealer)
        moves: list[ChipMovementView] = []
        for step in range(players):
            seat = (dealer + 1 + step) % players
            owed = shares[seat]
            for index, card in enumerate(cards):
                take = min(owed, left[index])
                if take:
                    moves.append(_movement_dict(Movement(card, seat, take, Reason.SPLIT)))
                    left[index] -= take
                    owed -= take
        return moves

    def pot_before(self, state: MichiganState) -> dict[str, int]:
        """Chips carried in on each prize card, before this deal's antes (the ``pot`` option)."""
        return {card.text: chips for card, chips in zip(state.prizes, state.pot_in)}

    def ledger(self, state: MichiganState) -> list[ChipMovementView]:
        """Every chip movement of the deal, in order: the antes, then as recorded."""
        return [_movement_dict(m) for m in (*ante_movements(state), *state.movements)]

    def expected_card(self, state: MichiganState) -> Card | None:
        """Live mode: the card that would continue the sequence, if it has not been played already."""
        if state.sequence is None:
            return None
        card = next_card(state.sequence)
        return None if card is None or card in state.played else card

    def turn(self, state: MichiganState) -> int | None:
        """Live mode: the seat that must start a sequence, when none can continue; else None."""
        if not state.live or state.finished:
            return None
        return state.starter if self.expected_card(state) is None else None

    def cards_left(self, state: MichiganState) -> tuple[int, ...] | None:
        """Cards each seat still holds: live always, manual once someone went out."""
        if state.live:
            return tuple(size - done for size, done in zip(state.hand_sizes, state.played_count))
        return state.hand_counts

    # -- snapshots -----------------------------------------------------------------------------

    def to_dict(self, state: MichiganState) -> dict[str, Any]:
        return {
            **self.snapshot_header(state, {**_options_view(state), "pot": list(state.pot_in)}),
            "pot": list(state.pot),
            "net": list(state.net),
            "hand_sizes": list(state.hand_sizes),
            "extra_size": state.extra_size,
            "misplays": list(state.misplays),
            "movements": [_movement_dict(m) for m in state.movements],
            "prizes_played": [_prize_dict(p) for p in state.prizes_played],
            "exchanged": state.exchanged,
            "begun": state.begun,
            "out_player": state.out_player,
            "hand_counts": None if state.hand_counts is None else list(state.hand_counts),
            "played": sorted(card.text for card in state.played),
            "played_count": list(state.played_count),
            "sequence": None if state.sequence is None else state.sequence.text,
            "starter": state.starter,
            "pending_starts": [list(ranks) for ranks in state.pending_starts],
            "last": None if state.last is None else _event_dict(state.last),
        }

    def from_dict(self, data: Mapping[str, Any]) -> MichiganState:
        self.check_snapshot(data)
        players = _int(data["players"])
        if not self.min_players <= players <= self.max_players:
            raise ValueError("player count out of range")
        options = data["options"]
        prizes = tuple(_card(text) for text in options["prizes"])
        prize_names = {card.text for card in prizes}
        raw_last = data["last"]
        hand_counts = data["hand_counts"]
        sequence = data["sequence"]
        state = MichiganState(
            players=players,
            dealer=_int(data["dealer"]),
            notation=parse_notation(options["notation"]),
            prizes=prizes,
            ante=_int(options["ante"]),
            dealer_ante=_int(options["dealer_ante"]),
            misplay_penalty=_int(options["misplay_penalty"]),
            live=_bool(options["live"]),
            pot_in=_ints(options["pot"]),
            pot=_ints(data["pot"]),
            net=_ints(data["net"]),
            hand_sizes=_ints(data["hand_sizes"]),
            extra_size=_int(data["extra_size"]),
            misplays=_ints(data["misplays"]),
            movements=tuple(_movement(m, prize_names) for m in data["movements"]),
            prizes_played=tuple(_prize(p) for p in data["prizes_played"]),
            exchanged=_opt_int(data["exchanged"]),
            begun=_bool(data["begun"]),
            out_player=_opt_int(data["out_player"]),
            hand_counts=None if hand_counts is None else _ints(hand_counts),
            played=frozenset(_card(text) for text in data["played"]),
            played_count=_ints(data["played_count"]),
            sequence=None if sequence is None else _card(sequence),
            starter=_int(data["starter"]),
            pending_starts=tuple(_ints(ranks) for ranks in data["pending_starts"]),
            last=None if raw_last is None else _event(raw_last),
        )
        per_seat = (state.net, state.hand_sizes, state.misplays)
        if len(prizes) != len(PRIZE_RANKS) or len(state.pot) != len(prizes) or len(state.pot_in) != len(prizes):
            raise ValueError("four prize cards expected")
        if any(len(values) != players for values in per_seat) or not 0 <= state.dealer < players:
            raise ValueError("one value per seat expected")
        return state

    # -- the tablet ----------------------------------------------------------------------------

    def view(self, state: MichiganState) -> MichiganView:
        expected = self.expected_card(state) if state.live else None
        cards_left = self.cards_left(state)
        return {
            **self.view_header(state, turn=self.turn(state)),
            "last": None if state.last is None else self._last_view(state, state.last),
            "options": {**_options_view(state), "pot": self.pot_before(state)},
            "live": state.live,
            "prizes": [card.text for card in state.prizes],
            "pot": self.pot_after(state),
            "pot_before": self.pot_before(state),
            "prizes_played": [_prize_dict(p) for p in state.prizes_played],
            "misplays": list(state.misplays),
            "misplayed": [seat for seat, count in enumerate(state.misplays) if count],
            "net": list(state.net),
            "hand_sizes": list(state.hand_sizes),
            "extra_hand_size": state.extra_size,
            "exchanged": state.exchanged,
            "can_exchange": not state.begun and state.exchanged is None and not state.finished,
            "cards_left": None if cards_left is None else list(cards_left),
            "out_player": state.out_player,
            "sequence": None if not state.live or state.sequence is None else {
                "suit": state.sequence.suit,
                "card": state.sequence.text,
                "starter": state.starter,
                "next": None if expected is None else expected.text,
            },
            "starter": state.starter if state.live else None,
            "played": sorted(card.text for card in state.played) if state.live else None,
            "movements": self.ledger(state),
        }

    def _last_view(self, state: MichiganState, event: Event) -> MichiganLastView:
        def show(card: Card) -> str:
            return format_card(card, state.notation)

        who = f"Seat {event.player}"
        sentences: list[str] = []
        if event.kind is EventKind.EXCHANGE:
            sentences.append(
                f"{who} swapped their hand for the extra hand: they now hold {state.hand_sizes[event.player]} "
                f"cards, the extra hand {state.extra_size}."
            )
        elif event.kind is EventKind.MISPLAY:
            words = self._penalty_words(state)
            sentences.append(f"{who} misplayed: {words[0].lower()}{words[1:]}")
        elif event.kind is EventKind.PLAY and event.card is not None:
            card = event.card
            if event.flagged is not None:
                sentences.append(
                    f"{who} plays {show(card)}, so they held it when they started {SUIT_NAMES_EN[card.suit or 'S']} "
                    f"with {show(event.flagged)}: that start was not their lowest. {self._penalty_words(state)}"
                )
            else:
                sentences.append(f"{who} plays {show(card)}.")
            if event.play is PlayKind.START:
                sentences.append(f"It starts the first sequence, in {SUIT_NAMES_EN[card.suit or 'S']}.")
            elif event.play is PlayKind.STOP:
                sentences.append(f"Stop: {who} starts a new sequence in {SUIT_NAMES_EN[card.suit or 'S']}.")
            elif event.play is PlayKind.CONTINUE:
                sentences.append("It continues the sequence.")
            else:
                sentences.append(f"It does not continue the sequence: a misplay. {self._penalty_words(state)}")
        if event.prize is not None:
            prize = event.prize
            if prize.taken:
                sentences.append(f"{who} takes the {_chips_word(prize.chips)} on the prize card {show(prize.card)}.")
            else:
                sentences.append(
                    f"{who} has misplayed this deal, so the prize card {show(prize.card)} counts as played and "
                    f"its {_chips_word(prize.chips)} stay on it."
                )
        out = state.finished and event.kind in (EventKind.OUT, EventKind.PLAY)
        if out and state.hand_counts is not None:
            owed = sum(state.hand_counts)
            sentences.append(
                f"{who} went out: the others pay 1 chip per card left, {_chips_word(owed)} in all. The deal is over."
            )
        return {
            "type": event.kind.value,
            **_event_facts(event),
            "penalty_each": state.misplay_penalty,
            "out": out,
            "text": " ".join(sentences),
        }

    @staticmethod
    def _penalty_words(state: MichiganState) -> str:
        return (
            f"They pay {_chips_word(state.misplay_penalty)} to each other player and take no more prizes this deal."
        )


# -- what the referee has seen leave a hand ------------------------------------------------------


def prizes_played_by(state: MichiganState, seat: int) -> tuple[Card, ...]:
    """The prize cards ``seat`` has played this deal (taken or not): they have left its hand."""
    return tuple(prize.card for prize in state.prizes_played if prize.player == seat)


def most_cards_left(state: MichiganState, seat: int) -> int:
    """The most cards ``seat`` can still hold: its hand (after any swap) less its prize cards played."""
    return state.hand_sizes[seat] - len(prizes_played_by(state, seat))


def _check_count_left(state: MichiganState, seat: int, count: int) -> None:
    """A seat that did not go out holds at least 1 card and at most ``most_cards_left``."""
    size = state.hand_sizes[seat]
    played = prizes_played_by(state, seat)
    most = most_cards_left(state, seat)
    if count < 1 or (count > most and not played):
        raise IllegalEntry(
            gettext_noop("{player} holds between 1 and {size} cards at the end of this deal, not {count}."),
            player=Seat(seat), size=most, count=message_repr(count),
        )
    if count <= most:
        return
    if len(played) == 1:
        raise IllegalEntry(
            gettext_noop(
                "{player} played the {card} this deal: at most {most} of their {size} cards left, not {count}."
            ),
            player=Seat(seat), card=played[0], most=most, size=size, count=message_repr(count),
        )
    raise IllegalEntry(
        gettext_noop(
            "{player} played {number} prize cards this deal ({cards}): at most {most} of their {size} cards left, "
            "not {count}."
        ),
        player=Seat(seat), number=len(played), cards=list(played), most=most, size=size, count=message_repr(count),
    )


# -- chip movements ------------------------------------------------------------------------------


def ante_movements(state: MichiganState) -> tuple[Movement, ...]:
    """Each seat's ante on each prize card, prize card by prize card, seat by seat."""
    result: list[Movement] = []
    for card in state.prizes:
        for seat in range(state.players):
            chips = state.dealer_ante if seat == state.dealer else state.ante
            if chips:
                result.append(Movement(seat, card.text, chips, Reason.ANTE))
    return tuple(result)


def _penalise(state: MichiganState, player: int) -> MichiganState:
    """``player`` pays the misplay penalty to every other seat (clockwise from their left) and loses prize rights."""
    chips = state.misplay_penalty
    net = list(state.net)
    moves: list[Movement] = []
    for step in range(1, state.players):
        other = (player + step) % state.players
        if chips:
            moves.append(Movement(player, other, chips, Reason.MISPLAY))
            net[other] += chips
            net[player] -= chips
    misplays = list(state.misplays)
    misplays[player] += 1
    return replace(state, net=tuple(net), misplays=tuple(misplays), movements=state.movements + tuple(moves))


def _play_prize(state: MichiganState, card: Card, player: int) -> tuple[MichiganState, PrizePlay]:
    """The prize card is played: its chips go to ``player`` unless they misplayed this deal."""
    index = state.prizes.index(card)
    chips = state.pot[index]
    prize = PrizePlay(card, player, chips, taken=state.misplays[player] == 0)
    state = replace(state, prizes_played=(*state.prizes_played, prize))
    if not prize.taken or not chips:
        return state, prize
    pot = list(state.pot)
    pot[index] = 0
    net = list(state.net)
    net[player] += chips
    return replace(
        state, pot=tuple(pot), net=tuple(net),
        movements=(*state.movements, Movement(card.text, player, chips, Reason.PRIZE)),
    ), prize


def _payout(state: MichiganState, player: int, counts: tuple[int, ...]) -> MichiganState:
    """``player`` went out: every other seat pays them one chip per card left; the deal ends."""
    net = list(state.net)
    moves: list[Movement] = []
    for step in range(1, state.players):
        other = (player + step) % state.players
        if counts[other]:
            moves.append(Movement(other, player, counts[other], Reason.PAYOUT))
            net[other] -= counts[other]
            net[player] += counts[other]
    return replace(
        state, net=tuple(net), movements=state.movements + tuple(moves), out_player=player, hand_counts=counts
    )


# -- snapshot helpers ----------------------------------------------------------------------------


def _movement_dict(movement: Movement) -> ChipMovementView:
    return {"from": movement.source, "to": movement.target, "chips": movement.chips, "reason": movement.reason.value}


def _prize_dict(prize: PrizePlay) -> PrizeView:
    return {"card": prize.card.text, "player": prize.player, "chips": prize.chips, "taken": prize.taken}


def _event_facts(event: Event) -> EventFacts:
    """What the snapshot (``kind``) and the view (``type``, with words) both say of an event."""
    return {
        "player": event.player,
        "card": None if event.card is None else event.card.text,
        "play": None if event.play is None else event.play.value,
        "flagged": None if event.flagged is None else event.flagged.text,
        "prize": None if event.prize is None else _prize_dict(event.prize),
        "penalties": event.penalties,
    }


def _event_dict(event: Event) -> dict[str, Any]:
    return {"kind": event.kind.value, **_event_facts(event)}


def _options_view(state: MichiganState) -> MichiganOptions:
    """The options both the snapshot and the view show (each adds the carried-in ``pot`` its own way)."""
    return {
        "notation": state.notation,
        "prizes": [card.text for card in state.prizes],
        "ante": state.ante,
        "dealer_ante": state.dealer_ante,
        "misplay_penalty": state.misplay_penalty,
        "live": state.live,
    }


def _int(value: object) -> int:
    if not _is_int(value):
        raise ValueError(f"whole number expected, not {message_repr(value)}")
    assert isinstance(value, int)
    return value


def _opt_int(value: object) -> int | None:
    return None if value is None else _int(value)


def _bool(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"true or false expected, not {message_repr(value)}")
    return value


def _ints(values: Sequence[object]) -> tuple[int, ...]:
    if not isinstance(values, list):
        raise ValueError("list expected")
    return tuple(_int(v) for v in values)


def _card(text: object) -> Card:
    card = _canonical_card(text)
    if card is None:
        raise ValueError(f"canonical card text expected, not {message_repr(text)}")
    return card


def _end(value: object, prize_names: set[str]) -> int | str:
    if type(value) is int:  # the common case first: a seat (bool, an int subclass, goes to _int)
        return value
    if isinstance(value, str):
        if value not in prize_names:
            raise ValueError(f"not a prize card: {value!r}")
        return value
    return _int(value)


#: Reason by its snapshot text: a dict look-up, where ``Reason(text)`` costs an enum call.
_REASONS: dict[str, Reason] = {reason.value: reason for reason in Reason}


def _movement(data: Mapping[str, Any], prize_names: set[str]) -> Movement:
    # A long deal's snapshot holds every chip movement (1,500 in a 500-entry deal), and every
    # read of it (an entry, the recording screen) checks them all: the plain cases are taken
    # first, the same checks and errors otherwise (from_dict of 1,495 movements: 4.2 -> 2.3 ms).
    source, target, chips = _end(data["from"], prize_names), _end(data["to"], prize_names), data["chips"]
    chips = chips if type(chips) is int else _int(chips)
    reason = data["reason"]
    return Movement(source, target, chips, (type(reason) is str and _REASONS.get(reason)) or Reason(reason))


def _prize(data: Mapping[str, Any]) -> PrizePlay:
    return PrizePlay(_card(data["card"]), _int(data["player"]), _int(data["chips"]), _bool(data["taken"]))


def _event(data: Mapping[str, Any]) -> Event:
    card, flagged, play, prize = data["card"], data["flagged"], data["play"], data["prize"]
    return Event(
        kind=EventKind(data["kind"]),
        player=_int(data["player"]),
        card=None if card is None else _card(card),
        play=None if play is None else PlayKind(play),
        flagged=None if flagged is None else _card(flagged),
        prize=None if prize is None else _prize(prize),
        penalties=_int(data["penalties"]),
    )


GAME = Michigan()
