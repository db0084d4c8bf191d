"""Mičiganas: properties over random full deals, simulated with a shuffled deck (playout_michigan)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rules import GAMES, IllegalEntry
from referee.rules.michigan import Michigan, MichiganState

from .playout_michigan import random_deal, simulate

_GAME = GAMES["michigan"]
assert isinstance(_GAME, Michigan)
GAME: Michigan = _GAME
SEEDS = st.integers(0, 2**32 - 1)
PLAYERS = st.integers(3, 8)


@st.composite
def deal_options(draw: st.DrawFn) -> dict[str, Any]:
    """Any valid options: prize suits in any order, antes, penalty, a carried-in pot, either notation."""
    suits = draw(st.permutations(["S", "C", "D", "H"]))
    prizes = [rank + suit for rank, suit in zip("AKQJ", suits)]
    chips = draw(st.lists(st.integers(0, 30), min_size=4, max_size=4))
    options: dict[str, Any] = {
        "prizes": prizes,
        "ante": draw(st.integers(0, 3)),
        "dealer_ante": draw(st.integers(0, 4)),
        "misplay_penalty": draw(st.integers(0, 3)),
        "notation": draw(st.sampled_from(["en", "lt"])),
    }
    if draw(st.booleans()):
        options["pot"] = dict(zip(prizes, chips))
    return options


def replay(kwargs: dict[str, Any], entries: list[dict[str, Any]]) -> list[MichiganState]:
    """Every state of the deal, from new_deal to the end."""
    states = [GAME.new_deal(**kwargs)]
    for entry in entries:
        states.append(GAME.apply(states[-1], entry))
    return states


def chips_on_cards(state: MichiganState) -> int:
    return sum(GAME.pot_after(state).values()) - sum(GAME.pot_before(state).values())


@settings(max_examples=150, deadline=None)
@given(seed=SEEDS, players=PLAYERS, options=deal_options())
def test_live_and_manual_agree_with_the_table(seed: int, players: int, options: dict[str, Any]) -> None:
    """The same deal recorded card by card or by prizes/misplays/out gives the same chips as the table counted."""
    sim = simulate(random.Random(seed), players, options)
    results = []
    for live in (True, False):
        entries = sim.live_entries if live else sim.manual_entries
        final = replay(sim.kwargs(live), entries)[-1]
        outcome = GAME.outcome(final)
        assert outcome is not None
        view = GAME.view(final)
        assert view["out_player"] == sim.out_player
        assert view["cards_left"] == sim.hand_counts
        results.append((outcome.points, GAME.pot_after(final), view["misplays"], view["prizes_played"]))
    assert results[0] == results[1]
    assert list(results[0][0]) == sim.net
    assert results[0][1] == sim.pot


@settings(max_examples=80, deadline=None)
@given(seed=SEEDS, players=PLAYERS, options=deal_options(), live=st.booleans())
def test_zero_sum_with_the_prize_cards(seed: int, players: int, options: dict[str, Any], live: bool) -> None:
    """At every step: sum of nets + change of chips on the prize cards == 0, and the ledger adds up to both."""
    kwargs, entries = random_deal(random.Random(seed), players, {**options, "live": live})
    for state in replay(kwargs, entries):
        view = GAME.view(state)
        assert sum(view["net"]) + chips_on_cards(state) == 0
        seats: Counter[Any] = Counter()
        for move in view["movements"]:
            assert move["chips"] > 0
            assert move["reason"] in ("ante", "prize", "misplay", "payout")
            seats[move["from"]] -= move["chips"]
            seats[move["to"]] += move["chips"]
        assert [seats[seat] for seat in range(players)] == view["net"]
        carried = GAME.pot_before(state)
        assert {card: carried[card] + seats[card] for card in carried} == view["pot"]
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert sum(outcome.points) + chips_on_cards(state) == 0


@settings(max_examples=80, deadline=None)
@given(seed=SEEDS, players=PLAYERS)
def test_cards_conserved_live(seed: int, players: int) -> None:
    """Live mode: each card is played at most once, hand counts never go negative, all 52 are accounted for."""
    sim = simulate(random.Random(seed), players)
    states = replay(sim.kwargs(True), sim.live_entries)
    plays = 0
    for entry, before, after in zip(sim.live_entries, states, states[1:]):
        view = GAME.view(after)
        left = view["cards_left"]
        assert min(left) >= 0
        assert len(view["played"]) == len(set(view["played"]))
        if entry["type"] == "play":
            plays += 1
            seat = entry["player"]
            assert left[seat] == GAME.view(before)["cards_left"][seat] - 1
        assert len(view["played"]) == plays
        assert sum(left) + view["extra_hand_size"] + plays == 52
    assert sorted(GAME.view(states[-1])["played"]) == sorted(card.text for card in sim.played)
    assert GAME.view(states[-1])["hand_sizes"] == [len(sim.hands[seat]) for seat in range(players)]


@settings(max_examples=60, deadline=None)
@given(seed=SEEDS, players=PLAYERS, options=deal_options(), live=st.booleans())
def test_snapshots_round_trip_at_every_step(seed: int, players: int, options: dict[str, Any], live: bool) -> None:
    """from_dict(to_dict(s)) == s at every step, also through JSON; the view is JSON-safe."""
    kwargs, entries = random_deal(random.Random(seed), players, {**options, "live": live})
    for state in replay(kwargs, entries):
        data = GAME.to_dict(state)
        assert GAME.from_dict(data) == state
        assert GAME.from_dict(json.loads(json.dumps(data))) == state
        assert json.loads(json.dumps(GAME.view(state))) == GAME.view(state)


@settings(max_examples=40, deadline=None)
@given(seed=SEEDS, players=PLAYERS, options=deal_options(), live=st.booleans())
def test_same_entries_same_outcome(seed: int, players: int, options: dict[str, Any], live: bool) -> None:
    """The deal is a pure function of (players, options, entries)."""
    kwargs, entries = random_deal(random.Random(seed), players, {**options, "live": live})
    again_kwargs, again_entries = random_deal(random.Random(seed), players, {**options, "live": live})
    assert (kwargs, entries) == (again_kwargs, again_entries)
    first, second = replay(kwargs, entries)[-1], replay(kwargs, entries)[-1]
    assert GAME.to_dict(first) == GAME.to_dict(second)
    assert GAME.outcome(first) == GAME.outcome(second)
    # Restarting from a snapshot midway gives the same end.
    middle = len(entries) // 2
    state = GAME.from_dict(json.loads(json.dumps(GAME.to_dict(replay(kwargs, entries[:middle])[-1]))))
    for entry in entries[middle:]:
        state = GAME.apply(state, entry)
    assert state == first


JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10**18), st.floats(allow_nan=True),
    st.text(max_size=6),
    st.sampled_from(["AS", "KC", "QD", "JH", "5D", "10H", "X", "D♠", "T vynai", "♦Q", "", "exchange", "play"]),
)
JUNK = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.one_of(st.text(max_size=8), st.sampled_from(["type", "player", "card", "hand_counts"])),
                        inner, max_size=4),
    ),
    max_leaves=8,
)
FIELDS = ["type", "player", "card", "hand_counts"]


@st.composite
def mutated(draw: st.DrawFn, entry: dict[str, Any]) -> dict[str, Any]:
    """A legal entry with a field replaced by junk, removed, or added."""
    entry = dict(entry)
    action = draw(st.sampled_from(["replace", "drop", "add", "type"]))
    if action == "replace":
        entry[draw(st.sampled_from(sorted(entry)))] = draw(JUNK)
    elif action == "drop":
        entry.pop(draw(st.sampled_from(sorted(entry))))
    elif action == "add":
        entry[draw(st.sampled_from([*FIELDS, "extra"]))] = draw(JUNK)
    else:
        entry["type"] = draw(st.sampled_from(["exchange", "prize", "misplay", "out", "play", "trick"]))
    return entry


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=SEEDS, players=PLAYERS, live=st.booleans(), data=st.data())
def test_malformed_entries_only_raise_illegal_entry(seed: int, players: int, live: bool, data: st.DataObject) -> None:
    """Junk (wrong types, None, huge ints, bad cards, nested junk, mutated legal entries) only raises IllegalEntry."""
    kwargs, entries = random_deal(random.Random(seed), players, {"live": live})
    states = replay(kwargs, entries)
    at = data.draw(st.integers(0, len(entries)))
    state = states[at]
    before = GAME.to_dict(state)
    if at < len(entries) and data.draw(st.booleans()):
        junk: object = data.draw(mutated(entries[at]))
    else:
        junk = data.draw(st.one_of(JUNK, st.dictionaries(st.sampled_from(FIELDS), JUNK, max_size=4)))
    try:
        GAME.apply(state, junk)
    except IllegalEntry as err:
        assert str(err)
    assert GAME.to_dict(state) == before
