"""Apgaudinėjimas ("Cheat"): the referee's rules (RULES.md section 5).

Players and deck
    2 to 8 players. A 52-card deck for up to 5 players, two decks (104 cards) for 6 or
    more, plus C1 (option ``jokers``) 0, 2 or 4 jokers; a joker stands for any card.
    Suits never matter.

Deal
    All cards are dealt: each seat gets ``deck // n`` cards and the ``deck % n`` left over
    lie face down in the middle, where they start the pile.

Play
    From the first player (the seat after the dealer), clockwise over the players still
    holding cards, each puts one card face down on the pile and announces the next rank of
    the cycle A 2 3 ... 10 J Q K A 2 ...; a player lacking that rank must lie. Passing is
    not allowed. Any other player still in the deal may turn over the last card placed
    (only the last, and only once). If it shows the announced rank, or is a joker, the
    challenger takes the whole pile; otherwise the placer does. The taker starts again,
    announcing an ace.

Going out
    A player who places their last card is out once that card stands: when the next card
    is placed, or (C2) when the scorer records that nobody challenges it (``stands``). If
    it is challenged and was a lie, they take the pile and play on; if it was true, the
    challenger takes the pile and the placer is out. While a last card is pending and only
    one other player holds cards, that player may only challenge it or let it stand.

End
    When no last card is pending and only one player holds cards, that player is the
    loser, the "apgavikas", and deals the next deal. Placement is by order of going out
    (first out is 1st), the loser last. Points: -1 to the loser, 0 to everyone else.

What the referee knows
    Cards are hidden: the referee counts the cards in each hand and in the pile, knows
    whose turn it is and the rank they must announce, but not what was placed. The only
    faces it ever sees are the revealed cards. It follows each revealed card (a suit
    given, or a joker) as the set of seats that can have held it since it was shown: the
    seat that picked it up, and everyone who has taken the pile since (every such card can
    be in the pile by then, because each taker places first). A card of which several are
    in play (two decks, the jokers) is followed copy by copy, as far as the sightings tell
    the copies apart (see :func:`seen_after_pickup`). A revealed card is refused when every
    copy of it is followed and none can have reached the placer; so is a bare rank every
    card of which is followed with none able to reach the placer. This is sound (a seat is
    only left out when the card cannot have reached it) and cheap (at most 108 sightings).

Entries
    ``{"type": "place", "player": seat}``,
    ``{"type": "challenge", "challenger": seat, "revealed": card or bare rank}``,
    ``{"type": "stands"}``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from enum import Enum
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
    read_seat,
)
from .cards import (
    ACE,
    KING,
    RANK_TEXT_EN,
    SUITS,
    Card,
    CardError,
    Notation,
    card_from_text,
    format_card,
    format_rank,
    parse_card,
    parse_notation,
)
from .errors import IllegalEntry, InvalidSetup, Seat, gettext_noop, message_repr

JOKER_CHOICES = (0, 2, 4)
ENTRY_TYPES = ("place", "challenge", "stands")
_RANK_FROM_TEXT = {text: rank for rank, text in RANK_TEXT_EN.items()}


# -- small pure rules ---------------------------------------------------------------------------


def deck_copies(players: int) -> int:
    """One 52-card deck for up to 5 players, two for 6 or more."""
    return 1 if players <= 5 else 2


def deck_size(players: int, jokers: int) -> int:
    """All the cards in play: 52 or 104, plus the jokers."""
    return 52 * deck_copies(players) + jokers


def next_rank(rank: int) -> int:
    """The rank announced after ``rank`` in the cycle A 2 3 ... 10 J Q K A 2 ..."""
    if rank == ACE:
        return 2
    if rank == KING:
        return ACE
    return rank + 1


def is_truthful(revealed: Card, announced: int) -> bool:
    """A revealed card backs its announcement if it has the announced rank or is a joker."""
    return revealed.is_joker or revealed.rank == announced


def next_holder(counts: tuple[int, ...], after: int) -> int | None:
    """The first seat clockwise after ``after`` that still holds cards (never ``after`` itself)."""
    players = len(counts)
    for step in range(1, players):
        seat = (after + step) % players
        if counts[seat] > 0:
            return seat
    return None


def holders(counts: Iterable[int]) -> tuple[int, ...]:
    """The seats still holding cards."""
    return tuple(seat for seat, count in enumerate(counts) if count > 0)


def sole_holder(counts: tuple[int, ...]) -> int | None:
    """The apgavikas, once no last card is pending: the one player still holding cards."""
    still_holding = holders(counts)
    return still_holding[0] if len(still_holding) == 1 else None


# -- state --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Placed:
    """The last card placed since the pile was last taken: who placed it and what they announced."""

    player: int
    rank: int


@dataclass(frozen=True)
class Sighting:
    """A card shown by a challenge (single deck only) and the seats whose hand it can be in
    (or that can have placed it on the pile)."""

    card: Card
    seats: frozenset[int]


class LastKind(Enum):
    PLACE = "place"
    CHALLENGE = "challenge"
    STANDS = "stands"


@dataclass(frozen=True)
class Last:
    """What the referee concluded from the last entry (for the tablet's "last" line)."""

    kind: LastKind
    #: The placer (place, challenge) or the player whose last card stood (stands).
    player: int
    #: The rank announced with that card.
    rank: int
    challenger: int | None = None
    revealed: Card | None = None
    taker: int | None = None
    taken: int = 0
    #: Seats that went out through this entry (at most one).
    went_out: tuple[int, ...] = ()


@dataclass(frozen=True)
class CheatState:
    players: int
    dealer: int
    jokers: int
    notation: Notation
    #: Cards in each seat's hand.
    counts: tuple[int, ...]
    #: Cards face down in the middle (the left-over cards count from the start).
    pile: int
    #: The seat expected to act; None once the deal has ended.
    turn: int | None
    #: The rank the next placer must announce.
    announce: int
    #: The last card placed since the last pickup; None at the start and after a pickup.
    placed: Placed | None
    #: Seats out of the deal, in the order they went out.
    out: tuple[int, ...]
    loser: int | None
    #: Revealed cards and where they can be (single deck only), sorted by card.
    seen: tuple[Sighting, ...]
    last: Last | None

    @property
    def first_player(self) -> int:
        return (self.dealer + 1) % self.players

    @property
    def finished(self) -> bool:
        return self.loser is not None

    @property
    def pending_last(self) -> int | None:
        """The seat whose last card lies on the pile, neither challenged nor standing yet."""
        placed = self.placed
        if placed is not None and self.counts[placed.player] == 0 and placed.player not in self.out:
            return placed.player
        return None


# -- the tablet's view -----------------------------------------------------------------------------


class CheatLastView(TypedDict):
    """The last entry: a card placed, a challenge and who took the pile, or a last card standing."""

    type: str
    text: str
    player: int
    announced: str
    challenger: int | None
    revealed: str | None
    truthful: bool | None
    taker: int | None
    taken: int
    went_out: list[int]
    loser: int | None


class CheatView(GameView[CheatLastView | None]):
    jokers: int
    deck: int
    announce: str
    last_announced: str | None
    last_placer: int | None
    counts: list[int]
    pile: int
    out: list[int]
    pending_last: int | None
    can_place: bool
    can_stand: bool
    can_challenge: bool
    challengers: list[int]
    loser: int | None


# -- what the referee knows about revealed cards --------------------------------------------------


def copies_of(card: Card, players: int, jokers: int) -> int:
    """How many cards of this face are in the deal: the jokers, or one per deck."""
    return jokers if card.is_joker else deck_copies(players)


def seen_after_pickup(
    seen: tuple[Sighting, ...], taker: int, placer: int, shown: Card, copies: int
) -> tuple[Sighting, ...]:
    """Where each revealed card can be after ``taker`` picks up the pile ``placer`` last placed on.

    Every card followed so far can be in the pile: the previous taker holds it or did, and
    placed at least once since (the taker always places first). So each can now also be
    with this taker. The card just shown certainly is, and only there; but which of its
    ``copies`` (two decks, or the jokers) it was is known only as far as the sightings say:

    * none of the followed copies can have been with the placer: it was one not followed
      yet, which is followed from now on;
    * every copy is followed: it was one of those that can have been with the placer. One
      of them is now with the taker, and each of the others can be wherever any of them
      could (so no assignment of the copies the table may have is lost);
    * otherwise it may have been either: nothing more is learned (each copy just gains
      the taker).

    A bare rank shows no suit, so it follows nothing new.
    """
    moved = [Sighting(s.card, s.seats | {taker}) for s in seen if s.card != shown]
    if shown.suit is None and not shown.is_joker:
        return _sorted(moved)
    same = [s for s in seen if s.card == shown]
    could = [s for s in same if placer in s.seats]
    if not could:
        moved += [Sighting(s.card, s.seats | {taker}) for s in same]
        moved.append(Sighting(shown, frozenset({taker})))
    elif len(same) == copies:
        anywhere = frozenset({taker}).union(*(s.seats for s in could))
        moved += [Sighting(s.card, s.seats | {taker}) for s in same if placer not in s.seats]
        moved.append(Sighting(shown, frozenset({taker})))
        moved += [Sighting(shown, anywhere)] * (len(could) - 1)
    else:
        moved += [Sighting(s.card, s.seats | {taker}) for s in same]
    return _sorted(moved)


def _sorted(seen: list[Sighting]) -> tuple[Sighting, ...]:
    return tuple(sorted(seen, key=lambda s: (s.card.sort_key(), sorted(s.seats))))


def check_revealed(seen: tuple[Sighting, ...], placer: int, revealed: Card, copies: int) -> None:
    """Refuse a revealed card that cannot be the one ``placer`` just put down.

    The placed card came from the placer's hand, so it can be a card of this face only if
    one of its ``copies`` is not followed, or a followed one can have reached the placer.
    """
    holders = frozenset[int]().union(*(s.seats for s in seen if s.card == revealed))
    if revealed.is_joker:
        same = [s for s in seen if s.card == revealed]
        if len(same) == copies and placer not in holders:
            raise IllegalEntry(
                gettext_noop(
                    "No joker can be the card {player} placed: all {count} jokers were shown earlier and since "
                    "then only {holders} can have held them."
                ),
                player=Seat(placer), count=copies, holders=[Seat(seat) for seat in sorted(holders)],
            )
        return
    if revealed.suit is not None:
        same = [s for s in seen if s.card == revealed]
        if len(same) == copies and placer not in holders:
            if copies == 1:
                raise IllegalEntry(
                    gettext_noop(
                        "{card} cannot be the card {player} placed: it was shown earlier and since then only "
                        "{holders} can have held it."
                    ),
                    card=revealed, player=Seat(placer), holders=[Seat(seat) for seat in sorted(holders)],
                )
            raise IllegalEntry(
                gettext_noop(
                    "{card} cannot be the card {player} placed: both of its copies were shown earlier and since "
                    "then only {holders} can have held them."
                ),
                card=revealed, player=Seat(placer), holders=[Seat(seat) for seat in sorted(holders)],
            )
        return
    same_rank = [s for s in seen if s.card.rank == revealed.rank]
    if len(same_rank) == len(SUITS) * copies and all(placer not in s.seats for s in same_rank):
        if copies == 1:
            raise IllegalEntry(
                gettext_noop(
                    "No {rank} can be the card {player} placed: all four were shown earlier and none can have "
                    "reached {player} since."
                ),
                rank=revealed, player=Seat(placer),
            )
        raise IllegalEntry(
            gettext_noop(
                "No {rank} can be the card {player} placed: all eight (two decks) were shown earlier and none can "
                "have reached {player} since."
            ),
            rank=revealed, player=Seat(placer),
        )


def read_revealed(value: object, notation: Notation, jokers: bool) -> Card:
    """The revealed card: a card (its suit kept, for tracking) or a bare rank; X with jokers."""
    if not isinstance(value, str):
        raise IllegalEntry(
            gettext_noop("revealed must be a card or a rank written as text, not {value}."), value=message_repr(value)
        )
    try:
        bare = parse_card(value, notation, bare_rank=True, jokers=jokers)
    except CardError as err:
        raise IllegalEntry(err.template, **err.params) from err
    if bare.is_joker:
        return bare
    try:
        return parse_card(value, notation, jokers=jokers)
    except CardError:
        return bare


# -- the game -------------------------------------------------------------------------------------


def _article(text: str) -> str:
    return "an" if text[:1] in ("8", "A") else "a"


def _cards(count: int) -> str:
    return f"{count} card" if count == 1 else f"{count} cards"


class Cheat(Game[CheatState]):
    slug = "cheat"
    name = "Cheat"
    name_lt = "Apgaudinėjimas"
    min_players = 2
    max_players = 8
    option_defaults: ClassVar[Mapping[str, object]] = {"jokers": 0}
    house_rules = (HouseRule("jokers", "choice", (0, 2, 4)),)
    unit = Unit("losses", gettext_noop("losses"), sign=-1,
                counted=(gettext_noop("%(n)s loss"), gettext_noop("%(n)s losses")))
    money_rule = MoneyRule.PAIR_DIFFERENCE
    dealer_follows_outcome = True

    # -- setup ----------------------------------------------------------------------------------

    def new_deal(self, *, players: int, dealer: int, options: Mapping[str, Any] | None = None) -> CheatState:
        opts = self.check_setup(players, dealer, options)
        jokers = opts["jokers"]
        if not isinstance(jokers, int) or isinstance(jokers, bool) or jokers not in JOKER_CHOICES:
            raise InvalidSetup(
                gettext_noop("Option jokers must be 0, 2 or 4, not {value}."), value=message_repr(jokers)
            )
        size = deck_size(players, jokers)
        return CheatState(
            players=players,
            dealer=dealer,
            jokers=jokers,
            notation=opts["notation"],
            counts=(size // players,) * players,
            pile=size % players,
            turn=(dealer + 1) % players,
            announce=ACE,
            placed=None,
            out=(),
            loser=None,
            seen=(),
            last=None,
        )

    # -- entries --------------------------------------------------------------------------------

    def apply(self, state: CheatState, entry: object) -> CheatState:
        kind = entry_type(entry, ENTRY_TYPES)
        assert isinstance(entry, Mapping)
        if state.finished:
            raise deal_over()
        if kind == "place":
            entry_keys(entry, "player")
            return self._place(state, read_seat(entry["player"], state.players))
        if kind == "challenge":
            entry_keys(entry, "challenger", "revealed")
            challenger = read_seat(entry["challenger"], state.players, "challenger")
            revealed = read_revealed(entry["revealed"], state.notation, state.jokers > 0)
            return self._challenge(state, challenger, revealed)
        entry_keys(entry)
        return self._stands(state)

    def _place(self, state: CheatState, player: int) -> CheatState:
        turn = state.turn
        assert turn is not None
        pending = state.pending_last
        if pending is not None and not self.can_place(state):
            # The seat in turn is then the only other player holding cards.
            raise IllegalEntry(
                gettext_noop(
                    "{placer}'s last card is waiting: {player}, the only other player with cards, may only "
                    "challenge it or let it stand."
                ),
                placer=Seat(pending), player=Seat(turn),
            )
        rank = Card(state.announce)
        if state.counts[player] == 0:
            raise IllegalEntry(
                gettext_noop("{player} has no cards left; it is {turn}'s turn to place a card and announce {rank}."),
                player=Seat(player), turn=Seat(turn), rank=rank,
            )
        if player != turn:
            raise IllegalEntry(
                gettext_noop("It is {turn}'s turn to place a card and announce {rank}, not {player}'s."),
                turn=Seat(turn), rank=rank, player=Seat(player),
            )
        # Placing on a pending last card lets it stand: its owner is out.
        went_out = (pending,) if pending is not None else ()
        counts = list(state.counts)
        counts[player] -= 1
        return replace(
            state,
            counts=tuple(counts),
            pile=state.pile + 1,
            turn=next_holder(tuple(counts), player),
            announce=next_rank(state.announce),
            placed=Placed(player, state.announce),
            out=state.out + went_out,
            last=Last(LastKind.PLACE, player, state.announce, went_out=went_out),
        )

    def _challenge(self, state: CheatState, challenger: int, revealed: Card) -> CheatState:
        placed = state.placed
        if placed is None:
            raise IllegalEntry(
                gettext_noop(
                    "No card has been placed since the start or the last pickup; there is nothing to challenge."
                )
            )
        if placed.player in state.out:
            raise IllegalEntry(
                gettext_noop("{player}'s last card already stands ({player} is out); it can no longer be challenged."),
                player=Seat(placed.player),
            )
        if challenger == placed.player:
            raise IllegalEntry(
                gettext_noop("{player} placed the last card and cannot challenge it."), player=Seat(challenger)
            )
        if state.counts[challenger] == 0:
            raise IllegalEntry(
                gettext_noop("{player} is out of this deal and cannot challenge."), player=Seat(challenger)
            )
        copies = copies_of(revealed, state.players, state.jokers)
        check_revealed(state.seen, placed.player, revealed, copies)
        truthful = is_truthful(revealed, placed.rank)
        taker = challenger if truthful else placed.player
        # A true last card means its owner is out; a caught lie sends them back into play.
        went_out = (placed.player,) if truthful and state.counts[placed.player] == 0 else ()
        counts = list(state.counts)
        counts[taker] += state.pile
        out = state.out + went_out
        loser = sole_holder(tuple(counts))
        return replace(
            state,
            counts=tuple(counts),
            pile=0,
            turn=None if loser is not None else taker,
            announce=ACE,
            placed=None,
            out=out,
            loser=loser,
            seen=seen_after_pickup(state.seen, taker, placed.player, revealed, copies),
            last=Last(
                LastKind.CHALLENGE, placed.player, placed.rank,
                challenger=challenger, revealed=revealed, taker=taker, taken=state.pile, went_out=went_out,
            ),
        )

    def _stands(self, state: CheatState) -> CheatState:
        pending = state.pending_last
        if pending is None:
            raise IllegalEntry(
                gettext_noop(
                    "No last card is waiting; \"stands\" only records that nobody challenges a player's last card."
                )
            )
        assert state.placed is not None
        loser = sole_holder(state.counts)
        return replace(
            state,
            out=state.out + (pending,),
            loser=loser,
            turn=None if loser is not None else state.turn,
            last=Last(LastKind.STANDS, pending, state.placed.rank, went_out=(pending,)),
        )

    # -- results --------------------------------------------------------------------------------

    def outcome(self, state: CheatState) -> Outcome | None:
        if state.loser is None:
            return None
        order = (*state.out, state.loser)
        placements = [0] * state.players
        for place, seat in enumerate(order, start=1):
            placements[seat] = place
        points = tuple(-1 if seat == state.loser else 0 for seat in range(state.players))
        return Outcome(points=points, placements=tuple(placements), winners=state.out[:1])

    def next_dealer(self, state: CheatState) -> int:
        """The loser deals the next deal (before the deal ends, the dealer would just rotate)."""
        if state.loser is not None:
            return state.loser
        return super().next_dealer(state)

    def seats(self, state: CheatState) -> tuple[int, int]:
        return state.players, state.dealer

    # -- extras ---------------------------------------------------------------------------------

    def turn(self, state: CheatState) -> int | None:
        """The seat expected to act: to place, or (a last card pending with one other player
        holding cards) to challenge it or let it stand. None once the deal has ended."""
        return state.turn

    def announced_rank(self, state: CheatState) -> str:
        """The rank the next placer must announce, as canonical text ("A", "2", ... "K")."""
        return format_rank(state.announce)

    def challengers(self, state: CheatState) -> tuple[int, ...]:
        """The seats that may challenge the last card now (everyone else still holding cards)."""
        placed = state.placed
        if state.finished or placed is None or placed.player in state.out:
            return ()
        return tuple(seat for seat in holders(state.counts) if seat != placed.player)

    def can_place(self, state: CheatState) -> bool:
        """Whether the seat in turn may place a card (not while a last card pending needs an answer from
        the only other player holding cards)."""
        if state.finished:
            return False
        return state.pending_last is None or len(holders(state.counts)) > 1

    # -- snapshots ------------------------------------------------------------------------------

    def to_dict(self, state: CheatState) -> dict[str, Any]:
        last = state.last
        return {
            **self.snapshot_header(state, {"jokers": state.jokers, "notation": state.notation}),
            "counts": list(state.counts),
            "pile": state.pile,
            "turn": state.turn,
            "announce": format_rank(state.announce),
            "placed": None if state.placed is None else {
                "player": state.placed.player, "rank": format_rank(state.placed.rank)
            },
            "out": list(state.out),
            "loser": state.loser,
            "seen": [
                {"card": format_card(s.card), "seats": sorted(s.seats)} for s in state.seen
            ],
            "last": None if last is None else {
                "kind": last.kind.value,
                "player": last.player,
                "rank": format_rank(last.rank),
                "challenger": last.challenger,
                "revealed": None if last.revealed is None else format_card(last.revealed),
                "taker": last.taker,
                "taken": last.taken,
                "went_out": list(last.went_out),
            },
        }

    def from_dict(self, data: Mapping[str, Any]) -> CheatState:
        self.check_snapshot(data)
        placed = data["placed"]
        last = data["last"]
        return CheatState(
            players=int(data["players"]),
            dealer=int(data["dealer"]),
            jokers=int(data["options"]["jokers"]),
            notation=parse_notation(data["options"]["notation"]),
            counts=tuple(int(count) for count in data["counts"]),
            pile=int(data["pile"]),
            turn=None if data["turn"] is None else int(data["turn"]),
            announce=_RANK_FROM_TEXT[data["announce"]],
            placed=None if placed is None else Placed(int(placed["player"]), _RANK_FROM_TEXT[placed["rank"]]),
            out=tuple(int(seat) for seat in data["out"]),
            loser=None if data["loser"] is None else int(data["loser"]),
            seen=tuple(
                Sighting(card_from_text(s["card"]), frozenset(int(seat) for seat in s["seats"]))
                for s in data["seen"]
            ),
            last=None if last is None else Last(
                kind=LastKind(last["kind"]),
                player=int(last["player"]),
                rank=_RANK_FROM_TEXT[last["rank"]],
                challenger=None if last["challenger"] is None else int(last["challenger"]),
                revealed=None if last["revealed"] is None else card_from_text(last["revealed"]),
                taker=None if last["taker"] is None else int(last["taker"]),
                taken=int(last["taken"]),
                went_out=tuple(int(seat) for seat in last["went_out"]),
            ),
        )

    # -- the tablet's picture -------------------------------------------------------------------

    def view(self, state: CheatState) -> CheatView:
        challengers = self.challengers(state)
        return {
            **self.view_header(state, turn=state.turn),
            "last": self._last_view(state),
            "jokers": state.jokers,
            "deck": deck_size(state.players, state.jokers),
            "announce": format_rank(state.announce),
            "last_announced": None if state.placed is None else format_rank(state.placed.rank),
            "last_placer": None if state.placed is None else state.placed.player,
            "counts": list(state.counts),
            "pile": state.pile,
            "out": list(state.out),
            "pending_last": state.pending_last,
            "can_place": self.can_place(state),
            "can_stand": state.pending_last is not None,
            "can_challenge": bool(challengers),
            "challengers": list(challengers),
            "loser": state.loser,
        }

    def _last_view(self, state: CheatState) -> CheatLastView | None:
        last = state.last
        if last is None:
            return None
        rank = format_rank(last.rank)
        revealed = None if last.revealed is None else format_card(last.revealed)
        truthful = None if last.revealed is None else is_truthful(last.revealed, last.rank)
        sentences: list[str] = []
        if last.kind is LastKind.PLACE:
            if last.went_out:
                sentences.append(f"Seat {last.went_out[0]}'s last card stands: seat {last.went_out[0]} is out.")
            sentences.append(f"Seat {last.player} places a card and announces {rank}.")
            if state.counts[last.player] == 0:
                sentences.append(f"That is seat {last.player}'s last card: it stands unless someone challenges it.")
                if not self.can_place(state):
                    sentences.append(f"Seat {state.turn} may only challenge it or let it stand.")
        elif last.kind is LastKind.CHALLENGE:
            assert revealed is not None and last.taker is not None
            shown = "joker" if revealed == "X" else revealed
            was = f"announced {rank}, was {_article(shown)} {shown}"
            if truthful:
                sentences.append(
                    f"Seat {last.challenger} challenged seat {last.player}, who told the truth ({was}); "
                    f"seat {last.taker} takes {_cards(last.taken)}."
                )
            else:
                sentences.append(f"Seat {last.player} lied ({was}) and takes {_cards(last.taken)}.")
            if last.went_out:
                sentences.append(f"That was seat {last.player}'s last card: seat {last.player} is out.")
            if state.turn is not None:
                sentences.append(f"Seat {last.taker} starts again, announcing A.")
        else:
            sentences.append(f"Nobody challenges seat {last.player}'s last card: seat {last.player} is out.")
        if state.loser is not None:
            sentences.append(f"Seat {state.loser} is left holding cards: the apgavikas, who loses the deal.")
        return {
            "type": last.kind.value,
            "text": " ".join(sentences),
            "player": last.player,
            "announced": rank,
            "challenger": last.challenger,
            "revealed": revealed,
            "truthful": truthful,
            "taker": last.taker,
            "taken": last.taken,
            "went_out": list(last.went_out),
            "loser": state.loser,
        }


GAME = Cheat()
