"""Two tablets (or twenty) at once, against a real PostgreSQL server.

Each thread is its own client with its own database connection, all released together by a
barrier so the requests really race for the deal's row lock. SQLite serialises writers by
itself, so these tests need PostgreSQL (``require_postgres``; CI runs them).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from referee.models import Deal, Entry

from .conftest import FOUR
from .test_entries import RUKAS_DEAL

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]

THREADS = 20


def race(count: int, work: Callable[[APIClient, int], Any], token: str) -> list[Any]:
    """Run ``work(client, i)`` in ``count`` threads released at once; re-raise any thread's error."""
    barrier = threading.Barrier(count)
    results: list[Any] = [None] * count
    errors: list[BaseException] = []

    def runner(i: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
            barrier.wait(timeout=30)
            results[i] = work(client, i)
        except BaseException as error:  # noqa: BLE001 - handed back to the test thread
            errors.append(error)
        finally:
            connections.close_all()  # each thread's own connection, or the test database cannot be dropped

    threads = [threading.Thread(target=runner, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not any(thread.is_alive() for thread in threads), "a thread is still waiting"
    if errors:
        raise errors[0]
    return results


@pytest.fixture
def scorer_token(require_postgres: None, club_setup: dict[str, Any]) -> str:
    return Token.objects.get_or_create(user=club_setup["users"]["scorer"])[0].key


def assert_gap_free(deal: Deal) -> list[Entry]:
    active = list(Entry.objects.filter(deal=deal, active=True).order_by("seq"))
    assert [e.seq for e in active] == list(range(1, len(active) + 1))
    deal.refresh_from_db()
    assert deal.seq == len(active)
    return active


def test_the_same_key_from_twenty_threads_is_stored_once(
    scorer_token: str, start_session: Any, start_deal: Any
) -> None:
    deal = start_deal(start_session("rukas", ["Ona", "Jonas"]))
    body = {"type": "trick", "cards": ["2", "3"], "idempotency_key": "tablet-7:0001"}

    def post(client: APIClient, _i: int) -> tuple[int, Any]:
        response = client.post(f"/api/deals/{deal.pk}/entries/", body, format="json")
        return response.status_code, response.json()

    results = race(THREADS, post, scorer_token)
    assert Counter(status for status, _ in results) == {201: 1, 200: THREADS - 1}
    stored = {body["entry"]["seq"] for _status, body in results}
    assert stored == {1}
    assert all(body["entry"]["idempotency_key"] == "tablet-7:0001" for _status, body in results)
    assert Entry.objects.filter(deal=deal).count() == 1
    assert_gap_free(deal)


def test_twenty_different_entries_at_the_same_seq_store_exactly_one(
    scorer_token: str, start_session: Any, start_deal: Any
) -> None:
    deal = start_deal(start_session("rukas", ["Ona", "Jonas"]))
    # Twenty different first tricks: Ona's and Jonas's ranks drawn from 2..A without repeats of the pair.
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    tricks = [[ranks[i % 13], ranks[(i + 1 + i // 13) % 13]] for i in range(THREADS)]
    assert len({tuple(t) for t in tricks}) == THREADS

    def post(client: APIClient, i: int) -> tuple[int, Any]:
        response = client.post(
            f"/api/deals/{deal.pk}/entries/", {"type": "trick", "cards": tricks[i], "expected_seq": 0}, format="json"
        )
        return response.status_code, response.json()

    results = race(THREADS, post, scorer_token)
    assert Counter(status for status, _ in results) == {201: 1, 409: THREADS - 1}
    winner = next(i for i, (status, _) in enumerate(results) if status == 201)
    for status, body in results:
        if status == 409:
            assert isinstance(body.pop("code"), str)  # the service's code (stale_seq)
            assert body == {
                "error": "Another device recorded first: this deal is now at entry 1. Reload and try again.",
                "seq": 1,
            }
    active = assert_gap_free(deal)
    assert [e.payload["cards"] for e in active] == [tricks[winner]]
    assert Entry.objects.filter(deal=deal).count() == 1


def test_tablets_racing_through_a_whole_deal_keep_it_gap_free(
    scorer_token: str, start_session: Any, start_deal: Any
) -> None:
    """Eight tablets all try to record the next trick of the same deal, reloading on 409, until
    the deal is over: every trick is stored exactly once, in order."""
    deal = start_deal(start_session("rukas", ["Ona", "Jonas"]))
    path = f"/api/deals/{deal.pk}/entries/"

    def tablet(client: APIClient, _i: int) -> Counter[int]:
        statuses: Counter[int] = Counter()
        for _attempt in range(200):
            seq = client.get(f"/api/deals/{deal.pk}/").json()["seq"]
            if seq == len(RUKAS_DEAL):
                return statuses
            cards = RUKAS_DEAL[seq][0]
            response = client.post(
                path, {"type": "trick", "cards": cards, "expected_seq": seq, "idempotency_key": f"trick-{seq + 1}"},
                format="json",
            )
            assert response.status_code in (200, 201, 409), response.json()
            statuses[response.status_code] += 1
        raise AssertionError("the deal did not finish in 200 attempts")

    results = race(8, tablet, scorer_token)
    assert sum(r[201] for r in results) == len(RUKAS_DEAL)
    active = assert_gap_free(deal)
    assert [e.payload["cards"] for e in active] == [cards for cards, _taker in RUKAS_DEAL]
    assert Entry.objects.filter(deal=deal).count() == len(RUKAS_DEAL)
    assert deal.status == "finished"
    assert deal.state["points"] == [7, 4]


def test_twenty_undos_at_the_same_seq_undo_one_entry(
    scorer_token: str, start_session: Any, start_deal: Any, client_for: Any, club_setup: dict[str, Any]
) -> None:
    deal = start_deal(start_session("rukas", ["Ona", "Jonas"]))
    client = client_for(club_setup["users"]["scorer"])
    for cards, _taker in RUKAS_DEAL[:3]:
        client.post(f"/api/deals/{deal.pk}/entries/", {"type": "trick", "cards": cards}, format="json")

    def undo(client: APIClient, _i: int) -> int:
        return client.post(f"/api/deals/{deal.pk}/undo/", {"expected_seq": 3}, format="json").status_code

    assert Counter(race(THREADS, undo, scorer_token)) == {200: 1, 409: THREADS - 1}
    assert len(assert_gap_free(deal)) == 2
    assert deal.changes.count() == 1


def test_twenty_tablets_starting_a_deal_start_one(
    scorer_token: str, start_session: Any
) -> None:
    session = start_session("velnias", FOUR)

    def start(client: APIClient, _i: int) -> tuple[int, Any]:
        response = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
        return response.status_code, response.json()

    results = race(THREADS, start, scorer_token)
    assert Counter(status for status, _ in results) == {201: 1, 400: THREADS - 1}
    for status, body in results:
        if status == 400:
            assert isinstance(body.pop("code"), str)  # the service's code (running_deal)
            assert body == {"error": "Deal 1 is still running; finish it before starting the next."}
    assert list(session.deals.values_list("number", flat=True)) == [1]


def test_a_deal_being_recorded_does_not_hold_up_another_table_of_the_club(
    scorer_token: str, start_session: Any, start_deal: Any
) -> None:
    """The entry lock is the deal's (and its session's) row, never the club's: while one table's
    entry transaction is open, another table of the same club records at once."""
    from django.db import transaction

    from referee import services

    busy = start_deal(start_session("rukas", ["Ona", "Jonas"]))
    other = start_deal(start_session("rukas", ["Rūta", "Petras"]))
    locked, recorded = threading.Event(), threading.Event()
    waited: list[bool] = []

    def hold_the_busy_deal() -> None:
        try:
            with transaction.atomic():
                services._lock_deal(busy.pk)
                locked.set()
                # Released as soon as the other table has recorded, or after 10 s if it is blocked.
                waited.append(not recorded.wait(timeout=10))
        finally:
            connections.close_all()

    holder = threading.Thread(target=hold_the_busy_deal)
    holder.start()
    assert locked.wait(timeout=10)
    try:
        results = race(1, lambda client, _i: client.post(
            f"/api/deals/{other.pk}/entries/", {"type": "trick", "cards": ["2", "3"]}, format="json"
        ).status_code, scorer_token)
    finally:
        recorded.set()
        holder.join(timeout=30)
    assert results == [201]
    assert waited == [False], "the other table waited for the busy deal's lock"
