"""The hot path's literal statements, planned once per connection (PostgreSQL's prepared
statements) instead of at every execution.

Django binds parameters on the client (psycopg's ``ClientCursor``), so PostgreSQL parses and
plans every statement it receives, and the hot path's statements are not simple: the deal's
lock reads the role and the seats' names in subqueries, a deal start reads five things of its
session, a finished deal's aggregates are upserts in three tables. Prepared, the deal's lock
costs the backend under a third of the CPU it costs bound on the client (docs/measurements.md).
Half of a Velnias table's requests are deal starts and half
finish a deal, so most of their database time was planning (``bench/bench_tables.py``).

``cursor()`` gives a cursor of the same connection that binds on the server and prepares
every statement it executes (``prepare=True``): the first execution on a connection prepares
it, later ones only run it. The cursor goes through Django's wrapper, so the statements are
logged, counted by ``assertNumQueries`` and seen by execute wrappers as any other.

What a prepared statement needs of its text: one statement per execution (no ``;`` between
two), parameters whose type PostgreSQL can tell (write a cast where it cannot: an array of
numbers passed to ``unnest``, say), and a text that does not grow with the data (build the
rows as arrays, not as ``VALUES`` lists), so that one plan serves every execution.
A connection pooler in transaction mode (PgBouncer 1.21 and newer, with
``max_prepared_statements``) keeps prepared statements working; an older one would need
``PREPARED = False``.

Django's own server-side binding (``OPTIONS: server_side_binding`` with psycopg's
``prepare_threshold``, on in config/settings.py) now prepares every statement after its fifth
execution on a connection. Measured side by side on the deal lock (``bench/bench_binding.py``;
docs/measurements.md), this cursor and Django's binding with the threshold cost the same, and
both about a third of client-side binding (Django's binding without the threshold is worse
than either). On the hot path the two are the same; this cursor stays for the statements it
serves (prepared from their first execution, and independent of the setting, which a pooler
without prepared statements turns off), and the setting brings the same to every ORM
statement (a deal read with its session: half the backend CPU).

Only on PostgreSQL (``referee.entry_store.uses_sql``); other databases take the ORM's path.
"""

from __future__ import annotations

from typing import Any

import psycopg
from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.postgresql.psycopg_any import register_tzloader  # type: ignore[import-untyped]
from psycopg.pq import Format

TIMESTAMPTZ_OID = psycopg.adapters.types["timestamptz"].oid

#: Whether the hot path's statements are prepared; off, they run as any other statement.
PREPARED = True

#: psycopg's default: a statement run this often on a connection is prepared. Only the cursors
#: of this module bind on the server, and they ask for preparing at the first execution.
PREPARE_THRESHOLD = 5


class PreparingCursor(psycopg.Cursor[Any]):
    """psycopg's server-binding cursor, preparing each statement the first time this
    connection runs it (psycopg keeps the prepared names per connection)."""

    def __init__(self, connection: psycopg.Connection[Any], database: Any) -> None:
        super().__init__(connection)
        #: The Django connection the cursor belongs to: asking Django's per-thread
        #: ``connection`` proxy at every execution cost 60 µs per request of the hot path.
        self.database = database

    def execute(self, query: Any, params: Any = None, *, prepare: bool | None = None,
                binary: bool | None = None) -> Any:
        result = super().execute(query, params, prepare=True if prepare is None else prepare, binary=binary)
        if self._query is None and self.database.queries_logged:
            # A prepared execution leaves psycopg no text of the statement, and Django's query
            # log (DEBUG, assertNumQueries, CaptureQueriesContext) reads it from the cursor:
            # given here as Django's own cursors give it, with the values in place.
            self._query = _Logged(psycopg.ClientCursor(self.connection).mogrify(query, params).encode())  # type: ignore[assignment]
        return result


class _Logged:
    """What Django's query log reads of a statement psycopg ran prepared."""

    def __init__(self, query: bytes) -> None:
        self.query = query


def database() -> Any:
    """This thread's database wrapper, looked up once: every ``connection.x`` goes through
    Django's per-thread proxy (about 60 lookups in a request of the hot path), so the hot path
    resolves it once and passes the wrapper on (to the fields preparing values, say)."""
    return connections[DEFAULT_DB_ALIAS]


def cursor() -> Any:
    """A cursor (use it in ``with``) whose statements PostgreSQL prepares on this connection."""
    db = database()
    if not PREPARED:
        return db.cursor()
    db.close_if_health_check_failed()
    db.ensure_connection()
    with db.wrap_database_errors:
        raw_connection = db.connection
        if raw_connection.prepare_threshold is None:
            # Django turns psycopg's preparing off for the connection (its cursors bind on the
            # client and never prepare anyway); without this, psycopg ignores ``prepare=True``.
            raw_connection.prepare_threshold = PREPARE_THRESHOLD
        raw: Any = PreparingCursor(raw_connection, db)
        # As Django's own cursors: datetimes come back in the connection's time zone.
        loader = raw_connection.adapters.get_loader(TIMESTAMPTZ_OID, Format.TEXT)
        if getattr(loader, "timezone", None) != db.timezone:
            register_tzloader(db.timezone, raw)
        # Wrapped as Django wraps its own (logged, counted, seen by execute wrappers).
        db.validate_thread_sharing()
        return db.make_debug_cursor(raw) if db.queries_logged else db.make_cursor(raw)
