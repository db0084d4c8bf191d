"""Elgeta property tests over random full deals (see playout_elgeta.py) and junk entries."""

from __future__ import annotations

import json
import random
from functools import cache
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import GAMES, IllegalEntry
from referee.rules.elgeta import ElgetaState
from referee.rules.elgeta_forecast import Ending

from .playout_elgeta import random_deal, random_options

G = GAMES["elgeta"]

seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.sampled_from([2, 3, 4])


def dealt(state: ElgetaState) -> int:
    """The cards dealt: the deck's cards per suit (13, 9 or 8) for every suit in play."""
    per_suit = {52: 13, 36: 9, 32: 8}[state.options.deck]
    return per_suit * sum(len(held) for held in state.options.suits)


def held(state: ElgetaState) -> int:
    return sum(pile.size for pile in state.piles) + len(state.table)


def replay(kwargs: dict[str, Any], entries: list[dict[str, Any]]) -> ElgetaState:
    state = G.new_deal(**kwargs)
    for entry in entries:
        state = G.apply(state, entry)
    return state


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, players=player_counts)
def test_random_deals_conserve_cards_and_round_trip(seed: int, players: int) -> None:
    """Every card dealt is held or (after an E1 draw) on the table; snapshots round-trip through JSON
    at every step; a finished deal gives 1 point to its winner (0 to all in a draw)."""
    rng = random.Random(seed)
    kwargs, entries = random_deal(rng, players, max_tricks=300)
    state = G.new_deal(**kwargs)
    total = dealt(state)
    for entry in entries:
        state = G.apply(state, entry)
        assert held(state) == total
        data = json.loads(json.dumps(G.to_dict(state)))
        assert G.from_dict(data) == state
        json.dumps(G.view(state))
    outcome = G.outcome(state)
    if entries[-1]["type"] == "finish" or len(entries) < 300:
        assert outcome is not None
    if outcome is not None:
        assert sum(outcome.points) == (0 if state.result and state.result.winner is None else 1)
        assert min(outcome.placements) == 1
        assert all(outcome.placements[seat] == 1 for seat in outcome.winners)
        assert G.view(state)["finished"] is True


@settings(max_examples=15, deadline=None)
@given(seed=seeds, players=player_counts)
def test_same_entries_same_outcome(seed: int, players: int) -> None:
    """The deal is a pure function of (players, options, entries)."""
    kwargs, entries = random_deal(random.Random(seed), players, max_tricks=400)
    first, second = replay(kwargs, entries), replay(kwargs, entries)
    assert first == second
    assert G.to_dict(first) == G.to_dict(second)
    assert G.outcome(first) == G.outcome(second)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, players=player_counts)
def test_forecast_matches_play(seed: int, players: int) -> None:
    """Once every player still in has played through their own pile, the forecast (winner, further
    tricks, placements) is what playing the deal out through the referee gives; the stored forecast
    always equals one worked out afresh."""
    rng = random.Random(seed)
    options = random_options(rng, players)
    options["strict_order"] = True
    kwargs, entries = random_deal(rng, players, options, finish_early=False)
    state = G.new_deal(**kwargs)
    forecast = None
    left = 0
    for index, entry in enumerate(entries):
        state = G.apply(state, entry)
        if forecast is None and G.forecast(state) is not None:
            forecast = G.forecast(state)
            left = len(entries) - index - 1
        if forecast is not None and G.outcome(state) is None and index % 13 == 0:
            fresh = G.to_dict(state)
            del fresh["projection"]
            assert G.forecast(G.from_dict(fresh)) == G.forecast(state)
    outcome = G.outcome(state)
    assert outcome is not None
    if forecast is None:
        return  # the deal ended before every pile was played through
    assert forecast.settled
    assert outcome.placements == forecast.placements
    assert outcome.winners == forecast.winners
    if entries[-1]["type"] == "finish":
        assert forecast.ending is Ending.CYCLE or left - 1 < forecast.tricks
    else:
        assert forecast.tricks == left
        assert state.result is not None and state.result.ending is forecast.ending


# -- junk ----------------------------------------------------------------------------------------

card_texts = st.sampled_from(
    ["QS", "10D", "AH", "2C", "T♠", "D♠", "♥K", "X", "", " ", "1S", "11H", "QQ", "S", "D", "10", "vynai", "Dbūg",
     "A♠♠", "ZZ", "10 širdys", "\x00", "🂡"]
)
scalars = (
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2**63) | st.floats(allow_nan=True)
    | st.text(max_size=6) | card_texts
)
junk = st.recursive(
    scalars,
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=6), children, max_size=4),
    max_leaves=20,
)
junk_entries = (
    junk
    | st.fixed_dictionaries({"type": st.just("trick"), "rounds": junk})
    | st.fixed_dictionaries({"type": st.just("trick"), "rounds": st.lists(st.lists(junk, max_size=5), max_size=4)})
    | st.fixed_dictionaries({"type": st.sampled_from(["finish", "trick", "play", ""]), "extra": junk})
)


def check_refused_or_sound(state: ElgetaState, entry: object) -> None:
    before = G.to_dict(state)
    try:
        after = G.apply(state, entry)
    except IllegalEntry:
        pass
    else:
        assert held(after) == dealt(after)
    assert G.to_dict(state) == before


@cache
def _midway(seed: int, players: int) -> tuple[ElgetaState, str | None]:
    # States are immutable, so one replay serves every example drawn for this seed.
    rng = random.Random(seed)
    kwargs, entries = random_deal(rng, players, max_tricks=200)
    stop = rng.randrange(len(entries) + 1)
    state = replay(kwargs, entries[:stop])
    return state, json.dumps(entries[stop]) if stop < len(entries) else None


def state_midway(seed: int, players: int) -> tuple[ElgetaState, dict[str, Any] | None]:
    state, entry = _midway(seed, players)
    return state, None if entry is None else json.loads(entry)


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 30), players=player_counts, entry=junk_entries)
def test_junk_entries_only_raise_illegal_entry(seed: int, players: int, entry: object) -> None:
    """Any junk is refused with IllegalEntry (never another exception) and changes nothing."""
    state, _ = state_midway(seed, players)
    check_refused_or_sound(state, entry)


def mutate(entry: dict[str, Any], data: st.DataObject) -> object:
    rounds = [list(r) for r in entry.get("rounds", [])]
    kind = data.draw(st.integers(0, 7))
    if not rounds or kind == 0:
        return {**entry, data.draw(st.sampled_from(["rounds", "type", "by"])): data.draw(junk)}
    i = data.draw(st.integers(0, len(rounds) - 1))
    j = data.draw(st.integers(0, max(0, len(rounds[i]) - 1)))
    if kind == 1 and rounds[i]:
        rounds[i][j] = data.draw(card_texts | st.none() | st.integers())
    elif kind == 2 and rounds[i]:
        del rounds[i][j]
    elif kind == 3:
        rounds[i].insert(j, data.draw(card_texts | st.none()))
    elif kind == 4:
        del rounds[-1]
    elif kind == 5:
        rounds.append(list(rounds[-1]))
    elif kind == 6 and len(rounds[i]) > 1:
        k = data.draw(st.integers(0, len(rounds[i]) - 1))
        rounds[i][j], rounds[i][k] = rounds[i][k], rounds[i][j]
    else:
        rounds.append([data.draw(card_texts | st.none()) for _ in rounds[0]])
    return {**entry, "rounds": rounds}


@settings(max_examples=150, deadline=None)
@given(seed=st.integers(0, 30), players=player_counts, data=st.data())
def test_mutated_legal_entries_only_raise_illegal_entry(seed: int, players: int, data: st.DataObject) -> None:
    """A legal entry with a card changed, dropped, added, swapped or a round dropped or added is
    refused with IllegalEntry and changes nothing, or is still a legal trick."""
    state, entry = state_midway(seed, players)
    if entry is None:
        entry = {"type": "trick", "rounds": [["2S"]]}
    check_refused_or_sound(state, mutate(entry, data))
