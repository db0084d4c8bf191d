"""Rūkas property tests over random full deals of every player count (see playout_rukas)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import GAMES, IllegalEntry

from .playout_rukas import expected_points, random_deal, random_options

GAME = GAMES["rukas"]

seeds = st.integers(min_value=0, max_value=2**32 - 1)
player_counts = st.integers(min_value=2, max_value=8)


def run(kwargs: dict[str, Any], entries: list[dict[str, Any]]) -> list[Any]:
    """Every state of the deal, from new_deal to the last entry."""
    states = [GAME.new_deal(**kwargs)]
    for entry in entries:
        states.append(GAME.apply(states[-1], entry))
    return states


@settings(max_examples=120, deadline=None)
@given(seed=seeds, players=player_counts)
def test_full_deal_properties(seed: int, players: int) -> None:
    """A random legal deal: ranks conserved, points as RULES.md says, snapshots round-trip, oracle agrees."""
    rng = random.Random(seed)
    options = random_options(rng)
    kwargs, entries = random_deal(rng, players, options)
    states = run(kwargs, entries)
    for state in states:
        data = GAME.to_dict(state)
        assert GAME.from_dict(data) == state
        assert GAME.from_dict(json.loads(json.dumps(data))) == state
        json.dumps(GAME.view(state))
    final = states[-1]
    view = GAME.view(final)
    outcome = GAME.outcome(final)
    assert outcome is not None and view["finished"]
    assert all(GAME.outcome(state) is None for state in states[:-1])
    # Every seat played each of the 13 ranks exactly once.
    assert view["played"] == [["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]] * players
    if options["void_trick"] == "void":
        assert sum(outcome.points) == 13 - view["void_tricks"]
        assert view["lost"] == 0
    else:
        assert sum(outcome.points) == 13 - view["lost"]
    points, voids, lost = expected_points(kwargs, entries)
    assert list(outcome.points) == points
    assert (view["void_tricks"], view["lost"]) == (voids, lost)
    assert all(place == 1 for place, p in zip(outcome.placements, outcome.points) if p == max(outcome.points))
    # The same entries give the same outcome.
    assert GAME.outcome(run(kwargs, entries)[-1]) == outcome


@settings(max_examples=40, deadline=None)
@given(seed=seeds, players=player_counts)
def test_snapshot_resume_gives_the_same_result(seed: int, players: int) -> None:
    """Resuming from a JSON snapshot mid-deal ends in the same state."""
    rng = random.Random(seed)
    kwargs, entries = random_deal(rng, players, random_options(rng))
    cut = rng.randrange(len(entries) + 1)
    state = GAME.new_deal(**kwargs)
    for entry in entries[:cut]:
        state = GAME.apply(state, entry)
    state = GAME.from_dict(json.loads(json.dumps(GAME.to_dict(state))))
    for entry in entries[cut:]:
        state = GAME.apply(state, entry)
    assert GAME.to_dict(state) == GAME.to_dict(run(kwargs, entries)[-1])


json_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**20), st.floats(allow_nan=True),
    st.text(max_size=6), st.sampled_from(["", "X", "D", "T", "10H", "♠", "Z", "7", "A", "trick", "cards", "QS"]),
)
junk = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=9), st.dictionaries(st.one_of(st.text(max_size=6), st.sampled_from(["type", "cards"])),
                                                     inner, max_size=4),
    ),
    max_leaves=12,
)
junk_entries = st.one_of(
    junk,
    st.fixed_dictionaries({"type": st.just("trick"), "cards": junk}),
    st.fixed_dictionaries({"type": st.just("trick"), "cards": st.lists(json_scalars, min_size=2, max_size=8)}),
    st.fixed_dictionaries({"type": st.just("trick")}, optional={"cards": junk, "player": junk, "extra": junk}),
    st.fixed_dictionaries({"type": junk, "cards": st.lists(st.sampled_from(["2", "7", "A"]), max_size=8)}),
)


def mutate(rng: random.Random, entry: dict[str, Any], filler: object) -> object:
    """A legal entry with one thing wrong (or, sometimes, still legal)."""
    entry = copy.deepcopy(entry)
    cards = entry["cards"]
    choice = rng.randrange(7)
    if choice == 0:
        cards.pop(rng.randrange(len(cards)))
    elif choice == 1:
        cards.insert(rng.randrange(len(cards) + 1), rng.choice(cards))
    elif choice == 2:
        cards[rng.randrange(len(cards))] = filler
    elif choice == 3:
        entry[rng.choice(["type", "cards", "card", "player"])] = filler
    elif choice == 4:
        del entry[rng.choice(["type", "cards"])]
    elif choice == 5:
        rng.shuffle(cards)
    else:
        cards[rng.randrange(len(cards))] = rng.choice(["2", "5", "9", "K", "A", "T", "V", "D", "J", "Q"])
    return entry


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, players=player_counts, bad=junk_entries, filler=junk)
def test_junk_only_raises_illegal_entry(seed: int, players: int, bad: object, filler: object) -> None:
    """Hypothesis junk and mutated legal entries only raise IllegalEntry and never change the state."""
    rng = random.Random(seed)
    kwargs, entries = random_deal(rng, players, random_options(rng))
    cut = rng.randrange(len(entries) + 1)
    state = GAME.new_deal(**kwargs)
    for entry in entries[:cut]:
        state = GAME.apply(state, entry)
    before = GAME.to_dict(state)
    candidates = [bad]
    if cut < len(entries):
        candidates.append(mutate(rng, entries[cut], filler))
    for candidate in candidates:
        try:
            GAME.apply(state, candidate)
        except IllegalEntry as err:
            assert str(err)
        assert GAME.to_dict(state) == before
