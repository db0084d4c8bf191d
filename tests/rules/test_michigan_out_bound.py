"""Mičiganas: the ``out`` counts know the prize cards each seat has played.

Over random legal deals (playout_michigan: a shuffled deck, swaps and misplays included),
recorded by hand, the ``out`` entry is tried with every count from 1 to past the hand
size for every seat that did not go out. The bound is worked out here from the table's
own deal, not from the engine: the hand the seat holds after any swap, less the prize
cards recorded as played by it. Every count within the bound is accepted, every count
above it is refused with the exact sentence, and a refusal changes nothing.
"""

from __future__ import annotations

import gettext
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import GAMES, IllegalEntry
from referee.rules.cards import Card, parse_card
from referee.rules.michigan import Michigan, MichiganState

from .playout_michigan import Simulation, simulate
from .test_michigan_properties import deal_options

_GAME = GAMES["michigan"]
assert isinstance(_GAME, Michigan)
GAME: Michigan = _GAME


def before_out(sim: Simulation) -> tuple[MichiganState, dict[str, Any]]:
    """The manual record up to (not including) the out entry, and that entry."""
    state = GAME.new_deal(**sim.kwargs(False))
    *entries, last = sim.manual_entries
    assert last["type"] == "out"
    for entry in entries:
        state = GAME.apply(state, entry)
    return state, last


def prizes_by_seat(sim: Simulation) -> dict[int, list[Card]]:
    """The prize cards each seat was recorded playing, in order."""
    notation = sim.options.get("notation", "en")
    played: dict[int, list[Card]] = {seat: [] for seat in range(sim.players)}
    for entry in sim.manual_entries:
        if entry["type"] == "prize":
            played[entry["player"]].append(parse_card(entry["card"], notation))
    return played


def expected_refusal(seat: int, size: int, prizes: list[Card], count: int) -> str:
    most = size - len(prizes)
    if count < 1 or not prizes:
        return f"seat {seat} holds between 1 and {most} cards at the end of this deal, not {count}."
    if len(prizes) == 1:
        return f"seat {seat} played the {prizes[0]} this deal: at most {most} of their {size} cards left, not {count}."
    cards = ", ".join(str(card) for card in prizes)
    return (
        f"seat {seat} played {len(prizes)} prize cards this deal ({cards}): "
        f"at most {most} of their {size} cards left, not {count}."
    )


def verdict(state: MichiganState, entry: dict[str, Any]) -> str | None:
    """None if accepted, else the refusal; either way ``state`` is unchanged."""
    before = GAME.to_dict(state)
    try:
        GAME.apply(state, entry)
    except IllegalEntry as error:
        return str(error)
    finally:
        assert GAME.to_dict(state) == before
    return None


@settings(max_examples=120, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(3, 8), options=deal_options())
def test_out_counts_are_bounded_by_the_hand_less_its_prize_cards(
    seed: int, players: int, options: dict[str, Any]
) -> None:
    """Every count in 1..bound is accepted; every count above the bound (or 0) is refused, naming why."""
    sim = simulate(random.Random(seed), players, options)
    state, out = before_out(sim)
    played = prizes_by_seat(sim)
    for seat in range(players):
        if seat == sim.out_player:
            continue
        size = len(sim.hands[seat])
        bound = size - len(played[seat])
        assert 1 <= sim.hand_counts[seat] <= bound  # the table's real count is always possible
        for count in range(0, size + 3):
            counts = list(sim.hand_counts)
            counts[seat] = count
            message = verdict(state, {**out, "hand_counts": counts})
            if 1 <= count <= bound:
                assert message is None, (seat, count, message)
            else:
                assert message == expected_refusal(seat, size, played[seat], count)
    # Every seat at its own bound at once is accepted too.
    most = [0 if seat == sim.out_player else len(sim.hands[seat]) - len(played[seat]) for seat in range(players)]
    assert verdict(state, {**out, "hand_counts": most}) is None


def test_the_random_deals_cover_swaps_misplays_and_prize_cards_kept_in_hand() -> None:
    """The property above meets the cases of the issue: a swap, a misplay, a prize card played by a seat that
    did not go out (so its bound is tighter than its hand), and a seat with several prize cards."""
    seen = {"exchange": 0, "misplay": 0, "tighter": 0, "several": 0}
    for seed in range(300):
        sim = simulate(random.Random(seed), 3 + seed % 6)
        kinds = {entry["type"] for entry in sim.manual_entries}
        seen["exchange"] += "exchange" in kinds
        seen["misplay"] += "misplay" in kinds
        played = prizes_by_seat(sim)
        others = [seat for seat in range(sim.players) if seat != sim.out_player]
        seen["tighter"] += any(played[seat] for seat in others)
        seen["several"] += any(len(played[seat]) > 1 for seat in others)
    assert all(count >= 20 for count in seen.values()), seen


def test_the_refusal_reads_in_lithuanian() -> None:
    """Both new sentences are in the committed catalogue; rendered as the service does (names, lt notation)."""
    catalogue = Path(__file__).resolve().parents[2] / "locale" / "lt" / "LC_MESSAGES" / "django.mo"
    with catalogue.open("rb") as file:
        lithuanian = gettext.GNUTranslations(file)
    names = ["Ona", "Jonas", "Rūta"]
    state = GAME.new_deal(players=3, dealer=2, options={"notation": "lt"})
    one = GAME.apply(state, {"type": "prize", "card": "T♠", "player": 1})
    two = GAME.apply(one, {"type": "prize", "card": "K♣", "player": 1})
    rendered = []
    for before in (one, two):
        try:
            GAME.apply(before, {"type": "out", "player": 0, "hand_counts": [0, 13, 5]})
        except IllegalEntry as error:
            rendered.append(error.render(names=names, translate=lithuanian.gettext, notation="lt"))
    assert rendered == [
        "Jonas šiame padalijime jau sužaidė T♠: rankoje liko ne daugiau kaip 12 iš 13 kortų, ne 13.",
        "Jonas šiame padalijime jau sužaidė prizines kortas (T♠, K♣), iš viso 2: rankoje liko ne daugiau kaip 11 "
        "iš 13 kortų, ne 13.",
    ]
