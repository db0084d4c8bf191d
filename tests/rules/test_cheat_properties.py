"""Cheat: properties over random full deals (playout_cheat simulates a shuffled deck)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rules import GAMES, IllegalEntry
from referee.rules.cheat import CheatState

from .playout_cheat import MAX_ENTRIES, random_deal

GAME = GAMES["cheat"]

deals = st.tuples(
    st.integers(min_value=0, max_value=2**32),
    st.integers(min_value=2, max_value=8),
    st.sampled_from([0, 2, 4]),
    st.sampled_from(["en", "lt"]),
)


def simulate(params: tuple[int, int, int, str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    seed, players, jokers, notation = params
    return random_deal(random.Random(seed), players, {"jokers": jokers, "notation": notation})


def states(kwargs: dict[str, Any], entries: list[dict[str, Any]]) -> list[CheatState]:
    """Every state of the deal, from the new deal to the last entry."""
    state = GAME.new_deal(**kwargs)
    result = [state]
    for entry in entries:
        state = GAME.apply(state, entry)
        result.append(state)
    return result


def snapshot(state: CheatState) -> str:
    return json.dumps(GAME.to_dict(state), sort_keys=True)


@settings(max_examples=60, deadline=None)
@given(deals)
def test_random_deals_conserve_cards_and_end_with_exactly_one_loser(params: tuple[int, int, int, str]) -> None:
    """Every simulated entry is accepted; hands plus pile always hold the whole deck; one loser deals next."""
    kwargs, entries = simulate(params)
    assert len(entries) < MAX_ENTRIES
    players = kwargs["players"]
    all_states = states(kwargs, entries)
    for state in all_states:
        view = GAME.view(state)
        assert sum(view["counts"]) + view["pile"] == view["deck"]
        assert all(count >= 0 for count in view["counts"])
        assert len(set(view["out"])) == len(view["out"])
        assert all(view["counts"][seat] == 0 for seat in view["out"])
        if not view["finished"]:
            assert view["counts"][view["turn"]] > 0
    final = all_states[-1]
    outcome = GAME.outcome(final)
    assert outcome is not None
    assert sorted(outcome.points) == [-1] + [0] * (players - 1)
    assert sorted(outcome.placements) == list(range(1, players + 1))
    loser = outcome.points.index(-1)
    assert outcome.placements[loser] == players
    assert GAME.view(final)["loser"] == loser == GAME.next_dealer(final)
    assert GAME.view(final)["counts"][loser] > 0
    assert all(GAME.outcome(state) is None for state in all_states[:-1])


@settings(max_examples=30, deadline=None)
@given(deals)
def test_snapshots_round_trip_at_every_step(params: tuple[int, int, int, str]) -> None:
    """from_dict(to_dict(s)) == s at every step, also through JSON; the view is JSON too; the snapshot stays small."""
    for state in states(*simulate(params)):
        data = GAME.to_dict(state)
        text = json.dumps(data)
        assert GAME.from_dict(json.loads(text)) == state
        assert GAME.from_dict(data) == state
        assert json.loads(json.dumps(GAME.view(state))) == GAME.view(state)
        # The snapshot must not grow with the number of entries (apply never replays history).
        assert len(text) < 4000


@settings(max_examples=20, deadline=None)
@given(deals)
def test_the_same_entries_give_the_same_deal(params: tuple[int, int, int, str]) -> None:
    """The deal is a pure function of (players, options, entries); apply never mutates its input."""
    kwargs, entries = simulate(params)
    first = states(kwargs, entries)
    second = states(kwargs, entries)
    assert first == second
    assert GAME.outcome(first[-1]) == GAME.outcome(second[-1])
    for before, entry, after in zip(first, entries, first[1:]):
        frozen = snapshot(before)
        assert GAME.apply(before, entry) == after
        assert snapshot(before) == frozen


# -- junk -----------------------------------------------------------------------------------------

CARD_TEXTS = ["A", "10", "T", "X", "x", "joker", "QD", "D", "Q♦", "♦Q", "D būgnai", "9H", "1", "", " ", "11", "ZZ", "♠"]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=10),
    st.integers(),
    st.integers(min_value=2**63, max_value=2**200),
    st.floats(allow_nan=True),
    st.text(max_size=6),
    st.sampled_from(CARD_TEXTS),
)
junk = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=6,
)
junk_entries = st.one_of(
    junk,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["place", "challenge", "stands"]) | junk},
        optional={"player": junk, "challenger": junk, "revealed": junk, "card": junk},
    ),
)


@st.composite
def mutated(draw: st.DrawFn, entry: dict[str, Any]) -> dict[str, Any]:
    """A legal entry with one field changed, dropped, or added."""
    changed = dict(entry)
    key = draw(st.sampled_from(["type", "player", "challenger", "revealed", "extra"]))
    action = draw(st.sampled_from(["set", "drop"]))
    if action == "drop" and key in changed:
        del changed[key]
    elif key == "type":
        changed["type"] = draw(st.sampled_from(["place", "challenge", "stands", "Place", "pass"]))
    elif key == "revealed":
        changed["revealed"] = draw(st.sampled_from(CARD_TEXTS) | junk)
    elif key in ("player", "challenger"):
        changed[key] = draw(st.integers(min_value=-2, max_value=9) | junk)
    else:
        changed["extra"] = draw(junk)
    return changed


def check_refused_or_sound(state: CheatState, entry: object) -> None:
    """Only IllegalEntry may come out, and the input state is never changed."""
    before = snapshot(state)
    try:
        after = GAME.apply(state, entry)
    except IllegalEntry:
        pass
    else:
        view = GAME.view(after)
        assert sum(view["counts"]) + view["pile"] == view["deck"]
        assert GAME.from_dict(json.loads(json.dumps(GAME.to_dict(after)))) == after
    assert snapshot(state) == before


@settings(max_examples=100, deadline=None)
@given(deals, st.data())
def test_junk_entries_are_refused_cleanly(params: tuple[int, int, int, str], data: st.DataObject) -> None:
    """Wrong types, None, huge numbers, bad cards, nested junk: IllegalEntry only, the state untouched."""
    kwargs, entries = simulate(params)
    all_states = states(kwargs, entries)
    step = data.draw(st.integers(min_value=0, max_value=len(all_states) - 1))
    check_refused_or_sound(all_states[step], data.draw(junk_entries))


@settings(max_examples=100, deadline=None)
@given(deals, st.data())
def test_mutated_legal_entries_are_refused_or_accepted_cleanly(
    params: tuple[int, int, int, str], data: st.DataObject
) -> None:
    """A legal entry with one field changed is either refused with IllegalEntry or accepted soundly."""
    kwargs, entries = simulate(params)
    all_states = states(kwargs, entries)
    step = data.draw(st.integers(min_value=0, max_value=len(entries) - 1))
    check_refused_or_sound(all_states[step], data.draw(mutated(entries[step])))
