"""Random legal Elgeta deals, played the physical way, as the entries a scorer records.

Each player's pile is shuffled with the given ``random.Random``; the simulation turns top
cards, breaks ties (every player still in adds a card, ``null`` when they have none),
puts captured cards under the taker's pile (in play order with strict order on; shuffled,
as a table that gathers tricks differently would, with it off) and records one ``trick``
entry per trick. It knows nothing of the referee's code.

The deal is played to its end, or until a cap of tricks or a repeated position; with
strict order on it then closes with a ``finish`` entry (which the referee accepts once
every player still in has played through their own pile). Some deals finish as soon as
the rest is determined.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any

RANKS_EN = {11: "J", 12: "Q", 13: "K", 14: "A"}
RANKS_LT = {11: "V", 12: "D", 13: "K", 14: "T"}
SYMBOLS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}
LT_WORDS = {"S": "vynai", "C": "kryžiai", "D": "būgnai", "H": "širdys"}
DEFAULT_SUITS = {2: ["HD", "SC"], 3: ["S", "C", "D"], 4: ["S", "C", "D", "H"]}
#: E5: each deck's lowest rank (RULES.md section 1: 52 cards 2..A, 36 6..A, 32 7..A).
DECK_LOWEST = {52: 2, 36: 6, 32: 7}

Card = tuple[int, str]


def random_options(rng: random.Random, players: int | None = None) -> dict[str, Any]:
    """A random valid set of options (any may be left at its default; ``suits`` only when the
    number of players is given)."""
    options: dict[str, Any] = {}
    if players is not None and rng.random() < 0.5:
        if players == 2:
            pair = [rng.choice(["HD", "DH"]), rng.choice(["SC", "CS"])]
            rng.shuffle(pair)
            options["suits"] = pair
        else:
            options["suits"] = rng.sample(["S", "C", "D", "H"], players)
    if rng.random() < 0.6:
        options["deck"] = rng.choice(list(DECK_LOWEST))
    if rng.random() < 0.5:
        options["all_aces"] = rng.random() < 0.7
    if rng.random() < 0.3:
        options["strict_order"] = rng.random() < 0.5
    if rng.random() < 0.3:
        options["notation"] = rng.choice(["en", "lt"])
    return options


def write_card(rng: random.Random, card: Card, notation: str) -> str:
    """The card as a scorer might type it in the session's notation."""
    rank, suit = card
    if notation == "lt":
        text = RANKS_LT.get(rank, str(rank))
        return rng.choice([text + SYMBOLS[suit], SYMBOLS[suit] + text, f"{text} {LT_WORDS[suit]}"])
    text = RANKS_EN.get(rank, str(rank))
    return rng.choice([text + suit, text + suit, text + SYMBOLS[suit], SYMBOLS[suit] + text, text.lower() + suit])


def random_deal(
    rng: random.Random,
    players: int,
    options: dict[str, Any] | None = None,
    *,
    max_tricks: int = 3000,
    finish_early: bool | None = None,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(new_deal keyword arguments, entries) of one random legal deal.

    ``finish_early``: close with ``finish`` as soon as the rest is determined (None: at random).
    """
    if options is None:
        options = random_options(rng, players)
    dealer = rng.randrange(players)
    suits = options.get("suits") or DEFAULT_SUITS[players]
    strict = options.get("strict_order", True)
    all_aces = options.get("all_aces", True)
    notation = options.get("notation", "en")
    aces = sum(len(held) for held in suits)
    piles: list[deque[Card]] = []
    lowest = DECK_LOWEST[options.get("deck", 52)]
    for held in suits:
        cards = [(rank, suit) for suit in held for rank in range(lowest, 15)]
        rng.shuffle(cards)
        piles.append(deque(cards))
    own_left = [len(pile) for pile in piles]
    leader = (dealer + 1) % players
    if finish_early is None:
        finish_early = rng.random() < 0.3
    seen: set[tuple[Any, ...]] = set()
    entries: list[dict[str, Any]] = []
    while True:
        in_seats = [seat for seat in range(players) if piles[seat]]
        if strict and all(own_left[seat] == 0 for seat in in_seats):
            position = (leader, *(tuple(rank for rank, _ in pile) for pile in piles))
            if finish_early or position in seen or len(entries) >= max_tricks:
                entries.append({"type": "finish"})
                break
            seen.add(position)
        elif len(entries) >= max_tricks:
            break
        order = [seat for seat in ((leader + i) % players for i in range(players)) if piles[seat]]
        rounds: list[list[str | None]] = []
        table: list[Card] = []
        taker: int | None = None
        while True:
            played: list[tuple[int, Card]] = []
            written: list[str | None] = []
            for seat in order:
                if not piles[seat]:
                    written.append(None)
                    continue
                card = piles[seat].popleft()
                own_left[seat] = max(0, own_left[seat] - 1)
                played.append((seat, card))
                table.append(card)
                written.append(write_card(rng, card, notation))
            rounds.append(written)
            if not played:
                break
            top = max(card[0] for _, card in played)
            best = [seat for seat, card in played if card[0] == top]
            if len(best) == 1:
                taker = best[0]
                break
        entries.append({"type": "trick", "rounds": rounds})
        if taker is None:
            break  # E1: nobody could add a card: a draw
        if not strict:
            rng.shuffle(table)
        piles[taker].extend(table)
        leader = taker
        in_seats = [seat for seat in range(players) if piles[seat]]
        if len(in_seats) == 1:
            break
        if all_aces and sum(1 for rank, _ in piles[taker] if rank == 14) == aces:
            break
    return {"players": players, "dealer": dealer, "options": options}, entries
