"""The entry store has two paths (literal SQL on PostgreSQL, the ORM elsewhere); the tests of
the entry service run on both wherever both exist."""

from __future__ import annotations

import pytest
from django.db import connection

from referee import entry_store

#: ``native``: the path this database takes; ``orm``: the ORM path forced where the database
#: has a path of its own (on SQLite the two are the same path, so it is not run twice).
PATHS = ["native", "orm"] if connection.vendor in entry_store.SQL_VENDORS else ["native"]


@pytest.fixture(params=PATHS)
def entry_store_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "orm":
        monkeypatch.setattr(entry_store, "SQL_VENDORS", frozenset())
    return "sql" if entry_store.uses_sql() else "orm"
