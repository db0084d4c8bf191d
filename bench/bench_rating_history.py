"""A member's rating history over 10,000 rated deals: the read and the chart, and the page.

Builds, in a throwaway PostgreSQL database (``kortos_bench_history``, created and dropped
here), a club whose member has played 10,000 rated four-player deals (400 sessions of 25),
and the club's rating stream with a point per player per deal (40,000 ``RatingPoint`` rows,
written in bulk with values of a plausible history), then times:

* ``member_points`` (the indexed read of the member's 10,000 points with each deal's session)
  plus ``chart_svg`` (the SVG, thinned to 600 drawn points), the work of the member page's
  chart (goal: under 50 ms);
* the whole member page through Django's test client.

Prints the median and the 99th percentile of each. Usage: ``python bench/bench_rating_history.py
[--deals 10000] [--runs 50]``. Needs PostgreSQL (``DATABASE_URL``, default
postgres://postgres@127.0.0.1:5432/kortos); the database name is replaced.
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_leaderboard import percentile, timed  # noqa: E402
from bench.throwaway import throwaway_database  # noqa: E402

BENCH_DB = os.environ.get("BENCH_HISTORY_DB", "kortos_bench_history")
TARGET_MS = 50.0


def build(deals: int) -> tuple[object, object, object]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from referee.models import Club, Deal, Member, Role, Seat, Session
    from scoring.models import OVERALL, RatingPoint, RatingStream

    club = Club.objects.create(slug="bench", name="Bench club")
    user = get_user_model().objects.create_user("bench", password="bench-pass-123")
    members = [Member.objects.create(club=club, name=f"Player {n}", user=user if n == 0 else None,
                                     role=Role.ADMIN if n == 0 else Role.MEMBER) for n in range(8)]
    sessions = Session.objects.bulk_create(Session(club=club, game="velnias", status="closed")
                                           for _ in range(math.ceil(deals / 25)))
    Seat.objects.bulk_create(Seat(session=s, number=i, member=members[(k + i) % 7 + 1] if i else members[0])
                             for k, s in enumerate(sessions) for i in range(4))
    made = Deal.objects.bulk_create(Deal(session=sessions[n // 25], number=n % 25 + 1, dealer=0, state={},
                                         status="finished") for n in range(deals))
    stream = RatingStream.objects.create(club=club, game=OVERALL, last_seq=deals)
    points = []
    for seq, deal in enumerate(made, start=1):
        for seat in range(4):
            member = members[0] if seat == 0 else members[(seq + seat) % 7 + 1]
            drift = 25 + 5 * math.sin(seq / 300 + seat)
            points.append(RatingPoint(stream=stream, seq=seq, deal=deal, member=member, mu=drift,
                                      sigma=max(1.0, 8.3 / math.sqrt(1 + seq / 10))))
    RatingPoint.objects.bulk_create(points, batch_size=5000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return club, members[0], user


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    with throwaway_database(BENCH_DB, "bench_rating_history"):
        from django.test import Client

        from scoring.models import OVERALL
        from scoring.ratings import history

        club, member, user = build(args.deals)

        def chart() -> None:
            points = history.member_points(club_id=club.pk, member_id=member.pk, game=OVERALL)  # type: ignore[attr-defined]
            assert len(points) == args.deals
            history.chart_svg(points)

        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(user)
        page = f"/clubs/bench/members/{member.pk}/"  # type: ignore[attr-defined]
        assert client.get(page).status_code == 200
        rows = [("read + chart", timed(chart, args.runs)),
                ("member page", timed(lambda: client.get(page), max(10, args.runs // 5)))]
        print(f"A member's rating history over {args.deals:,} rated deals (PostgreSQL)")
        for name, times in rows:
            print(f"  {name:<14} median {statistics.median(times):7.1f} ms   p99 {percentile(times, 0.99):7.1f} ms")
        verdict = "met" if statistics.median(rows[0][1]) < TARGET_MS else "NOT met"
        print(f"  goal: read + chart under {TARGET_MS:.0f} ms: {verdict}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
