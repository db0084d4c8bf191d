"""Random Pašėlęs Velnias deals: the race simulated with a shuffled deck, ended as the table would.

The dealer lays 13 cards face down and 4 face up, deals 35 // n to each player and turns
the leftovers face up. Then, one move at a time in random order, someone places a card:
an ace from hand or table starts a pile; any other card goes on a pile of its ace's
colour whose top is one rank higher. Using a table card turns the next face-down card.
The deal ends as soon as a hand is empty (``empty_hand``), when the 13th face-down card is
turned and fits nowhere (``last_card``, by the player who turned it), or when no card in a
hand or on the table fits (``blocked``). The scorer records one ``end`` entry.
"""

from __future__ import annotations

import random
from typing import Any

SUITS = ("S", "C", "D", "H")
RED = {"D", "H"}
ACE = 14

Card = tuple[int, str]


def _fits(card: Card, piles: list[list[Any]]) -> int | None:
    """The index of a pile the card can go on (-1 for a new pile for an ace), or None."""
    rank, suit = card
    if rank == ACE:
        return -1
    for index, (red, top) in enumerate(piles):
        if red == (suit in RED) and top == rank + 1:
            return index
    return None


def _place(card: Card, piles: list[list[Any]]) -> None:
    where = _fits(card, piles)
    assert where is not None
    if where == -1:
        piles.append([card[1] in RED, ACE])
    else:
        piles[where][1] = card[0]


def simulate(rng: random.Random, players: int) -> dict[str, Any]:
    """Play one race and return its ``end`` entry."""
    deck = [(rank, suit) for suit in SUITS for rank in range(2, 15)]
    rng.shuffle(deck)
    face_down = deck[:13]
    table = deck[13:17]
    hand = 35 // players
    dealt = deck[17 : 17 + hand * players]
    hands = [dealt[seat::players] for seat in range(players)]
    table += deck[17 + hand * players :]
    piles: list[list[Any]] = []
    while True:
        moves = [
            (seat, "hand", card)
            for seat in range(players)
            for card in hands[seat]
            if _fits(card, piles) is not None
        ]
        moves += [(rng.randrange(players), "table", card) for card in table if _fits(card, piles) is not None]
        if not moves:
            return {"type": "end", "condition": "blocked", "player": None, "hand_counts": [len(h) for h in hands]}
        seat, source, card = rng.choice(moves)
        _place(card, piles)
        if source == "hand":
            hands[seat].remove(card)
            if not hands[seat]:
                return {
                    "type": "end", "condition": "empty_hand", "player": seat,
                    "hand_counts": [len(h) for h in hands],
                }
            continue
        table.remove(card)
        if not face_down:
            continue
        turned = face_down.pop()
        if face_down:
            table.append(turned)
            continue
        # The 13th face-down card: placed at once if it fits, else the deal ends.
        if _fits(turned, piles) is None:
            return {"type": "end", "condition": "last_card", "player": seat, "hand_counts": [len(h) for h in hands]}
        _place(turned, piles)


def random_deal(rng: random.Random, players: int, options: dict[str, Any] | None = None) -> tuple[dict, list[dict]]:
    """(new_deal kwargs, [the end entry]) of one random deal."""
    dealer = rng.randrange(players)
    entry = simulate(rng, players)
    return {"players": players, "dealer": dealer, "options": dict(options or {})}, [entry]
