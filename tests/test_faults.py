"""Faults: the database connection dropping in the middle of recording an entry.

An entry is stored with its new deal snapshot, seq and (when it finishes the deal) its
results in one transaction. Whatever breaks inside that transaction, the table must find
the deal exactly as it was: no entry row, no half-written results, the same seq and
snapshot; and the tablet's retry with the same idempotency key must store the entry once.

Three ways to break it: the connection closed right after the entry row is inserted, the
database failing after the results rows of a finishing entry are written, and (PostgreSQL,
the real thing) the request's server process terminated by ``pg_terminate_backend`` from
another connection after the entry insert. Each breaks a finishing entry, whose transaction
holds the insert and the results on every database. A mid-deal entry on PostgreSQL is one
statement that commits by itself (``entry_store.store_entry_if_unchanged``): nothing of it can
be half-written, and a connection lost after it leaves the whole entry, which the retry
answers (the last test).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from django.db import OperationalError, connection, connections
from rest_framework.test import APIClient

from referee import entry_store
from referee.models import Deal, Entry
from scoring.models import DealResult, MemberMonth

pytestmark = pytest.mark.django_db(transaction=True)

RUKAS_TRICKS = [["2", "3", "4", "5"], ["3", "4", "5", "6"], ["4", "5", "6", "7"]]


def velnias_end(player: int = 0) -> dict[str, Any]:
    counts = [3, 5, 2, 4]
    counts[player] = 0
    return {"type": "end", "condition": "empty_hand", "player": player, "hand_counts": counts}


@pytest.fixture
def scorer_client(club_setup: dict[str, Any], api: Any) -> APIClient:
    client = api(club_setup["users"]["scorer"])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    client.raise_request_exception = False  # a crash is a 500 answer, as a real server gives
    return client


@pytest.fixture
def start(club_setup: dict[str, Any]) -> Callable[[str], Deal]:
    from referee import services

    def make(game: str) -> Deal:
        members, scorer = club_setup["members"], club_setup["users"]["scorer"]
        players = [members[name] for name in ("admin", "scorer", "member", "Petras")]
        session = services.session_start(club=club_setup["club"], game=game, players=players, user=scorer)
        return services.deal_start(session=session, user=scorer)

    return make


def picture(deal: Deal) -> dict[str, Any]:
    """Everything a deal's recording leaves in the database."""
    deal.refresh_from_db()
    return {
        "seq": deal.seq,
        "status": deal.status,
        "state": json.dumps(deal.state, sort_keys=True),
        "entries": list(Entry.objects.filter(deal=deal).order_by("id").values_list("seq", "payload", "active",
                                                                                    "idempotency_key")),
        "results": list(DealResult.objects.filter(deal=deal).values_list("seat", "points")),
        "months": list(MemberMonth.objects.order_by("pk").values()),
    }


@contextmanager
def after_entry_insert(action: Callable[[], None]) -> Iterator[list[str]]:
    """Run ``action`` right after the next INSERT into the entry table (inside the request's
    transaction), however the service writes it (ORM or plain SQL, alone or in a WITH
    statement that also saves the snapshot, as on PostgreSQL): at the database cursor."""
    fired: list[str] = []

    def wrapper(execute: Any, sql: str, params: Any, many: bool, context: Any) -> Any:
        result = execute(sql, params, many, context)
        if not fired and re.search(r'\bINSERT INTO "referee_entry"', sql, re.I):
            fired.append(sql)
            action()
        return result

    with connection.execute_wrapper(wrapper):
        yield fired


def post_entry(client: APIClient, deal: Deal, entry: dict[str, Any], key: str, seq: int | None = None) -> Any:
    body = {**entry, "idempotency_key": key}
    if seq is not None:
        body["expected_seq"] = seq
    return client.post(f"/api/deals/{deal.pk}/entries/", body, format="json")


def assert_retry_stores_once(client: APIClient, deal: Deal, entry: dict[str, Any], key: str, seq: int) -> None:
    first = post_entry(client, deal, entry, key, seq)
    assert first.status_code == 201, first.content
    assert first.json()["entry"]["seq"] == seq + 1
    again = post_entry(client, deal, entry, key, seq)
    assert again.status_code == 200
    assert again.json()["replayed"] is True
    assert Entry.objects.filter(deal=deal, idempotency_key=key).count() == 1
    assert list(Entry.objects.filter(deal=deal, active=True).order_by("seq").values_list("seq", flat=True)) == list(
        range(1, seq + 2)
    )


def record_two_tricks(client: APIClient, deal: Deal) -> None:
    for number, cards in enumerate(RUKAS_TRICKS[:2]):
        response = post_entry(client, deal, {"type": "trick", "cards": cards}, f"k{number}", number)
        assert response.status_code == 201


def connection_lost() -> None:
    """What the driver raises when the server goes away between two statements. (The test
    database of SQLite lives in memory, where Django ignores close(); PostgreSQL gets the real
    thing below.)"""
    raise OperationalError("server closed the connection unexpectedly")


def test_connection_lost_after_the_entry_insert_stores_nothing(scorer_client: APIClient, start: Any) -> None:
    deal = start("velnias")
    before = picture(deal)
    with after_entry_insert(connection_lost) as fired:
        response = post_entry(scorer_client, deal, velnias_end(), "end-1", 0)
    assert fired, "the fault was never injected"
    assert response.status_code == 500
    assert response.json() == {"error": "Something went wrong on our side; nothing was stored. Try again.",
                               "code": "server_error"}
    connections.close_all()
    assert picture(deal) == before
    assert_retry_stores_once(scorer_client, deal, velnias_end(), "end-1", 0)


def test_connection_lost_after_a_mid_deal_entry_leaves_it_whole_and_the_retry_stores_it_once(
    scorer_client: APIClient, start: Any
) -> None:
    """On PostgreSQL the mid-deal entry's one statement has committed when the connection goes:
    the entry is there whole, and the retry is answered with it. Elsewhere the entry's
    transaction is rolled back: nothing is there. Either way the retry leaves it stored once."""
    deal = start("rukas")
    record_two_tricks(scorer_client, deal)
    before = picture(deal)
    entry = {"type": "trick", "cards": RUKAS_TRICKS[2]}
    with after_entry_insert(connection_lost) as fired:
        response = post_entry(scorer_client, deal, entry, "k2", 2)
    assert fired, "the fault was never injected"
    assert response.status_code == 500
    connections.close_all()
    after = picture(deal)
    if entry_store.uses_sql():
        assert after["seq"] == 3 and after["entries"][-1] == (3, entry, True, "k2")
        assert after["entries"][:-1] == before["entries"]
        again = post_entry(scorer_client, deal, entry, "k2", 2)
        assert again.status_code == 200 and again.json()["replayed"] is True
        assert Entry.objects.filter(deal=deal, idempotency_key="k2").count() == 1
    else:
        assert after == before
        assert_retry_stores_once(scorer_client, deal, entry, "k2", 2)


def test_database_failing_after_the_results_are_written_stores_no_half_entry(
    scorer_client: APIClient, start: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The finishing entry of a Velnias deal writes its results and aggregates (one statement on
    PostgreSQL, several elsewhere), then queues its rating step; the database fails there."""
    from scoring.ratings import rating as ratings

    deal = start("velnias")
    before = picture(deal)
    written: list[int] = []

    def failing_announce(*args: Any, **kwargs: Any) -> None:
        written.append(DealResult.objects.filter(deal=deal).count())
        connection_lost()

    monkeypatch.setattr(ratings, "announce", failing_announce)
    response = post_entry(scorer_client, deal, velnias_end(), "end-1", 0)
    assert written == [4], "the fault must come after the result rows were inserted"
    assert response.status_code == 500
    assert picture(deal) == before
    monkeypatch.undo()
    assert_retry_stores_once(scorer_client, deal, velnias_end(), "end-1", 0)
    assert sorted(DealResult.objects.filter(deal=deal).values_list("seat", "points")) == [
        (0, 11), (1, -5), (2, -2), (3, -4)
    ]


def test_an_undo_interrupted_by_the_database_changes_nothing(
    scorer_client: APIClient, start: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from referee.models import DealChange
    from scoring import results

    deal = start("velnias")
    assert post_entry(scorer_client, deal, velnias_end(), "end-1", 0).status_code == 201
    before = picture(deal)

    monkeypatch.setattr(results, "_bump", lambda *args, **kwargs: connection_lost())
    response = scorer_client.post(f"/api/deals/{deal.pk}/undo/", {"expected_seq": 1}, format="json")
    assert response.status_code == 500
    assert picture(deal) == before
    assert not DealChange.objects.exists()


@pytest.mark.postgres
def test_postgres_backend_terminated_mid_request(
    require_postgres: None, scorer_client: APIClient, start: Any
) -> None:
    """The real thing: another connection kills the request's server process after the entry insert."""
    import psycopg

    deal = start("velnias")
    before = picture(deal)
    params = connection.get_connection_params()
    params.pop("cursor_factory", None)
    params.pop("context", None)

    def terminate() -> None:
        pid = connection.connection.info.backend_pid
        with psycopg.connect(**params, autocommit=True) as killer:
            killer.execute("SELECT pg_terminate_backend(%s)", [pid])

    with after_entry_insert(terminate) as fired:
        response = post_entry(scorer_client, deal, velnias_end(), "end-1", 0)
    assert fired
    assert response.status_code == 500
    connections.close_all()  # the dead connection; the next query opens a new one
    assert picture(deal) == before
    assert_retry_stores_once(scorer_client, deal, velnias_end(), "end-1", 0)
