"""A season's table over 1,000,000 deal results: the league table of a five-year season.

Builds, in a throwaway PostgreSQL database (``kortos_bench_season``, created and dropped here),
a club of 120 members with 10,000 closed four-player sessions of 25 deals over five years:
1,000,000 deal results, which a season reads as 40,000 session results (``SessionResult``,
what ``scoring.seasons.ensure_results`` writes as each session closes; built here in bulk with
``INSERT ... SELECT generate_series``). Then times ``season_table`` for a season over all of it
(best 40 of each member's results, a minimum of 10, the full tie-break chain, what each member
needs next) and the season page through Django's test client. Prints the median and the 99th
percentile of each (goal: the table under 50 ms).

Usage: ``python bench/bench_season.py [--sessions 10000] [--runs 30]``. Needs PostgreSQL
(``DATABASE_URL``, default postgres://postgres@127.0.0.1:5432/kortos); the database name is
replaced.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from datetime import date, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_leaderboard import percentile, timed  # noqa: E402
from bench.throwaway import throwaway_database  # noqa: E402

BENCH_DB = os.environ.get("BENCH_SEASON_DB", "kortos_bench_season")
MEMBERS = 120
TARGET_MS = 50.0


def build(sessions: int) -> tuple[int, int, object]:
    from django.contrib.auth import get_user_model
    from django.db import connection

    from referee.models import Club, Member, Role, Session
    from scoring.models import SessionResult

    club = Club.objects.create(slug="bench", name="Bench club")
    user = get_user_model().objects.create_user("bench", password="bench-pass-123")
    members = [Member.objects.create(club=club, name=f"Player {n:03d}", user=user if n == 0 else None,
                                     role=Role.ADMIN if n == 0 else Role.MEMBER) for n in range(MEMBERS)]
    first = members[0].pk
    start = date.today() - timedelta(days=5 * 365)
    with connection.cursor() as cursor:
        cursor.execute(
            f'INSERT INTO "{Session._meta.db_table}" (club_id, game, options, stake, currency, status, '
            "created_at, closed_at) SELECT %s, 'velnias', '{}', 0, 'EUR', 'closed', "
            "%s::date + (g * 1825 / %s) * interval '1 day', %s::date + (g * 1825 / %s) * interval '1 day' "
            "FROM generate_series(0, %s - 1) AS g",
            [club.pk, start, sessions, start, sessions, sessions])
        cursor.execute(f'SELECT min(id) FROM "{Session._meta.db_table}" WHERE club_id = %s', [club.pk])
        first_session = cursor.fetchone()[0]
        # Four members per session (a rotating table), a place score each: 25 deals per result.
        cursor.execute(
            f'INSERT INTO "{SessionResult._meta.db_table}" (session_id, club_id, member_id, game, day, deals, score) '
            "SELECT %s + g, %s, %s + ((g * 7 + seat * 31) %% %s), 'velnias', "
            "%s::date + (g * 1825 / %s), 25, ((g * 13 + seat * 17) %% 101) / 100.0 "
            "FROM generate_series(0, %s - 1) AS g, generate_series(0, 3) AS seat",
            [first_session, club.pk, first, MEMBERS, start, sessions, sessions])
        cursor.execute("ANALYZE")
    return club.pk, first, user


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=30)
    args = parser.parse_args()
    with throwaway_database(BENCH_DB, "bench_season"):
        from django.test import Client

        from referee.models import Club
        from scoring import seasons
        from scoring.models import SessionResult

        club_id, _first, user = build(args.sessions)
        club = Club.objects.get(pk=club_id)
        results = SessionResult.objects.filter(club=club).count()
        season = seasons.season_create(club=club, user=user, name="Five years",
                                       start=date.today() - timedelta(days=5 * 365), end=date.today(),
                                       best_of=40, min_results=10)
        rows: list[object] = []

        def table() -> None:
            rows[:] = seasons.season_table(season)

        client = Client(HTTP_ACCEPT_LANGUAGE="en")
        client.force_login(user)
        page = f"/seasons/{season.pk}/"
        assert client.get(page).status_code == 200
        figures = [("season table", timed(table, args.runs)),
                   ("  its read", timed(lambda: seasons.season_results(season), args.runs)),
                   ("season page", timed(lambda: client.get(page), max(5, args.runs // 3)))]
        print(f"A season's table over {results * 25:,} deal results ({results:,} session results, "
              f"{len(rows)} members; PostgreSQL)")
        for name, times in figures:
            print(f"  {name:<13} median {statistics.median(times):7.1f} ms   p99 {percentile(times, 0.99):7.1f} ms")
        if os.environ.get("BENCH_PROFILE"):
            import cProfile
            import pstats

            profile = cProfile.Profile()
            profile.runcall(table)
            pstats.Stats(profile).sort_stats("cumulative").print_stats(12)
        verdict = "met" if statistics.median(figures[0][1]) < TARGET_MS else "NOT met"
        print(f"  goal: the table under {TARGET_MS:.0f} ms: {verdict}")
        return 0


if __name__ == "__main__":
    sys.exit(main())
