"""Table traffic of one club's tournament night, side by side with the bare insert.

16 tables of one club at once, each its own four players and its own client thread (the
table's tablet), each starting a deal (``POST /api/sessions/{id}/deals/``) and recording it
to its end:

* Rūkas tables: a deal start and 13 tricks, the last one finishing the deal (results,
  aggregates, the rating step);
* Velnias tables: a deal start and the one ``end`` entry that finishes the deal.

Rounds alternate with the bare endpoint (``POST /bench/bare/``: the same token
authentication, one INSERT), and each series reports requests per second, p50/p99 and its
ratio to the bare insert's rate; the figures are the medians of ``--rounds`` rounds. As
deployed: gunicorn ``-w 2`` on PostgreSQL with a Celery worker (``--concurrency 2``) and
Redis (``BENCH_BROKER_URL``, default db 12) beside it, all on this machine. After the last
round it waits for the worker to settle the ratings and prints how long that took, then times
how long one deal's ratings take to settle on the idle worker (issue: within a second). The server
CPU per request is also given by part: gunicorn (web), PostgreSQL (database), Celery (worker). The
load average (``uptime``) is printed before and after, because the machine is shared.

Usage: ``python bench/bench_tables.py [--seconds 6] [--rounds 3] [--tables 16]``
(``BENCH_WORKER_LOG=path`` keeps the worker's log).
Targets: Rūkas tables at 0.7x the bare insert or more, Velnias tables at 0.5x or more.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import bench_api  # noqa: E402
from bench.bench_api import percentile, request  # noqa: E402

BROKER = os.environ.get("BENCH_BROKER_URL", "redis://127.0.0.1:6379/12")
SERIES = ("bare", "rukas tables", "velnias tables")


def uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


@dataclass
class Table:
    """One table's tablet: its session, and the deal it is recording (None between deals)."""

    session: int
    game: str
    deal: int | None = None
    seq: int = 0
    entries: list[dict[str, Any]] = field(default_factory=list)


def rukas_deal(dealer: int, players: int = 4) -> list[dict[str, Any]]:
    """A legal 13-trick Rūkas deal for this dealer (as ``bench_api.rukas_tricks`` for any dealer)."""
    from referee.rules import GAMES
    from referee.rules.rukas import reveal_order

    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    game = GAMES["rukas"]
    state = game.new_deal(players=players, dealer=dealer)
    tricks = []
    for t in range(13):
        entry = {"type": "trick", "cards": [ranks[(t + 3 * seat) % 13] for seat in reveal_order(state.leader, players)]}
        state = game.apply(state, entry)
        tricks.append(entry)
    assert game.outcome(state) is not None
    return tricks


def velnias_deal(dealer: int, players: int = 4) -> list[dict[str, Any]]:
    """The one entry of a Velnias deal: the seat after the dealer empties its hand."""
    from referee.rules import GAMES

    winner = (dealer + 1) % players
    counts = [0 if seat == winner else 2 + seat for seat in range(players)]
    entry = {"type": "end", "condition": "empty_hand", "player": winner, "hand_counts": counts}
    game = GAMES["velnias"]
    assert game.outcome(game.apply(game.new_deal(players=players, dealer=dealer), entry)) is not None
    return [entry]


DEALS: dict[str, Callable[[int], list[dict[str, Any]]]] = {"rukas": rukas_deal, "velnias": velnias_deal}


def seed_tables(tables: int) -> tuple[str, dict[str, list[Table]]]:
    """A club with a scorer and 4 x ``tables`` players; one open session per table and game."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from referee import services
    from referee.models import Club, Member, Role

    user = get_user_model().objects.create_user(username="bench", password="bench-pass-123")
    club = Club.objects.create(slug="bench", name="Bench club")
    Member.objects.create(club=club, name="Teisėjas", user=user, role=Role.SCORER)
    players = [Member.objects.create(club=club, name=f"Žaidėjas {n + 1}") for n in range(4 * tables)]
    by_game: dict[str, list[Table]] = {}
    for game in DEALS:
        by_game[game] = [
            Table(services.session_start(club=club, game=game, players=players[4 * t:4 * t + 4], user=user).pk, game)
            for t in range(tables)
        ]
    return Token.objects.create(user=user).key, by_game


def run_round(name: str, port: int, token: str, seconds: float, steps: list[Callable[[], tuple[str, Any, int]]]
              ) -> bench_api.Round:
    """One thread per table (or per bare client), each sending its next request until time is up."""
    result = bench_api.Round(name)
    cpu_before = cpu_now()
    lock = threading.Lock()
    start_line = threading.Barrier(len(steps) + 1)
    stop_at = [0.0]

    def client(step: Callable[[], tuple[str, Any, int]]) -> None:
        mine: list[float] = []
        errors: list[str] = []
        start_line.wait()
        while time.perf_counter() < stop_at[0]:
            path, body, expect = step()
            began = time.perf_counter()
            status, content = request(port, "POST", path, body, token)
            mine.append(time.perf_counter() - began)
            if status != expect:
                errors.append(f"{path} {status} {content[:300]!r}")
                break
            after = getattr(step, "answered", None)
            if after is not None:
                after(content)
        with lock:
            result.latencies.extend(mine)
            result.errors.extend(errors)

    threads = [threading.Thread(target=client, args=(step,)) for step in steps]
    for thread in threads:
        thread.start()
    began = time.perf_counter()
    stop_at[0] = began + seconds
    start_line.wait()
    for thread in threads:
        thread.join(timeout=seconds + 120)
    result.seconds = time.perf_counter() - began
    spent = cpu_now()
    by_kind: dict[str, float] = {"web": 0.0, "database": 0.0, "worker": 0.0}
    for pid, (kind, after) in spent.items():
        by_kind[kind] += after - cpu_before.get(pid, (kind, 0.0))[1]
    result.server_cpu = sum(by_kind.values())
    for kind, used in by_kind.items():
        CPU_BY_KIND.setdefault(name, {}).setdefault(kind, []).append(used / max(len(result.latencies), 1))
    if result.errors:
        raise RuntimeError(f"{name}: unexpected answers, e.g. {result.errors[:3]}")
    return result


class TableStep:
    """The table's next request: start a deal, or record the deal's next entry."""

    def __init__(self, table: Table) -> None:
        self.table = table
        self.pending: str = ""

    def __call__(self) -> tuple[str, Any, int]:
        t = self.table
        if t.deal is None:
            self.pending = "start"
            return f"/api/sessions/{t.session}/deals/", {}, 201
        self.pending = "entry"
        entry = t.entries[t.seq]
        return f"/api/deals/{t.deal}/entries/", {
            **entry, "expected_seq": t.seq, "idempotency_key": f"bench-{t.deal}-{t.seq + 1}"}, 201

    def answered(self, content: bytes) -> None:
        import json

        t = self.table
        if self.pending == "start":
            deal = json.loads(content)
            t.deal, t.seq = deal["id"], 0
            t.entries = DEALS[t.game](deal["dealer"])
        else:
            t.seq += 1
            if t.seq == len(t.entries):
                t.deal = None


class BareStep:
    def __init__(self, index: int) -> None:
        self.index, self.n = index, 0

    def __call__(self) -> tuple[str, Any, int]:
        self.n += 1
        return "/bench/bare/", {"client": self.index, "n": self.n, "note": "one row"}, 201


#: The Celery worker's pid, once it runs: its pool processes count as the server too.
WORKER_PID = [0]


def _descendants(pid: int) -> set[int]:
    found, frontier = set(), {pid}
    while frontier:
        children = set()
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                parent = int(stat.read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if parent in frontier:
                children.add(int(stat.parent.name))
        found |= children
        frontier = children
    return found


#: series -> "web" / "database" / "worker" -> CPU seconds per request of each round.
CPU_BY_KIND: dict[str, dict[str, list[float]]] = {}


def cpu_now() -> dict[int, tuple[str, float]]:
    """CPU seconds so far of the server side, by pid with its kind: gunicorn workers ("web"),
    the bench database's PostgreSQL backends ("database"), and the Celery worker with its pool
    ("worker", where the rating step runs). Unlike requests per second, this is not inflated by
    other load on a shared machine."""
    cpu = bench_api.server_cpu()
    for pid in _descendants(WORKER_PID[0]) | {WORKER_PID[0]} if WORKER_PID[0] else set():
        cpu[pid] = ("worker", bench_api._cpu_seconds(pid))
    return cpu


def start_worker() -> subprocess.Popen[bytes]:
    """The Celery worker; its log (tasks run, retried, failed) goes to ``BENCH_WORKER_LOG`` when set."""
    celery = Path(sys.executable).with_name("celery")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "bench.settings_bench", "DATABASE_URL": bench_api.database_url(),
           "CELERY_BROKER_URL": BROKER}
    log_path = os.environ.get("BENCH_WORKER_LOG")
    log: Any = open(log_path, "ab") if log_path else subprocess.DEVNULL  # noqa: SIM115 - the worker writes it
    return subprocess.Popen(
        [str(celery), "-A", "config", "worker", f"--loglevel={'info' if log_path else 'warning'}", "--concurrency=2"],
        cwd=ROOT, env=env, stdout=log, stderr=log, start_new_session=True,
    )


def ratings_settled() -> bool:
    """Whether nothing is left for the rating worker (the names of the queue differ by version)."""
    from django.apps import apps

    try:
        queue = apps.get_model("scoring", "RatingEvent")
    except LookupError:
        return True  # ratings were written in the entry's transaction
    return not queue.objects.exists()


#: How long the idle worker is given to settle one deal's ratings (the issue asks for a second).
IDLE_WAIT = 10.0


def queued_rating_events() -> int:
    """The rating events still waiting for the worker (0 for a version without a queue)."""
    from django.apps import apps

    try:
        return int(apps.get_model("scoring", "RatingEvent").objects.count())
    except LookupError:
        return 0


def settle_on_an_idle_worker(port: int, token: str, table: TableStep, deals: int) -> list[float]:
    """One table alone finishes ``deals`` deals, a second apart; for each, the time from the
    finishing entry's answer until no deal waits for its rating step."""
    times: list[float] = []
    for _ in range(deals):
        time.sleep(1.0)
        while True:
            path, body, expect = table()
            status, content = request(port, "POST", path, body, token)
            answered = time.perf_counter()
            if status != expect:
                raise RuntimeError(f"{path}: {status} {content[:300]!r}")
            table.answered(content)
            if table.table.deal is None:
                break
        while not ratings_settled() and time.perf_counter() - answered < IDLE_WAIT:
            time.sleep(0.005)
        times.append(time.perf_counter() - answered)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=6.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--idle-deals", type=int, default=5, help="deals timed on the idle worker")
    args = parser.parse_args()

    os.environ["CELERY_BROKER_URL"] = BROKER
    bench_api.recreate_database()
    bench_api.setup_django()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    token, tables = seed_tables(args.tables)
    from django.db import connection

    connection.close()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    print(f"code: {commit.stdout.strip() or 'HEAD at the start, unpacked'} ({ROOT})")
    print("uptime before:", uptime())
    port = bench_api.free_port()
    server = bench_api.start_gunicorn(port, args.workers)
    bench_api.SERVER_PID[0] = server.pid
    worker = start_worker()
    WORKER_PID[0] = worker.pid
    try:
        steps: dict[str, list[Any]] = {
            "bare": [BareStep(i) for i in range(args.tables)],
            "rukas tables": [TableStep(t) for t in tables["rukas"]],
            "velnias tables": [TableStep(t) for t in tables["velnias"]],
        }
        for series in SERIES:  # warm-up: imports and connections of every worker, not counted
            run_round("warm-up", port, token, 1.0, steps[series])
        rounds: dict[str, list[bench_api.Round]] = {series: [] for series in SERIES}
        for number in range(args.rounds):
            order = SERIES[number % 3:] + SERIES[:number % 3]
            for series in order:
                rounds[series].append(run_round(series, port, token, args.seconds, steps[series]))
        began = time.perf_counter()
        while not ratings_settled() and time.perf_counter() - began < 60:
            time.sleep(0.05)
        settle = time.perf_counter() - began
        left = queued_rating_events()
        idle = settle_on_an_idle_worker(port, token, steps["velnias tables"][0], args.idle_deals)
    finally:
        bench_api.stop_gunicorn(server)
        os.killpg(worker.pid, 15)
        worker.wait(timeout=30)
        from django.db import connections

        connections.close_all()
    bare = statistics.median(r.rate for r in rounds["bare"])
    print(f"\n{args.tables} tables of one club at once, gunicorn -w {args.workers}, PostgreSQL, Celery worker + Redis;"
          f" medians of {args.rounds} rounds of {args.seconds:.0f} s")
    print(f"{'series':<16} {'req/s':>8} {'x bare':>7} {'p50 ms':>7} {'p99 ms':>7} {'cpu ms/req':>10}"
          f" {'x bare':>7}   rounds (req/s)")
    bare_cpu = statistics.median(r.cpu_per_request for r in rounds["bare"])
    for series, series_rounds in rounds.items():
        rate = statistics.median(r.rate for r in series_rounds)
        p50 = statistics.median(percentile(r.latencies, 50) for r in series_rounds) * 1000
        p99 = statistics.median(percentile(r.latencies, 99) for r in series_rounds) * 1000
        cpu = statistics.median(r.cpu_per_request for r in series_rounds)
        each = " ".join(f"{r.rate:.0f}" for r in series_rounds)
        print(f"{series:<16} {rate:8.0f} {rate / bare:6.2f}x {p50:7.1f} {p99:7.1f} {cpu * 1000:10.2f}"
              f" {bare_cpu / cpu:6.2f}x   {each}")
    print("cpu ms/req by part (medians):", "; ".join(
        f"{series}: " + ", ".join(f"{kind} {statistics.median(values) * 1000:.2f}"
                                  for kind, values in sorted(CPU_BY_KIND.get(series, {}).items()))
        for series in SERIES))
    print("cpu ms/req: server CPU (gunicorn, PostgreSQL, Celery worker) per request; its 'x bare' is"
          " the bare insert's CPU per request over the series' (the rate the series would reach on an idle machine)")
    if left:
        print(f"ratings NOT settled {settle:.0f} s after the last round: {left} rating events still queued")
    else:
        print(f"ratings settled {settle:.2f} s after the last round")
    if idle:
        print(f"on the idle worker, a Velnias deal's ratings settled {statistics.median(idle) * 1000:.0f} ms"
              f" (median; max {max(idle) * 1000:.0f} ms of {len(idle)}) after its finishing entry was answered"
              + (f"; {sum(t >= IDLE_WAIT for t in idle)} of them not within {IDLE_WAIT:.0f} s"
                 if max(idle) >= IDLE_WAIT else ""))
    print("uptime after:", uptime())
    bench_api.drop_database()
    return 0


if __name__ == "__main__":
    sys.exit(main())
