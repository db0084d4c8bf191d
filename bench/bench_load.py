"""Fifty tablets recording Rūkas evenings at once, then an audit of what was stored.

What it does, all on this machine (loopback only, bounded in time and in requests):

1. Creates a throwaway PostgreSQL database (``kortos_bench_load`` on the server of
   ``BENCH_ADMIN_URL``, default ``postgres://postgres@127.0.0.1:5432/postgres``), migrates
   it and seeds one club with a scorer (and API token) per table and eight members.
2. Starts gunicorn (production settings, ``--workers``/``--threads``) on a free loopback
   port against it. Summaries are built in the web process after each close, as with no
   broker, unless ``--broker redis://...`` is given: then a Celery worker builds them, as
   in the real deployment.
3. ``--tablets`` threads (default 50), each a table's tablet, record for ``--seconds``
   (default 60): start a Rūkas evening for four of the members, then deal after deal
   (the dealer from the server's rotation), each trick sent with a fresh idempotency key
   and the ``expected_seq`` the tablet saw, who reveals first read from the server's
   answer, as a tablet does; every third deal the evening is closed and a new one begins.
   Flaky Wi-Fi: one request in ``--retry-rate`` (default 0.1) "loses" its answer and is
   sent again with the same key; the second answer must be the stored entry (200,
   ``replayed``) with the same seq. Connection errors and 5xx are retried the same way and
   counted as errors.
4. Audits the database: every deal's active entries are numbered 1..seq without a gap or
   a duplicate; every accepted key is stored exactly once, with the seq the tablet was
   told, and nothing is stored that no tablet sent; every finished deal has one result
   per seat; every session's ledger sums to zero (the scoring selector's zero-sum check
   and the results' stakes).
5. Prints requests served, errors, retries, throughput and p50/p99/max latency, then stops
   gunicorn and drops the database.

Usage: ``python bench/bench_load.py [--tablets 50] [--seconds 60] [--workers N] [--threads 2]
[--broker redis://127.0.0.1:6379/13]``.
Exit status 1 if the audit finds anything or a request failed.
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
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

BENCH_DB = os.environ.get("BENCH_LOAD_DB_NAME", "kortos_bench_load")
ADMIN_URL = os.environ.get("BENCH_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")
HOST = "127.0.0.1"
MEMBERS = ["Ona", "Jonas", "Rūta", "Petras", "Asta", "Tomas", "Eglė", "Marius"]
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
#: Hard ceilings, whatever the clock says.
MAX_REQUESTS = 200_000
REQUEST_TIMEOUT = 30.0
DEALS_PER_EVENING = 3


def database_url() -> str:
    return urlunsplit(urlsplit(ADMIN_URL)._replace(path=f"/{BENCH_DB}"))


def admin_sql(statement: str) -> None:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(statement)


def environment(broker: str = "") -> dict[str, str]:
    env = {key: value for key, value in os.environ.items()
           if key not in ("DEBUG", "CELERY_BROKER_URL", "CACHE_URL", "DJANGO_SETTINGS_MODULE")}
    if broker:
        env["CELERY_BROKER_URL"] = broker
        env["CELERY_QUEUE"] = f"bench-load-{uuid.uuid4().hex[:8]}"
    env.update({
        "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": database_url(), "ALLOW_INSECURE_KEY": "1",
        "SECURE_BEHIND_TLS": "0", "ALLOWED_HOSTS": "127.0.0.1,localhost", "CONN_MAX_AGE": "60",
        "LOG_LEVEL": "ERROR", "PYTHONWARNINGS": "ignore::UserWarning",
    })
    return env


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


# -- seeding and auditing (in this process, through Django) --------------------------------------------


def setup_django(env: dict[str, str]) -> None:
    os.environ.update(env)
    import django

    django.setup()


def seed(tablets: int) -> tuple[list[str], list[int]]:
    """One scorer (and token) per table, eight members; returns (tokens, member ids)."""
    from django.contrib.auth import get_user_model
    from rest_framework.authtoken.models import Token

    from referee.models import Club, Member, Role

    club = Club.objects.create(slug="bench-load", name="Load club")
    members = [Member.objects.create(club=club, name=name) for name in MEMBERS]
    tokens = []
    for table in range(tablets):
        user = get_user_model().objects.create_user(username=f"table{table}", password="bench-pass-123")
        Member.objects.create(club=club, name=f"Table {table} scorer", user=user, role=Role.SCORER)
        tokens.append(Token.objects.create(user=user).key)
    return tokens, [m.pk for m in members]


def audit(accepted: dict[str, tuple[int, int]], unanswered: set[str]) -> list[str]:
    """Everything that is wrong with the stored data (empty: all well)."""
    from django.db.models import Count, Sum

    from referee.models import Deal, DealStatus, Entry, Session
    from scoring import selectors
    from scoring.models import DealResult

    problems: list[str] = []
    for deal in Deal.objects.all().order_by("pk"):
        seqs = list(Entry.objects.filter(deal=deal, active=True).order_by("seq").values_list("seq", flat=True))
        if seqs != list(range(1, deal.seq + 1)):
            problems.append(f"deal {deal.pk}: active entries {seqs} do not run 1..{deal.seq}")
        if deal.status == DealStatus.FINISHED and DealResult.objects.filter(deal=deal).count() != 4:
            problems.append(f"deal {deal.pk}: finished without one result per seat")
    stored = {key: (deal, seq) for key, deal, seq in
              Entry.objects.filter(idempotency_key__isnull=False).values_list("idempotency_key", "deal_id", "seq")}
    duplicates = (Entry.objects.filter(idempotency_key__isnull=False).values("deal_id", "idempotency_key")
                  .annotate(n=Count("id")).filter(n__gt=1))
    problems += [f"key {row['idempotency_key']} stored {row['n']} times" for row in duplicates]
    for key, where in accepted.items():
        if stored.get(key) != where:
            problems.append(f"accepted key {key} at {where}, stored as {stored.get(key)}")
    strays = set(stored) - set(accepted) - unanswered
    problems += [f"stored key {key} that no tablet was told about" for key in sorted(strays)[:20]]
    for session in Session.objects.all().order_by("pk"):
        check = selectors.ledger(session)["zero_sum_check"]
        if not check["ok"]:
            problems.append(f"session {session.pk}: ledger does not sum to zero: {check}")
        sums = DealResult.objects.filter(session=session).aggregate(units=Sum("units"), money=Sum("money"))
        if (sums["units"] or 0) != 0 or (sums["money"] or 0) != 0:
            problems.append(f"session {session.pk}: results' stakes sum to {sums}")
    return problems


def totals() -> dict[str, int]:
    from referee.models import Deal, DealStatus, Entry, Session
    from scoring.models import DealResult, SessionSummary

    return {
        "sessions": Session.objects.count(), "closed sessions": Session.objects.filter(status="closed").count(),
        "deals": Deal.objects.count(), "finished deals": Deal.objects.filter(status=DealStatus.FINISHED).count(),
        "entries": Entry.objects.count(), "results": DealResult.objects.count(),
        "summaries built": SessionSummary.objects.filter(state="done").count(),
    }


# -- the tablets --------------------------------------------------------------------------------------


@dataclass
class Tally:
    latencies: list[float] = field(default_factory=list)
    #: kind of request -> latencies (entries, deal starts, session starts, closes)
    by_kind: dict[str, list[float]] = field(default_factory=dict)
    statuses: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)
    retries: int = 0
    #: idempotency key -> (deal id, seq) the tablet was told
    accepted: dict[str, tuple[int, int]] = field(default_factory=dict)
    #: keys whose request may have reached the server but never got an answer
    unanswered: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def count(self) -> int:
        return len(self.latencies)


class Stop(Exception):
    pass


class Tablet:
    def __init__(self, port: int, token: str, members: list[int], tally: Tally, deadline: float, seed: int,
                 retry_rate: float) -> None:
        self.port, self.token, self.members = port, token, members
        self.tally, self.deadline = tally, deadline
        self.rng = random.Random(seed)
        self.retry_rate = retry_rate

    def request(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        if time.monotonic() > self.deadline or self.tally.count() >= MAX_REQUESTS:
            raise Stop
        data = None if body is None else json.dumps(body).encode()
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json", "Accept-Language": "en"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        kind = ("entry" if path.endswith("/entries/") else "deal start" if path.endswith("/deals/")
                else "close" if path.endswith("/close/") else "session start")
        started = time.perf_counter()
        connection = http.client.HTTPConnection(HOST, self.port, timeout=REQUEST_TIMEOUT)
        try:
            connection.request(method, path, body=data, headers=headers)
            response = connection.getresponse()
            raw = response.read()
            status = response.status
        except OSError as error:
            with self.tally.lock:
                self.tally.latencies.append(time.perf_counter() - started)
                self.tally.by_kind.setdefault(kind, []).append(time.perf_counter() - started)
                self.tally.statuses["connection error"] += 1
                self.tally.errors.append(f"{method} {path}: {error}")
            return 0, None
        finally:
            connection.close()
        with self.tally.lock:
            self.tally.latencies.append(time.perf_counter() - started)
            self.tally.by_kind.setdefault(kind, []).append(time.perf_counter() - started)
            self.tally.statuses[str(status)] += 1
            if status >= 500:
                self.tally.errors.append(f"{method} {path}: {status} {raw[:200]!r}")
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = raw.decode("utf-8", "replace")
        return status, parsed

    def must(self, method: str, path: str, body: Any, expected: int) -> Any:
        """A request the table needs: retried (same body) until the server answers sanely."""
        for _attempt in range(5):
            status, data = self.request(method, path, body)
            if status == expected:
                return data
            if status and status < 500:
                with self.tally.lock:
                    self.tally.errors.append(f"{method} {path}: {status} {str(data)[:200]}")
                raise Stop
            time.sleep(0.2)
        raise Stop

    def entry(self, deal: int, seq: int, payload: dict[str, Any]) -> dict[str, Any]:
        """Send one trick; on a lost answer (simulated or real), send it again with the same key."""
        key = uuid.uuid4().hex
        body = {**payload, "idempotency_key": key, "expected_seq": seq}
        path = f"/api/deals/{deal}/entries/"
        answer = None
        for attempt in range(6):
            status, data = self.request(path=path, method="POST", body=body)
            if status in (200, 201):
                told = data["entry"]["seq"]
                if answer is not None and (told != answer or status != 200):
                    with self.tally.lock:
                        self.tally.errors.append(f"key {key}: the retry got {status} seq {told}, not the stored "
                                                 f"entry (seq {answer})")
                answer = told
                with self.tally.lock:
                    self.tally.accepted[key] = (deal, told)
                    self.tally.unanswered.discard(key)
                if self.rng.random() < self.retry_rate and attempt == 0:
                    with self.tally.lock:
                        self.tally.retries += 1
                    continue  # the answer "got lost on the way": the tablet sends it again
                return dict(data["deal"])
            if status == 0 or status >= 500:
                with self.tally.lock:
                    self.tally.unanswered.add(key)
                    self.tally.retries += 1
                time.sleep(0.1 * (attempt + 1))
                continue
            with self.tally.lock:
                self.tally.errors.append(f"POST {path}: {status} {str(data)[:200]}")
            raise Stop
        raise Stop

    def play_deal(self, session: int) -> None:
        deal = self.must("POST", f"/api/sessions/{session}/deals/", {}, 201)
        hands = []
        for _seat in range(4):
            hand = list(RANKS)
            self.rng.shuffle(hand)
            hands.append(hand)
        view = deal
        for trick in range(13):
            leader = view["state"]["leader"]
            order = [(leader + step) % 4 for step in range(4)]
            cards = [hands[seat][trick] for seat in order]
            view = self.entry(deal["id"], trick, {"type": "trick", "cards": cards})
        if not view["finished"]:
            with self.tally.lock:
                self.tally.errors.append(f"deal {deal['id']} not finished after 13 tricks")

    def run(self) -> None:
        try:
            while True:
                players = self.rng.sample(self.members, 4)
                session = self.must("POST", "/api/sessions/", {"club": "bench-load", "game": "rukas",
                                                               "players": players, "stake": "0.10"}, 201)
                for _deal in range(DEALS_PER_EVENING):
                    self.play_deal(session["id"])
                self.must("POST", f"/api/sessions/{session['id']}/close/", None, 200)
        except Stop:
            return
        except Exception as error:  # noqa: BLE001 - reported, the other tablets go on
            with self.tally.lock:
                self.tally.errors.append(f"tablet crashed: {type(error).__name__}: {error}")


# -- main ----------------------------------------------------------------------------------------------


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tablets", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=min(8, 2 * (os.cpu_count() or 1) + 1))
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--retry-rate", type=float, default=0.1)
    parser.add_argument("--broker", default="", help="A Redis URL: summaries built by a Celery worker.")
    parser.add_argument("--keep", action="store_true", help="Keep the database afterwards (to look around).")
    args = parser.parse_args()

    admin_sql(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
    admin_sql(f'CREATE DATABASE "{BENCH_DB}"')
    server: subprocess.Popen[bytes] | None = None
    worker: subprocess.Popen[bytes] | None = None
    try:
        env = environment(args.broker)
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                       check=True, timeout=600)
        setup_django(env)
        tokens, members = seed(args.tablets)
        if args.broker:
            worker = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "config", "worker", "--concurrency", "1", "-Q",
                 env["CELERY_QUEUE"], "--without-gossip", "--without-mingle", "-l", "WARNING"],
                cwd=ROOT, env=env, start_new_session=True,
            )
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind", f"{HOST}:{port}",
             "--workers", str(args.workers), "--threads", str(args.threads), "--timeout", "60",
             "--backlog", "1024", "--log-level", "warning"],
            cwd=ROOT, env=env, start_new_session=True,
        )
        wait_until_up(port)
        tally = Tally()
        deadline = time.monotonic() + args.seconds
        tablets = [Tablet(port, tokens[i], members, tally, deadline, seed=i, retry_rate=args.retry_rate)
                   for i in range(args.tablets)]
        threads = [threading.Thread(target=tablet.run, name=f"tablet-{i}") for i, tablet in enumerate(tablets)]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=args.seconds + 2 * REQUEST_TIMEOUT + 30)
        elapsed = time.perf_counter() - started
        stuck = [thread.name for thread in threads if thread.is_alive()]
        problems = audit(tally.accepted, tally.unanswered)
        report(args, tally, elapsed, stuck, problems, totals())
        return 1 if problems or tally.errors or stuck else 0
    finally:
        for process in (server, worker):
            if process is None:
                continue
            os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
        from django.db import connections

        connections.close_all()
        if not args.keep:
            admin_sql(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')


def wait_until_up(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=2)
            connection.request("GET", "/healthz")
            if connection.getresponse().status == 200:
                return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not come up")


def report(args: Any, tally: Tally, elapsed: float, stuck: list[str], problems: list[str],
           stored: dict[str, int]) -> None:
    served = tally.count()
    errors = len(tally.errors)
    print(f"bench_load: {args.tablets} tablets x {args.seconds:.0f} s of Rūkas, gunicorn {args.workers} workers x "
          f"{args.threads} threads, PostgreSQL, loopback ({os.cpu_count()} CPUs)")
    print(f"  requests served : {served} in {elapsed:.1f} s ({served / elapsed:.0f}/s)")
    print(f"  statuses        : {dict(sorted(tally.statuses.items()))}")
    print(f"  retries (same key, lost answers): {tally.retries}")
    print(f"  errors          : {errors}" + ("" if not errors else "  e.g. " + "; ".join(tally.errors[:5])))
    if tally.latencies:
        ms = [value * 1000 for value in tally.latencies]
        print(f"  latency ms, all : p50 {statistics.median(ms):.1f}  p90 {percentile(ms, 0.90):.1f}  "
              f"p99 {percentile(ms, 0.99):.1f}  max {max(ms):.1f}")
        for kind, values in sorted(tally.by_kind.items()):
            ms = [value * 1000 for value in values]
            print(f"    {kind:<14}: n {len(ms):>6}  p50 {statistics.median(ms):.1f}  p99 {percentile(ms, 0.99):.1f}  "
                  f"max {max(ms):.1f}")
        print("    (a close builds the evening's summary " + ("on the Celery worker)" if args.broker else
                                                              "in the web process: no broker in this run)"))
    print(f"  stored          : {stored}")
    print(f"  accepted keys   : {len(tally.accepted)} (each stored exactly once: {not problems})")
    if stuck:
        print(f"  STUCK tablets   : {', '.join(stuck)}")
    print("  audit           : " + ("gap-free entries, every accepted request stored once, every ledger zero-sum"
                                    if not problems else f"{len(problems)} PROBLEMS: " + "; ".join(problems[:10])))


if __name__ == "__main__":
    raise SystemExit(main())
