"""Rules engine benchmark: entries applied per second for each game, plus snapshot costs.

Run: .venv/bin/python bench/bench_rules.py   (prints figures; not a timed test)

Deals come from the same random playout generators the property tests use, generated
first and then applied, so only ``apply`` (and, separately, ``to_dict``/``from_dict``) is
timed. The Elgeta specifics (2,000-trick snapshot, forecast times) are in bench_elgeta.py.
"""

from __future__ import annotations

import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.rules import GAMES  # noqa: E402
from tests.rules import (  # noqa: E402
    playout_cheat,
    playout_elgeta,
    playout_michigan,
    playout_rukas,
    playout_velnias,
)

PLAYOUTS = {
    "elgeta": (playout_elgeta, (2, 3, 4)),
    "velnias": (playout_velnias, (3, 4, 5, 6, 7, 8)),
    "rukas": (playout_rukas, (2, 3, 4, 5, 6, 7, 8)),
    "michigan": (playout_michigan, (3, 4, 5, 6, 7, 8)),
    "cheat": (playout_cheat, (2, 3, 4, 5, 6, 7, 8)),
}
DEALS = 200


def bench_game(slug: str) -> None:
    module, counts = PLAYOUTS[slug]
    game = GAMES[slug]
    rng = random.Random(2026)
    deals = [module.random_deal(rng, counts[i % len(counts)]) for i in range(DEALS)]
    entries = sum(len(e) for _k, e in deals)
    start = time.perf_counter()
    states = []
    for kwargs, deal_entries in deals:
        state = game.new_deal(**kwargs)
        for entry in deal_entries:
            state = game.apply(state, entry)
        states.append(state)
    applied = time.perf_counter() - start
    start = time.perf_counter()
    snapshots = [json.dumps(game.to_dict(s)) for s in states]
    dumped = time.perf_counter() - start
    start = time.perf_counter()
    for text in snapshots:
        game.from_dict(json.loads(text))
    loaded = time.perf_counter() - start
    size = sum(len(t) for t in snapshots) / len(snapshots)
    print(
        f"{slug:9s} {entries:7d} entries in {applied:6.2f} s = {entries / applied:9,.0f} entries/s | "
        f"snapshot avg {size:6.0f} B, dump {dumped / DEALS * 1e6:6.0f} µs, load {loaded / DEALS * 1e6:6.0f} µs"
    )


def main() -> None:
    print(f"Rules engine: {DEALS} random full deals per game (player counts cycled)")
    for slug in PLAYOUTS:
        bench_game(slug)


if __name__ == "__main__":
    main()
