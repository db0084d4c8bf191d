"""Random legal Michigan deals, simulated with a real shuffled deck, for the property tests.

:func:`simulate` plays one deal the way a table does: it deals a shuffled 52-card deck one
card at a time into n+1 hands (the extra hand first), maybe lets a player swap for the
extra hand, then plays sequences (the starter's lowest card of a suit, then whoever holds
the next card), with occasional mistakes: a card out of sequence, a start that is not the
player's lowest (noticed when they later play a lower card of that suit), or a misplay the
table simply reports. It records the deal both ways a scorer could: live (every card) and
manual (exchange, prizes, misplays, who went out), and keeps its own chip tally so that the
referee can be checked against an independent count.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from referee.rules.cards import ACE, SUIT_NAMES_LT, SUIT_SYMBOLS, Card, card_from_text, format_card, standard_deck

DEFAULT_PRIZES = ["AS", "KC", "QD", "JH"]


@dataclass
class Simulation:
    """One simulated deal: the setup, both entry lists, and the table's own chip count."""

    players: int
    dealer: int
    options: dict[str, Any]
    live_entries: list[dict[str, Any]]
    manual_entries: list[dict[str, Any]]
    #: Hands after the swap: seat -> cards, and the face-down hand (extra or given up).
    hands: dict[int, frozenset[Card]]
    dead: frozenset[Card]
    net: list[int]
    pot: dict[str, int]
    out_player: int
    hand_counts: list[int]
    played: list[Card] = field(default_factory=list)

    def kwargs(self, live: bool) -> dict[str, Any]:
        return {"players": self.players, "dealer": self.dealer, "options": {**self.options, "live": live}}


def card_text(card: Card, notation: str, rng: random.Random) -> str:
    """The card as a scorer might type it in the session's notation (several accepted forms)."""
    text = format_card(card, "lt" if notation == "lt" else "en")
    symbol = SUIT_SYMBOLS[card.suit or "S"]
    rank = text[:-1]
    forms = [text, symbol + rank, rank + symbol]
    if notation == "lt":
        forms.append(f"{rank} {SUIT_NAMES_LT[card.suit or 'S']}")
    return rng.choice(forms)


def simulate(rng: random.Random, players: int, options: dict[str, Any] | None = None) -> Simulation:
    opts = dict(options or {})
    opts.pop("live", None)
    notation = opts.get("notation", "en")
    prize_names = list(opts.get("prizes", DEFAULT_PRIZES))
    prizes = {card_from_text(name): name for name in prize_names}
    ante, dealer_ante = opts.get("ante", 1), opts.get("dealer_ante", 2)
    penalty = opts.get("misplay_penalty", 1)
    carried = opts.get("pot") or {name: 0 for name in prize_names}
    dealer = rng.randrange(players)
    first = (dealer + 1) % players

    antes = [dealer_ante if seat == dealer else ante for seat in range(players)]
    net = [-len(prize_names) * chips for chips in antes]
    pot = {name: carried[name] + sum(antes) for name in prize_names}

    deck = list(standard_deck())
    rng.shuffle(deck)
    piles: list[set[Card]] = [set() for _ in range(players + 1)]
    for index, card in enumerate(deck):
        piles[index % (players + 1)].add(card)
    hands = {(first + step) % players: piles[1 + step] for step in range(players)}
    dead = piles[0]

    live: list[dict[str, Any]] = []
    manual: list[dict[str, Any]] = []

    def both(entry: dict[str, Any]) -> None:
        live.append(entry)
        manual.append(dict(entry))

    if rng.random() < 0.4:
        for step in range(players):
            seat = (first + step) % players
            if rng.random() < 0.4:
                hands[seat], dead = dead, hands[seat]
                both({"type": "exchange", "player": seat})
                break
    sizes = {seat: len(cards) for seat, cards in hands.items()}
    initial = {seat: frozenset(cards) for seat, cards in hands.items()}
    initial_dead = frozenset(dead)

    misplayer: set[int] = set()
    pending: dict[int, dict[str, int]] = {seat: {} for seat in range(players)}

    def penalise(seat: int) -> None:
        misplayer.add(seat)
        for other in range(players):
            if other != seat:
                net[other] += penalty
                net[seat] -= penalty

    mistakes = rng.choice([0.0, 0.03, 0.12])
    played: list[Card] = []
    played_set: set[Card] = set()
    sequence: Card | None = None
    starter = first
    while True:
        if rng.random() < mistakes / 4:
            seat = rng.randrange(players)
            penalise(seat)
            pending[seat].clear()
            both({"type": "misplay", "player": seat})
            continue
        expected = None
        if sequence is not None and sequence.rank < ACE:
            expected = Card(sequence.rank + 1, sequence.suit)
            if expected in played_set:
                expected = None
        holder = next((seat for seat, cards in hands.items() if expected in cards), None)
        wrong = [seat for seat in range(players) if seat != starter and hands[seat] - {expected}]
        if wrong and rng.random() < mistakes:
            seat = rng.choice(wrong)
            card = rng.choice(sorted(hands[seat] - {expected}))
            kind = "misplay"
        elif holder is not None and expected is not None:
            seat, card, kind = holder, expected, "continue"
        else:
            seat, kind = starter, "start"
            suits = sorted({c.suit or "" for c in hands[seat]})
            if sequence is not None and len(suits) > 1 and sequence.suit in suits:
                suits.remove(sequence.suit or "")
            suit = rng.choice(suits)
            in_suit = sorted(c for c in hands[seat] if c.suit == suit)
            card = in_suit[0]
            if len(in_suit) > 1 and rng.random() < mistakes:
                card = rng.choice(in_suit[1:])
        hands[seat].discard(card)
        played.append(card)
        played_set.add(card)
        live.append({"type": "play", "player": seat, "card": card_text(card, notation, rng)})
        suit = card.suit or ""
        if pending[seat].get(suit, 0) > card.rank:
            # The table sees the lower card: the earlier start was not the lowest.
            penalise(seat)
            manual.append({"type": "misplay", "player": seat})
            del pending[seat][suit]
        if kind == "start":
            pending[seat][suit] = card.rank
        if kind == "misplay":
            penalise(seat)
            manual.append({"type": "misplay", "player": seat})
        else:
            sequence, starter = card, seat
        if card in prizes:
            name = prizes[card]
            manual.append({"type": "prize", "card": card_text(card, notation, rng), "player": seat})
            if seat not in misplayer:
                net[seat] += pot[name]
                pot[name] = 0
        if not hands[seat]:
            counts = [len(hands[s]) for s in range(players)]
            for other in range(players):
                net[other] -= counts[other]
                net[seat] += counts[other]
            manual.append({"type": "out", "player": seat, "hand_counts": counts})
            break
    assert sum(sizes.values()) + len(initial_dead) == 52
    return Simulation(
        players=players,
        dealer=dealer,
        options=opts,
        live_entries=live,
        manual_entries=manual,
        hands=initial,
        dead=initial_dead,
        net=net,
        pot=pot,
        out_player=seat,
        hand_counts=counts,
        played=played,
    )


def random_deal(
    rng: random.Random, players: int, options: dict[str, Any] | None = None
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(new_deal kwargs, entries) of one random full deal; live entries if ``options["live"]``."""
    live = bool((options or {}).get("live", False))
    sim = simulate(rng, players, options)
    return sim.kwargs(live), sim.live_entries if live else sim.manual_entries
