"""Random legal Cheat deals, simulated with a real shuffled deck.

The simulation is a reference model written independently of the engine: it deals a
shuffled deck, lets the players place cards (mostly honestly, sometimes lying), challenge
now and then, and records the entries a scorer would type, with the revealed card written
truthfully in one of the ways a scorer might write it. Challenges stop after a random
number of entries, so every deal reaches its end well within ``MAX_ENTRIES``.
"""

from __future__ import annotations

import random
from typing import Any

from referee.rules.cards import (
    ACE,
    JOKER,
    RANK_VALUES,
    SUIT_NAMES_LT,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    format_card,
    format_rank,
)

MAX_ENTRIES = 2000
#: The announcement cycle, written out here rather than taken from the engine under test.
CYCLE = (ACE, *range(2, ACE))


def next_rank(rank: int) -> int:
    return CYCLE[(CYCLE.index(rank) + 1) % len(CYCLE)]


def revealed_text(rng: random.Random, card: Card, notation: str) -> str:
    """The revealed card as a scorer might write it: full card, bare rank, symbol, word."""
    if card.is_joker:
        return rng.choice(["X", "x", "joker"])
    lt = notation == "lt"
    rank = format_rank(card.rank, "lt" if lt else "en")
    assert card.suit is not None
    symbol = SUIT_SYMBOLS[card.suit]
    forms = [rank, symbol + rank, rank + symbol]
    if lt:
        word = SUIT_NAMES_LT[card.suit]
        forms += [f"{rank} {word}", f"{word} {rank}", rank + word[:3]]
    else:
        forms += [format_card(card), rank.lower() + card.suit.lower()]
        if card.rank == 10:
            forms += ["T", "T" + card.suit]
    return rng.choice(forms)


def random_deal(
    rng: random.Random, players: int, options: dict[str, Any] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A whole deal: (``new_deal`` keyword arguments, the entries in order)."""
    options = dict(options or {})
    jokers = int(options.get("jokers", 0))
    notation = str(options.get("notation", "en"))
    dealer = rng.randrange(players)
    copies = 1 if players <= 5 else 2
    cards = [Card(rank, suit) for suit in SUITS for rank in RANK_VALUES] * copies + [JOKER] * jokers
    rng.shuffle(cards)
    leftover = len(cards) % players
    pile = cards[:leftover]
    hands = [cards[leftover + seat::players] for seat in range(players)]

    honesty = rng.choice([0.5, 0.8, 0.95, 1.0])
    challenge_rate = rng.choice([0.05, 0.15, 0.3])
    challenges_until = rng.choice([0, 40, 150, 400])
    turn = (dealer + 1) % players
    announce = ACE
    last: tuple[int, int, Card] | None = None  # placer, announced rank, the card itself
    out: list[int] = []
    pending: int | None = None
    entries: list[dict[str, Any]] = []

    def next_holder(after: int) -> int:
        for step in range(1, players):
            seat = (after + step) % players
            if hands[seat]:
                return seat
        raise AssertionError("nobody else holds cards")

    while len(entries) < MAX_ENTRIES:
        holding = [seat for seat in range(players) if hands[seat]]
        if pending is None and len(holding) == 1:
            break
        may_challenge = last is not None and last[0] not in out and len(entries) < challenges_until
        forced = pending is not None and len(holding) == 1
        rate = 0.5 if pending is not None else challenge_rate
        if last is not None and may_challenge and rng.random() < rate:
            placer, rank, card = last
            challenger = rng.choice([seat for seat in holding if seat != placer])
            truthful = card.is_joker or card.rank == rank
            taker = challenger if truthful else placer
            hands[taker].extend(pile)
            pile = []
            if pending is not None and truthful:
                out.append(pending)
            pending = None
            entries.append(
                {"type": "challenge", "challenger": challenger, "revealed": revealed_text(rng, card, notation)}
            )
            turn, announce, last = taker, ACE, None
            continue
        if pending is not None and (forced or rng.random() < 0.3):
            out.append(pending)
            pending = None
            entries.append({"type": "stands"})
            continue
        hand = hands[turn]
        matching = [i for i, card in enumerate(hand) if card.rank == announce]
        wild = [i for i, card in enumerate(hand) if card.is_joker]
        if matching and rng.random() < honesty:
            index = rng.choice(matching)
        elif wild and rng.random() < 0.5:
            index = rng.choice(wild)
        else:
            index = rng.randrange(len(hand))
        card = hand.pop(index)
        pile.append(card)
        if pending is not None:
            out.append(pending)
            pending = None
        if not hand:
            pending = turn
        entries.append({"type": "place", "player": turn})
        last = (turn, announce, card)
        announce = next_rank(announce)
        turn = next_holder(turn)
    return {"players": players, "dealer": dealer, "options": options}, entries
