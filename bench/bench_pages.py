"""Server time of each recording screen on a long deal (under 15 ms median with 500
entries) and of the watchers' poll (a 304 under 2 ms).

Run: ``.venv/bin/python bench/bench_pages.py`` (SQLite in a throwaway test database; set
``DATABASE_URL=postgres://...`` to measure on PostgreSQL). For each game it records a deal
through the services (500 entries where the game allows that many: Elgeta tricks, Cheat
placements and challenges, Mičiganas misplays; a Rūkas deal has at most 13 tricks and a
Velnias deal one ending), then times GETs through Django's test client, in process, so the
figure is the server's own work (URL routing, permission checks, queries, engine view,
template rendering) without any network. Prints the median and 95th percentile of
``--repeat`` GETs, the page's query count and size, and the same for the poll that watchers
send every few seconds (the shown version as ``If-None-Match``: 304 when nothing changed).

The 304 poll is timed twice: the exact way (the session, the user and one statement) and from
the cache (``referee.poll_cache``: a watch cookie and one cache round trip), for a watching
member's phone and for a scorer's tablet (whose poll also marks the device present).

On PostgreSQL, ``--loopback`` also serves the same database with gunicorn (one sync worker,
production settings) and times the 304 poll over loopback, as a phone's request arrives: the
server's own time per request (gunicorn's access log, ``%(D)s``: from the request read to the
answer written) as median and p99, the worker's CPU per request, and the wall time. Without a
shared cache the worker answers the exact way; with ``CACHE_URL`` (e.g.
``redis://127.0.0.1:6379/5``, set for the whole run) it is timed both ways.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings_test")
os.environ.setdefault("ALLOW_INSECURE_KEY", "1")

import django  # noqa: E402

django.setup()

from django.contrib.auth import get_user_model  # noqa: E402
from django.core.cache import cache  # noqa: E402
from django.core.signals import request_started  # noqa: E402
from django.db import connection, reset_queries  # noqa: E402
from django.test import Client  # noqa: E402
from django.test.utils import CaptureQueriesContext  # noqa: E402

from bench.elgeta_play import long_deal, tricks  # noqa: E402
from referee import services  # noqa: E402
from referee.models import Club, Deal, Member, Role  # noqa: E402
from referee.rules import GAMES  # noqa: E402

ENTRIES = 500


def _club() -> tuple[Any, list[Member]]:
    user = get_user_model().objects.create_user("bench-scorer", password="bench-pass-1")
    club = Club.objects.create(slug="bench", name="Bench")
    members = [Member.objects.create(club=club, name="Ona", user=user, role=Role.SCORER)]
    watcher = get_user_model().objects.create_user("bench-watcher", password="bench-pass-1")
    Member.objects.create(club=club, name="Rasa", user=watcher, role=Role.MEMBER)
    members += [Member.objects.create(club=club, name=name) for name in ("Jonas", "Rūta", "Petras")]
    return user, members


def _record(deal: Deal, user: Any, payloads: list[dict[str, Any]]) -> Deal:
    for payload in payloads:
        services.entry_add(deal_id=deal.pk, payload=payload, user=user)
    return Deal.objects.get(pk=deal.pk)


def elgeta_deal(user: Any, members: list[Member]) -> Deal:
    piles, _seed = long_deal(ENTRIES)
    session = services.session_start(club=members[0].club, game="elgeta", players=members[:2], user=user)
    deal = services.deal_start(session=session, user=user)
    entries = []
    for entry in tricks(2, deal.dealer, piles):
        entries.append(entry)
        if len(entries) == ENTRIES:
            break
    return _record(deal, user, entries)


def cheat_deal(user: Any, members: list[Member]) -> Deal:
    """Placements, and every third card a caught lie (the placer takes the pile back), so the
    deal runs on: 500 entries, still running."""
    game = GAMES["cheat"]
    session = services.session_start(club=members[0].club, game="cheat", players=members[:3], user=user)
    deal = services.deal_start(session=session, user=user)
    state = game.from_dict(deal.state)
    entries: list[dict[str, Any]] = []
    placed = 0
    while len(entries) < ENTRIES:
        view = game.view(state)
        if placed and placed % 3 == 0 and view["can_challenge"]:
            wrong = "2" if view["last_announced"] != "2" else "3"
            entry: dict[str, Any] = {"type": "challenge", "challenger": view["challengers"][0], "revealed": wrong}
        else:
            entry = {"type": "place", "player": view["turn"]}
            placed += 1
        state = game.apply(state, entry)
        entries.append(entry)
    assert game.outcome(state) is None, "the benchmark deal must still be running"
    return _record(deal, user, entries)


def michigan_deal(user: Any, members: list[Member]) -> Deal:
    session = services.session_start(club=members[0].club, game="michigan", players=members[:4], user=user)
    deal = services.deal_start(session=session, user=user)
    entries: list[dict[str, Any]] = [{"type": "exchange", "player": 0}, {"type": "prize", "card": "AS", "player": 1}]
    rng = random.Random(6)
    entries += [{"type": "misplay", "player": rng.randrange(4)} for _ in range(ENTRIES - len(entries))]
    return _record(deal, user, entries)


def rukas_deal(user: Any, members: list[Member]) -> Deal:
    """A Rūkas deal has 13 tricks: 12 recorded, so the screen still shows the trick form."""
    game = GAMES["rukas"]
    session = services.session_start(club=members[0].club, game="rukas", players=members[:4], user=user)
    deal = services.deal_start(session=session, user=user)
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    rng = random.Random(6)
    hands = [rng.sample(ranks, 13) for _ in range(4)]
    state = game.from_dict(deal.state)
    for trick in range(12):
        leader = game.view(state)["leader"]
        entry = {"type": "trick", "cards": [hands[(leader + i) % 4][trick] for i in range(4)]}
        state = game.apply(state, entry)
        services.entry_add(deal_id=deal.pk, payload=entry, user=user)
    return Deal.objects.get(pk=deal.pk)


def velnias_deal(user: Any, members: list[Member]) -> Deal:
    """A Velnias deal is one ending: the running screen (steppers) is what a scorer waits on."""
    session = services.session_start(club=members[0].club, game="velnias", players=members[:4], user=user)
    for _ in range(20):  # a session's worth of finished deals behind it, for the running totals
        deal = services.deal_start(session=session, user=user)
        services.entry_add(deal_id=deal.pk, user=user, payload={
            "type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]})
    return services.deal_start(session=session, user=user)


def measure(client: Client, url: str, repeat: int, cold: bool = False, before: Any = None,
            **headers: str) -> dict[str, Any]:
    """``cold``: every cache emptied before each GET (a worker's first page: the engine's view,
    the offline templates, everything); ``before``: called untimed before each GET (an entry
    recorded, so the GET is the first render of a new deal version)."""
    response = client.get(url, **headers)  # warm caches (templates, translations) once
    assert response.status_code in (200, 204, 304), (url, response.status_code)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url, **headers)
    query_count = len(queries.captured_queries)
    times, cpu = [], []
    for _ in range(repeat):
        if cold:
            cache.clear()
        if before is not None:
            before()
        start, start_cpu = time.perf_counter(), time.thread_time()
        client.get(url, **headers)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.thread_time() - start_cpu) * 1000)
    times.sort()
    cpu.sort()
    return {
        "median": statistics.median(times),
        "cpu": statistics.median(cpu),
        "cpu_p99": cpu[min(len(cpu) - 1, int(len(cpu) * 0.99))],
        "p95": times[min(len(times) - 1, int(len(times) * 0.95))],
        "p99": times[min(len(times) - 1, int(len(times) * 0.99))],
        "queries": query_count,
        "bytes": len(response.content),
        "status": response.status_code,
    }


def _ways() -> list[tuple[str, bool]]:
    """The poll's two ways, where this checkout has the cached one."""
    try:
        import web.poll_cache  # noqa: F401
    except ImportError:
        return [("exact", False)]
    return [("exact", False), ("cached", True)]


def _pct(values: list[float], share: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * share))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=40)
    parser.add_argument("--loopback", action="store_true", help="also time the poll over loopback (PostgreSQL)")
    parser.add_argument("--polls-only", action="store_true", help="time only the 304 polls, not the screens")
    parser.add_argument("--screens-only", action="store_true", help="time only the recording screens, not the polls")
    parser.add_argument("--games", default="elgeta,cheat,michigan,rukas,velnias",
                        help="comma-separated games to build and time (default: all five)")
    args = parser.parse_args()
    # Count the queries of a whole request (Django clears the log when a request starts);
    # no setup_test_environment(): its template instrumentation would slow every render.
    request_started.disconnect(reset_queries)
    old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        user, members = _club()
        builders = [("elgeta", elgeta_deal), ("cheat", cheat_deal), ("michigan", michigan_deal),
                    ("rukas", rukas_deal), ("velnias", velnias_deal)]
        chosen = args.games.split(",")
        unknown = sorted(set(chosen) - {game for game, _build in builders})
        if unknown:
            parser.error(f"unknown games: {', '.join(unknown)}")
        deals = [(game, build(user, members)) for game, build in builders if game in chosen]
        # The planner's statistics, as autovacuum keeps them on a club's database: without them
        # a freshly built table looks empty, and the latest entries' read took 2.4 ms (a bitmap
        # scan and a sort of the deal's 500 entries) instead of 0.2 ms (the index read backwards).
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")
        client = Client(HTTP_ACCEPT_LANGUAGE="lt")
        client.force_login(user)
        watcher = Client(HTTP_ACCEPT_LANGUAGE="lt")
        watcher.force_login(get_user_model().objects.get(username="bench-watcher"))
        engine = connection.vendor
        if not args.polls_only:
            screens(client, deals, args.repeat, engine)
        if args.screens_only:
            return
        polls = time_polls({"phone": watcher, "tablet": client}, deals, args.repeat * 5, engine)
        if args.loopback and engine == "postgresql":
            loopback({"phone": watcher, "tablet": client}, polls, args.repeat * 5)
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def touch(deal: Deal, user: Any) -> Any:
    """What happens at the table between two looks at a long deal: an entry changes the deal's
    version. Its last entry is undone and recorded again (the same state, a new version: the
    engine's view is not cached yet, whatever else is); a deal without entries (Velnias) has its
    ending recorded and undone."""
    last = deal.entries.filter(active=True).order_by("-seq").first()
    ending = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}

    def step() -> None:
        if last is not None:
            services.entry_undo(deal_id=deal.pk, user=user)
            services.entry_add(deal_id=deal.pk, payload=last.payload, user=user)
        else:
            services.entry_add(deal_id=deal.pk, payload=ending, user=user)
            services.entry_undo(deal_id=deal.pk, user=user)
    return step


def screens(client: Client, deals: list[tuple[str, Deal]], repeat: int, engine: str) -> None:
    user = get_user_model().objects.get(username="bench-scorer")
    print(f"Recording screens, server time in process ({engine}, {repeat} GETs each, Django test client)")
    print("entry = the first render after an entry (the engine's view of the new version is not cached);")
    print("cold = every cache emptied first (a worker's first page); again = a later render of the same")
    print("version; cpu = the request's own CPU time, which other load on the machine inflates less")
    print(f"{'game':9} {'entries':>7} {'entry median':>13} {'p95':>8} {'cpu':>8} {'cold median':>12} {'cpu':>8}"
          f" {'again median':>13} {'cpu':>8} {'queries':>8} {'KiB':>6}")
    worst = worst_cpu = 0.0
    for game, deal in deals:
        url = f"/deals/{deal.pk}/"
        first = measure(client, url, repeat, before=touch(deal, user))
        cold = measure(client, url, repeat, cold=True)
        again = measure(client, url, repeat)
        worst = max(worst, first["median"])
        worst_cpu = max(worst_cpu, first["cpu"])
        print(f"{game:9} {deal.seq:>7} {first['median']:>10.1f} ms {first['p95']:>5.1f} ms {first['cpu']:>5.1f} ms"
              f" {cold['median']:>9.1f} ms {cold['cpu']:>5.1f} ms"
              f" {again['median']:>10.1f} ms {again['cpu']:>5.1f} ms {first['queries']:>8}"
              f" {first['bytes'] / 1024:>6.1f}")
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, shared"
    print(f"slowest recording screen after an entry: {worst_cpu:.1f} ms median CPU, {worst:.1f} ms median wall"
          f" (target: under 15 ms); {load}")


def time_polls(clients: dict[str, Client], deals: list[tuple[str, Deal]], repeat: int,
               engine: str) -> list[tuple[Deal, dict[str, str]]]:
    """The 304 poll in process, each way, for a member's phone and a scorer's tablet; answers
    each deal with the versions the clients' screens show."""
    from django.test import override_settings

    print(f"The 304 poll in process ({engine}, {repeat} GETs each; cpu = the request's own CPU time)")
    print(f"{'game':9} {'device':7} {'way':7} {'median':>9} {'p99':>9} {'cpu':>8} {'cpu p99':>8} {'queries':>7}")
    polls = []
    worst: dict[str, float] = {}
    for game, deal in deals:
        url = f"/deals/{deal.pk}/live/?s={deal.session_id}"  # the screen's poll address
        tags = {}
        for who, client in clients.items():
            for way, fast in _ways():
                with override_settings(POLL_FAST_304=fast):
                    tag = client.get(url)["ETag"]  # the screen's first look: the cookies it needs
                    poll = measure(client, url, repeat, HTTP_IF_NONE_MATCH=tag)
                assert poll["status"] == 304, (game, who, way, poll["status"])
                tags[who] = tag
                worst[way] = max(worst.get(way, 0.0), poll["cpu"])
                print(f"{game:9} {who:7} {way:7} {poll['median']:>6.2f} ms {poll['p99']:>6.2f} ms"
                      f" {poll['cpu']:>5.2f} ms {poll['cpu_p99']:>5.2f} ms {poll['queries']:>7}")
        polls.append((deal, tags))
    load = f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, shared"
    for way, cpu in worst.items():
        print(f"slowest 304 poll, {way}: {cpu:.2f} ms median CPU in process (target: under 2 ms); {load}")
    return polls


def _worker_cpu(master: int) -> float:
    """The CPU seconds of the gunicorn master's workers so far."""
    total = 0.0
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    for pid in children:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return total


def loopback(clients: dict[str, Client], polls: list[tuple[Deal, dict[str, str]]], repeat: int) -> None:
    """The 304 poll through gunicorn (one sync worker, production settings) over loopback."""
    cache_url = os.environ.get("CACHE_URL", "")
    runs = [("exact", "")] + ([("cached", cache_url)] if cache_url and len(_ways()) > 1 else [])
    for way, url in runs:
        serve(clients, polls, repeat, way, url)


def serve(clients: dict[str, Client], polls: list[tuple[Deal, dict[str, str]]], repeat: int, way: str,
          cache_url: str) -> None:
    import http.client
    import signal
    import socket
    import subprocess
    import tempfile
    from urllib.parse import urlsplit, urlunsplit

    url = urlunsplit(urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{connection.settings_dict['NAME']}"))
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "config.settings", "DATABASE_URL": url, "SECURE_BEHIND_TLS": "0",
           "ALLOWED_HOSTS": "127.0.0.1", "CONN_MAX_AGE": "60", "LOG_LEVEL": "ERROR"}
    env.pop("CACHE_URL", None)
    if cache_url:
        env["CACHE_URL"] = cache_url
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    log = Path(tempfile.mkstemp(prefix="bench-pages-", suffix=".log")[1])
    server = subprocess.Popen([sys.executable, "-m", "gunicorn", "config.wsgi:application", "--bind",
                               f"127.0.0.1:{port}", "--workers", "1", "--log-level", "warning",
                               "--access-logfile", str(log), "--access-logformat", "%(U)s %(s)s %(D)s"],
                              cwd=ROOT, env=env, start_new_session=True)
    try:
        jars = {who: {name: morsel.value for name, morsel in client.cookies.items()} for who, client in clients.items()}

        def get(path: str, tag: str, who: str) -> int:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
            cookie = "; ".join(f"{name}={value}" for name, value in jars[who].items())
            conn.request("GET", path, headers={"Cookie": cookie, "If-None-Match": tag, "Accept-Language": "lt"})
            response = conn.getresponse()
            for header, value in response.getheaders():  # the cookies this server hands out
                if header.lower() == "set-cookie":
                    name, _, rest = value.partition("=")
                    jars[who][name] = rest.split(";", 1)[0]
            response.read()
            conn.close()
            return response.status

        for _ in range(100):
            try:
                get("/healthz", "", "phone")
                break
            except OSError:
                time.sleep(0.2)
        print(f"The 304 poll over loopback, {way} (gunicorn, 1 sync worker, PostgreSQL, "
              f"{'a shared cache' if cache_url else 'no shared cache'}, a new connection each):")
        print(f"{'deal':>6} {'device':7} {'server median':>14} {'p99':>9} {'worker cpu':>11} {'wall median':>12}")
        for deal, tags in polls:
            path = f"/deals/{deal.pk}/live/?s={deal.session_id}"  # the screen's poll address
            for who, tag in tags.items():
                for _ in range(20):
                    assert get(path, tag, who) == 304, (deal.pk, who)
                before_lines = len(log.read_text().splitlines())
                cpu_before = _worker_cpu(server.pid)
                times = []
                for _ in range(repeat):
                    start = time.perf_counter()
                    get(path, tag, who)
                    times.append((time.perf_counter() - start) * 1000)
                cpu = (_worker_cpu(server.pid) - cpu_before) * 1000 / repeat
                for _ in range(50):  # the worker logs a request after its answer is out
                    lines = [line.split() for line in log.read_text().splitlines()[before_lines:]]
                    # %(U)s is the path without its query (?s=...).
                    served = [int(fields[2]) / 1000 for fields in lines
                              if fields[0] == path.split("?")[0] and fields[1] == "304"]
                    if len(served) == repeat:
                        break
                    time.sleep(0.1)
                assert len(served) == repeat, (len(served), repeat)
                print(f"{deal.pk:>6} {who:7} {statistics.median(served):>11.2f} ms {_pct(served, 0.99):>6.2f} ms"
                      f" {cpu:>8.2f} ms {statistics.median(times):>9.2f} ms")
        print(f"  load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, shared")
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
        log.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
