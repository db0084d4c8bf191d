"""Play Elgeta deals through the real engine with shuffled piles (for benchmarks and tests).

Each seat's own pile gets a random order; the table turns cards from it and from the
captured cards exactly as the rules say, and every trick is recorded through ``apply``,
so the state is always one the referee accepts.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from referee.rules import GAMES
from referee.rules.cards import RANK_VALUES, card_from_text

SUITS_BY_PLAYERS = {2: ["HD", "SC"], 3: ["S", "C", "D"], 4: ["S", "C", "D", "H"]}


def _rank(text: str) -> int:
    return card_from_text(text).rank


def shuffled_piles(players: int, rng: random.Random, suits: list[str] | None = None) -> list[list[str]]:
    suits = suits or SUITS_BY_PLAYERS[players]
    piles = []
    for held in suits:
        cards = [f"{r if r <= 10 else 'JQKA'[r - 11]}{suit}" for suit in held for r in RANK_VALUES]
        rng.shuffle(cards)
        piles.append(cards)
    return piles


def tricks(players: int, dealer: int, piles: list[list[str]]) -> Iterator[dict[str, Any]]:
    """The deal's tricks as entries, from the given pile orders (the physical game)."""
    piles = [list(p) for p in piles]
    out = [False] * players
    leader = (dealer + 1) % players
    while sum(1 for seat in range(players) if not out[seat]) > 1:
        order = [s for s in ((leader + i) % players for i in range(players)) if not out[s]]
        rounds: list[list[str | None]] = []
        taker = None
        while True:
            played = [piles[s].pop(0) if piles[s] else None for s in order]
            rounds.append(played)
            ranks = [_rank(c) for c in played if c is not None]
            if not ranks:
                break
            best = max(ranks)
            if ranks.count(best) == 1:
                taker = order[[(_rank(c) if c else -1) for c in played].index(best)]
                break
        if taker is None:
            yield {"type": "trick", "rounds": rounds}
            return
        piles[taker].extend(c for rnd in rounds for c in rnd if c is not None)
        for s in order:
            if not piles[s]:
                out[s] = True
        leader = taker
        yield {"type": "trick", "rounds": rounds}


def long_deal(min_tricks: int, players: int = 2, seed: int = 0) -> tuple[list[list[str]], int]:
    """A pile order whose deal lasts at least ``min_tricks`` tricks (searching seeds from ``seed``)."""
    for attempt in range(seed, seed + 10_000):
        piles = shuffled_piles(players, random.Random(attempt))
        for count, _entry in enumerate(tricks(players, players - 1, piles), start=1):
            if count >= min_tricks:
                return piles, attempt
    raise RuntimeError("no long enough deal found")


if __name__ == "__main__":
    game = GAMES["elgeta"]
    piles, seed = long_deal(500)
    state = game.new_deal(players=2, dealer=1, options={})
    for n, entry in enumerate(tricks(2, 1, piles), start=1):
        state = game.apply(state, entry)
        if n == 500:
            break
    print("seed", seed, "tricks", n, "outcome", game.outcome(state), "forecast", game.view(state)["forecast"])
