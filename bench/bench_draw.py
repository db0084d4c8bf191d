"""The club night's seating draw against a uniformly random seating, on the same evenings.

Run: .venv/bin/python bench/bench_draw.py   (prints figures; not a timed test)

For evenings of 24 and 40 players over 6 rounds (tables of 4, Pašėlęs Velnias' range 3-8),
each round is drawn with the meetings of the rounds before it, as the evening's service does;
the random seating shuffles the same players into the same table sizes. Printed per evening
size (the mean over 5 seeds):

* repeat-opponent pairs: every meeting of a pair beyond their first (0 is the least possible:
  the counting bound allows 7 rounds without a repeat for 24 players and 13 for 40);
* the spread of seat positions: the most times any one player got the first dealer's seat;
* the spread of table strength: the mean standard deviation of the tables' mean ordinal;
* the time to draw one round, and a round of 60 players (goal: under 1 s on one core).
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from collections import Counter
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from evenings.draw import Facts, _spread, draw, pair, table_sizes  # noqa: E402

ROUNDS = 6
SEEDS = 5


def evening(players: int, seed: int, *, drawn: bool) -> dict[str, float]:
    rng = random.Random(seed)
    ids = tuple(range(1, players + 1))
    strength = {player: rng.gauss(15, 6) for player in ids}
    met: Counter[tuple[int, int]] = Counter()
    dealer_seat: Counter[int] = Counter()
    first_seat: Counter[int] = Counter()
    spreads, times = [], []
    for round_number in range(ROUNDS):
        if drawn:
            facts = Facts(
                players=ids,
                low=3,
                high=8,
                preferred=4,
                seed=seed * 100 + round_number,
                met=dict(met),
                strength=strength,
                positions={p: (dealer_seat[p], first_seat[p]) for p in ids},
            )
            started = time.perf_counter()
            tables = draw(facts).tables
            times.append(time.perf_counter() - started)
        else:
            sizes, _ = table_sizes(players, 3, 8, 4)
            shuffled = list(ids)
            rng.shuffle(shuffled)
            tables, at = [], 0
            for size in sizes:
                tables.append(tuple(shuffled[at : at + size]))
                at += size
        for table in tables:
            for a, b in combinations(table, 2):
                met[pair(a, b)] += 1
            dealer_seat[table[0]] += 1
            first_seat[table[1]] += 1
        spreads.append(_spread([statistics.fmean(strength[p] for p in table) for table in tables]))
    return {
        "repeats": sum(count - 1 for count in met.values() if count > 1),
        "dealer_max": max(dealer_seat.values()),
        "strength_sd": statistics.fmean(spreads),
        "draw_s": statistics.fmean(times) if times else 0.0,
    }


def main() -> None:
    print(f"Seating draw vs random seating, {ROUNDS} rounds, tables of 4, mean of {SEEDS} seeds")
    print(f"{'players':>8} {'seating':>8} {'repeat pairs':>13} {'max dealer':>11} {'table sd':>9} {'draw s':>7}")
    for players in (24, 40):
        rows = {}
        for drawn in (False, True):
            runs = [evening(players, seed, drawn=drawn) for seed in range(1, SEEDS + 1)]
            row = {key: statistics.fmean(run[key] for run in runs) for key in runs[0]}
            rows[drawn] = row
            print(
                f"{players:>8} {'draw' if drawn else 'random':>8} {row['repeats']:>13.1f} "
                f"{row['dealer_max']:>11.1f} {row['strength_sd']:>9.2f} {row['draw_s']:>7.3f}"
            )
        ratio = rows[True]["repeats"] / rows[False]["repeats"] if rows[False]["repeats"] else 0.0
        print(f"{'':>8} repeat pairs: the draw has {ratio:.0%} of random's (goal: under 50%; least possible: 0)")
    rng = random.Random(60)
    ids = tuple(range(1, 61))
    met = {pair(*rng.sample(ids, 2)): 1.0 for _ in range(300)}
    facts = Facts(
        players=ids, low=3, high=8, preferred=4, seed=60, met=met, strength={p: rng.gauss(15, 6) for p in ids}
    )
    started = time.perf_counter()
    draw(facts)
    print(f"60 players, 300 earlier meetings: one draw in {time.perf_counter() - started:.3f} s (goal: under 1 s)")


if __name__ == "__main__":
    main()
