"""The seating draw over random evenings: every present player at exactly one table or on a
stated bye, every table within the game's range, no pair to keep apart seated together, the
same facts and seed giving the same draw; and the rules of its cost terms one by one."""

from __future__ import annotations

import random
from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evenings.draw import DrawImpossible, Facts, draw, met_again, pair, seat_cost, table_sizes
from referee.rules import GAMES

RANGES = sorted({(rules.min_players, rules.max_players) for rules in GAMES.values()})


@st.composite
def evenings(draw_from: st.DrawFn) -> tuple[tuple[int, int], int, list[list[int]], frozenset[tuple[int, int]], int]:
    low, high = draw_from(st.sampled_from(RANGES))
    preferred = draw_from(st.integers(low, high))
    count = draw_from(st.integers(8, 60))
    seed = draw_from(st.integers(0, 2**31))
    rng = random.Random(seed)
    everyone = list(range(1, count + 1))
    # Who is present each round: arrivals and departures between rounds.
    present = set(rng.sample(everyone, max(low, count - rng.randint(0, 4))))
    rounds = []
    for _ in range(draw_from(st.integers(1, 3))):
        rounds.append(sorted(present))
        absent = [p for p in everyone if p not in present]
        present |= set(rng.sample(absent, min(len(absent), rng.randint(0, 2))))
        leaving = rng.sample(sorted(present), min(rng.randint(0, 2), len(present) - low))
        present -= set(leaving)
    # Couples: each member in at most one pair to keep apart.
    shuffled = everyone[:]
    rng.shuffle(shuffled)
    couples = frozenset(
        pair(shuffled[i], shuffled[i + 1]) for i in range(0, min(len(shuffled) - 1, 2 * rng.randint(0, 4)), 2)
    )
    return (low, high), preferred, rounds, couples, seed


@settings(max_examples=25, deadline=None)
@given(evenings())
def test_every_draw_seats_everyone_once_within_the_range_and_keeps_couples_apart(evening) -> None:
    (low, high), preferred, rounds, couples, seed = evening
    met: Counter[tuple[int, int]] = Counter()
    byes: Counter[int] = Counter()
    for number, players in enumerate(rounds):
        sizes, _ = table_sizes(len(players), low, high, preferred)
        facts = Facts(
            players=tuple(players),
            low=low,
            high=high,
            preferred=preferred,
            seed=seed + number,
            met=dict(met),
            apart=couples if len(sizes) > 1 else frozenset(),
            byes=dict(byes),
        )
        result = draw(facts, steps=40 * len(players))
        seated = [p for table in result.tables for p in table]
        assert sorted(seated + list(result.byes)) == players  # each exactly once
        assert all(low <= len(table) <= high for table in result.tables)
        if len(sizes) > 1:
            assert not any(pair(a, b) in couples for table in result.tables for a, b in combinations(table, 2))
        if number == 0:
            assert draw(facts, steps=40 * len(players)) == result  # the same seed, the same draw
        for table in result.tables:
            met.update(pair(a, b) for a, b in combinations(table, 2))
        byes.update(result.byes)


def test_table_sizes_seat_everyone_the_range_allows_near_the_preferred_size() -> None:
    """As few byes as the range allows, tables as near the preferred size as they can be."""
    assert table_sizes(18, 3, 8, 4) == ([4, 4, 4, 3, 3], 0)
    assert table_sizes(16, 3, 8, 4) == ([4, 4, 4, 4], 0)
    assert table_sizes(17, 2, 4, 4) == ([4, 4, 3, 3, 3], 0)
    assert table_sizes(5, 3, 8, 6) == ([5], 0)
    # Elgeta's 2-4 with 9 players: no byes needed (3 tables of 3).
    assert table_sizes(9, 2, 4, 4) == ([3, 3, 3], 0)


def test_a_bye_only_when_the_range_cannot_seat_everyone() -> None:
    """Seven players for tables of exactly four: three sit out; two players for three seats: refused."""
    assert table_sizes(7, 4, 4, 4) == ([4], 3)
    with pytest.raises(DrawImpossible):
        table_sizes(2, 3, 8, 4)


def test_byes_rotate_to_those_who_had_none() -> None:
    """The bye term: a player who sat out before does not sit out again while others have not."""
    players = tuple(range(1, 8))
    facts = Facts(players=players, low=4, high=4, preferred=4, seed=3, byes={1: 1, 2: 1, 3: 1})
    result = draw(facts)
    assert set(result.byes).isdisjoint({1, 2, 3}) and len(result.byes) == 3
    assert result.costs["bye"] == 0


def test_opponents_who_met_are_seated_apart_when_they_can_be() -> None:
    """The opponents term: two rounds of 8 players at two tables; the second round puts no pair of
    the first round's tables together more than the counting forces (each table of 4 from two
    earlier tables of 4 must hold at least... two pairs from one old table)."""
    players = tuple(range(1, 9))
    first = draw(Facts(players=players, low=4, high=4, preferred=4, seed=1))
    met = {pair(a, b): 1.0 for table in first.tables for a, b in combinations(table, 2)}
    second = draw(Facts(players=players, low=4, high=4, preferred=4, seed=2, met=met))
    # Best possible: each new table takes two from each old table: 2 old pairs per table.
    assert len(met_again(Facts(players=players, low=4, high=4, preferred=4, seed=2, met=met), second.tables)) == 4
    assert second.costs["opponents"] == 4 * 10.0


def test_the_first_dealer_seat_goes_to_someone_who_did_not_have_it() -> None:
    """The position term: a player who dealt first twice is not given seat 1 again."""
    players = tuple(range(1, 5))
    facts = Facts(players=players, low=4, high=4, preferred=4, seed=5, positions={1: (2, 0), 2: (0, 2)})
    result = draw(facts)
    assert result.tables[0][0] != 1 and result.tables[0][1] != 2
    assert result.costs["position"] == 0


def test_strong_players_are_spread_over_the_tables() -> None:
    """The strength term: four strong and four weak players make two mixed tables."""
    players = tuple(range(1, 9))
    strength = {p: (30.0 if p <= 4 else 0.0) for p in players}
    result = draw(Facts(players=players, low=4, high=4, preferred=4, seed=9, strength=strength))
    assert [sum(1 for p in table if p <= 4) for table in result.tables] == [2, 2]
    assert result.costs["strength"] == 0


def test_fixed_seats_stay_where_the_director_put_them() -> None:
    """A fixed seat is kept by every draw; two players fixed to one seat are refused."""
    players = tuple(range(1, 13))
    facts = Facts(players=players, low=4, high=4, preferred=4, seed=11, fixed={7: (2, 0), 3: (0, 3)})
    result = draw(facts)
    assert result.tables[2][0] == 7 and result.tables[0][3] == 3
    with pytest.raises(DrawImpossible, match="Two players are fixed to one seat"):
        draw(Facts(players=players, low=4, high=4, preferred=4, seed=11, fixed={7: (2, 0), 3: (2, 0)}))


def test_pairs_that_cannot_be_kept_apart_are_refused_not_seated() -> None:
    """Four players, one table: a couple among them cannot be parted, and the draw says so."""
    with pytest.raises(DrawImpossible, match="cannot all be kept apart"):
        draw(Facts(players=(1, 2, 3, 4), low=4, high=4, preferred=4, seed=1, apart=frozenset({(1, 2)})))


def test_the_stored_costs_are_the_costs_of_the_seating() -> None:
    """What the draw stores per term is what measuring its seating gives (so it is explained)."""
    rng = random.Random(4)
    players = tuple(range(1, 21))
    facts = Facts(
        players=players,
        low=3,
        high=5,
        preferred=4,
        seed=4,
        met={pair(*rng.sample(players, 2)): 1.0 for _ in range(40)},
        strength={p: rng.uniform(0, 20) for p in players},
    )
    result = draw(facts)
    measured = seat_cost(facts, result.tables, result.byes)
    assert result.costs == {term: round(value, 4) for term, value in measured.items()}
