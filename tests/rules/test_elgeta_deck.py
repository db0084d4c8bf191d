"""Elgeta E5, the deck: "Galima imti bet kokią kaladę be džokerių" (any deck without jokers),
ranks "iki dviakės (jei žaidžiama pilna kalade)" (down to the two, if the full deck is played).

Option ``deck``: 52 (2..A, 13 a suit, the default), 36 (6..A, 9 a suit), 32 (7..A, 8 a suit).
Every rule holds for every deck with "13" read as the deck's cards per suit. Also the suits
drawn by lot: "galima tai nustatyti ir burtų keliu".
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest

from referee.rules import GAMES, IllegalEntry, InvalidSetup
from referee.rules.cards import Card
from referee.rules.elgeta import DECKS, ElgetaState, ExpectedCard, draw_suits
from referee.rules.elgeta_forecast import Cycle, Ending
from tests.rules.refusals import refusal

from .playout_elgeta import random_deal

G = GAMES["elgeta"]
SEED_OPTIONS = {"suits": ["S", "D", "H", "C"]}
RANK_TEXT = {11: "J", 12: "Q", 13: "K", 14: "A"}
PER_SUIT = {52: 13, 36: 9, 32: 8}


def trick(*rounds: list[str | None]) -> dict[str, Any]:
    return {"type": "trick", "rounds": [list(r) for r in rounds]}


def suit(letter: str, deck: int) -> list[str]:
    """Every card of one suit in the deck, low to high."""
    return [RANK_TEXT.get(rank, str(rank)) + letter for rank in range(DECKS[deck], 15)]


def position(
    piles: list[list[str]], *, suits: list[str], fill: int, deck: int, leader: int = 0,
    out_at: list[int | None] | None = None, initial: list[list[str]] | None = None, **options: Any,
) -> ElgetaState:
    """A mid-deal position of this deck: ``piles[seat]`` are captured cards (top first); every
    other card of the deal goes under seat ``fill``'s pile, so the position could really occur."""
    players = len(piles)
    initial = initial or [[] for _ in piles]
    listed = {card for pile in piles + initial for card in pile}
    rest = [card for letters in suits for letter in letters for card in suit(letter, deck) if card not in listed]
    piles = [list(pile) for pile in piles]
    piles[fill] += rest
    return G.from_dict({
        "game": "elgeta", "version": 1, "players": players, "dealer": (leader - 1) % players,
        "options": {"deck": deck, "suits": suits, "all_aces": True, "strict_order": True, "notation": "en",
                    **options},
        "piles": [{"initial": sorted(initial[seat]), "captured": piles[seat]} for seat in range(players)],
        "leader": leader, "tricks": 30, "out_at": out_at or [None] * players,
        "table": [], "last": None, "result": None,
    })


def held(state: ElgetaState) -> Counter[Card]:
    cards: Counter[Card] = Counter(state.table)
    for pile in state.piles:
        cards.update(pile.initial)
        cards.update(pile.captured)
    return cards


# -- the seed's examples, on the full deck and on the short ones -----------------------------------


def test_the_seed_examples_on_the_full_deck() -> None:
    """The seed's three tricks, dealt from the full deck ("iki dviakės (jei žaidžiama pilna kalade)")
    written out as deck 52, take as they always did."""
    state = G.new_deal(players=4, dealer=3, options={**SEED_OPTIONS, "deck": 52})
    assert G.view(G.apply(state, trick(["QS", "10D", "4H", "AC"])))["last"]["taker"] == 3
    assert G.view(G.apply(state, trick(["9S", "9D", "5H", "QC"])))["last"]["taker"] == 3
    after = G.apply(state, trick(["JS", "AD", "AH", "4C"], ["6S", "7D", "9H", "QC"]))
    assert (G.view(after)["last"]["taker"], G.view(after)["counts"]) == (3, [11, 11, 11, 19])


@pytest.mark.parametrize("deck", [36, 32])
def test_the_seed_examples_on_a_short_deck(deck: int) -> None:
    """The seed's tricks with their low cards raised into the short deck: the ace takes, and after a
    tie of aces the highest of the new cards takes all eight."""
    state = G.new_deal(players=4, dealer=3, options={**SEED_OPTIONS, "deck": deck})
    assert G.view(G.apply(state, trick(["QS", "10D", "8H", "AC"])))["last"]["taker"] == 3
    assert G.view(G.apply(state, trick(["9S", "9D", "8H", "QC"])))["last"]["taker"] == 3
    after = G.apply(state, trick(["JS", "AD", "AH", "8C"], ["7S", "8D", "9H", "QC"]))
    per = PER_SUIT[deck]
    assert (G.view(after)["last"]["taker"], G.view(after)["counts"]) == (3, [per - 2] * 3 + [per + 6])


# -- the piles ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("deck", [52, 36, 32])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_seat_holds_its_suits_of_the_deck(deck: int, players: int) -> None:
    """Each seat's pile is every card of its suit(s) from the deck's lowest rank to the ace: 13, 9
    or 8 a suit; with two players 26, 18 or 16."""
    state = G.new_deal(players=players, dealer=0, options={"deck": deck})
    for pile, letters in zip(state.piles, state.options.suits, strict=True):
        assert pile.initial == frozenset(Card(rank, s) for s in letters for rank in range(DECKS[deck], 15))
    assert G.view(state)["counts"] == [PER_SUIT[deck] * len(letters) for letters in state.options.suits]
    assert G.view(state)["options"]["deck"] == deck
    assert G.to_dict(state)["options"]["deck"] == deck


def test_the_default_deck_is_the_full_one() -> None:
    state = G.new_deal(players=4, dealer=0)
    assert state.options.deck == 52
    assert G.view(state)["counts"] == [13, 13, 13, 13]


# -- cards outside the deck ------------------------------------------------------------------------


@pytest.mark.parametrize(("deck", "card", "message"), [
    (36, "5S", "The 5S is not in this deal: the 36-card deck has only the ranks 6 to A."),
    (36, "2S", "The 2S is not in this deal: the 36-card deck has only the ranks 6 to A."),
    (32, "6S", "The 6S is not in this deal: the 32-card deck has only the ranks 7 to A."),
    (32, "2S", "The 2S is not in this deal: the 32-card deck has only the ranks 7 to A."),
])
def test_a_card_outside_the_deck_is_refused_naming_the_deck(deck: int, card: str, message: str) -> None:
    state = G.new_deal(players=4, dealer=3, options={**SEED_OPTIONS, "deck": deck})
    assert refusal(G, state, trick([card, "10D", "8H", "AC"])) == message


@pytest.mark.parametrize("strict_order", [True, False])
def test_the_out_of_deck_refusal_comes_in_a_tie_break_and_with_strict_order_off(strict_order: bool) -> None:
    state = G.new_deal(players=4, dealer=3, options={**SEED_OPTIONS, "deck": 32, "strict_order": strict_order})
    assert refusal(G, state, trick(["JS", "AD", "AH", "8C"], ["7S", "8D", "9H", "3C"])) == (
        "The 3C is not in this deal: the 32-card deck has only the ranks 7 to A."
    )


def test_the_out_of_deck_refusal_in_lithuanian_notation() -> None:
    """The cards and ranks it names are written as the session writes them (T = tūzas)."""
    state = G.new_deal(players=2, dealer=1, options={"deck": 36, "notation": "lt"})
    with pytest.raises(IllegalEntry) as caught:
        G.apply(state, trick(["5♥", "T♠"]))
    assert caught.value.render(names=["Ona", "Jonas"], notation="lt") == (
        "The 5♥ is not in this deal: the 36-card deck has only the ranks 6 to T."
    )


def test_the_full_deck_accepts_the_twos() -> None:
    state = G.new_deal(players=4, dealer=3, options={**SEED_OPTIONS, "deck": 52})
    assert G.view(G.apply(state, trick(["2S", "3D", "4H", "5C"])))["last"]["taker"] == 3


@pytest.mark.parametrize("value", [40, 13, 0, "36", "52", True, None, 36.0, [36], {"deck": 36}])
def test_an_invalid_deck_is_refused_naming_the_valid_ones(value: object) -> None:
    with pytest.raises(InvalidSetup) as caught:
        G.new_deal(players=4, dealer=0, options={"deck": value})
    assert str(caught.value) == f"Option deck must be 52, 36 or 32 (cards in the deck), not {value!r}."


# -- determinism, E2, E4 on every deck ----------------------------------------------------------------


@pytest.mark.parametrize("deck", [36, 32])
def test_the_cards_a_seat_may_turn_are_its_suit_of_the_deck(deck: int) -> None:
    """Until a player has played through their own pile the referee knows the set they may turn:
    their suit's cards of this deck, minus what they turned."""
    state = G.new_deal(players=4, dealer=3, options={**SEED_OPTIONS, "deck": deck})
    assert G.expected(state)[0] == ExpectedCard(None, frozenset(Card(rank, "S") for rank in range(DECKS[deck], 15)))
    state = G.apply(state, trick(["QS", "10D", "8H", "AC"]))
    possible = G.expected(state)[0].possible
    assert Card(12, "S") not in possible and len(possible) == PER_SUIT[deck] - 1
    assert G.view(state)["expected"][0]["possible"][0] == f"{DECKS[deck]}S"


@pytest.mark.parametrize("deck", [36, 32])
def test_e4_captured_cards_come_back_in_order_on_a_short_deck(deck: int) -> None:
    """Once the own pile is played through the referee knows the exact next card, and refuses
    another one naming what was expected."""
    low = str(DECKS[deck])
    state = position([["KC", "AC"], [], [], []], suits=["S", "D", "H", "C"], fill=0, deck=deck,
                     initial=[[], suit("D", deck), suit("H", deck), []], leader=0, all_aces=False,
                     out_at=[None, None, None, 5])
    assert G.expected(state)[0].exact == Card(13, "C")
    assert refusal(G, state, trick(["AC", low + "D", low + "H"])) == (
        "seat 0's next card is the KC, not the AC: captured cards come back in the order they were played."
    )


@pytest.mark.parametrize("deck", [36, 32])
@pytest.mark.parametrize("all_aces", [True, False])
def test_e2_all_aces_on_a_short_deck(deck: int, all_aces: bool) -> None:
    """E2: the four aces are every ace in play in every deck; a player holding them all after a
    trick wins at once (off: play on)."""
    state = position([["AS", "AD", "AH"], ["AC", "QC", "JC"], ["JD", "10D"], ["KH", "QH", "JH"]],
                     suits=["S", "C", "D", "H"], fill=2, deck=deck, all_aces=all_aces)
    state = G.apply(state, trick(["AS", "AC", "JD", "KH"], ["AD", "QC", "10D", "QH"]))
    view = G.view(state)
    assert view["last"]["taker"] == 0
    if all_aces:
        assert view["ending"] == "all_aces"
        assert G.outcome(state) is not None and G.outcome(state).winners == (0,)  # type: ignore[union-attr]
    else:
        assert view["ending"] is None and view["turn"] == 0


# -- E3: a proven cycle on the 36-card deck ------------------------------------------------------------

# As in test_elgeta.py's cycle, with the 36-card deck's 26 cards besides seat 1's ace: seat 0 leads
# the low card of a pair, the ace takes it; seat 1 leads it back and seat 0's higher card takes it.
PAIRS_36 = [("6", "7")] * 3 + [("8", "9")] * 3 + [("10", "J")] * 3 + [("Q", "K")] * 2 + [("Q", "A"), ("K", "A")]


def cycle_position_36() -> ElgetaState:
    seen: Counter[str] = Counter()
    cards = []
    for low, high in PAIRS_36:
        for rank in (low, high):
            cards.append(rank + ("SC" if rank == "A" else "SCD")[seen[rank]])
            seen[rank] += 1
    return position([cards, ["AD"], []], suits=["S", "C", "D"], fill=0, deck=36, out_at=[None, None, 12])


def test_e3_a_cycle_is_proven_on_the_36_card_deck_and_recurs_through_the_referee() -> None:
    start = cycle_position_36()
    forecast = G.forecast(start)
    assert forecast is not None
    assert (forecast.ending, forecast.cycle, forecast.placements) == (Ending.CYCLE, Cycle(26, 0), (1, 1, 3))
    state = start
    for _ in range(26):
        order = [state.leader, 1 - state.leader]
        state = G.apply(state, trick([G.expected(state)[seat].exact.text for seat in order]))  # type: ignore[union-attr]
    assert (state.piles, state.leader) == (start.piles, start.leader)
    finished = G.apply(state, {"type": "finish"})
    assert G.outcome(finished) is not None and G.outcome(finished).points == (0, 0, 0)  # type: ignore[union-attr]


# -- random whole deals on every deck -----------------------------------------------------------------


@pytest.mark.parametrize("deck", [52, 36, 32])
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(6))
def test_random_whole_deals_conserve_the_deck_and_end_or_cycle(deck: int, players: int, seed: int) -> None:
    """Random legal deals of every deck, played physically (playout_elgeta.py), through the referee:
    exactly the deck's cards of the suits in play are held at every step (none lost, none added, none
    from outside the deck), snapshots round-trip, and every deal ends, or is closed with ``finish``
    once the referee has its rest (a win or a proven cycle)."""
    rng = random.Random(1000 * deck + 10 * players + seed)
    options = {"deck": deck, "strict_order": seed % 3 != 2, "all_aces": seed % 2 == 0}
    kwargs, entries = random_deal(rng, players, options, max_tricks=2500, finish_early=False)
    state = G.new_deal(**kwargs)
    dealt = held(state)
    assert sum(dealt.values()) == PER_SUIT[deck] * (4 if players == 4 else 3 if players == 3 else 4)
    assert all(card.rank >= DECKS[deck] and count == 1 for card, count in dealt.items())
    for entry in entries:
        state = G.apply(state, entry)
        assert held(state) == dealt
    assert G.from_dict(json.loads(json.dumps(G.to_dict(state)))) == state
    if options["strict_order"]:
        assert G.outcome(state) is not None
        if entries[-1]["type"] == "finish":
            assert state.result is not None and state.result.by_finish
    elif len(entries) < 2500:
        assert G.outcome(state) is not None


@pytest.mark.parametrize("deck", [36, 32])
@pytest.mark.parametrize("seed", range(8))
def test_the_forecast_on_a_short_deck_is_what_play_gives(deck: int, seed: int) -> None:
    """Once every player still in has played through their own pile, the forecast (ending, winner,
    further tricks, placements) is what playing the deal out through the referee gives."""
    rng = random.Random(seed)
    players = 2 + seed % 3
    kwargs, entries = random_deal(rng, players, {"deck": deck}, finish_early=False)
    state = G.new_deal(**kwargs)
    forecast, left = None, 0
    for index, entry in enumerate(entries):
        state = G.apply(state, entry)
        if forecast is None and G.forecast(state) is not None:
            forecast, left = G.forecast(state), len(entries) - index - 1
    outcome = G.outcome(state)
    assert outcome is not None
    if forecast is None:
        return  # the deal ended before every pile was played through
    assert forecast.settled and outcome.placements == forecast.placements and outcome.winners == forecast.winners
    if entries[-1]["type"] == "finish":
        assert forecast.ending is Ending.CYCLE
    else:
        assert forecast.tricks == left and state.result is not None and state.result.ending is forecast.ending


def test_some_short_deck_forecasts_were_checked() -> None:
    """The forecast test above is not empty: on these seeds most deals reach a forecast."""
    reached = 0
    for deck in (36, 32):
        for seed in range(8):
            kwargs, entries = random_deal(random.Random(seed), 2 + seed % 3, {"deck": deck}, finish_early=False)
            state = G.new_deal(**kwargs)
            for entry in entries:
                state = G.apply(state, entry)
                if G.forecast(state) is not None:
                    reached += 1
                    break
    assert reached >= 8


# -- suits by lot ----------------------------------------------------------------------------------------

#: Every deal of the suits the seed allows, by players: 4, an order of the four suits; 3, three of
#: them in some order; 2, which seat gets the reds.
POSSIBLE = {4: 24, 3: 24, 2: 2}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_suits_by_lot_reach_every_deal_evenly(players: int) -> None:
    """"Galima tai nustatyti ir burtų keliu": the draw reaches every possible deal of the suits, each
    about equally often (a chi-square far below its 0.1% bound), and the engine accepts each."""
    rng = random.Random(20261205)
    draws = 600 * POSSIBLE[players]
    counts = Counter(draw_suits(players, rng) for _ in range(draws))
    assert len(counts) == POSSIBLE[players]
    expected = draws / POSSIBLE[players]
    assert all(0.85 * expected < count < 1.15 * expected for count in counts.values())
    chi_square = sum((count - expected) ** 2 / expected for count in counts.values())
    assert chi_square < {2: 10.83, 3: 49.73, 4: 49.73}[players]
    for suits in counts:
        assert G.new_deal(players=players, dealer=0, options={"suits": list(suits)}).options.suits == suits
    if players == 2:
        assert set(counts) == {("HD", "SC"), ("SC", "HD")}


def test_a_draw_is_written_like_the_option() -> None:
    drawn = G.draw_by_lot("suits", 3, random.Random(1))
    assert isinstance(drawn, list) and len(drawn) == 3 and len(set(drawn)) == 3
    assert G.new_deal(players=3, dealer=0, options={"suits": drawn}).options.suits == tuple(drawn)


def test_a_draw_is_refused_for_other_counts_and_other_rules() -> None:
    with pytest.raises(InvalidSetup) as caught:
        draw_suits(5, random.Random(1))
    assert str(caught.value) == "Suits are drawn for 2 to 4 players, not 5."
    with pytest.raises(InvalidSetup) as caught:
        G.draw_by_lot("all_aces", 4, random.Random(1))
    assert str(caught.value) == "Option all_aces of Elgeta is chosen, not drawn by lot."
    assert [rule.key for rule in G.house_rules if rule.by_lot] == ["suits"]
