"""The leaderboard aggregates of a finishing deal: the three upserts (day, month, all time) as
one PostgreSQL statement against three statements (``scoring.results.ONE_STATEMENT_VENDORS``).

In process, on a throwaway PostgreSQL database (``BENCH_DB_NAME``, default ``kortos_bench``):
a four-player deal's ``_bump`` alternately on each path, ``--samples`` times; prints the
median and p90 of each and their ratio, with the load average.

Usage: ``python bench/bench_aggregates.py [--samples 2000]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import bench_api  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--samples", type=int, default=2000)
    args = parser.parse_args()
    bench_api.recreate_database()
    bench_api.setup_django()
    from django.core.management import call_command
    from django.db import transaction
    from django.utils import timezone

    from referee.models import Club, Member
    from scoring import results

    call_command("migrate", verbosity=0)
    club = Club.objects.create(slug="bench", name="Bench club")
    members = [Member.objects.create(club=club, name=f"Žaidėjas {n}").pk for n in range(4)]
    rows = [(m, 1, int(seat == 0), 5 - seat, 0) for seat, m in enumerate(members)]
    print("load average before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    timings: dict[str, list[float]] = {"one statement": [], "three statements": []}
    for n in range(args.samples):
        path = "one statement" if n % 2 == 0 else "three statements"
        results.ONE_STATEMENT_VENDORS = frozenset({"postgresql"} if n % 2 == 0 else ())
        with transaction.atomic():
            began = time.perf_counter()
            results._bump(club.pk, "velnias", timezone.now(), rows, 1)
            timings[path].append(time.perf_counter() - began)
    for path, values in timings.items():
        q = statistics.quantiles(values, n=10)
        print(f"{path:<17} median {statistics.median(values) * 1000:.3f} ms  p90 {q[8] * 1000:.3f} ms")
    ratio = statistics.median(timings["three statements"]) / statistics.median(timings["one statement"])
    print(f"one statement is {ratio:.2f}x as fast")
    print("load average after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    from django.db import connections

    connections.close_all()
    bench_api.drop_database()
    return 0


if __name__ == "__main__":
    sys.exit(main())
