"""A deal start on PostgreSQL locks its session and then reads it once (issue 15): the role, the
names, the last and the running deal and a client id's deal in one statement after the lock; the
deal is one INSERT. The answers are the ORM path's (tests/golden, test_deal_client_id)."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from .conftest import FOUR

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

READS = ("referee_session", "referee_member", "referee_seat")


def test_a_deal_start_reads_the_session_once_and_inserts_once(
    require_postgres: None, client_for: Any, club_setup: dict[str, Any], start_session: Any
) -> None:
    session = start_session("velnias", FOUR)
    client = client_for(club_setup["users"]["scorer"])
    first = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert first.status_code == 201
    end = {"type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 3, 4, 5]}
    assert client.post(f"/api/deals/{first.json()['id']}/entries/", end, format="json").status_code == 201
    with CaptureQueriesContext(connection) as queries:
        second = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert second.status_code == 201
    assert second.json()["number"] == 2 and second.json()["players"] == FOUR
    statements = [query["sql"] for query in queries.captured_queries]
    # Token authentication reads the token with its user (auth tables); the session's lock is a
    # statement of its own, and everything about the table comes in the one statement after it.
    locks = [n for n, sql in enumerate(statements) if "FOR UPDATE" in sql]
    assert len(locks) == 1 and statements[locks[0]].strip().startswith('SELECT 1 FROM "referee_session"'), statements
    read = statements[locks[0] + 1]
    assert all(name in read for name in READS), statements
    table_reads = [sql for n, sql in enumerate(statements) if any(name in sql for name in READS)
                   and not sql.lstrip().startswith("INSERT") and n not in (locks[0], locks[0] + 1)]
    inserts = [sql for sql in statements if sql.lstrip().startswith('INSERT INTO "referee_deal"')]
    assert len(inserts) == 1, statements
    # Receivers of the deal's post_save (the watchers' poll cache) may read the session's deals;
    # nothing reads the session, the seats or the members again.
    assert not [sql for sql in table_reads if "referee_deal" not in sql], statements


def test_the_statements_path_starts_and_refuses_a_second_running_deal(
    require_postgres: None, client_for: Any, club_setup: dict[str, Any], start_session: Any
) -> None:
    """The read after the lock is a statement of its own, so that a start that waited for the lock
    reads after the wait (the race itself: test_deal_client_id_concurrency's ten threads, which
    would meet a duplicate deal number, a 500, if the read shared the lock's snapshot)."""
    from referee import deal_starts

    session = start_session("velnias", FOUR)
    assert "FOR UPDATE" in deal_starts.LOCK_SESSION_SQL and "FOR UPDATE" not in deal_starts.READ_SESSION_SQL
    scorer = club_setup["users"]["scorer"]
    started = deal_starts.start(session_id=session.pk, user=scorer)
    assert started.created and started.names == FOUR and started.deal.number == 1
    refused = client_for(scorer).post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (400, "running_deal")
