"""The seating draw of a club night: who sits at which table, in which seat, and who sits out.

Pure Python (no Django), like the rules: the evening's service gathers the facts (who is
present, who met whom, who sat where, how strong each player is, which pairs must be kept
apart, which seats the director fixed) and this module answers with a seating and the cost
of every term, so a draw is reproducible (the same facts and seed give the same seating) and
explained.

The method is krcg's (``krcg/seating.py``): each fairness rule is a weighted cost term,
measured separately, and simulated annealing over swaps of two seats minimises their sum.
The terms:

* ``apart``: a pair that must not sit together (a couple, a parent and child) seated at one
  table; weighted so heavily that the draw never trades it for anything else, and checked
  after the search (a draw that cannot keep a pair apart is refused, not returned).
* ``opponents``: every earlier meeting of two players now at one table (this evening's
  rounds count 1 each, the club's recent sessions less): people meet new opponents.
* ``position``: a player given the first deal's dealer seat (seat 1) or the first player's
  seat (seat 2) again, counted by how often they had it: positions are balanced.
* ``strength``: the spread of the tables' mean strength (openskill's ordinal): strong
  players are spread over the tables rather than gathered at one.
* ``bye``: a player sitting out who sat out before: byes rotate.

Table sizes are fixed before the search (``table_sizes``): as many players seated as the
game's range allows, tables as close to the club's preferred size as they can be.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations

#: What sits out instead of a table (its seats are byes).
BYE = -1

TERMS = ("apart", "opponents", "position", "strength", "bye")


class DrawImpossible(ValueError):
    """The facts admit no seating (too few players, or pairs that cannot all be kept apart)."""


@dataclass(frozen=True)
class Weights:
    """What one unit of each term costs, against the others."""

    apart: float = 1000.0
    opponents: float = 10.0
    position: float = 2.0
    strength: float = 1.0
    bye: float = 100.0


@dataclass(frozen=True)
class Facts:
    """Everything the draw needs, and nothing else (so a stored copy replays it)."""

    players: tuple[int, ...]
    low: int
    high: int
    preferred: int
    seed: int
    #: Earlier meetings of a pair (the key is the pair in ascending order), already weighted.
    met: Mapping[tuple[int, int], float] = field(default_factory=dict)
    #: How often a player had seat 1 (the first dealer) and seat 2 (the first player).
    positions: Mapping[int, tuple[int, int]] = field(default_factory=dict)
    #: Each player's strength (openskill's ordinal); missing means 0.
    strength: Mapping[int, float] = field(default_factory=dict)
    #: Pairs never to seat at one table (ascending order).
    apart: frozenset[tuple[int, int]] = frozenset()
    #: Byes each player had so far this evening.
    byes: Mapping[int, int] = field(default_factory=dict)
    #: Seats the director fixed: player -> (table index, seat index), 0-based.
    fixed: Mapping[int, tuple[int, int]] = field(default_factory=dict)
    weights: Weights = Weights()


@dataclass(frozen=True)
class Draw:
    """A seating: the tables (each a tuple of players in seat order), the byes, the cost per term."""

    tables: tuple[tuple[int, ...], ...]
    byes: tuple[int, ...]
    costs: Mapping[str, float]
    seed: int

    @property
    def total(self) -> float:
        return sum(self.costs.values())


def pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


def table_sizes(players: int, low: int, high: int, preferred: int) -> tuple[list[int], int]:
    """The table sizes and the number of byes: as few byes as the range allows, then tables as
    close to the preferred size as they can be (sizes differing by at most one; on a tie, more
    tables rather than tables above the preferred size)."""
    preferred = min(max(preferred, low), high)
    for byes in range(players + 1):
        seated = players - byes
        if seated < low:
            break
        best: tuple[float, list[int]] | None = None
        for tables in range(math.ceil(seated / high), seated // low + 1):
            small, extra = divmod(seated, tables)
            sizes = [small + 1] * extra + [small] * (tables - extra)
            if not all(low <= size <= high for size in sizes):
                continue
            off = sum(abs(size - preferred) for size in sizes)
            if best is None or off <= best[0]:  # a tie: more, smaller tables
                best = (off, sizes)
        if best is not None:
            return best[1], byes
    raise DrawImpossible(f"{players} players cannot fill a table of at least {low}.")


def seat_cost(facts: Facts, tables: Sequence[Sequence[int]], byes: Sequence[int]) -> dict[str, float]:
    """Every term's cost of one seating (weighted), the draw's own measure of it."""
    costs = dict.fromkeys(TERMS, 0.0)
    means = []
    for table in tables:
        costs["apart"] += _apart(facts, table)
        costs["opponents"] += _opponents(facts, table)
        costs["position"] += _position(facts, table)
        means.append(_mean_strength(facts, table))
    costs["strength"] = _spread(means) * facts.weights.strength
    costs["bye"] = sum(facts.byes.get(player, 0) for player in byes) * facts.weights.bye
    costs["apart"] *= facts.weights.apart
    costs["opponents"] *= facts.weights.opponents
    costs["position"] *= facts.weights.position
    return costs


def _apart(facts: Facts, table: Sequence[int]) -> float:
    if not facts.apart:
        return 0.0
    return float(sum(1 for a, b in combinations(table, 2) if pair(a, b) in facts.apart))


def _opponents(facts: Facts, table: Sequence[int]) -> float:
    return sum(facts.met.get(pair(a, b), 0.0) for a, b in combinations(table, 2))


def _position(facts: Facts, table: Sequence[int]) -> float:
    cost = 0.0
    for seat, player in enumerate(table[:2]):
        cost += facts.positions.get(player, (0, 0))[seat]
    return cost


def _mean_strength(facts: Facts, table: Sequence[int]) -> float:
    return sum(facts.strength.get(player, 0.0) for player in table) / len(table)


def _spread(means: Sequence[float]) -> float:
    """The population standard deviation of the tables' mean strengths."""
    if len(means) < 2:
        return 0.0
    centre = sum(means) / len(means)
    return math.sqrt(sum((mean - centre) ** 2 for mean in means) / len(means))


def draw(facts: Facts, *, steps: int | None = None) -> Draw:
    """The seating of least cost found by annealing from a seeded shuffle."""
    players = sorted(set(facts.players))
    sizes, bye_count = table_sizes(len(players), facts.low, facts.high, facts.preferred)
    rng = random.Random(facts.seed)
    slots = _first_seating(facts, players, sizes, bye_count, rng)
    free = [(t, s) for t, table in enumerate(slots) for s in range(len(table)) if table[s] not in facts.fixed]
    tables = slots[: len(sizes)]
    byes = slots[len(sizes)]
    current = _local_cost(facts, tables, byes)
    total = sum(current.values())
    steps = steps if steps is not None else 300 * len(players)
    best_total, best = total, [list(table) for table in slots]
    start_temperature = max(facts.weights.opponents, 1.0)
    for step in range(steps if len(free) > 1 else 0):
        temperature = start_temperature * (1 - step / steps) + 1e-3
        (t1, s1), (t2, s2) = rng.sample(free, 2)
        if t1 == t2 and (t1 == len(sizes) or (s1 > 1 and s2 > 1)):
            continue  # the same table, no position changes: nothing to gain
        before = _touched(facts, slots, sizes, current, t1, t2)
        slots[t1][s1], slots[t2][s2] = slots[t2][s2], slots[t1][s1]
        after = _touched(facts, slots, sizes, current, t1, t2)
        delta = sum(after.values()) - sum(before.values())
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            current.update(after)
            total += delta
            if total < best_total - 1e-9:
                best_total, best = total, [list(table) for table in slots]
        else:
            slots[t1][s1], slots[t2][s2] = slots[t2][s2], slots[t1][s1]
    tables, byes = best[: len(sizes)], best[len(sizes)]
    _keep_apart(facts, tables, byes)
    costs = seat_cost(facts, tables, byes)
    if costs["apart"]:
        raise DrawImpossible("The pairs to keep apart cannot all be kept apart at these tables.")
    return Draw(
        tables=tuple(tuple(table) for table in tables),
        byes=tuple(sorted(byes)),
        costs={term: round(value, 4) for term, value in costs.items()},
        seed=facts.seed,
    )


def _keep_apart(facts: Facts, tables: list[list[int]], byes: list[int]) -> None:
    """A pair the search left together is parted by the first swap that seats nobody with a
    partner (a search cut short can miss it; the rule itself is never traded away)."""
    if not facts.apart:
        return
    slots = [*tables, byes]
    for _ in range(len(facts.apart)):
        clash = next(((t, table) for t, table in enumerate(tables) if _apart(facts, table)), None)
        if clash is None:
            return
        t1, table = clash
        movable = [
            s
            for s, player in enumerate(table)
            if player not in facts.fixed
            and any(pair(player, other) in facts.apart for other in table if other != player)
        ]
        for s1 in movable:
            for t2, other in enumerate(slots):
                if t2 == t1:
                    continue
                for s2, player in enumerate(other):
                    if player in facts.fixed:
                        continue
                    table[s1], other[s2] = other[s2], table[s1]
                    if not _apart(facts, table) and (t2 == len(tables) or not _apart(facts, other)):
                        break
                    table[s1], other[s2] = other[s2], table[s1]
                else:
                    continue
                break
            else:
                continue
            break


def _first_seating(
    facts: Facts, players: list[int], sizes: list[int], bye_count: int, rng: random.Random
) -> list[list[int]]:
    """A shuffle with the fixed seats in place (the last list holds the byes)."""
    for player, (table, seat) in facts.fixed.items():
        if player not in players or not 0 <= table < len(sizes) or not 0 <= seat < sizes[table]:
            raise DrawImpossible(f"Player {player} is fixed to a seat this draw does not have.")
    if len(set(facts.fixed.values())) != len(facts.fixed):
        raise DrawImpossible("Two players are fixed to one seat.")
    loose = [player for player in players if player not in facts.fixed]
    rng.shuffle(loose)
    slots: list[list[int]] = []
    taken = {seat: player for player, seat in facts.fixed.items()}
    for t, size in enumerate(sizes):
        slots.append([taken[(t, s)] if (t, s) in taken else loose.pop() for s in range(size)])
    slots.append(loose[:bye_count])
    assert len(loose) == bye_count
    return slots


def _local_cost(facts: Facts, tables: Sequence[Sequence[int]], byes: Sequence[int]) -> dict[object, float]:
    """The cost split by where it arises (one key per table, and the byes): a swap touches two."""
    w = facts.weights
    cost: dict[object, float] = {}
    for t, table in enumerate(tables):
        cost[t] = (
            _apart(facts, table) * w.apart
            + _opponents(facts, table) * w.opponents
            + _position(facts, table) * w.position
        )
    cost["bye"] = sum(facts.byes.get(player, 0) for player in byes) * w.bye
    cost["strength"] = _spread([_mean_strength(facts, table) for table in tables]) * w.strength
    return cost


def _touched(
    facts: Facts, slots: list[list[int]], sizes: list[int], current: dict[object, float], t1: int, t2: int
) -> dict[object, float]:
    """The cost parts a swap between tables t1 and t2 changes (byes and the strength spread too)."""
    w = facts.weights
    parts: dict[object, float] = {}
    for t in {t1, t2}:
        if t == len(sizes):
            parts["bye"] = sum(facts.byes.get(player, 0) for player in slots[t]) * w.bye
        else:
            table = slots[t]
            parts[t] = (
                _apart(facts, table) * w.apart
                + _opponents(facts, table) * w.opponents
                + _position(facts, table) * w.position
            )
    if w.strength and facts.strength and t1 != t2:
        parts["strength"] = _spread([_mean_strength(facts, slots[t]) for t in range(len(sizes))]) * w.strength
    return parts


def met_again(facts: Facts, tables: Sequence[Sequence[int]]) -> list[tuple[int, int, float]]:
    """The pairs this seating puts together again, most-met first (what the screen explains)."""
    again = [
        (*pair(a, b), facts.met[pair(a, b)])
        for table in tables
        for a, b in combinations(table, 2)
        if facts.met.get(pair(a, b))
    ]
    return sorted(again, key=lambda item: (-item[2], item[0], item[1]))


def kept_apart(facts: Facts, tables: Sequence[Sequence[int]], *, limit: int = 3) -> list[tuple[int, int, float]]:
    """The pairs that met most before and this seating keeps at different tables."""
    together = {pair(a, b) for table in tables for a, b in combinations(table, 2)}
    seated = {player for table in tables for player in table}
    apart = [
        (a, b, times)
        for (a, b), times in facts.met.items()
        if times and (a, b) not in together and a in seated and b in seated
    ]
    return sorted(apart, key=lambda item: (-item[2], item[0], item[1]))[:limit]
