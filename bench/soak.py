"""The soak: a whole club night, sped up, a million requests against the deployment's processes.

Load tests run for seconds or minutes; a club night lasts hours. This one runs until
``--requests`` (default 1,000,000) have been sent and watches what only time shows: memory
that creeps up, connections that are never given back, a p99 that drifts, a queue that grows.

What runs, all on this machine over loopback (``bench/bench_club_night.py``'s start-up): a copy
of ``--commit`` (default HEAD; ``git archive``, the work tree untouched), a throwaway PostgreSQL
database (``BENCH_SOAK_DB``, default ``kortos_bench_soak``), gunicorn with ``--workers`` sync
workers (docker-compose: 3), one Celery worker with ``--concurrency`` processes (docker-compose:
2) on a Redis broker, and the Redis cache.

The night: ``--tables`` tables (default 30), Rūkas and Velnias in turn, each with its tablet and
four phones, at a person's pace multiplied by ``--speed`` (default 4): a Rūkas trick every 3 s,
a Velnias deal every 60 s, each phone polling every 2-3 s (all divided by the speed). A table
plays ``--deals`` deals (default 4), closes its session (the worker builds the summary; the
ratings follow each deal) and opens the next one, as tables do all night. Open loop: a request
is sent at its time whatever happened to the earlier ones, and its latency counts from then.

The phones keep the cookies the server gives them, as their browsers do: the watch cookie
(``web.poll_cache``) is what lets an unchanged poll be answered from the cache, and a client
that drops it sends every poll to the database. PostgreSQL vacuums and analyses as deployed
(``--autovacuum on``, the default: turned on for the run when the server has it off).

Every ``--interval`` seconds (default 60) it prints one line: requests and errors in the
interval, p50 and p99 (and p99 by kind of request, and how late the soak's own event loop
ran, so that a stall of the client is not taken for the server's), the resident memory
(``/proc/PID/status`` VmRSS) of the gunicorn master, its workers and the Celery worker's
processes, the open PostgreSQL connections to the database (``pg_stat_activity``, by state)
and the Celery queue's length in Redis. At the end, a verdict
against the targets, measured after the warm-up (the first ``--warm-up`` share of the requests,
default 10 %):

* resident memory of each process group grows under 10 % from the end of the warm-up to the end;
* open database connections do not grow: the last third's most is at most the first third's,
  or at most one per process that may hold one (gunicorn workers, Celery pool processes);
* p99 stays flat: the last third's p99 within 20 % of the first third's;
* and no request failed.

Usage: ``python bench/soak.py [--requests 1000000] [--tables 30] [--speed 4] [--interval 60]``
(a short proof: ``--requests 20000 --interval 10``). At ``--speed 4`` thirty tables send about
210 requests a second: a million takes about 80 minutes. Exit status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# The soak's own database and Redis databases, so it can run beside the other benchmarks.
os.environ.setdefault("BENCH_NIGHT_DB", os.environ.get("BENCH_SOAK_DB", "kortos_bench_soak"))
os.environ.setdefault("BENCH_NIGHT_BROKER_DB", os.environ.get("BENCH_SOAK_BROKER_DB", "11"))
os.environ.setdefault("BENCH_NIGHT_CACHE_DB", os.environ.get("BENCH_SOAK_CACHE_DB", "12"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_club_night import (  # noqa: E402
    ADMIN_URL,
    BENCH_DB,
    RANKS,
    REQUEST_TIMEOUT,
    Answer,
    CookieJar,
    Server,
    Table,
    admin_sql,
    export,
    http,
    load,
    next_entry,
    p,
    start_server,
)

TRICK_EVERY = 3.0
VELNIAS_EVERY = 60.0
PHONES_PER_TABLE = 4
TARGET_RSS_GROWTH = 0.10
TARGET_P99_DRIFT = 0.20


# -- what the server side looks like now -------------------------------------------------------------------


def rss_kb(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    found.append(int(entry.name))
            except OSError:
                continue
    return sorted(found)


def memory(server: Server) -> dict[str, tuple[int, int]]:
    """Resident memory in kB and process count, per group: the gunicorn master, its workers,
    the Celery worker (its main process and its pool)."""
    celery, gunicorn = server.processes[0].pid, server.processes[1].pid
    workers = children(gunicorn)
    pool = children(celery)
    return {
        "gunicorn master": (rss_kb(gunicorn), 1),
        "gunicorn workers": (sum(rss_kb(pid) for pid in workers), len(workers)),
        "celery": (rss_kb(celery) + sum(rss_kb(pid) for pid in pool), 1 + len(pool)),
    }


def connections() -> Counter[str]:
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        rows = conn.execute("SELECT coalesce(state, '?'), count(*) FROM pg_stat_activity WHERE datname = %s "
                            "GROUP BY 1", [BENCH_DB]).fetchall()
    return Counter({state: count for state, count in rows})


def queue_length(broker: Any, queue: str) -> int:
    """Messages waiting in the Celery queue: kombu keeps a Redis list per priority step."""
    return sum(int(broker.llen(name)) for name in [queue, *(f"{queue}\x06\x16{step}" for step in range(1, 10))])


# -- the night ---------------------------------------------------------------------------------------------


@dataclass
class Interval:
    latency: list[float] = field(default_factory=list)
    #: the same latencies by kind of request (entry, poll, deal start, close, session)
    by_kind: dict[str, list[float]] = field(default_factory=dict)
    #: how late the soak's own event loop woke from a 50 ms sleep: a late loop delays every
    #: request it sends, so a slow stretch here is the client's, not the server's
    loop_lag: list[float] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    errors: list[str] = field(default_factory=list)


class Soak:
    def __init__(self, server: Server, seeded: dict[str, Any], args: Any) -> None:
        self.server, self.seeded, self.args = server, seeded, args
        self.tables = [Table(n, ("rukas", "velnias")[n % 2]) for n in range(args.tables)]
        self.now = Interval()
        self.sent = 0
        self.answered = 0
        self.statuses: Counter[str] = Counter()
        self.sessions_closed = 0
        self.stopped = asyncio.Event()

    def stop_at(self) -> bool:
        if self.sent >= self.args.requests:
            self.stopped.set()
        return self.stopped.is_set()

    async def request(self, kind: str, scheduled: float, method: str, path: str, headers: dict[str, str],
                      body: Any = None) -> Answer | None:
        self.sent += 1
        # Each answer counts in the interval it arrived in: a slow stretch shows when it happens.
        try:
            answer = await http(self.server.port, method, path, headers,
                                None if body is None else json.dumps(body).encode())
            self.answered += 1
        except (TimeoutError, OSError) as error:
            self.answered += 1
            self.took(kind, scheduled)
            self.now.statuses[f"{kind} error"] += 1
            self.now.errors.append(f"{kind} {path}: {type(error).__name__} {error}")
            return None
        self.took(kind, scheduled)
        self.now.statuses[f"{kind} {answer.status}"] += 1
        if answer.status >= 400:
            self.now.errors.append(f"{kind} {path}: {answer.status} {answer.body[:160]!r}")
        return answer

    def took(self, kind: str, scheduled: float) -> None:
        ms = (time.perf_counter() - scheduled) * 1000
        self.now.latency.append(ms)
        self.now.by_kind.setdefault(kind, []).append(ms)

    async def loop_lag(self) -> None:
        """Measure the client's own lateness, to tell its stalls from the server's."""
        while not self.stopped.is_set():
            asked = time.perf_counter()
            await asyncio.sleep(0.05)
            self.now.loop_lag.append((time.perf_counter() - asked - 0.05) * 1000)

    async def wait_until(self, moment: float) -> bool:
        """Sleep until ``moment``; False once the soak has sent its requests."""
        delay = moment - time.perf_counter()
        if delay > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.stopped.wait(), delay)
        return not self.stop_at()

    async def open_session(self, table: Table, auth: dict[str, str], rng: random.Random) -> bool:
        players = rng.sample(self.seeded["players"], 4)
        answer = await self.request("session", time.perf_counter(), "POST", "/api/sessions/", auth,
                                    {"club": "night", "game": table.game, "players": players, "stake": "0.10"})
        if answer is None or answer.status != 201:
            return False
        table.session, table.deal = json.loads(answer.body)["id"], None
        return True

    async def tablet(self, table: Table) -> None:
        speed = self.args.speed
        auth = {"Authorization": f"Token {self.seeded['tokens'][table.number]}", "Accept": "application/json"}
        rng = random.Random(table.number)
        every = (TRICK_EVERY if table.game == "rukas" else VELNIAS_EVERY) / speed
        moment = time.perf_counter() + rng.uniform(0, every)
        while not self.stop_at():
            if not await self.open_session(table, auth, rng):
                await self.wait_until(time.perf_counter() + 1)  # a failed start is tried again, as a person would
                continue
            for _deal in range(self.args.deals):
                moment = max(moment, time.perf_counter()) + rng.uniform(0.5, 1.5) / speed
                if not await self.wait_until(moment):
                    return
                answer = await self.request("deal start", moment, "POST", f"/api/sessions/{table.session}/deals/",
                                            auth, {})
                if answer is None or answer.status != 201:
                    break
                deal = json.loads(answer.body)
                table.deal = deal["id"]
                hands = [rng.sample(RANKS, 13) for _seat in range(4)]
                trick = 0
                while not deal["finished"]:
                    moment += every
                    if not await self.wait_until(moment):
                        return
                    body = next_entry(table.game, deal, hands, trick)
                    trick += table.game == "rukas"
                    answer = await self.request("entry", moment, "POST", f"/api/deals/{deal['id']}/entries/", auth,
                                                body)
                    if answer is None or answer.status not in (200, 201):
                        break
                    deal = json.loads(answer.body)["deal"]
                if not deal["finished"]:
                    break
            moment = max(moment, time.perf_counter()) + rng.uniform(1, 3) / speed
            if not await self.wait_until(moment):
                return
            answer = await self.request("close", moment, "POST", f"/api/sessions/{table.session}/close/", auth, {})
            self.sessions_closed += answer is not None and answer.status == 200

    async def phone(self, table: Table, cookie: str) -> None:
        rng = random.Random(cookie)
        jar = CookieJar(sessionid=cookie)
        speed = self.args.speed
        seen: tuple[int, int] | None = None
        version: str | None = None
        moment = time.perf_counter() + rng.uniform(0, 3) / speed
        pending: set[asyncio.Task[None]] = set()

        async def once(at: float) -> None:
            nonlocal seen, version
            if table.deal is None:
                return
            if seen != (table.session, table.deal):
                seen, version = (table.session, table.deal), None
            path, headers = f"/deals/{table.deal}/live/?s={table.session}", {"Cookie": jar.header()}
            if version is not None:
                headers["If-None-Match"] = f'"{version}"'
            asked = seen
            answer = await self.request("poll", at, "GET", path, headers)
            if answer is not None:
                jar.keep(answer)
            if answer is not None and answer.status == 200 and asked == seen:
                version = answer.headers.get("x-deal-version", version)

        while True:
            moment += rng.uniform(2, 3) / speed
            if not await self.wait_until(moment):
                break
            task = asyncio.create_task(once(moment))  # open loop: the next poll does not wait for this one
            pending.add(task)
            task.add_done_callback(pending.discard)
        if pending:
            await asyncio.wait(pending, timeout=REQUEST_TIMEOUT)


# -- the report --------------------------------------------------------------------------------------------


@dataclass
class Sample:
    at: float
    #: requests sent before the interval began, and by its end
    first_sent: int
    sent: int
    requests: int
    errors: int
    p50: float
    p99: float
    latency: list[float]
    by_kind: dict[str, list[float]]
    loop_lag: list[float]
    memory: dict[str, tuple[int, int]]
    connections: Counter[str]
    queue: int


def mb(kb: int) -> str:
    return f"{kb / 1024:.0f}"


def show(sample: Sample, seconds: float, in_flight: int, warm: bool) -> None:
    mem = ", ".join(f"{name} {mb(kb)} MB" + (f" ({count})" if count > 1 else "")
                    for name, (kb, count) in sample.memory.items())
    conns = sum(sample.connections.values())
    states = " ".join(f"{state} {count}" for state, count in sorted(sample.connections.items()))
    kinds = " ".join(f"{kind} {p(values, 0.99):.0f}" for kind, values in sorted(sample.by_kind.items()))
    lag = max(sample.loop_lag, default=0.0)
    print(f"{sample.at:7.0f} s {sample.sent:>9,} sent, {in_flight:>4} in flight | "
          f"{sample.requests / seconds:5.0f}/s p50 {sample.p50:6.1f} p99 {sample.p99:7.1f} ms "
          f"(p99 by kind: {kinds}; client loop late at most {lag:.0f} ms), "
          f"errors {sample.errors} | RSS {mem} | pg connections {conns} ({states}) | "
          f"queue {sample.queue}{'  (warm-up)' if warm else ''}", flush=True)


def verdict(samples: list[Sample], warm_up: int) -> tuple[bool, list[str]]:
    """The targets, measured on the intervals after the warm-up (``warm_up`` requests)."""
    after = [s for s in samples if s.first_sent >= warm_up]
    lines: list[str] = []
    if len(after) < 3:
        return False, [f"too few intervals after the warm-up ({len(after)}; at least 3): run longer or "
                       "use a shorter --interval"]
    third = max(1, len(after) // 3)
    first, last = after[:third], after[-third:]
    ok = True
    base = after[0].memory
    for name, (kb, _count) in after[-1].memory.items():
        start = base.get(name, (0, 0))[0]
        growth = (kb - start) / start if start else 0.0
        passed = growth < TARGET_RSS_GROWTH
        ok &= passed
        peak = max(s.memory[name][0] for s in after)
        lines.append(f"RSS {name}: {mb(start)} -> {mb(kb)} MB ({growth:+.1%}; peak {mb(peak)} MB): "
                     f"{'PASS' if passed else 'FAIL'} (< {TARGET_RSS_GROWTH:.0%})")
    first_conns = max(sum(s.connections.values()) for s in first)
    last_conns = max(sum(s.connections.values()) for s in last)
    # Each gunicorn worker and Celery pool process keeps at most one connection, opened at its
    # first request or task: a pool process's first task late in the night adds one, not a leak.
    holders = max(s.memory["gunicorn workers"][1] + s.memory["celery"][1] - 1 for s in after)
    passed = last_conns <= max(first_conns, holders)
    ok &= passed
    lines.append(f"pg connections: at most {first_conns} in the first third, {last_conns} in the last, "
                 f"{holders} processes that may hold one: {'PASS' if passed else 'FAIL'} (no growth beyond "
                 "the first third's or one per process)")
    p99_first = p([v for s in first for v in s.latency], 0.99)
    p99_last = p([v for s in last for v in s.latency], 0.99)
    drift = (p99_last - p99_first) / p99_first if p99_first else 0.0
    passed = abs(drift) <= TARGET_P99_DRIFT
    ok &= passed
    per_interval = [s.p99 for s in after]
    lines.append(f"p99: first third {p99_first:.1f} ms, last third {p99_last:.1f} ms ({drift:+.1%}; per interval "
                 f"{min(per_interval):.1f}-{max(per_interval):.1f} ms, median {statistics.median(per_interval):.1f}): "
                 f"{'PASS' if passed else 'FAIL'} (within {TARGET_P99_DRIFT:.0%})")
    for kind in sorted({kind for s in after for kind in s.by_kind}):
        early = [v for s in first for v in s.by_kind.get(kind, [])]
        late = [v for s in last for v in s.by_kind.get(kind, [])]
        lines.append(f"  {kind}: p50 {p(early, 0.5):.1f} -> {p(late, 0.5):.1f} ms, p99 {p(early, 0.99):.1f} -> "
                     f"{p(late, 0.99):.1f} ms ({len(early):,} and {len(late):,} requests)")
    lags = [v for s in after for v in s.loop_lag]
    lines.append(f"  the client's own loop: late by p99 {p(lags, 0.99):.1f} ms, at most {max(lags, default=0):.1f} ms")
    errors = sum(s.errors for s in samples)
    ok &= errors == 0
    lines.append(f"errors: {errors}: {'PASS' if errors == 0 else 'FAIL'}")
    queues = [s.queue for s in after]
    lines.append(f"Celery queue: {min(queues)}-{max(queues)} waiting, {queues[-1]} at the end "
                 f"(first third at most {max(s.queue for s in first)}, last third {max(s.queue for s in last)})")
    return ok, lines


async def watch(soak: Soak, args: Any, samples: list[Sample], started: float) -> None:
    import redis

    broker = redis.Redis.from_url(soak.server.env["CELERY_BROKER_URL"])
    queue = soak.server.env["CELERY_QUEUE"]
    loop = asyncio.get_running_loop()
    warm_up = int(args.requests * args.warm_up)
    while True:
        first_sent, began = soak.sent, time.perf_counter()
        stopped = await soak.wait_until(time.perf_counter() + args.interval) is False
        interval, soak.now = soak.now, Interval()
        soak.statuses.update(interval.statuses)
        # The probes block for a few ms: off the loop, so the tablets' timing does not suffer.
        mem, conns, waiting = await loop.run_in_executor(
            None, lambda: (memory(soak.server), connections(), queue_length(broker, queue)))
        sample = Sample(time.perf_counter() - started, first_sent, soak.sent, len(interval.latency),
                        len(interval.errors), statistics.median(interval.latency) if interval.latency else 0.0,
                        p(interval.latency, 0.99), interval.latency, interval.by_kind, interval.loop_lag, mem,
                        conns, waiting)
        samples.append(sample)
        show(sample, time.perf_counter() - began, soak.sent - soak.answered, first_sent < warm_up)
        if interval.errors:
            print(f"          e.g. {interval.errors[:2]}", flush=True)
        if stopped:
            return


async def night(soak: Soak, args: Any, samples: list[Sample]) -> None:
    started = time.perf_counter()
    cookies = iter(soak.seeded["cookies"])
    jobs = [soak.tablet(table) for table in soak.tables]
    jobs += [soak.phone(table, next(cookies)) for table in soak.tables for _phone in range(PHONES_PER_TABLE)]
    await asyncio.gather(watch(soak, args, samples, started), soak.loop_lag(), *jobs)


@contextlib.contextmanager
def autovacuum(wanted: str) -> Iterator[str]:
    """PostgreSQL as deployed vacuums and analyses the growing tables (the postgres image's
    default); a CI server may turn that off for speed (this machine's does), which a night-long
    run would feel as stale statistics and dead rows. ``on`` turns it on for the run (a reload,
    no restart) and gives the server back its own setting after."""
    import psycopg

    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        row = conn.execute("SHOW autovacuum").fetchone()
    was = str(row[0]) if row else "?"
    if wanted != "on" or was == "on":
        yield was
        return
    admin_sql("ALTER SYSTEM SET autovacuum = on")
    admin_sql("SELECT pg_reload_conf()")
    try:
        yield "on (turned on for the run; the server's own setting is off)"
    finally:
        admin_sql("ALTER SYSTEM RESET autovacuum")
        admin_sql("SELECT pg_reload_conf()")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=1_000_000)
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--speed", type=float, default=4.0, help="times a person's pace")
    parser.add_argument("--deals", type=int, default=4, help="deals per session before the table closes it")
    parser.add_argument("--interval", type=float, default=60.0, help="seconds per report line")
    parser.add_argument("--warm-up", type=float, default=0.1, help="share of the requests not judged")
    parser.add_argument("--workers", type=int, default=3, help="gunicorn sync workers (docker-compose: 3)")
    parser.add_argument("--concurrency", type=int, default=2, help="Celery worker processes (docker-compose: 2)")
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--autovacuum", choices=["on", "leave"], default="on",
                        help="on: as deployed, for the run's length (default); leave: the server's setting")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-soak-"))
    samples: list[Sample] = []
    with autovacuum(args.autovacuum) as vacuum:
        return run(args, work, samples, vacuum)


def run(args: Any, work: Path, samples: list[Sample], vacuum: str) -> int:
    try:
        sha = export(args.commit, work / "tree")
        print(f"Soak: commit {sha}; {args.tables} tables (Rūkas and Velnias in turn, {PHONES_PER_TABLE} phones each) "
              f"at {args.speed:g}x a person's pace, {args.deals} deals per session, until {args.requests:,} "
              f"requests; gunicorn {args.workers} sync workers, Celery worker --concurrency {args.concurrency}, "
              f"PostgreSQL (autovacuum {vacuum}), Redis, loopback; {load()}", flush=True)
        server, seeded = start_server(work / "tree", args.workers, args.tables, concurrency=args.concurrency)
        try:
            soak = Soak(server, seeded, args)
            began = time.perf_counter()
            asyncio.run(night(soak, args, samples))
            elapsed = time.perf_counter() - began
        finally:
            server.stop()
            admin_sql(f'DROP DATABASE IF EXISTS "{BENCH_DB}" WITH (FORCE)')
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n{soak.sent:,} requests in {elapsed:.0f} s ({soak.sent / elapsed:.0f}/s), {soak.sessions_closed} sessions "
          f"closed; {load()}")
    print(f"  answers: {dict(sorted(soak.statuses.items()))}")
    ok, lines = verdict(samples, int(args.requests * args.warm_up))
    for line in lines:
        print("  " + line)
    print("VERDICT: " + ("all targets met" if ok else "a target missed"))
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
