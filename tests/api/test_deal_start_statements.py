"""A deal start on PostgreSQL reads its session once, without a lock, and inserts the deal only
if nothing it was made from has moved: the role, the names, the last and the running
deal and a client id's deal in one statement; the deal one conditional INSERT. A start whose
session moved in between is made again under the session's lock. The answers are the ORM
path's (tests/golden, test_deal_client_id)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from referee import deal_starts, services
from referee.errors import Refusal
from referee.models import Deal

from .conftest import FOUR

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

READS = ("referee_session", "referee_member", "referee_seat")
END = {"type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 3, 4, 5]}


def test_a_deal_start_reads_the_session_once_and_inserts_once_without_a_transaction(
    require_postgres: None, client_for: Any, club_setup: dict[str, Any], start_session: Any
) -> None:
    session = start_session("velnias", FOUR)
    client = client_for(club_setup["users"]["scorer"])
    first = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert first.status_code == 201
    assert client.post(f"/api/deals/{first.json()['id']}/entries/", END, format="json").status_code == 201
    with CaptureQueriesContext(connection) as queries:
        second = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert second.status_code == 201
    assert second.json()["number"] == 2 and second.json()["players"] == FOUR
    statements = [query["sql"] for query in queries.captured_queries]
    # Token authentication reads the token with its user (auth tables); then the one read of the
    # table and the one insert, and no lock of the session of its own.
    assert not [sql for sql in statements if sql.lstrip().startswith(("SELECT 1 FROM", "BEGIN", "SAVEPOINT"))]
    reads = [sql for sql in statements if all(name in sql for name in READS)]
    assert len(reads) == 1 and "FOR UPDATE" not in reads[0], statements
    inserts = [sql for sql in statements if 'INSERT INTO "referee_deal"' in sql]
    assert len(inserts) == 1, statements
    # Receivers of the deal's post_save (the watchers' poll cache) may read the session's deals;
    # nothing reads the session, the seats or the members again.
    table_reads = [sql for sql in statements if any(name in sql for name in READS)
                   and sql not in reads and sql not in inserts]
    assert not [sql for sql in table_reads if "referee_deal" not in sql], statements


def test_the_statements_path_starts_and_refuses_a_second_running_deal(
    require_postgres: None, client_for: Any, club_setup: dict[str, Any], start_session: Any
) -> None:
    """The locked path's read after the lock is a statement of its own, so that a start that
    waited for the lock reads after the wait (the race itself: test_deal_client_id_concurrency's
    ten threads, which would meet a duplicate deal number, a 500, if the read shared the lock's
    snapshot)."""
    session = start_session("velnias", FOUR)
    assert "FOR UPDATE" in deal_starts.LOCK_SESSION_SQL and "FOR UPDATE" not in deal_starts.READ_SESSION_SQL
    scorer = club_setup["users"]["scorer"]
    started = deal_starts.start(session_id=session.pk, user=scorer)
    assert started.created and started.names == FOUR and started.deal.number == 1
    refused = client_for(scorer).post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert (refused.status_code, refused.json()["code"]) == (400, "running_deal")


# -- a session that moves between the read and the insert ------------------------------------


@pytest.fixture
def meanwhile(monkeypatch: pytest.MonkeyPatch) -> Callable[[Callable[[], Any]], list[str]]:
    """``action`` runs between the unlocked read of the next start and its insert (another
    device, a close, an undo); the list returned tells which reads ran, locked or not."""
    reads: list[str] = []

    def arrange(action: Callable[[], Any]) -> list[str]:
        original = deal_starts._read_sql

        def read_then_action(*args: Any, lock: bool = True, **kwargs: Any) -> Any:
            reads.append("locked" if lock else "unlocked")
            read = original(*args, lock=lock, **kwargs)
            if not lock and len(reads) == 1:
                action()
            return read

        monkeypatch.setattr(deal_starts, "_read_sql", read_then_action)
        return reads

    return arrange


@pytest.fixture(autouse=True)
def english() -> Any:
    with translation.override("en"):
        yield


def refusal_of(action: Callable[[], Any]) -> Refusal:
    with pytest.raises(Refusal) as refused:
        action()
    return refused.value


def test_a_start_after_another_devices_start_is_refused_and_stores_nothing(
    require_postgres: None, club_setup: dict[str, Any], start_session: Any, meanwhile: Any
) -> None:
    session = start_session("velnias", FOUR)
    scorer = club_setup["users"]["scorer"]
    reads = meanwhile(lambda: services.deal_start(session=session, user=scorer, client_id="other"))
    refused = refusal_of(lambda: deal_starts.start(session_id=session.pk, user=scorer, client_id="mine"))
    assert refused.code == "running_deal"
    assert refused.message == "Deal 1 is still running; finish it before starting the next."
    assert reads == ["unlocked", "unlocked", "locked"]  # the other device's own read, then ours again, locked
    assert list(Deal.objects.filter(session=session).values_list("number", "client_id")) == [(1, "other")]


def test_a_start_whose_session_closed_meanwhile_is_refused_and_stores_nothing(
    require_postgres: None, club_setup: dict[str, Any], start_session: Any, meanwhile: Any
) -> None:
    session = start_session("velnias", FOUR)
    scorer = club_setup["users"]["scorer"]
    meanwhile(lambda: services.session_close(session=session, user=scorer))
    refused = refusal_of(lambda: deal_starts.start(session_id=session.pk, user=scorer))
    assert refused.code == "closed"
    assert not Deal.objects.filter(session=session).exists()


def test_a_start_whose_last_deal_changed_meanwhile_is_made_again_from_it(
    require_postgres: None, club_setup: dict[str, Any], start_session: Any, meanwhile: Any
) -> None:
    """The last deal's revision is the guard: a correction that left it finished (here, a stand-in
    that only bumps the revision) sends the start the locked way, which reads it again."""
    from django.db.models import F

    session = start_session("velnias", FOUR)
    scorer = club_setup["users"]["scorer"]
    first = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=first.pk, payload=END, user=scorer)
    reads = meanwhile(lambda: Deal.objects.filter(pk=first.pk).update(revision=F("revision") + 1))
    started = deal_starts.start(session_id=session.pk, user=scorer)
    assert started.created and started.deal.number == 2
    assert reads == ["unlocked", "locked"]
    assert Deal.objects.filter(session=session).count() == 2


def test_a_start_whose_last_deal_was_reopened_meanwhile_is_refused(
    require_postgres: None, club_setup: dict[str, Any], start_session: Any, meanwhile: Any
) -> None:
    session = start_session("velnias", FOUR)
    scorer = club_setup["users"]["scorer"]
    first = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=first.pk, payload=END, user=scorer)
    meanwhile(lambda: services.entry_undo(deal_id=first.pk, user=scorer))
    refused = refusal_of(lambda: deal_starts.start(session_id=session.pk, user=scorer))
    assert refused.code == "running_deal"
    assert list(Deal.objects.filter(session=session).values_list("number", "status")) == [(1, "running")]
