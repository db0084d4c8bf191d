"""The club leaderboard over 1,000,000 deal results: the endpoint next to the raw SQL aggregate.

Builds, in a throwaway PostgreSQL database (``kortos_bench_leaderboard``, created and dropped
here), a club of 120 members with 10,000 closed sessions of 25 four-player deals spread over the
last five years (250,000 deals, 1,000,000 ``DealResult`` rows), written in bulk with
``INSERT ... SELECT generate_series``. The aggregates (``MemberDay``, ``MemberMonth``,
``MemberTotal``) are filled from those results with ``GROUP BY`` (the same sums the services
keep up to date deal by deal) and the ratings by the real recompute (openskill over every deal, per game and
overall), which is timed too.

Then, for several leaderboard queries (all time, this year, this month, today, a past month,
a custom span), it times ``GET /api/clubs/bench/leaderboard/`` through Django's test client
(authentication, view, selectors, JSON) between deals and right after a deal finished today
(``board_version.changed`` as its commit calls it), and the raw SQL aggregate of the same
totals straight over ``scoring_dealresult`` (the work the aggregates avoid), run side by side,
and prints the median and the 99th percentile of each, with the request's median server CPU
time (this thread's and its PostgreSQL backend's, read from /proc when the server runs here:
a figure that a busy machine's queue for the CPU does not inflate as it does the wall time).

Usage: ``python bench/bench_leaderboard.py [--sessions 10000] [--runs 200] [--raw-runs 20]
[--skip-ratings]`` (``BENCH_PROFILE=1`` also prints a profile of each query). Needs PostgreSQL:
``DATABASE_URL`` (default postgres://postgres@127.0.0.1:5432/kortos) names the server; the
database name is replaced.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

#: Its own (other benchmarks use kortos_bench); BENCH_LEADERBOARD_DB names another (several people on one server).
BENCH_DB = os.environ.get("BENCH_LEADERBOARD_DB", "kortos_bench_leaderboard")
MEMBERS = 120
DEALS_PER_SESSION = 25
SEATS = 4
GAMES = ["elgeta", "velnias", "rukas", "michigan", "cheat"]
#: The leaderboard's median over 1,000,000 results, for every period.
TARGET_MS = 10.0


def server_url() -> str:
    return os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/kortos")


def with_database(url: str, name: str) -> str:
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, parts.netloc, f"/{name}", parts.query, parts.fragment))


def admin_sql(statement: str) -> None:
    """Run CREATE/DROP DATABASE on the server's maintenance database."""
    import psycopg

    with psycopg.connect(with_database(server_url(), "postgres"), autocommit=True) as conn:
        conn.execute(statement)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


def timed(call: Callable[[], object], runs: int, warmup: int = 3) -> list[float]:
    for _ in range(warmup):
        call()
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sessions", type=int, default=10_000, help="sessions of 25 four-player deals")
    parser.add_argument("--runs", type=int, default=200, help="timed requests per query")
    parser.add_argument("--raw-runs", type=int, default=20, help="timed raw SQL aggregates per query")
    parser.add_argument("--skip-ratings", action="store_true", help="leave every rating at the newcomer's value")
    parser.add_argument("--keep", action="store_true", help="keep the database for a later --reuse")
    parser.add_argument("--reuse", action="store_true", help="time the database a --keep run left (built if none)")
    parser.add_argument("--cache-url", default=os.environ.get("BENCH_CACHE_URL", ""),
                        help="the shared cache, as deployed (e.g. redis://127.0.0.1:6379/7); default: this "
                             "process's memory (one process, so the leaderboard may cache there too)")
    args = parser.parse_args()

    reuse = args.reuse and database_exists()
    try:
        if not reuse:
            admin_sql(f'DROP DATABASE IF EXISTS "{BENCH_DB}"')
            admin_sql(f'CREATE DATABASE "{BENCH_DB}"')
    except Exception as error:  # noqa: BLE001 - any connection problem means: no PostgreSQL here
        print(f"bench_leaderboard needs PostgreSQL at {server_url()}: {error}", file=sys.stderr)
        return 1
    os.environ["DATABASE_URL"] = with_database(server_url(), BENCH_DB)
    os.environ.pop("DEBUG", None)  # no query log growing during the timings
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings_test"
    if args.cache_url:
        os.environ["CACHE_URL"] = args.cache_url
    else:
        os.environ.pop("CACHE_URL", None)
    try:
        return run(args, reuse)
    finally:
        from django.db import connections

        connections.close_all()
        if args.keep:
            print(f"kept database {BENCH_DB} (--reuse times it again without building it)")
        else:
            admin_sql(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
            print(f"dropped database {BENCH_DB}")


def database_exists() -> bool:
    import psycopg

    with psycopg.connect(with_database(server_url(), "postgres"), autocommit=True) as conn:
        return conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [BENCH_DB]).fetchone() is not None


def run(args: argparse.Namespace, reuse: bool) -> int:
    import django

    django.setup()
    from django.conf import settings
    from rest_framework.authtoken.models import Token

    # As deployed (a shared cache); with this process's memory it is right too: one process.
    settings.LEADERBOARD_CACHE = True

    from referee.models import Club
    from scoring.models import DealResult

    if reuse:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)  # any migration added since the database was kept
        club = Club.objects.get(slug="bench")
        token = Token.objects.get(user__username="bench-member")
        print(f"reusing {DealResult.objects.filter(club=club).count():,} deal results in {BENCH_DB}")
    else:
        club, token = build(args)
    time_queries(args, club, token)
    return 0 if not FAILURES else 2


FAILURES: list[str] = []


def build(args: argparse.Namespace) -> tuple[Any, Any]:
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.db import connection
    from django.utils import timezone
    from rest_framework.authtoken.models import Token

    from referee.models import Club, Member, Role
    from scoring.models import OVERALL, DealResult, MemberDay, MemberMonth, MemberTotal
    from scoring.ratings import rating as ratings

    t0 = time.perf_counter()
    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench-member", password="bench-pass-123")
    club = Club.objects.create(slug="bench", name="Bench club")
    members = [Member.objects.create(club=club, name=f"Player {i:03d}") for i in range(MEMBERS)]
    members[0].user = user
    members[0].role = Role.MEMBER
    members[0].save()
    token = Token.objects.create(user=user)
    sessions = args.sessions
    span = timedelta(days=5 * 365)
    first = timezone.now() - span
    step = span / sessions
    tz = settings.TIME_ZONE
    with connection.cursor() as cur:
        # A bulk load of rows that are consistent by construction: skip the per-row foreign key
        # triggers (superuser only, this connection only) and the wait for the disk.
        cur.execute("SET session_replication_role = replica")
        cur.execute("SET synchronous_commit = off")
        cur.execute(
            """
            INSERT INTO referee_session (club_id, game, options, stake, currency, coin, status, created_at, closed_at)
            SELECT %(club)s, (%(games)s::text[])[1 + (g %% 5)], '{}'::jsonb, 0.10, 'EUR', NULL, 'closed',
                   %(first)s + g * %(step)s, %(first)s + g * %(step)s + interval '3 hours'
            FROM generate_series(0, %(n)s - 1) AS g
            """,
            {"club": club.pk, "games": GAMES, "first": first, "step": step, "n": sessions},
        )
        cur.execute(
            """
            INSERT INTO referee_seat (session_id, number, member_id)
            SELECT s.id, k, (%(members)s::bigint[])[1 + ((s.id * 7 + k * 13) %% %(m)s)]
            FROM referee_session s CROSS JOIN generate_series(0, %(seats)s - 1) AS k
            WHERE s.club_id = %(club)s
            """,
            {"club": club.pk, "members": [m.pk for m in members], "m": MEMBERS, "seats": SEATS},
        )
        cur.execute(
            """
            INSERT INTO referee_deal (session_id, number, dealer, options, state, seq, revision, status, created_at,
                                      finished_at)
            SELECT s.id, d, (d - 1) %% %(seats)s, '{}'::jsonb, '{}'::jsonb, 1, 1, 'finished',
                   s.created_at + d * interval '6 minutes', s.created_at + d * interval '6 minutes'
            FROM referee_session s CROSS JOIN generate_series(1, %(deals)s) AS d
            WHERE s.club_id = %(club)s
            """,
            {"club": club.pk, "deals": DEALS_PER_SESSION, "seats": SEATS},
        )
        # Points by a fixed hash of (deal, seat); places by points with ties shared (rank()).
        cur.execute(
            """
            INSERT INTO scoring_dealresult (deal_id, session_id, club_id, game, member_id, seat, points, placement,
                                            won, units, money, finished_at)
            SELECT deal_id, session_id, club_id, game, member_id, seat, points, placement, placement = 1,
                   points, points * 0.10, finished_at
            FROM (
                SELECT d.id AS deal_id, s.id AS session_id, s.club_id, s.game, st.member_id, st.number AS seat,
                       ((d.id * 31 + st.number * 17) %% 21) - 10 AS points, d.finished_at,
                       rank() OVER (PARTITION BY d.id ORDER BY ((d.id * 31 + st.number * 17) %% 21) DESC)::smallint
                           AS placement
                FROM referee_deal d
                JOIN referee_session s ON s.id = d.session_id
                JOIN referee_seat st ON st.session_id = s.id
                WHERE s.club_id = %(club)s
            ) AS r
            """,
            {"club": club.pk},
        )
        # The aggregates, exactly as the services keep them deal by deal (days and months in the club's zone).
        cur.execute(
            """
            INSERT INTO scoring_memberday (club_id, member_id, game, day, deals, wins, points, money)
            SELECT club_id, member_id, game, (finished_at AT TIME ZONE %(tz)s)::date,
                   count(*), sum(won::int), sum(points), sum(money)
            FROM scoring_dealresult WHERE club_id = %(club)s
            GROUP BY club_id, member_id, game, (finished_at AT TIME ZONE %(tz)s)::date
            """,
            {"club": club.pk, "tz": tz},
        )
        cur.execute(
            """
            INSERT INTO scoring_membermonth (club_id, member_id, game, month, deals, wins, points, money)
            SELECT club_id, member_id, game, date_trunc('month', day)::date, sum(deals), sum(wins), sum(points),
                   sum(money)
            FROM scoring_memberday WHERE club_id = %(club)s
            GROUP BY club_id, member_id, game, date_trunc('month', day)::date
            """,
            {"club": club.pk},
        )
        cur.execute(
            """
            INSERT INTO scoring_membertotal (club_id, member_id, game, deals, wins, points, money)
            SELECT club_id, member_id, game, sum(deals), sum(wins), sum(points), sum(money)
            FROM scoring_membermonth WHERE club_id = %(club)s
            GROUP BY club_id, member_id, game
            """,
            {"club": club.pk},
        )
        cur.execute("SET session_replication_role = DEFAULT")
        cur.execute("ANALYZE")
    results = DealResult.objects.filter(club=club).count()
    build = time.perf_counter() - t0
    print(f"built {results:,} deal results ({results // SEATS:,} deals, {sessions:,} sessions, {MEMBERS} members) "
          f"and {MemberDay.objects.filter(club=club).count():,} day, {MemberMonth.objects.filter(club=club).count():,} "
          f"month and {MemberTotal.objects.filter(club=club).count():,} all-time aggregate rows in {build:.1f} s")

    if not args.skip_ratings:
        t1 = time.perf_counter()
        rated = ratings.recompute(club_id=club.pk, game=OVERALL)
        overall = time.perf_counter() - t1
        for game in GAMES:
            ratings.recompute(club_id=club.pk, game=game)
        per_game = time.perf_counter() - t1 - overall
        print(f"ratings recomputed: overall {rated:,} deals in {overall:.1f} s "
              f"({rated / overall:,.0f} deals/s), per game {per_game:.1f} s")
    return club, token


def time_queries(args: argparse.Namespace, club: Any, token: Any) -> None:
    from django.db import connection
    from django.utils import timezone
    from rest_framework.test import APIClient

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    today = timezone.localdate()
    year_start = date(today.year, 1, 1)
    custom = (today - timedelta(days=400), today - timedelta(days=20))
    this_month = today.replace(day=1)
    last_month = (this_month - timedelta(days=1)).replace(day=1)

    def start_of(day: date) -> object:
        return timezone.make_aware(timezone.datetime.combine(day, timezone.datetime.min.time()))

    base = ("SELECT member_id, count(*), sum(won::int), sum(points), sum(money) FROM scoring_dealresult "
            "WHERE club_id = %s")
    queries = [
        ("all games, all time", "", base + " GROUP BY member_id", [club.pk]),
        ("velnias, all time", "game=velnias", base + " AND game = %s GROUP BY member_id", [club.pk, "velnias"]),
        ("velnias, this year", "game=velnias&period=year",
         base + " AND game = %s AND finished_at >= %s GROUP BY member_id", [club.pk, "velnias", start_of(year_start)]),
        ("all games, this year", "period=year",
         base + " AND finished_at >= %s GROUP BY member_id", [club.pk, start_of(year_start)]),
        ("all games, this month", "period=month",
         base + " AND finished_at >= %s GROUP BY member_id", [club.pk, start_of(today.replace(day=1))]),
        ("velnias, this month", "game=velnias&period=month",
         base + " AND game = %s AND finished_at >= %s GROUP BY member_id",
         [club.pk, "velnias", start_of(today.replace(day=1))]),
        ("all games, today", f"period=custom&start={today.isoformat()}&end={today.isoformat()}",
         base + " AND finished_at >= %s GROUP BY member_id", [club.pk, start_of(today)]),
        (f"all games, {last_month:%Y-%m} (a past month)",
         f"period=custom&start={last_month.isoformat()}&end={this_month - timedelta(days=1)}",
         base + " AND finished_at >= %s AND finished_at < %s GROUP BY member_id",
         [club.pk, start_of(last_month), start_of(this_month)]),
        ("velnias, a past month", f"game=velnias&period=custom&start={last_month.isoformat()}"
         f"&end={this_month - timedelta(days=1)}",
         base + " AND game = %s AND finished_at >= %s AND finished_at < %s GROUP BY member_id",
         [club.pk, "velnias", start_of(last_month), start_of(this_month)]),
        (f"all games, {custom[0]}..{custom[1]}",
         f"period=custom&start={custom[0].isoformat()}&end={custom[1].isoformat()}",
         base + " AND finished_at >= %s AND finished_at < %s GROUP BY member_id",
         [club.pk, start_of(custom[0]), start_of(custom[1] + timedelta(days=1))]),
    ]
    from scoring import board_version

    print()
    print("endpoint = GET /api/clubs/bench/leaderboard/ in process; between deals = the totals cached for the "
          "club's versions;")
    print("after a deal = the first read after a deal finished today committed (board_version.changed: the period's "
          f"days in this month are summed again); cache: {settings_cache()}")
    cpu_of = backend_cpu(connection)
    print("cpu = the request's server CPU time: this thread's and its PostgreSQL backend's"
          + ("" if cpu_of is not None else " (backend not readable here: this thread's only)"))
    print(f"{'query':40} {'between deals':>13} {'p99':>8} {'cpu':>7} {'after a deal':>13} {'p99':>8} {'cpu':>7} "
          f"{'raw SQL':>10} {'p99':>8} {'rows':>5}")
    for label, params, sql, sql_params in queries:
        url = f"/api/clubs/bench/leaderboard/?min_deals=10&{params}"
        response = client.get(url)
        assert response.status_code == 200, response.content
        body = response.json()
        if os.environ.get("BENCH_PROFILE"):
            import cProfile
            import pstats

            profile = cProfile.Profile()
            profile.runcall(lambda url=url: [client.get(url) for _ in range(20)])
            pstats.Stats(profile).sort_stats("cumulative").print_stats(40)

        def raw(sql: str = sql, sql_params: list[object] = sql_params) -> list[tuple[object, ...]]:
            with connection.cursor() as cur:
                cur.execute(sql, sql_params)
                return cur.fetchall()

        rows = raw()
        check_totals(body, rows)
        # Side by side: the raw aggregates interleaved with the requests, so both see the same
        # machine (other work on it slows both alike).
        endpoint, changed, raw_times = [], [], []
        endpoint_cpu, changed_cpu = [], []
        every = max(1, args.runs // max(1, args.raw_runs))
        for _ in range(3):
            client.get(url)
        for i in range(args.runs):
            wall, cpu = timed_cpu(lambda url=url: client.get(url), cpu_of)
            endpoint.append(wall)
            endpoint_cpu.append(cpu)
            board_version.changed(club.pk, timezone.now())  # what a deal finished today does once it commits
            wall, cpu = timed_cpu(lambda url=url: client.get(url), cpu_of)
            changed.append(wall)
            changed_cpu.append(cpu)
            if i % every == 0 and len(raw_times) < args.raw_runs:
                raw_times += timed(raw, 1, warmup=0 if raw_times else 1)
        e_med, e_p99 = statistics.median(endpoint), percentile(endpoint, 0.99)
        c_med, c_p99 = statistics.median(changed), percentile(changed, 0.99)
        r_med, r_p99 = statistics.median(raw_times), percentile(raw_times, 0.99)
        e_cpu, c_cpu = statistics.median(endpoint_cpu), statistics.median(changed_cpu)
        print(f"{label:40} {e_med:10.1f} ms {e_p99:5.1f} ms {e_cpu:4.1f} ms {c_med:10.1f} ms {c_p99:5.1f} ms "
              f"{c_cpu:4.1f} ms {r_med:7.1f} ms {r_p99:5.1f} ms {len(rows):5}")
        if max(e_med, c_med) >= TARGET_MS:
            FAILURES.append(label)
    failures = len(FAILURES)
    print()
    print(f"target: endpoint median under {TARGET_MS:.0f} ms for every period, between deals and after "
          "one (the raw SQL over the results beside it, for scale):",
          "met" if not failures else f"MISSED for {failures} quer{'y' if failures == 1 else 'ies'}",
          f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, shared)")


def backend_cpu(connection: Any) -> Callable[[], float] | None:
    """The CPU time (ms) of this connection's PostgreSQL backend so far, read from /proc (None:
    the server is not on this machine, or not readable)."""
    with connection.cursor() as cur:
        cur.execute("SELECT pg_backend_pid()")
        path = Path(f"/proc/{cur.fetchone()[0]}/schedstat")
    try:
        path.read_text()
    except OSError:
        return None
    return lambda: int(path.read_text().split()[0]) / 1e6


def timed_cpu(call: Callable[[], object], backend: Callable[[], float] | None) -> tuple[float, float]:
    """Wall time and server CPU time (this thread's and the backend's) of one call, in ms."""
    before = backend() if backend is not None else 0.0
    start, start_cpu = time.perf_counter(), time.thread_time()
    call()
    wall, cpu = (time.perf_counter() - start) * 1000, (time.thread_time() - start_cpu) * 1000
    return wall, cpu + (backend() - before if backend is not None else 0.0)


def settings_cache() -> str:
    from django.conf import settings

    backend = settings.CACHES["default"]
    return f"{backend['BACKEND'].rsplit('.', 1)[-1]} {backend.get('LOCATION', '')}".strip()


def check_totals(body: dict[str, object], rows: list[tuple[object, ...]]) -> None:
    """The endpoint's totals must be exactly the raw aggregate's (the benchmark times equal work)."""
    from decimal import Decimal

    board = {row["member"]: row for row in [*body["ranked"], *body["unranked"]]}  # type: ignore[misc]
    assert len(board) == len(rows), (len(board), len(rows))
    for member, deals, wins, points, money in rows:
        row = board[member]
        assert (row["deals"], row["wins"]) == (deals, wins), (member, row, deals, wins)
        assert row["points"] in (None, points)
        assert Decimal(row["money"]) == money


if __name__ == "__main__":
    sys.exit(main())
