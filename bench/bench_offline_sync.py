"""A tablet's backlog going home: how long 200 entries recorded offline take to sync.

What it does, all on this machine (loopback only):

1. Creates a throwaway PostgreSQL database (``BENCH_DB_NAME``, default ``kortos_bench_sync``, on
   the server of ``BENCH_ADMIN_URL``), migrates it and seeds a club, a scorer with an API token
   and an open Rūkas session of four players with its first deal started (as bench_api does).
2. Starts gunicorn (``--workers`` sync workers) on ``--port`` against that database.
3. In headless Chromium (a page of that server, so the same origin as the API), queues the
   backlog with ``static/js/offline/queue.js`` in the browser's real IndexedDB: the first deal's
   13 tricks, then deal after deal started offline (a client id, the next dealer) with their
   13 tricks, until ``--entries`` entries; each entry with its idempotency key, its
   ``expected_seq`` and the tablet's verdict (the engine's, as the worker would give it, which
   the sync compares with the server's).
4. Times ``static/js/offline/sync.js`` sending all of it (``createSync({queue}).start()`` until
   the queue is empty), one record at a time as the tablet does, token-authenticated.
5. Checks the server stored every entry once, in order, in the right deals, with the tablet's
   verdicts; prints the time, the time per entry and the load average; stops gunicorn and drops
   the database.

Usage: ``python bench/bench_offline_sync.py [--entries 200] [--port 8106] [--workers 2]``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("BENCH_DB_NAME", "kortos_bench_sync")

from bench import bench_api  # noqa: E402

PLAYERS = 4
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]

#: Runs in the page: the backlog into IndexedDB, then the sync timed until the queue is empty.
SYNC = """async ({ records, token, name }) => {
  const { openQueue } = await import("/static/js/offline/queue.js");
  const { createSync } = await import("/static/js/offline/sync.js");
  const queue = await openQueue({ name });
  let started = performance.now();
  for (const record of records) await queue.enqueue(record);
  const queued = performance.now() - started;
  const waiting = await queue.count();
  const states = [];
  const sync = createSync({
    queue, headers: () => ({ Authorization: `Token ${token}` }),
    onChange: () => { if (states[states.length - 1] !== sync.state) states.push(sync.state); },
  });
  started = performance.now();
  await sync.start();
  while (sync.state === "sending") await sync.settled();
  const synced = performance.now() - started;
  const left = await queue.count();
  sync.stop();
  return { queued, waiting, synced, left, state: sync.state, conflict: sync.conflict, states: states.slice(-5) };
}"""


def deal_tricks(dealer: int) -> tuple[list[dict[str, Any]], list[Any], list[Any]]:
    """A legal 13-trick Rūkas deal for ``dealer``, the verdict of each trick as the tablet's engine
    gives it (the API's ``entry.result``: seats named) and as the server stores it (seats as
    numbers): seat s plays rank (t + 3s) mod 13 in trick t."""
    from referee.rules import GAMES
    from referee.rules.rukas import reveal_order
    from referee.rules.seat_names import with_names

    game = GAMES["rukas"]
    state = game.new_deal(players=PLAYERS, dealer=dealer)
    tricks, verdicts, stored = [], [], []
    for t in range(13):
        entry = {"type": "trick", "cards": [RANKS[(t + 3 * seat) % 13] for seat in reveal_order(state.leader, PLAYERS)]}
        state = game.apply(state, entry)
        tricks.append(entry)
        last = json.loads(json.dumps(game.view(state).get("last")))
        verdicts.append(with_names(last, bench_api.NAMES))
        stored.append(last)
    assert game.outcome(state) is not None
    return tricks, verdicts, stored


def backlog(session: int, first_deal: int, first_dealer: int, entries: int) -> tuple[list[dict[str, Any]], list[Any]]:
    """The queue's records: ``entries`` entries over deal after deal, deal starts between them;
    and the result the server should store for each entry."""
    records: list[dict[str, Any]] = []
    results: list[Any] = []
    deal: int | str = first_deal
    dealer, number, count = first_dealer, 1, 0
    while count < entries:
        if number > 1:
            dealer = (dealer + 1) % PLAYERS
            deal = f"client-bench-{number}"
            records.append({"kind": "deal_start", "key": f"start-{number}", "session": session, "deal": deal,
                            "dealer": dealer})
        tricks, verdicts, stored = deal_tricks(dealer)
        for seq, (trick, verdict) in enumerate(zip(tricks, verdicts, strict=True)):
            if count == entries:
                break
            records.append({"kind": "entry", "key": f"entry-{number}-{seq}", "deal": deal, "payload": trick,
                            "expected_seq": seq, "verdict": verdict})
            results.append(stored[seq])
            count += 1
        number += 1
    return records, results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200, help="entries in the backlog")
    parser.add_argument("--port", type=int, default=8106, help="gunicorn's loopback port")
    parser.add_argument("--workers", type=int, default=2, help="gunicorn sync workers")
    args = parser.parse_args()
    chromium = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    if not chromium:
        print("needs Debian's chromium (or CHROMIUM_PATH)")
        return 1

    bench_api.recreate_database()
    server = None
    try:
        bench_api.setup_django()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        from referee import services
        from referee.models import Deal, Entry

        seed = bench_api.seed_club()
        session = services.session_start(club=seed.club, game="rukas", players=seed.members, user=seed.user)
        first = services.deal_start(session=session, user=seed.user, dealer=PLAYERS - 1)
        records, results = backlog(session.pk, first.pk, PLAYERS - 1, args.entries)
        server = bench_api.start_gunicorn(args.port, args.workers)

        from playwright.sync_api import sync_playwright

        with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"],
            )
            page = context.new_page()
            page.goto(f"http://{bench_api.HOST}:{args.port}/login/")
            found = page.evaluate(SYNC, {"records": records, "token": seed.token, "name": f"bench-{time.time()}"})
            context.close()
        load = os.getloadavg()

        stored = list(Entry.objects.filter(deal__session=session, active=True).order_by("deal__number", "seq"))
        deals = list(Deal.objects.filter(session=session).order_by("number"))
        sent = [r for r in records if r["kind"] == "entry"]
        problems = []
        if found["left"] or found["conflict"]:
            problems.append(f"{found['left']} records left, state {found['state']}, conflict {found['conflict']}")
        if [e.idempotency_key for e in stored] != [r["key"] for r in sent]:
            problems.append(f"the server holds {len(stored)} entries, not the {len(sent)} queued, once each, in order")
        if [e.result for e in stored] != results:
            problems.append("a stored result differs from the engine's")
        starts = 1 + sum(r["kind"] == "deal_start" for r in records)
        if len(deals) != starts or [d.client_id for d in deals[1:]] != [
            r["deal"] for r in records if r["kind"] == "deal_start"
        ]:
            problems.append(f"{len(deals)} deals on the server, {starts} expected with their client ids")

        print(f"offline backlog sync: {len(sent)} entries and {starts - 1} deal starts queued in Chromium's "
              f"IndexedDB (queue.js), sent by sync.js to gunicorn ({args.workers} sync workers) on PostgreSQL, "
              f"loopback; load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores")
        print(f"  queued in {found['queued'] / 1000:.2f} s ({found['queued'] / len(records):.1f} ms a record)")
        print(f"  synced in {found['synced'] / 1000:.2f} s: {found['synced'] / len(records):.1f} ms a record, "
              f"{len(records) / (found['synced'] / 1000):.0f} records/s; last states {found['states']}")
        for problem in problems:
            print(f"  PROBLEM: {problem}")
        return 1 if problems else 0
    finally:
        if server is not None:
            bench_api.stop_gunicorn(server)
        bench_api.drop_database()


if __name__ == "__main__":
    sys.exit(main())
