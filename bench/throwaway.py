"""A throwaway PostgreSQL database for the in-process benches: created, migrated, dropped.

The benches that time one function inside Django (a season's table, a rating chart, the
binding of statements) each need a database of their own that nothing else writes to, so
their figures are not someone else's load; this is the one place that makes and drops it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from bench.bench_leaderboard import admin_sql, server_url, with_database


@contextmanager
def throwaway_database(name: str, bench: str, configure: Callable[[], None] | None = None) -> Iterator[None]:
    """Django set up in this process on a new database ``name``, migrated; dropped afterwards
    (kept when ``BENCH_KEEP`` is set). ``configure`` runs after ``django.setup()`` and before
    the first connection, the moment extra database aliases can still be added to settings."""
    try:
        admin_sql(f'DROP DATABASE IF EXISTS "{name}"')
        admin_sql(f'CREATE DATABASE "{name}"')
    except Exception as error:  # noqa: BLE001 - any connection problem means: no PostgreSQL here
        raise SystemExit(f"{bench} needs PostgreSQL at {server_url()}: {error}") from error
    os.environ["DATABASE_URL"] = with_database(server_url(), name)
    os.environ.pop("DEBUG", None)
    os.environ["DJANGO_SETTINGS_MODULE"] = "config.settings_test"
    try:
        import django

        django.setup()
        if configure is not None:
            configure()
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        yield
    finally:
        from django.db import connections

        connections.close_all()
        if not os.environ.get("BENCH_KEEP"):
            admin_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
