"""The rules engine under fuzzing, all five games through the one interface.

Each game already has its own junk tests; this file drives every game the same way the
service does, so a game that lands later is held to the same bar without anyone writing a
new test: at a random point of a random *legal* deal (the playout simulators in
``tests/rules/playout_<slug>.py``), hand ``apply`` either hypothesis junk (any JSON shape,
wrong types, huge numbers, odd card texts) or a legal entry with one thing changed
anywhere inside it. Then:

* the only exception allowed is ``IllegalEntry``, and its message renders the way the
  service renders it (players' names, translated template, either notation);
* a refused entry changes nothing: the state's snapshot is byte-identical afterwards and
  the rest of the legal deal still plays out to the same final snapshot;
* an accepted mutant (changing a seat number can be legal) gives a sound state: JSON-safe
  snapshot and view that round-trip, and the input state still untouched;
* ``new_deal`` with junk options raises only ``InvalidSetup``.
"""

from __future__ import annotations

import importlib
import json
import os
import random
from types import ModuleType
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import GAMES, IllegalEntry, InvalidSetup

SLUGS = sorted(GAMES)
NAMES = ["Ona", "Jonas", "Rūta", "Petras", "Asta", "Tomas", "Eglė", "Marius"]
#: The examples per game: CI (.ci/run sets FUZZ_BUDGET=full) tries the full budget; a plain
#: ``make test`` a third as many (derandomized too: the same examples every run), so that the fuzzer
#: is not a third of a newcomer's wait for the rules' tests.
FULL_BUDGET = os.environ.get("FUZZ_BUDGET") == "full"


def examples(full: int) -> int:
    return full if FULL_BUDGET else max(10, full // 3)


BUDGET = settings(
    max_examples=examples(120), deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)


def playout(slug: str) -> ModuleType:
    """The game's random legal deal simulator (every game has one: a missing one fails here)."""
    return importlib.import_module(f"tests.rules.playout_{slug}")


def legal_options(slug: str, rng: random.Random, players: int) -> dict[str, Any]:
    """Valid house rules for the game (the simulators understand all of them)."""
    notation = rng.choice(["en", "lt"])
    if slug == "rukas":
        return {
            "notation": notation,
            "seven_after_ace": rng.choice(["seven_takes", "next_highest"]),
            "void_trick": rng.choice(["void", "carry"]),
        }
    if slug == "cheat":
        return {"notation": notation, "jokers": rng.choice([0, 2, 4])}
    if slug == "michigan":
        return {"notation": notation, "live": rng.random() < 0.5}
    if slug == "elgeta":
        module = playout(slug)
        maker = getattr(module, "random_options", None)
        return dict(maker(rng, players)) if maker else {"notation": notation}
    return {"notation": notation}


def random_legal_deal(slug: str, seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    rng = random.Random(seed)
    game = GAMES[slug]
    high = min(game.max_players, 4) if slug == "elgeta" else game.max_players
    players = rng.randint(game.min_players, high)
    kwargs, entries = playout(slug).random_deal(rng, players, legal_options(slug, rng, players))
    return kwargs, list(entries)


# -- junk ------------------------------------------------------------------------------------

FIELDS = ["type", "cards", "rounds", "card", "player", "challenger", "revealed", "condition", "hand_counts"]
TYPES = ["trick", "end", "finish", "exchange", "prize", "misplay", "out", "play", "place", "challenge",
         "stands", "Trick", "TRICK", " trick", ""]
CARD_TEXTS = [
    "A", "10", "T", "X", "x", "joker", "QD", "D", "Q♦", "♦Q", "D būgnai", "D vynai", "T vyn", "9H", "1", "0",
    "11", "15", "", " ", "ZZ", "♠", "♠♠", "10HH", "AS AS", "Ｑ", "q", "7", "K", "V", "J", "\u0000", "10" * 40,
    "empty_hand", "last_card", "blocked",
]
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=12),
    st.integers(),
    st.integers(min_value=2**63, max_value=2**300),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.sampled_from(CARD_TEXTS),
    st.sampled_from(TYPES),
)
JUNK = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=9),
        st.dictionaries(st.one_of(st.sampled_from(FIELDS), st.text(max_size=6)), inner, max_size=5),
    ),
    max_leaves=14,
)
JUNK_ENTRIES = st.one_of(
    JUNK,
    st.fixed_dictionaries({"type": st.sampled_from(TYPES)}, optional={field: JUNK for field in FIELDS[1:]}),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every position inside a JSON value (the value itself is the empty path)."""
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


def _parent(root: Any, path: tuple[Any, ...]) -> Any:
    for step in path[:-1]:
        root = root[step]
    return root


@st.composite
def mutated(draw: st.DrawFn, entry: dict[str, Any]) -> Any:
    """A legal entry with one thing changed anywhere inside it: replaced by junk or by a near
    miss, dropped, duplicated, or a field added. Some mutants are still legal, and that is fine."""
    root: Any = json.loads(json.dumps(entry))
    path = draw(st.sampled_from(_paths(root)[1:] or [()]))
    action = draw(st.sampled_from(["junk", "near", "drop", "duplicate", "add", "type"]))
    near = st.one_of(st.integers(-2, 10), st.sampled_from(CARD_TEXTS), st.booleans(), st.none())
    if action == "type":
        root["type"] = draw(st.sampled_from(TYPES))
    elif action == "add" or not path:
        target = draw(st.sampled_from(_paths(root)))
        holder = _parent(root, target)[target[-1]] if target else root
        if isinstance(holder, list):
            holder.insert(draw(st.integers(0, len(holder))), draw(near | JUNK))
        elif isinstance(holder, dict):
            holder[draw(st.sampled_from([*FIELDS, "extra"]))] = draw(near | JUNK)
        else:
            root["extra"] = draw(JUNK)
    else:
        parent, key = _parent(root, path), path[-1]
        if action == "junk":
            parent[key] = draw(JUNK)
        elif action == "near":
            parent[key] = draw(near)
        elif action == "drop":
            del parent[key]
        elif isinstance(parent, list):
            parent.insert(key, parent[key])
        else:
            parent[key] = [parent[key], parent[key]]
    return root


# -- checks ----------------------------------------------------------------------------------


def snapshot(slug: str, state: Any) -> str:
    return json.dumps(GAMES[slug].to_dict(state), sort_keys=True)


def assert_refused_or_sound(slug: str, state: Any, entry: object) -> bool:
    """Apply one entry; True if it was refused. Refused: IllegalEntry only, state untouched, a
    message that renders as the service renders it. Accepted: a sound new state."""
    game = GAMES[slug]
    before = snapshot(slug, state)
    try:
        new_state = game.apply(state, entry)
    except IllegalEntry as error:
        players, _dealer = game.seats(state)
        for notation in ("en", "lt"):
            message = error.render(names=NAMES[:players], translate=lambda text: text, notation=notation)
            assert isinstance(message, str) and message.strip()
            assert "{" not in message or "{" in repr(entry), message  # no unfilled template field
        assert snapshot(slug, state) == before
        return True
    assert snapshot(slug, state) == before, "apply mutated its input state"
    data = game.to_dict(new_state)
    text = json.dumps(data, allow_nan=False)
    assert game.to_dict(game.from_dict(json.loads(text))) == data
    json.dumps(game.view(new_state), allow_nan=False)
    game.outcome(new_state)
    return False


def play(slug: str, kwargs: dict[str, Any], entries: list[dict[str, Any]]) -> list[Any]:
    game = GAMES[slug]
    states = [game.new_deal(**kwargs)]
    for entry in entries:
        states.append(game.apply(states[-1], entry))
    return states


@pytest.mark.parametrize("slug", SLUGS)
def test_every_game_has_a_playout_and_its_deals_are_legal(slug: str) -> None:
    """The fuzzing below starts from legal deals: the simulator's deals must play to the end."""
    for seed in range(5):
        kwargs, entries = random_legal_deal(slug, seed)
        final = play(slug, kwargs, entries)[-1]
        assert GAMES[slug].outcome(final) is not None


@pytest.mark.parametrize("slug", SLUGS)
@BUDGET
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_junk_at_a_random_point_only_raises_illegal_entry(slug: str, seed: int, data: st.DataObject) -> None:
    """Any junk, at any point of a legal deal (also after it ended): IllegalEntry, nothing changed."""
    kwargs, entries = random_legal_deal(slug, seed)
    states = play(slug, kwargs, entries)
    at = data.draw(st.integers(0, len(entries)), label="at")
    junk = data.draw(JUNK_ENTRIES, label="junk")
    assert_refused_or_sound(slug, states[at], junk)


@pytest.mark.parametrize("slug", SLUGS)
@BUDGET
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_mutated_legal_entries_are_refused_cleanly_or_sound(slug: str, seed: int, data: st.DataObject) -> None:
    """A legal entry with one thing changed: refused with IllegalEntry and nothing changed, or a sound state."""
    kwargs, entries = random_legal_deal(slug, seed)
    states = play(slug, kwargs, entries)
    at = data.draw(st.integers(0, len(entries) - 1), label="at")
    assert_refused_or_sound(slug, states[at], data.draw(mutated(entries[at]), label="mutant"))


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=examples(30), deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), data=st.data())
def test_refused_entries_leave_no_trace_in_the_rest_of_the_deal(slug: str, seed: int, data: st.DataObject) -> None:
    """Junk sprinkled through a whole legal deal, each refused, ends in exactly the deal without it."""
    kwargs, entries = random_legal_deal(slug, seed)
    game = GAMES[slug]
    expected = snapshot(slug, play(slug, kwargs, entries)[-1])
    rng = random.Random(seed)
    # A dozen points of the deal (Cheat deals run to hundreds of entries), the end included.
    points = set(rng.sample(range(len(entries) + 1), min(12, len(entries) + 1)))
    state = game.new_deal(**kwargs)
    for index, entry in enumerate([*entries, None]):
        if index in points:
            for _ in range(rng.randint(1, 3)):
                bad = data.draw(st.one_of(JUNK_ENTRIES, mutated(entry)) if entry else JUNK_ENTRIES)
                try:
                    game.apply(state, bad)
                except IllegalEntry:
                    continue
        if entry is not None:
            state = game.apply(state, entry)
    assert snapshot(slug, state) == expected


OPTION_KEYS = ["notation", "seven_after_ace", "void_trick", "jokers", "prizes", "ante", "dealer_ante",
               "misplay_penalty", "live", "pot", "suits", "all_aces", "strict_order"]


@pytest.mark.parametrize("slug", SLUGS)
@settings(max_examples=examples(150), deadline=None, derandomize=True)
@given(
    players=st.one_of(st.integers(-2, 10), SCALARS),
    dealer=st.one_of(st.integers(-2, 10), SCALARS),
    options=st.one_of(st.none(), st.dictionaries(st.sampled_from([*OPTION_KEYS, "extra"]), JUNK, max_size=4)),
)
def test_new_deal_with_junk_raises_only_invalid_setup(slug: str, players: Any, dealer: Any, options: Any) -> None:
    """Junk player counts, dealers and house rules: InvalidSetup (an IllegalEntry), or a sound deal."""
    playout(slug)  # the game has landed
    game = GAMES[slug]
    try:
        state = game.new_deal(players=players, dealer=dealer, options=options)
    except InvalidSetup as error:
        assert error.render(translate=lambda text: text).strip()
        return
    assert isinstance(players, int) and game.min_players <= players <= game.max_players
    data = game.to_dict(state)
    assert game.to_dict(game.from_dict(json.loads(json.dumps(data, allow_nan=False)))) == data
    json.dumps(game.view(state), allow_nan=False)
