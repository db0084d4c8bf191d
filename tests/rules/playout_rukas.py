"""Random legal Rūkas deals, simulated at the table and written down as a scorer would.

Every seat holds the 13 cards of one suit (a second deck above four players), shuffles
them and plays them in that order, one per trick. The scorer writes each trick's cards in
reveal order from the leader, sometimes as a bare rank, sometimes as the full card, in the
session's notation. Who leads next comes from :func:`oracle_taker`, an adjudicator written
independently of the engine (by counting, not by replaying the reveal), so the property
tests can compare the two.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

from referee.rules.cards import parse_rank

SUITS = ("S", "C", "D", "H")
SYMBOLS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}
LT_WORDS = {"S": "vynai", "C": "kryžiai", "D": "būgnai", "H": "širdys"}
EN_RANKS = {**{r: str(r) for r in range(2, 11)}, 11: "J", 12: "Q", 13: "K", 14: "A"}
LT_RANKS = {**{r: str(r) for r in range(2, 11)}, 11: "V", 12: "D", 13: "K", 14: "T"}
ACE, SEVEN = 14, 7


def oracle_taker(ranks: list[int], seven_after_ace: str = "seven_takes") -> int | None:
    """The position (in reveal order) of the taker, or None for a void trick.

    Same-named cards all cancel, so a rank is live only if it occurs once. The only
    order-dependent rule is the 7 beating an ace: the first 7 beats the ace when exactly
    one ace was revealed before it.
    """
    counts = Counter(ranks)
    first = {rank: ranks.index(rank) for rank in counts}
    ace_beaten = (
        ACE in first and SEVEN in first and first[ACE] < first[SEVEN] and ranks[: first[SEVEN]].count(ACE) == 1
    )
    live = {rank for rank, count in counts.items() if count == 1 and not (rank == ACE and ace_beaten)}
    if not live:
        return None
    if ACE in live:
        return first[ACE]
    seven_takes = seven_after_ace == "seven_takes" and ace_beaten and SEVEN in live
    taker = SEVEN if seven_takes else max(live)
    while taker - 1 in live:
        taker -= 1
    return first[taker]


def write_card(rng: random.Random, rank: int, suit: str, notation: str) -> str:
    """How a scorer might type the card: a bare rank or the full card, in the session's notation."""
    text = (LT_RANKS if notation == "lt" else EN_RANKS)[rank]
    style = rng.randrange(4)
    if style == 0:
        return text
    if style == 1:
        return text + SYMBOLS[suit]
    if style == 2:
        return SYMBOLS[suit] + text
    if notation == "lt":
        return f"{text} {LT_WORDS[suit]}"
    if rank == 10 and rng.random() < 0.5:
        return "T" + suit  # T is ten in English notation
    return text.lower() + suit


def random_options(rng: random.Random) -> dict[str, Any]:
    return {
        "seven_after_ace": rng.choice(["seven_takes", "next_highest"]),
        "void_trick": rng.choice(["void", "carry"]),
        "notation": rng.choice(["en", "lt"]),
    }


def random_deal(rng: random.Random, players: int, options: dict[str, Any] | None = None) -> tuple[dict, list[dict]]:
    """(new_deal kwargs, the 13 trick entries) of one random deal."""
    options = dict(options or {})
    notation = options.get("notation", "en")
    seven_after_ace = options.get("seven_after_ace", "seven_takes")
    dealer = rng.randrange(players)
    hands = []
    for seat in range(players):
        hand = [(rank, SUITS[seat % 4]) for rank in range(2, 15)]
        rng.shuffle(hand)
        hands.append(hand)
    leader = (dealer + 1) % players
    entries = []
    for trick in range(13):
        order = [(leader + step) % players for step in range(players)]
        cards = [hands[seat][trick] for seat in order]
        entries.append({"type": "trick", "cards": [write_card(rng, rank, suit, notation) for rank, suit in cards]})
        taker = oracle_taker([rank for rank, _ in cards], seven_after_ace)
        if taker is not None:
            leader = order[taker]
    return {"players": players, "dealer": dealer, "options": options}, entries


def expected_points(kwargs: dict, entries: list[dict]) -> tuple[list[int], int, int]:
    """(points per seat, void tricks, points lost at the end) of a deal, by the oracle."""
    players, dealer = kwargs["players"], kwargs["dealer"]
    options = kwargs["options"]
    notation = options.get("notation", "en")
    carry = options.get("void_trick", "void") == "carry"
    leader = (dealer + 1) % players
    points = [0] * players
    pending = voids = 0
    for entry in entries:
        ranks = [parse_rank(text, notation) for text in entry["cards"]]
        taker = oracle_taker(ranks, options.get("seven_after_ace", "seven_takes"))
        if taker is None:
            voids += 1
            pending += 1 if carry else 0
            continue
        leader = (leader + taker) % players
        points[leader] += 1 + pending
        pending = 0
    return points, voids, pending
