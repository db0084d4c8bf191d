"""The hot path under load: ``POST /api/deals/{id}/entries/`` against a bare DRF insert.

What it does, all on this machine (loopback only, bounded in requests and in time):

1. Creates a throwaway PostgreSQL database (``kortos_bench`` on the server of
   ``BENCH_ADMIN_URL``, default ``postgres://postgres@127.0.0.1:5432/postgres``), migrates it
   with ``bench.settings_bench`` (the product's settings plus the bare app) and seeds a club,
   a scorer with an API token, and a pool of Rūkas deals (four players, 13 tricks each).
2. Starts gunicorn (sync workers) on a free loopback port against that database.
3. Throughput, side by side: rounds alternate between the bare endpoint
   (``POST /bench/bare/``: a DRF view with the same token authentication that inserts one
   row) and the entry endpoint (a tablet's real request: the next trick of its deal with an
   idempotency key and ``expected_seq``; every 13th entry finishes a deal and writes its
   results). Each round runs ``--clients`` threads for ``--seconds`` (or until the pool of
   deals is used up), one HTTP/1.1 connection per request (gunicorn's sync workers close it).
   Prints requests per second and p50/p99 latency per endpoint, and the ratio.
4. Long deals: the cost of the 2,000th entry of a deal against the 10th. One long deal is
   recorded through the real service (``entry_add``), then cloned row for row (deal
   snapshot and entry log) so that each measurement posts to a fresh deal: the 10th entry
   to a deal holding 9, the 2,000th to a deal holding 1,999; alternating, one at a time,
   over HTTP, and again in-process (the service alone, with its query count). Elgeta
   (``tests/rules/playout_elgeta.py``, a seeded deal of at least 2,000 tricks) when its
   engine is there, and Cheat (a lie challenged again and again) as a second long deal.
5. Stops gunicorn and drops the database.

Usage: ``python bench/bench_api.py [--seconds 8] [--rounds 3] [--clients 6] [--workers 3]``.
``--entry-store orm`` runs the entry endpoint (and the in-process service) on the entry
store's ORM path instead of its PostgreSQL statements: the measured speedup that
``referee/entry_store.py`` states.
Targets: entry throughput at least 0.6x the bare endpoint's; the 2,000th trick
within 1.2x of the 10th.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BENCH_DB = os.environ.get("BENCH_DB_NAME", "kortos_bench")
ADMIN_URL = os.environ.get("BENCH_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
HOST = "127.0.0.1"
NAMES = ["Ona", "Jonas", "Rūta", "Petras"]
#: Hard ceiling on the requests of one throughput round, whatever the clock says.
MAX_REQUESTS_PER_ROUND = 40_000


def database_url() -> str:
    parts = urlsplit(ADMIN_URL)
    return urlunsplit(parts._replace(path=f"/{BENCH_DB}"))


def recreate_database() -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{BENCH_DB}"')


def drop_database() -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')


def setup_django() -> None:
    os.environ["DATABASE_URL"] = database_url()
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings_bench"
    os.environ.setdefault("CONN_MAX_AGE", "60")
    import django

    django.setup()


# -- seeding -------------------------------------------------------------------------------------


@dataclass
class Seed:
    token: str
    user: Any
    club: Any
    members: list[Any]


def seed_club() -> Seed:
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from referee.models import Club, Member, Role

    user = get_user_model().objects.create_user(username="bench", password="bench-pass-123")
    club = Club.objects.create(slug="bench", name="Bench club")
    members = [Member.objects.create(club=club, name=NAMES[0], user=user, role=Role.SCORER)]
    members += [Member.objects.create(club=club, name=name) for name in NAMES[1:]]
    return Seed(token=Token.objects.create(user=user).key, user=user, club=club, members=members)


def rukas_tricks(players: int = 4) -> list[dict[str, Any]]:
    """A legal 13-trick Rūkas deal (dealer: the last seat), in reveal order, made with the engine:
    seat s plays rank (t + 3s) mod 13 in trick t, so tricks are taken, cancelled and carried."""
    from referee.rules import GAMES
    from referee.rules.rukas import reveal_order

    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    game = GAMES["rukas"]
    state = game.new_deal(players=players, dealer=players - 1)
    tricks = []
    for t in range(13):
        order = reveal_order(state.leader, players)
        entry = {"type": "trick", "cards": [ranks[(t + 3 * seat) % 13] for seat in order]}
        state = game.apply(state, entry)
        tricks.append(entry)
    assert game.outcome(state) is not None
    return tricks


def clone_sessions(seed: Seed, game: str, count: int, options: dict[str, Any] | None = None,
                   players: int = 4, dealer: int | None = None) -> list[Any]:
    """``count`` open sessions with one fresh deal each (dealer: the last seat unless given),
    written in bulk exactly as ``session_start`` + ``deal_start`` write them; returns the deals."""
    from referee.models import Deal, Seat, Session
    from referee.rules import GAMES

    rules = GAMES[game]
    dealer = players - 1 if dealer is None else dealer
    state = rules.to_dict(rules.new_deal(players=players, dealer=dealer, options=options or {}))
    stored_options = dict(state.get("options") or {})
    sessions = Session.objects.bulk_create(
        Session(club=seed.club, game=game, options=stored_options, created_by=seed.user) for _ in range(count)
    )
    Seat.objects.bulk_create(
        Seat(session=session, number=n, member=seed.members[n]) for session in sessions for n in range(players)
    )
    return Deal.objects.bulk_create(
        Deal(session=session, number=1, dealer=dealer, options=stored_options, state=state)
        for session in sessions
    )


# -- the server ----------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def application_on_the_orm() -> Any:
    """The product's WSGI application with the entry store on its ORM path (``--entry-store orm``;
    gunicorn calls this in each worker)."""
    from config.wsgi import application
    from referee import entry_store

    entry_store.SQL_VENDORS = frozenset()
    return application


def start_gunicorn(port: int, workers: int, entry_store: str = "native") -> subprocess.Popen[bytes]:
    gunicorn = Path(sys.executable).with_name("gunicorn")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench.settings_bench", "DATABASE_URL": database_url(),
           "LOG_LEVEL": "ERROR"}
    app = "bench.bench_api:application_on_the_orm()" if entry_store == "orm" else "config.wsgi:application"
    process = subprocess.Popen(
        [str(gunicorn), app, "--bind", f"{HOST}:{port}", "--workers", str(workers),
         "--worker-class", "sync", "--log-level", "warning", "--timeout", "60"],
        cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited: {process.stderr.read().decode() if process.stderr else ''}")
        try:
            status, _body = request(port, "GET", "/healthz", None, None)
            if status == 200:
                return process
        except OSError:
            pass
        time.sleep(0.2)
    process.terminate()
    raise RuntimeError("gunicorn did not answer /healthz within 30 s")


def stop_gunicorn(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def request(port: int, method: str, path: str, body: Any, token: str | None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        headers = {"Accept-Language": "en", "Connection": "close"}
        data = None
        if token:
            headers["Authorization"] = f"Token {token}"
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        conn.request(method, path, body=data, headers=headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


# -- throughput ----------------------------------------------------------------------------------


@dataclass
class Round:
    name: str
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: CPU seconds the server side spent: gunicorn workers, and their PostgreSQL backends.
    server_cpu: float = 0.0
    database_cpu: float = 0.0

    @property
    def cpu_per_request(self) -> float:
        return self.server_cpu / len(self.latencies) if self.latencies else float("nan")

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds if self.seconds else 0.0


def percentile(values: list[float], q: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1]


CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
#: The gunicorn master's pid, set once it runs: its workers are counted as the server.
SERVER_PID = [0]


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS  # utime + stime


def server_cpu() -> dict[int, tuple[str, float]]:
    """CPU seconds so far of each gunicorn worker and each PostgreSQL backend of the bench
    database: the server side's cost, which other load on the machine does not inflate the
    way it inflates wall-clock throughput."""
    import psycopg

    pids = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if parent == SERVER_PID[0]:
            pids.add(int(stat.parent.name))
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        rows = conn.execute("SELECT pid FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                            [BENCH_DB]).fetchall()
    kinds = {pid: "web" for pid in pids} | {pid: "database" for (pid,) in rows}
    return {pid: (kind, _cpu_seconds(pid)) for pid, kind in kinds.items()}


def run_round(name: str, clients: int, seconds: float, work: Callable[[int], Iterator[tuple[str, Any]]],
              port: int, token: str, expect: int) -> Round:
    """``clients`` threads each send the requests of ``work(client)`` until time is up."""
    result = Round(name)
    cpu_before = server_cpu() if SERVER_PID[0] else {}
    lock = threading.Lock()
    start_line = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def client(index: int) -> None:
        mine: list[float] = []
        errors: list[str] = []
        start_line.wait()
        for path, body in work(index):
            if time.perf_counter() >= stop_at[0] or len(mine) * clients >= MAX_REQUESTS_PER_ROUND:
                break
            began = time.perf_counter()
            status, content = request(port, "POST", path, body, token)
            mine.append(time.perf_counter() - began)
            if status != expect:
                errors.append(f"{status} {content[:200]!r}")
                break
        with lock:
            result.latencies.extend(mine)
            result.errors.extend(errors)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    stop_at[0] = began + seconds
    start_line.wait()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    result.seconds = time.perf_counter() - began
    if SERVER_PID[0]:
        spent = {pid: (kind, after - cpu_before.get(pid, (kind, 0.0))[1])
                 for pid, (kind, after) in server_cpu().items()}
        result.server_cpu = sum(cpu for _kind, cpu in spent.values())
        result.database_cpu = sum(cpu for kind, cpu in spent.values() if kind == "database")
    return result


def bare_work(index: int) -> Iterator[tuple[str, Any]]:
    n = 0
    while True:
        n += 1
        yield "/bench/bare/", {"client": index, "n": n, "note": "one row"}


def entry_work_factory(deals_by_client: list[list[int]], tricks: list[dict[str, Any]]
                       ) -> Callable[[int], Iterator[tuple[str, Any]]]:
    """Each client is a tablet walking through its own deals, trick after trick."""

    def work(index: int) -> Iterator[tuple[str, Any]]:
        deals = deals_by_client[index]
        while deals:
            deal = deals.pop()
            for seq, trick in enumerate(tricks):
                yield f"/api/deals/{deal}/entries/", {
                    **trick, "expected_seq": seq, "idempotency_key": f"bench-{deal}-{seq + 1}",
                }

    return work


#: The series of the throughput rounds: the baseline, entries that leave the deal running (a
#: trick in the middle of a deal, the hot path proper), and whole Rūkas deals (every 13th
#: entry finishes its deal and writes results, aggregates and ratings in its transaction).
SERIES = ("bare", "entries: mid-deal", "entries: whole deals")


def throughput(args: argparse.Namespace, seed: Seed, port: int) -> dict[str, list[Round]]:
    tricks = rukas_tricks()
    # Enough deals that no round runs dry below ~1,500 entries/s.
    per_round = int(1500 * args.seconds / 12) + args.clients
    pool = [d.pk for d in clone_sessions(seed, "rukas", per_round * (2 * args.rounds + 2))]

    def allot() -> list[list[int]]:
        take = [pool.pop() for _ in range(per_round)]
        return [take[i::args.clients] for i in range(args.clients)]

    def work(series: str) -> Callable[[int], Iterator[tuple[str, Any]]]:
        if series == "bare":
            return bare_work
        return entry_work_factory(allot(), tricks if series.endswith("whole deals") else tricks[:12])

    # Warm-up: every worker's imports and database connections; not counted.
    for series in SERIES[:2]:
        run_round("warm-up", args.clients, 1.0, work(series), port, seed.token, 201)
    rounds: dict[str, list[Round]] = {series: [] for series in SERIES}
    for number in range(args.rounds):
        # Rotate the order so that no series always runs first or last.
        order = SERIES[number % 3:] + SERIES[:number % 3]
        for series in order:
            rounds[series].append(run_round(series, args.clients, args.seconds, work(series), port, seed.token, 201))
    for series_rounds in rounds.values():
        for r in series_rounds:
            if r.errors:
                raise RuntimeError(f"{r.name}: unexpected answers, e.g. {r.errors[:3]}")
    return rounds


# -- long deals ----------------------------------------------------------------------------------


@dataclass
class LongDeal:
    game: str
    players: int
    dealer: int
    options: dict[str, Any]
    entries: list[dict[str, Any]]
    note: str


def elgeta_long_deal(length: int) -> LongDeal | None:
    """A seeded Elgeta deal of at least ``length`` tricks from the Elgeta playout, if it is there."""
    from referee.rules import GAMES

    try:
        GAMES["elgeta"].new_deal(players=2, dealer=1)
        from tests.rules import playout_elgeta  # type: ignore[attr-defined]
    except (NotImplementedError, ImportError):
        return None
    # E2 (all aces) off, so that a deal can run long; the first seed that gives one.
    options = {"all_aces": False}
    for players in (2, 3, 4):
        for seed in range(1000):
            kwargs, entries = playout_elgeta.random_deal(random.Random(seed), players, dict(options),
                                                         finish_early=False)
            tricks = [e for e in entries[:length] if e["type"] == "trick"]
            if len(tricks) >= length:
                return LongDeal("elgeta", players, kwargs["dealer"], dict(kwargs.get("options") or options),
                                entries, f"Elgeta, {players} players, all_aces off, playout seed {seed}: "
                                f"{len(entries)} tricks in all")
    return None


def cheat_long_deal(length: int) -> LongDeal:
    """Two players; Ona places and Jonas challenges a lie, again and again: the deal never ends."""
    entries: list[dict[str, Any]] = []
    while len(entries) < length:
        entries += [{"type": "place", "player": 0}, {"type": "challenge", "challenger": 1, "revealed": "5H"}]
    return LongDeal("cheat", 2, 1, {}, entries[:length], "Cheat, 2 players: a place and a challenged lie, repeated")


def build_prefix(seed: Seed, long: LongDeal, prefix: int) -> Any:
    """One deal holding the first ``prefix`` entries, recorded through the real service."""
    from referee import services

    deal = clone_sessions(seed, long.game, 1, long.options, long.players, long.dealer)[0]
    for n, entry in enumerate(long.entries[:prefix]):
        services.entry_add(deal_id=deal.pk, payload=entry, user=seed.user, idempotency_key=f"k{n + 1}")
    deal.refresh_from_db()
    return deal


def clone_deals(seed: Seed, model: Any, count: int, long: LongDeal) -> list[Any]:
    """``count`` copies of ``model``: the same snapshot, seq and entry log, each in its own session."""
    from referee.models import Entry

    deals = clone_sessions(seed, long.game, count, long.options, long.players, long.dealer)
    log = list(Entry.objects.filter(deal=model).order_by("seq"))
    for deal in deals:
        deal.state, deal.seq = model.state, model.seq
    type(model).objects.bulk_update(deals, ["state", "seq"])
    Entry.objects.bulk_create(
        (Entry(deal=deal, seq=e.seq, payload=e.payload, result=e.result, author=e.author,
               idempotency_key=e.idempotency_key, active=True) for deal in deals for e in log),
        batch_size=5000,
    )
    return deals


@dataclass
class LongResult:
    note: str
    http_short: list[float]
    http_long: list[float]
    service_short: list[float]
    service_long: list[float]
    queries_short: int
    queries_long: int


def measure_long(seed: Seed, long: LongDeal, port: int, samples: int, short_at: int, long_at: int) -> LongResult:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from referee import services

    short_model = build_prefix(seed, long, short_at - 1)
    long_model = build_prefix(seed, long, long_at - 1)
    assert short_model.status == long_model.status == "running"
    short_deals = clone_deals(seed, short_model, 2 * samples + 1, long)
    long_deals = clone_deals(seed, long_model, 2 * samples + 1, long)
    short_entry, long_entry = long.entries[short_at - 1], long.entries[long_at - 1]

    def post(deal: Any, entry: dict[str, Any], seq: int) -> float:
        began = time.perf_counter()
        status, content = request(port, "POST", f"/api/deals/{deal.pk}/entries/",
                                  {**entry, "expected_seq": seq, "idempotency_key": f"m{seq + 1}"}, seed.token)
        elapsed = time.perf_counter() - began
        if status != 201:
            raise RuntimeError(f"long deal: {status} {content[:300]!r}")
        return elapsed

    def add(deal: Any, entry: dict[str, Any], seq: int) -> float:
        began = time.perf_counter()
        services.entry_add(deal_id=deal.pk, payload=entry, user=seed.user, expected_seq=seq,
                           idempotency_key=f"m{seq + 1}")
        return time.perf_counter() - began

    # One warm-up each (connections, caches), then alternate short and long, one at a time.
    post(short_deals.pop(), short_entry, short_at - 1)
    post(long_deals.pop(), long_entry, long_at - 1)
    http_short, http_long, service_short, service_long = [], [], [], []
    for _ in range(samples):
        http_short.append(post(short_deals.pop(), short_entry, short_at - 1))
        http_long.append(post(long_deals.pop(), long_entry, long_at - 1))
    for _ in range(samples - 1):
        service_short.append(add(short_deals.pop(), short_entry, short_at - 1))
        service_long.append(add(long_deals.pop(), long_entry, long_at - 1))
    with CaptureQueriesContext(connection) as short_queries:
        add(short_deals.pop(), short_entry, short_at - 1)
    with CaptureQueriesContext(connection) as long_queries:
        add(long_deals.pop(), long_entry, long_at - 1)
    return LongResult(long.note, http_short, http_long, service_short, service_long,
                      len(short_queries.captured_queries), len(long_queries.captured_queries))


def measure_finish(seed: Seed, samples: int) -> tuple[list[float], list[float], int, int]:
    """In-process service time of a Rūkas deal's 12th entry (mid-deal) and 13th (it finishes the
    deal: results, aggregates and ratings are written in the same transaction), with queries."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from referee import services

    rukas = LongDeal("rukas", 4, 3, {}, rukas_tricks(), "Rūkas, 4 players")
    model = build_prefix(seed, rukas, 11)
    deals = clone_deals(seed, model, 2 * samples + 2, rukas)

    def timed(entries: list[dict[str, Any]], deal: Any) -> float:
        for n, entry in enumerate(entries[:-1], start=12):
            services.entry_add(deal_id=deal.pk, payload=entry, user=seed.user, expected_seq=n - 1)
        began = time.perf_counter()
        services.entry_add(deal_id=deal.pk, payload=entries[-1], user=seed.user, expected_seq=10 + len(entries))
        return time.perf_counter() - began

    mid, finish = [], []
    for _ in range(samples):
        mid.append(timed(rukas.entries[11:12], deals.pop()))
        finish.append(timed(rukas.entries[11:13], deals.pop()))
    with CaptureQueriesContext(connection) as mid_queries:
        services.entry_add(deal_id=deals[-1].pk, payload=rukas.entries[11], user=seed.user)
    with CaptureQueriesContext(connection) as finish_queries:
        services.entry_add(deal_id=deals[-1].pk, payload=rukas.entries[12], user=seed.user)
    return mid, finish, len(mid_queries.captured_queries), len(finish_queries.captured_queries)


def report_finish(mid: list[float], finish: list[float], mid_queries: int, finish_queries: int) -> None:
    print("\nWhat finishing a deal adds (service entry_add in-process, Rūkas, 4 players):")
    print(f"  12th entry (mid-deal):          median {ms(statistics.median(mid)).strip():>9}, {mid_queries} queries")
    print(f"  13th entry (finishes the deal): median {ms(statistics.median(finish)).strip():>9}, "
          f"{finish_queries} queries (results, aggregates, ratings)")


# -- report --------------------------------------------------------------------------------------


def ms(value: float) -> str:
    return f"{value * 1000:7.2f} ms"


def report_throughput(rounds: dict[str, list[Round]]) -> dict[str, float]:
    labels = {"bare": "POST /bench/bare/ (bare DRF insert)", "entries: mid-deal": "entries, mid-deal",
              "entries: whole deals": "entries, whole Rūkas deals"}
    print("\nThroughput, side by side (rounds rotate through the series):")
    print(f"  {'series':<40}{'requests':>9}{'req/s':>9}{'p50':>11}{'p99':>11}")
    for series, series_rounds in rounds.items():
        for i, r in enumerate(series_rounds, start=1):
            print(f"  {labels[series] + f' #{i}':<40}{len(r.latencies):>9}{r.rate:>9.0f}"
                  f"{ms(percentile(r.latencies, 50)):>11}{ms(percentile(r.latencies, 99)):>11}")
    rates = {series: statistics.median(r.rate for r in series_rounds) for series, series_rounds in rounds.items()}
    print("  median of rounds:")
    for series, series_rounds in rounds.items():
        every = [x for r in series_rounds for x in r.latencies]
        print(f"    {labels[series]:<38}{rates[series]:>7.0f} req/s   p50 {ms(percentile(every, 50)).strip():>9}"
              f"   p99 {ms(percentile(every, 99)).strip():>9}")
    ratios = {series: rates[series] / rates["bare"] for series in SERIES[1:]}
    for series, ratio in ratios.items():
        verdict = "OK" if ratio >= 0.6 else "BELOW TARGET"
        print(f"  {labels[series]} / bare throughput: {ratio:.2f}x (target >= 0.60x): {verdict}")
    cpu = {series: statistics.median(r.cpu_per_request for r in series_rounds)
           for series, series_rounds in rounds.items()}
    database = {series: statistics.median(r.database_cpu / len(r.latencies) for r in series_rounds)
                for series, series_rounds in rounds.items()}
    print("  server CPU per request (gunicorn workers + PostgreSQL backends, median of rounds):")
    for series in SERIES:
        relative = "" if series == "bare" else f"   bare/this: {cpu['bare'] / cpu[series]:.2f}x"
        print(f"    {labels[series]:<38}{ms(cpu[series])}   of which PostgreSQL {ms(database[series]).strip()}"
              f"{relative}")
    return ratios


def report_long(result: LongResult, short_at: int, long_at: int) -> float:
    print(f"\nLong deal: {result.note}")
    print(f"  {'':<34}{'entry ' + str(short_at):>14}{'entry ' + str(long_at):>14}{'ratio':>8}")
    ratio = 0.0
    for label, short, long in (("HTTP POST, median", result.http_short, result.http_long),
                               ("HTTP POST, p90", result.http_short, result.http_long),
                               ("service entry_add, median", result.service_short, result.service_long)):
        q = 90 if "p90" in label else 50
        a, b = percentile(short, q), percentile(long, q)
        if label == "HTTP POST, median":
            ratio = b / a
        print(f"  {label:<34}{ms(a):>14}{ms(b):>14}{b / a:>7.2f}x")
    print(f"  {'queries per entry (service)':<34}{result.queries_short:>14}{result.queries_long:>14}")
    print(f"  {len(result.http_short)} HTTP samples each, alternating; target: entry {long_at} within 1.2x of "
          f"entry {short_at}: {'OK' if ratio <= 1.2 else 'ABOVE TARGET'}")
    return ratio


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=8.0, help="length of one throughput round")
    parser.add_argument("--rounds", type=int, default=3, help="rounds per endpoint, alternating")
    parser.add_argument("--clients", type=int, default=6, help="concurrent client threads")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn sync workers")
    parser.add_argument("--samples", type=int, default=30, help="long-deal measurements of each length")
    parser.add_argument("--long", type=int, default=2000, help="the long deal's entry to time")
    parser.add_argument("--short", type=int, default=10, help="the short deal's entry to time")
    parser.add_argument("--skip-throughput", action="store_true")
    parser.add_argument("--skip-long", action="store_true")
    parser.add_argument("--entry-store", choices=("native", "orm"), default="native",
                        help="the entry store's path: PostgreSQL's statements (native) or the ORM's")
    args = parser.parse_args()

    recreate_database()
    setup_django()
    from django.core.management import call_command
    from django.db import connections

    call_command("migrate", verbosity=0)
    if args.entry_store == "orm":
        from referee import entry_store

        entry_store.SQL_VENDORS = frozenset()
    seed = seed_club()
    port = free_port()
    print(f"kortos API bench: PostgreSQL database {BENCH_DB}, gunicorn {args.workers} sync workers on "
          f"{HOST}:{port}, {args.clients} client threads, {os.cpu_count()} CPUs, "
          f"entry store on its {'ORM path' if args.entry_store == 'orm' else 'PostgreSQL statements'}")
    print("load average (1, 5, 15 min) before: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    server = start_gunicorn(port, args.workers, args.entry_store)
    SERVER_PID[0] = server.pid
    try:
        if not args.skip_throughput:
            report_throughput(throughput(args, seed, port))
            report_finish(*measure_finish(seed, args.samples))
        if not args.skip_long:
            elgeta = elgeta_long_deal(args.long)
            if elgeta is None:
                print("\nLong deal: Elgeta's engine or tests/rules/playout_elgeta.py is not there yet; "
                      "measuring Cheat only.")
            for long in (elgeta, cheat_long_deal(args.long)):
                if long is not None:
                    result = measure_long(seed, long, port, args.samples, args.short, args.long)
                    report_long(result, args.short, args.long)
        print("\nload average (1, 5, 15 min) after: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    finally:
        stop_gunicorn(server)
        connections.close_all()
        drop_database()
    return 0


if __name__ == "__main__":
    sys.exit(main())
