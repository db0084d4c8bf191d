"""How long the summary of a 200-deal session takes to build in the worker (under 0.3 s
for every game at its largest table, the first build of a worker process included).

Plays a session through the referee's services (``--game``, at its largest table unless
``--players``: Rūkas and Velnias dealt here, the other games by their random legal deal
simulators in tests/rules), closes it, then times the task's body
(``build_and_store``: read the session, build the figures, render the chart, HTML and CSV,
store) over several forced rebuilds, and prints the median and the maximum, with the
median of each step and of a re-run on unchanged data.

Runs on a throwaway database made like the test database: SQLite by default, PostgreSQL
with ``DATABASE_URL=postgres://...``. Usage: ``python bench/bench_summary.py [--deals 200]
[--runs 7] [--game <slug>] [--players N]``.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from decimal import Decimal
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.db import connection  # noqa: E402

from referee import services  # noqa: E402
from referee.models import Club, Member, Role, Session  # noqa: E402
from referee.rules import GAMES  # noqa: E402
from scoring.models import SessionSummary  # noqa: E402
from scoring.summaries import summary as build  # noqa: E402
from scoring.summaries.services import _store, build_and_store  # noqa: E402

RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
NAMES = ["Ona", "Jonas", "Rūta", "Petras", "Asta", "Tomas", "Eglė", "Marius", "Laima", "Darius"]


def play_session(game: str, players: int, deals: int, seed: int) -> tuple[Session, int]:
    """A closed session of ``deals`` random legal deals; returns it and its number of entries."""
    rng = random.Random(seed)
    user = get_user_model().objects.create_user("bench-scorer", password="bench-pass-123")
    club = Club.objects.create(slug="bench", name="Bench club")
    Member.objects.create(club=club, name="Scorer", user=user, role=Role.SCORER)
    members = [Member.objects.create(club=club, name=name) for name in NAMES[:players]]
    session = services.session_start(club=club, game=game, players=members, user=user, stake=Decimal("0.10"))
    entries = 0
    if game not in ("rukas", "velnias"):
        return played_by_simulator(session, user, game, players, deals, rng)
    for _number in range(deals):
        deal = services.deal_start(session=session, user=user)
        if game == "velnias":
            caller = rng.randrange(players)
            size = 35 // players
            counts = [0 if seat == caller else rng.randint(1, size) for seat in range(players)]
            payload = {"type": "end", "condition": "empty_hand", "player": caller, "hand_counts": counts}
            services.entry_add(deal_id=deal.pk, payload=payload, user=user)
            entries += 1
            continue
        hands = [rng.sample(RANKS, len(RANKS)) for _seat in range(players)]
        leader = deal.state["leader"]
        for trick in range(len(RANKS)):
            order = [(leader + step) % players for step in range(players)]
            payload = {"type": "trick", "cards": [hands[seat][trick] for seat in order]}
            added = services.entry_add(deal_id=deal.pk, payload=payload, user=user)
            leader = added.deal.state["leader"]
            entries += 1
    services.session_close(session=session, user=user)
    return session, entries


def played_by_simulator(session: Session, user: Any, game: str, players: int, deals: int,
                        rng: random.Random) -> tuple[Session, int]:
    """Deals from the game's random legal deal simulator (tests/rules/playout_<game>.py), each
    recorded through the services with the dealer the simulator chose."""
    playout = importlib.import_module(f"tests.rules.playout_{game}")
    extra = {"finish_early": True} if "finish_early" in inspect.signature(playout.random_deal).parameters else {}
    entries = 0
    for _number in range(deals):
        kwargs, payloads = playout.random_deal(rng, players, dict(session.options), **extra)
        deal = services.deal_start(session=session, user=user, dealer=kwargs["dealer"])
        for payload in payloads:
            services.entry_add(deal_id=deal.pk, payload=payload, user=user)
            entries += 1
    services.session_close(session=session, user=user)
    return session, entries


FIRST_BUILD = """
import os, sys, time
sys.path.insert(0, os.getcwd())
import django
django.setup()
from scoring.models import SessionSummary
from scoring.summary_services import build_and_store
if sys.argv[2] == "warm":
    from scoring.tasks import warm_summary
    warm_summary()
SessionSummary.objects.filter(session_id=int(sys.argv[1])).update(fingerprint="")
start = time.perf_counter()
assert build_and_store(session_id=int(sys.argv[1])) == "built"
print(time.perf_counter() - start)
"""


def first_build(session_id: int, warmed: bool) -> float:
    """The first summary a new process builds (as a worker's first task), cold or warmed."""
    import subprocess
    from urllib.parse import urlsplit, urlunsplit

    name = connection.settings_dict["NAME"]
    url = urlunsplit(urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{name}"))
    env = {**os.environ, "DATABASE_URL": url}
    done = subprocess.run([sys.executable, "-c", FIRST_BUILD, str(session_id), "warm" if warmed else "cold"],
                          cwd=Path(__file__).resolve().parent.parent, env=env, capture_output=True, text=True,
                          check=True, timeout=300)
    return float(done.stdout.strip().splitlines()[-1])


def in_a_worker(session_id: int, broker: str) -> list[float]:
    """The first and second builds of a Celery worker process started here, as deployed (prefork,
    its ``worker_init`` warm-up before the pool forks), through a real broker, on a queue of its
    own; each timed by the task itself (the summary's started_at to finished_at)."""
    import signal
    import subprocess
    from urllib.parse import urlsplit, urlunsplit

    from config.celery import app
    from scoring.tasks import build_session_summary

    queue = f"bench-summary-{os.getpid()}"
    name = connection.settings_dict["NAME"]
    url = urlunsplit(urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{name}"))
    keep = ("PATH", "HOME", "LANG", "TZ", "VIRTUAL_ENV")
    env = {**{k: v for k, v in os.environ.items() if k in keep}, "DJANGO_SETTINGS_MODULE": "config.settings",
           "DATABASE_URL": url, "CELERY_BROKER_URL": broker, "ALLOW_INSECURE_KEY": "1", "SECURE_BEHIND_TLS": "0",
           "SUMMARY_QUEUE": queue}
    worker = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "-P", "prefork", "-c", "1", "-Q", queue,
         "--without-heartbeat", "--without-gossip", "--without-mingle", "-l", "warning"],
        cwd=Path(__file__).resolve().parent.parent, env=env, start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    app.conf.update(broker_url=broker, task_always_eager=False)
    builds = []
    try:
        for _build in range(2):
            SessionSummary.objects.filter(session_id=session_id).update(fingerprint="", task_id="", state="pending",
                                                                          started_at=None, finished_at=None)
            # Its own connection: this process's pool was made for the test settings' (no) broker.
            with app.connection_for_write(broker) as conn:
                build_session_summary.apply_async(args=[session_id], queue=queue, connection=conn)
            deadline = time.monotonic() + 300
            while True:
                row = SessionSummary.objects.filter(session_id=session_id).values(
                    "state", "started_at", "finished_at", "error").get()
                if row["state"] in ("done", "failed") and row["finished_at"] is not None:
                    break
                if time.monotonic() > deadline or worker.poll() is not None:
                    raise RuntimeError(f"the worker built no summary: {row}")
                time.sleep(0.05)
            assert row["state"] == "done", row["error"]
            builds.append((row["finished_at"] - row["started_at"]).total_seconds())
    finally:
        os.killpg(worker.pid, signal.SIGTERM)
        worker.wait(timeout=60)
        app.conf.update(task_always_eager=True)
    return builds


def backend_cpu() -> float:
    """The CPU seconds this connection's database backend has used so far (PostgreSQL on this
    machine, from /proc; 0 elsewhere): the build's share of the server's work."""
    if connection.vendor != "postgresql":
        return 0.0
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except OSError:
        return 0.0


def timed(action: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--deals", type=int, default=200)
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--game", choices=sorted(GAMES), default=next(iter(GAMES)))
    parser.add_argument("--players", type=int, default=0, help="default: the game's largest table")
    parser.add_argument("--seed", type=int, default=5)
    parser.add_argument("--broker", default=os.environ.get("BENCH_BROKER_URL", ""),
                        help="a Redis broker (e.g. redis://127.0.0.1:6379/7): also time the first builds of a real "
                             "Celery worker started for the purpose (PostgreSQL only)")
    args = parser.parse_args()
    args.players = args.players or GAMES[args.game].max_players

    test_db = connection.creation.create_test_db(verbosity=0, autoclobber=True, keepdb=False)
    try:
        setup_time, (session, entries) = timed(partial(play_session, args.game, args.players, args.deals, args.seed))
        summary = SessionSummary.objects.get(session=session)
        assert summary.state == "done", summary.error  # built once already, eagerly, at close

        totals, cpu, backend = [], [], []
        steps: dict[str, list[float]] = {"gather": [], "figures": [], "chart": [], "html+csv": [], "store": []}
        for _run in range(args.runs):
            SessionSummary.objects.filter(pk=summary.pk).update(fingerprint="")  # force a full rebuild
            cpu_start, backend_start = time.process_time(), backend_cpu()
            seconds, outcome = timed(partial(build_and_store, session_id=session.pk))
            cpu.append(time.process_time() - cpu_start)
            backend.append(backend_cpu() - backend_start)
            assert outcome == "built", outcome
            totals.append(seconds)
            # The same work step by step, to show where the time goes.
            t, facts = timed(partial(build.gather, session))
            steps["gather"].append(t)
            t, data = timed(partial(build.build_data, facts))
            steps["figures"].append(t)
            t, chart = timed(partial(build.render_chart_svg, data))
            steps["chart"].append(t)
            t, html = timed(partial(build.render_html, data))
            steps["html+csv"].append(t)
            t, csv_text = timed(partial(build.render_csv, data))
            steps["html+csv"][-1] += t
            built = {"data": data, "html": html, "csv": csv_text, "chart_svg": chart}
            t, _ = timed(partial(_store, summary.pk, fingerprint=build.fingerprint(facts), built=built))
            steps["store"].append(t)
        unchanged = [timed(partial(build_and_store, session_id=session.pk))[0] for _run in range(args.runs)]

        engine = connection.vendor
        median, worst = statistics.median(totals), max(totals)
        print(f"Summary of a {args.deals}-deal {args.game} session ({args.players} players, {entries} entries) "
              f"on {engine}; session played in {setup_time:.1f} s")
        print(f"  build in the worker (task body), {args.runs} runs: median {median:.3f} s, max {worst:.3f} s "
              f"(target < 0.3 s: {'met' if worst < 0.3 else 'MISSED'}); this process's CPU: median "
              f"{statistics.median(cpu):.3f} s, its database backend's: {statistics.median(backend):.3f} s; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        print("  steps (median): " + ", ".join(f"{name} {statistics.median(v):.3f} s" for name, v in steps.items()))
        print(f"  re-run on unchanged data: median {statistics.median(unchanged):.3f} s, max {max(unchanged):.3f} s")
        if engine == "postgresql":
            for warmed in (False, True):
                seconds = first_build(session.pk, warmed)
                how = ", warmed as a worker starts (worker_init)" if warmed else ""
                print(f"  the first build in a new process{how}: {seconds:.3f} s; "
                      f"load average {os.getloadavg()[0]:.1f}")
            if args.broker:
                builds = in_a_worker(session.pk, args.broker)
                print("  in a real Celery worker (prefork, 1 process, started for this): the task body "
                      f"(started_at to finished_at) of its first build {builds[0]:.3f} s, of its second "
                      f"{builds[1]:.3f} s; load average {os.getloadavg()[0]:.1f}")
        stored = SessionSummary.objects.get(pk=summary.pk)
        print(f"  stored: JSON {len(str(stored.data)) // 1024} KiB, HTML {len(stored.html) // 1024} KiB, "
              f"CSV {len(stored.csv) // 1024} KiB, SVG {len(stored.chart_svg) // 1024} KiB")
    finally:
        connection.creation.destroy_test_db(test_db, verbosity=0)


if __name__ == "__main__":
    main()
