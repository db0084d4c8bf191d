"""Pašėlęs Velnias property tests: simulated races and arbitrary endings for every player count."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import GAMES, IllegalEntry

from .playout_velnias import random_deal

GAME = GAMES["velnias"]

seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.integers(min_value=3, max_value=8)


def oracle_points(condition: str, player: int | None, counts: list[int]) -> list[int]:
    """Scoring written pair by pair: what each other player settles with the caller or the winners."""
    n = len(counts)
    net = [0] * n
    for seat in range(n):
        if condition == "empty_hand" and seat != player:
            assert player is not None
            net[seat] -= counts[seat]
            net[player] += counts[seat]
        elif condition == "last_card" and seat != player:
            assert player is not None
            owed = 10 - max(0, counts[player] - counts[seat])
            net[seat] -= owed
            net[player] += owed
        elif condition == "blocked":
            for winner in range(n):
                if counts[winner] == min(counts) and counts[seat] > counts[winner]:
                    net[seat] -= counts[seat] - counts[winner]
                    net[winner] += counts[seat] - counts[winner]
    return net


def valid(condition: str, player: int | None, counts: list[int]) -> bool:
    """RULES.md's validation of an end entry, stated directly."""
    hand = 35 // len(counts)
    if (player is None) != (condition == "blocked"):
        return False
    return all(
        (c == 0) if (condition == "empty_hand" and seat == player) else 1 <= c <= hand
        for seat, c in enumerate(counts)
    )


@settings(max_examples=150, deadline=None)
@given(seed=seeds, players=player_counts)
def test_simulated_races(seed: int, players: int) -> None:
    """A simulated race: its ending is accepted, scored zero-sum as the oracle says, and snapshots round-trip."""
    kwargs, entries = random_deal(random.Random(seed), players)
    state = GAME.new_deal(**kwargs)
    states = [state]
    for entry in entries:
        assert valid(entry["condition"], entry["player"], entry["hand_counts"])
        state = GAME.apply(state, entry)
        states.append(state)
    for each in states:
        data = GAME.to_dict(each)
        assert GAME.from_dict(json.loads(json.dumps(data))) == each
        json.dumps(GAME.view(each))
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert sum(outcome.points) == 0
    (entry,) = entries
    assert list(outcome.points) == oracle_points(entry["condition"], entry["player"], entry["hand_counts"])
    again = GAME.apply(GAME.new_deal(**kwargs), entries[0])
    assert GAME.outcome(again) == outcome


@settings(max_examples=400, deadline=None)
@given(data=st.data(), players=player_counts)
def test_arbitrary_endings(data: st.DataObject, players: int) -> None:
    """Any ending: accepted exactly when RULES.md's counts validation holds; then zero-sum and as the oracle."""
    hand = 35 // players
    condition = data.draw(st.sampled_from(["empty_hand", "last_card", "blocked"]))
    player = data.draw(st.one_of(st.none(), st.integers(0, players - 1)))
    # Mostly plausible counts, sometimes one out of range.
    counts = data.draw(st.lists(st.integers(1, hand), min_size=players, max_size=players))
    if player is not None and condition == "empty_hand" and data.draw(st.booleans()):
        counts[player] = 0
    if data.draw(st.booleans()):
        counts[data.draw(st.integers(0, players - 1))] = data.draw(st.integers(-2, hand + 2))
    state = GAME.new_deal(players=players, dealer=data.draw(st.integers(0, players - 1)))
    entry = {"type": "end", "condition": condition, "player": player, "hand_counts": counts}
    before = GAME.to_dict(state)
    try:
        after = GAME.apply(state, entry)
    except IllegalEntry:
        assert not valid(condition, player, counts)
        assert GAME.to_dict(state) == before
        return
    assert valid(condition, player, counts)
    outcome = GAME.outcome(after)
    assert outcome is not None
    assert sum(outcome.points) == 0
    assert list(outcome.points) == oracle_points(condition, player, counts)
    assert GAME.from_dict(json.loads(json.dumps(GAME.to_dict(after)))) == after


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**20), st.floats(allow_nan=True),
    st.text(max_size=6), st.sampled_from(["", "end", "blocked", "empty_hand", "last_card", "player"]),
)
junk = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=9),
        st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(["type", "condition", "player"])), inner,
                        max_size=4),
    ),
    max_leaves=12,
)
junk_entries = st.one_of(
    junk,
    st.fixed_dictionaries({"type": st.just("end"), "condition": junk, "player": junk, "hand_counts": junk}),
    st.fixed_dictionaries(
        {"type": st.just("end"), "condition": st.sampled_from(["empty_hand", "last_card", "blocked"]),
         "player": st.one_of(st.none(), st.integers(-1, 9)), "hand_counts": st.lists(json_scalars, max_size=9)}
    ),
    st.fixed_dictionaries({"type": st.just("end")}, optional={"condition": junk, "player": junk, "extra": junk}),
)


def mutate(rng: random.Random, entry: dict[str, Any], filler: object) -> dict[str, Any]:
    """A legal ending with one thing changed (which may or may not leave it legal)."""
    entry = copy.deepcopy(entry)
    counts = entry["hand_counts"]
    choice = rng.randrange(6)
    if choice == 0:
        counts[rng.randrange(len(counts))] = filler
    elif choice == 1:
        counts.append(rng.randint(0, 3))
    elif choice == 2:
        entry[rng.choice(["type", "condition", "player", "hand_counts", "extra"])] = filler
    elif choice == 3:
        del entry[rng.choice(["type", "condition", "player", "hand_counts"])]
    elif choice == 4:
        entry["condition"] = rng.choice(["empty_hand", "last_card", "blocked"])
    else:
        counts[rng.randrange(len(counts))] += rng.choice([-2, -1, 1, 5, 40])
    return entry


@settings(max_examples=150, deadline=None)
@given(seed=seeds, players=player_counts, bad=junk_entries, filler=junk, finished=st.booleans())
def test_junk_only_raises_illegal_entry(seed: int, players: int, bad: object, filler: object, finished: bool) -> None:
    """Hypothesis junk and mutated endings only raise IllegalEntry and never change the state."""
    rng = random.Random(seed)
    kwargs, entries = random_deal(rng, players)
    state = GAME.new_deal(**kwargs)
    if finished:
        state = GAME.apply(state, entries[0])
    before = GAME.to_dict(state)
    for candidate in (bad, mutate(rng, entries[0], filler)):
        try:
            GAME.apply(state, candidate)
        except IllegalEntry as err:
            assert str(err)
        assert GAME.to_dict(state) == before
