"""The hot path's literal statements run prepared on PostgreSQL (``db.prepared``):
planned once per connection, then only executed; and Django's query log still shows them."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from .conftest import FOUR

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

END = {"type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 3, 4, 5]}


def prepared_statements() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return [statement for (statement,) in cursor.fetchall()]


def play_a_deal(client: Any, session: Any) -> None:
    started = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert started.status_code == 201, started.content
    ended = client.post(f"/api/deals/{started.json()['id']}/entries/", END, format="json")
    assert ended.status_code == 201, ended.content


def test_a_deal_start_and_a_finishing_entry_prepare_their_statements_once(
    require_postgres: None, client_for: Any, club_setup: dict[str, Any], start_session: Any
) -> None:
    session = start_session("velnias", FOUR)
    client = client_for(club_setup["users"]["scorer"])
    play_a_deal(client, session)
    statements = prepared_statements()
    heads = {
        "the token check": 'FROM "authtoken_token" t JOIN',
        "the session's read": "AS previous",
        "the deal's insert": 'INSERT INTO "referee_deal"',
        "the deal's read": "AS key_stored",
        "the entry's store": 'INSERT INTO "referee_entry"',
        "the results": "INSERT INTO scoring_dealresult",
        "the aggregates": "INSERT INTO scoring_membermonth",
    }
    missing = [name for name, head in heads.items() if not any(head in statement for statement in statements)]
    assert not missing, statements
    # A second deal reuses them: nothing new is prepared (the row counts are arrays, not text).
    play_a_deal(client, session)
    assert sorted(prepared_statements()) == sorted(statements)


def test_the_query_log_shows_a_prepared_statement_with_its_values(
    require_postgres: None, client_for: Any, club_setup: dict[str, Any], start_session: Any
) -> None:
    session = start_session("velnias", FOUR)
    client = client_for(club_setup["users"]["scorer"])
    play_a_deal(client, session)  # prepared by now
    with CaptureQueriesContext(connection) as queries:
        play_a_deal(client, session)
    reads = [query["sql"] for query in queries.captured_queries if "AS key_stored" in query["sql"]]
    assert len(reads) == 1 and "WHERE d.id = " in reads[0] and "%(" not in reads[0] and "$1" not in reads[0]
