"""The soak's verdict (bench/soak.py): what counts as memory growth, connection growth and a
drifting p99, on made-up intervals (the soak itself runs by hand for an hour and more)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def judge(samples: list[dict[str, Any]], warm_up: int) -> tuple[bool, list[str]]:
    """Run ``verdict`` in its own process: importing the bench sets its database names."""
    code = (
        "import json, sys\nfrom collections import Counter\nfrom bench.soak import Sample, verdict\n"
        "rows = json.loads(sys.argv[1])\n"
        "samples = [Sample(**{**r, 'memory': {k: tuple(v) for k, v in r['memory'].items()}, "
        "'connections': Counter(r['connections'])}) for r in rows]\n"
        "print(json.dumps(verdict(samples, int(sys.argv[2]))))\n"
    )
    import json

    done = subprocess.run([sys.executable, "-c", code, json.dumps(samples), str(warm_up)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, check=True)
    ok, lines = json.loads(done.stdout)
    return ok, lines


def night(*, workers_kb: list[int], connections: list[int], p99: list[float], errors: int = 0) -> list[dict[str, Any]]:
    out = []
    for n, (kb, conns, late) in enumerate(zip(workers_kb, connections, p99, strict=True)):
        out.append({"at": 60.0 * (n + 1), "first_sent": 1000 * n, "sent": 1000 * (n + 1), "requests": 1000,
                    "errors": errors if n == len(p99) - 1 else 0, "p50": late / 4, "p99": late,
                    "latency": [late / 4] * 98 + [late] * 2,
                    "by_kind": {"entry": [late / 4] * 49 + [late], "poll": [late / 4] * 49 + [late]},
                    "loop_lag": [1.0] * 99 + [5.0],
                    "memory": {"gunicorn master": [26_000, 1], "gunicorn workers": [kb, 3], "celery": [280_000, 3]},
                    "connections": Counter({"idle": conns}), "queue": 0})
    return out


def test_a_flat_night_meets_every_target() -> None:
    ok, lines = judge(night(workers_kb=[270_000] * 2 + [280_000] * 7, connections=[3, 4, 4, 4, 5, 5, 5, 5, 5],
                            p99=[900.0, 800.0] + [100.0, 110.0, 95.0, 105.0, 100.0, 98.0, 102.0]), warm_up=2000)
    assert ok, lines
    assert lines[1] == "RSS gunicorn workers: 273 -> 273 MB (+0.0%; peak 273 MB): PASS (< 10%)"
    # 4 -> 5: a Celery pool process's first task; 3 gunicorn workers and 2 pool processes may hold one each.
    assert lines[3] == ("pg connections: at most 4 in the first third, 5 in the last, 5 processes that may hold one: "
                        "PASS (no growth beyond the first third's or one per process)")


def test_memory_that_creeps_up_connections_beyond_the_processes_and_a_drifting_p99_each_fail() -> None:
    ok, lines = judge(night(workers_kb=[270_000, 270_000, 280_000, 285_000, 290_000, 295_000, 300_000, 305_000,
                                        310_000],
                            connections=[4, 4, 4, 4, 5, 6, 7, 8, 9],
                            p99=[100.0, 100.0, 100.0, 100.0, 100.0, 110.0, 120.0, 130.0, 140.0], errors=3),
                      warm_up=2000)
    assert not ok
    assert lines[1] == "RSS gunicorn workers: 273 -> 303 MB (+10.7%; peak 303 MB): FAIL (< 10%)"
    assert lines[3].endswith("FAIL (no growth beyond the first third's or one per process)")
    assert lines[4] == ("p99: first third 100.0 ms, last third 140.0 ms (+40.0%; per interval 100.0-140.0 ms, "
                        "median 110.0): FAIL (within 20%)")
    # Each kind of request on its own, and the client's own lateness, to tell where a drift is.
    assert lines[5] == "  entry: p50 25.0 -> 35.0 ms, p99 100.0 -> 140.0 ms (100 and 100 requests)"
    assert lines[6].startswith("  poll: p50 25.0 -> 35.0 ms")
    assert lines[7] == "  the client's own loop: late by p99 5.0 ms, at most 5.0 ms"
    assert lines[8] == "errors: 3: FAIL"


def test_too_short_a_run_gives_no_verdict() -> None:
    ok, lines = judge(night(workers_kb=[1] * 3, connections=[1] * 3, p99=[1.0] * 3), warm_up=2000)
    assert not ok and lines == ["too few intervals after the warm-up (1; at least 3): run longer or use a shorter "
                                "--interval"]
