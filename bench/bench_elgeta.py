"""Elgeta benchmark: prints figures (not a timed test). Run: .venv/bin/python bench/bench_elgeta.py

* tricks applied per second (random 2-, 3- and 4-player deals played to the end);
* the snapshot of a deal of at least 2,000 tricks: JSON size and ``from_dict`` load time;
* the forecast: time to simulate the rest of the deal at the moment it becomes determined,
  median and worst over 500 random 4-player deals (and the time per simulated trick, which
  bounds a forecast that runs to its horizon).
"""

from __future__ import annotations

import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from referee.rules import GAMES  # noqa: E402
from referee.rules.elgeta import ElgetaState  # noqa: E402
from referee.rules.elgeta_forecast import FORECAST_HORIZON, play_out  # noqa: E402
from tests.rules.playout_elgeta import random_deal  # noqa: E402

G = GAMES["elgeta"]


def apply_rate() -> None:
    deals = [random_deal(random.Random(seed), 2 + seed % 3, {}, finish_early=False) for seed in range(120)]
    applied = 0
    start = time.perf_counter()
    for kwargs, entries in deals:
        state = G.new_deal(**kwargs)
        for entry in entries:
            state = G.apply(state, entry)
        applied += len(entries)
    elapsed = time.perf_counter() - start
    print(f"apply: {applied} entries in {elapsed:.2f} s = {applied / elapsed:,.0f} tricks/s "
          f"({elapsed / applied * 1e6:.0f} µs per trick, incl. the forecast when a deal becomes determined)")


def long_deal() -> None:
    for seed in range(10_000):
        kwargs, entries = random_deal(
            random.Random(seed), 4, {"all_aces": False}, max_tricks=10_000, finish_early=False
        )
        if len(entries) >= 2000:
            break
    state = G.new_deal(**kwargs)
    for entry in entries[:2000]:
        state = G.apply(state, entry)
    text = json.dumps(G.to_dict(state))
    loads = []
    for _ in range(300):
        start = time.perf_counter()
        loaded = G.from_dict(json.loads(text))
        loads.append(time.perf_counter() - start)
    assert loaded == state
    median, worst = statistics.median(loads) * 1e6, max(loads) * 1e6
    print(f"snapshot after {state.tricks} tricks (seed {seed}, {len(entries)} entries in the deal): "
          f"{len(text.encode())} bytes of JSON; load (json + from_dict) median {median:.0f} µs, worst {worst:.0f} µs")


def forecasts() -> None:
    times: list[float] = []
    simulated = 0
    endings: dict[str, int] = {}
    for seed in range(500):
        kwargs, entries = random_deal(random.Random(seed), 4, {}, finish_early=False, max_tricks=200)
        state: ElgetaState = G.new_deal(**kwargs)
        for entry in entries:
            state = G.apply(state, entry)
            if state.projection is not None or state.result is not None:
                break
        if state.result is not None:
            continue  # ended before every pile was played through
        rules = state.options
        start = time.perf_counter()
        piles = [bytearray(card.rank for card in pile.captured) for pile in state.piles]
        projection = play_out(piles, state.leader, list(state.out_at), state.tricks, all_aces=rules.all_aces,
                              aces=sum(len(s) for s in rules.suits), limit=FORECAST_HORIZON)
        times.append(time.perf_counter() - start)
        assert projection == state.projection
        simulated += projection.until - state.tricks
        ending = projection.result.ending.value if projection.result else "unsettled"
        endings[ending] = endings.get(ending, 0) + 1
    per_trick = sum(times) / simulated
    print(f"forecast over {len(times)} 4-player deals at the point they become determined: median "
          f"{statistics.median(times) * 1e3:.2f} ms, worst {max(times) * 1e3:.2f} ms; endings {endings}; "
          f"{per_trick * 1e6:.2f} µs per simulated trick, so a forecast that runs to its horizon of "
          f"{FORECAST_HORIZON:,} tricks takes about {per_trick * FORECAST_HORIZON:.2f} s")


if __name__ == "__main__":
    apply_rate()
    long_deal()
    forecasts()
