"""Django's own server-side binding against ``db.prepared``, on the hot path's deal lock.

``db.prepared`` gives the hot path's literal statements a cursor that binds on the server and
prepares each statement on its first execution on a connection. Django 4.2+ can bind every
statement on the server itself (``OPTIONS: {"server_side_binding": True}``), and psycopg then
prepares a statement after ``prepare_threshold`` executions of it on a connection (5 by
default). Both avoid PostgreSQL planning the statement at every execution; this measures
which is faster where it matters, and what server-side binding does to the ORM's statements
(psycopg prepares them too, by the same threshold).

In a throwaway PostgreSQL database (``kortos_bench_binding``) with one running deal, it runs
``entry_store.LOCK_DEAL_SQL`` (the lock every entry takes, with its commit) ``--runs`` times
each way on one connection, and an ORM read of the deal the same number of times, and prints
the wall time per execution and the PostgreSQL backend's CPU per execution (from
/proc/<pid>/stat: what a busy machine's queue does not inflate).

Usage: ``python bench/bench_binding.py [--runs 3000]``. Needs PostgreSQL (``DATABASE_URL``).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.throwaway import throwaway_database  # noqa: E402

BENCH_DB = os.environ.get("BENCH_BINDING_DB", "kortos_bench_binding")


def backend_cpu(pid: int) -> float:
    """Seconds of CPU the PostgreSQL backend ``pid`` has used (utime + stime)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed(connection: Any, run: Any, runs: int) -> tuple[float, float]:
    from django.db import transaction

    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    for _ in range(20):  # warm: the statement prepared, caches filled
        with transaction.atomic(using=connection.alias):
            run()
    cpu, started = backend_cpu(pid), time.perf_counter()
    for _ in range(runs):
        with transaction.atomic(using=connection.alias):
            run()
    wall = (time.perf_counter() - started) / runs * 1000
    return wall, (backend_cpu(pid) - cpu) / runs * 1000


def add_bound_aliases() -> None:
    """Two more aliases on the same database: Django's server-side binding, and that with
    psycopg's own preparing (which Django leaves off unless asked: ``prepare_threshold``)."""
    from django.conf import settings

    options = settings.DATABASES["default"].get("OPTIONS", {})
    settings.DATABASES["server_bound"] = {**settings.DATABASES["default"],
                                          "OPTIONS": {**options, "server_side_binding": True}}
    settings.DATABASES["server_prepared"] = {**settings.DATABASES["default"],
                                             "OPTIONS": {**options, "server_side_binding": True,
                                                         "prepare_threshold": 5}}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=3000)
    args = parser.parse_args()
    with throwaway_database(BENCH_DB, "bench_binding", configure=add_bound_aliases):
        from django.contrib.auth import get_user_model
        from django.db import connections

        from db import prepared
        from referee import entry_store, services
        from referee.models import Club, Deal, Member, Role

        club = Club.objects.create(slug="bench", name="Bench")
        user = get_user_model().objects.create_user("bench", password="bench-pass-123")
        players = [Member.objects.create(club=club, name=f"P{n}", user=user if n == 0 else None,
                                         role=Role.ADMIN if n == 0 else Role.MEMBER) for n in range(4)]
        session = services.session_start(club=club, game="rukas", players=players, user=user)
        deal = services.deal_start(session=session, user=user)
        params = {"user": user.pk, "deal": deal.pk}
        default, server_bound = connections["default"], connections["server_bound"]
        server_prepared = connections["server_prepared"]

        def client_bound() -> None:
            with default.cursor() as cursor:
                cursor.execute(entry_store.LOCK_DEAL_SQL, params)
                cursor.fetchone()

        def prepared_cursor() -> None:
            with prepared.cursor() as cursor:
                cursor.execute(entry_store.LOCK_DEAL_SQL, params)
                cursor.fetchone()

        def django_server_side() -> None:
            with server_bound.cursor() as cursor:
                cursor.execute(entry_store.LOCK_DEAL_SQL, params)
                cursor.fetchone()

        def psycopg_prepared() -> None:
            with server_prepared.cursor() as cursor:
                cursor.execute(entry_store.LOCK_DEAL_SQL, params)
                cursor.fetchone()

        def orm_read(alias: str) -> Any:
            return lambda: Deal.objects.using(alias).select_related("session").get(pk=deal.pk)

        rows = [
            ("deal lock, client-side binding (Django's default)", default, client_bound),
            ("deal lock, db.prepared (prepared at once)", default, prepared_cursor),
            ("deal lock, Django server_side_binding", server_bound, django_server_side),
            ("deal lock, server_side_binding + prepare_threshold 5", server_prepared, psycopg_prepared),
            ("ORM read of the deal, client-side binding", default, orm_read("default")),
            ("ORM read of the deal, server_side_binding", server_bound, orm_read("server_bound")),
            ("ORM read of the deal, server_side_binding + prepare_threshold 5", server_prepared,
             orm_read("server_prepared")),
        ]
        print(f"{args.runs} executions each, one connection, with the transaction's commit (PostgreSQL)")
        for name, connection, run in rows:
            wall, cpu = timed(connection, run, args.runs)
            print(f"  {name:<68} wall {wall:6.3f} ms   backend CPU {cpu:6.3f} ms")
        return 0


if __name__ == "__main__":
    sys.exit(main())
