"""What the audit chain costs the hot path, A/B in one process: a mid-deal entry stored by
``entry_store``'s one statement with the chain's record (as shipped) and without it (the
statement as it was before the chain), alternating in blocks on the same PostgreSQL database,
so that the machine's other load falls on both alike.

Measures wall time per ``entry_add`` (the service, in process) and the PostgreSQL backend's
CPU per entry (``pg_stat_activity``'s pid, /proc/<pid>/stat), on Cheat deals that never end
(a lie challenged again and again, so no deal finishes and every entry is mid-deal).

Usage: ``python bench/bench_chain.py [--blocks 10] [--entries 200]``; it creates and drops
the throwaway database ``BENCH_DB_NAME`` (default kortos_bench) as bench_api.py does.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench import bench_api  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")


def backend_cpu(pid: int) -> float:
    """Seconds of CPU the backend process has used (user + system)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=10, help="blocks of each variant, alternating")
    parser.add_argument("--entries", type=int, default=200, help="entries per block")
    args = parser.parse_args()
    bench_api.recreate_database()
    try:
        bench_api.setup_django()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        return run(args)
    finally:
        from django.db import connections

        connections.close_all()
        bench_api.drop_database()


def run(args: argparse.Namespace) -> int:
    from django.db import connection

    from referee import chain, entry_store, services

    seed = bench_api.seed_club()
    shipped = entry_store.STORE_IF_UNCHANGED_SQL
    # The statement as it was before the chain: the same WITH without the chain's two steps.
    bare = shipped.replace(chain.ENTRY_LINK_SQL, "\n")
    assert bare != shipped
    link = entry_store._link
    variants: dict[str, tuple[str, Any]] = {"with the chain": (shipped, link), "without": (bare, lambda e, d: [])}
    pair = [("place", {"type": "place", "player": 0}), ("challenge", {"type": "challenge", "challenger": 1,
                                                                        "revealed": "5H"})]
    wall: dict[str, list[float]] = {name: [] for name in variants}
    cpu: dict[str, list[float]] = {name: [] for name in variants}
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    for block in range(args.blocks * 2):
        name = list(variants)[block % 2]
        entry_store.STORE_IF_UNCHANGED_SQL, entry_store._link = variants[name]
        session = services.session_start(club=seed.club, game="cheat", players=seed.members[:2], user=seed.user)
        deal = services.deal_start(session=session, user=seed.user)
        for _ in range(10):  # warm: the statement prepared on this connection, caches filled
            services.entry_add(deal_id=deal.pk, payload=pair[deal.seq % 2][1], user=seed.user)
            deal.refresh_from_db()
        seq = deal.seq
        started_cpu, started = backend_cpu(pid), time.perf_counter()
        for number in range(args.entries):
            services.entry_add(deal_id=deal.pk, payload=pair[(seq + number) % 2][1], user=seed.user)
        wall[name].append((time.perf_counter() - started) / args.entries * 1000)
        cpu[name].append((backend_cpu(pid) - started_cpu) / args.entries * 1000)
    entry_store.STORE_IF_UNCHANGED_SQL, entry_store._link = shipped, link
    print(f"mid-deal Cheat entries, service entry_add in process, {args.blocks} blocks of {args.entries} each, "
          f"alternating; load average before/after: {os.getloadavg()}")
    print(f"{'':<16}{'wall ms/entry (median, min)':>30}{'PostgreSQL CPU ms/entry (median)':>36}")
    for name in variants:
        print(f"{name:<16}{statistics.median(wall[name]):>18.3f}{min(wall[name]):>12.3f}"
              f"{statistics.median(cpu[name]):>36.3f}")
    from django.utils import translation

    from referee.chain_seal import verify_club

    with translation.override("en"):
        verdict = verify_club(seed.club.pk)
    # The blocks without the chain left entries no record covers: the chain says so.
    print("verification afterwards:", verdict.message[:120])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
