"""A deal started offline: ``POST /api/sessions/{id}/deals/`` with the tablet's
``client_id`` is idempotent, so a start whose answer was lost can be sent again."""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import Deal

from .conftest import FOUR

END_4 = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}
CLIENT = "client-4f1c2a9e-0d5b-4c1e-9a67-2b8e3f5d7c10"


def deals_url(session: Any) -> str:
    return f"/api/sessions/{session.pk}/deals/"


def test_a_retry_after_a_lost_answer_gets_the_same_deal(scorer_client: Any, start_session: Any) -> None:
    session = start_session("velnias", FOUR)
    first = scorer_client.post(deals_url(session), {"client_id": CLIENT, "idempotency_key": "start"}, format="json")
    assert first.status_code == 201
    assert first.json()["client_id"] == CLIENT
    # The answer never reached the tablet; it sends the same start again (as sync.js does).
    again = scorer_client.post(deals_url(session), {"client_id": CLIENT, "idempotency_key": "start"}, format="json")
    assert again.status_code == 200
    assert again.json() == first.json()
    assert Deal.objects.filter(session=session).count() == 1
    assert Deal.objects.get(session=session).client_id == CLIENT


def test_a_retry_with_the_same_dealer_gets_the_deal_and_after_it_finished_too(
    scorer_client: Any, start_session: Any
) -> None:
    session = start_session("velnias", FOUR)
    first = scorer_client.post(deals_url(session), {"client_id": CLIENT, "dealer": 1}, format="json").json()
    assert scorer_client.post(f"/api/deals/{first['id']}/entries/", END_4, format="json").status_code == 201
    again = scorer_client.post(deals_url(session), {"client_id": CLIENT, "dealer": 1}, format="json")
    assert again.status_code == 200
    assert (again.json()["id"], again.json()["status"], again.json()["number"]) == (first["id"], "finished", 1)
    assert Deal.objects.filter(session=session).count() == 1


def test_a_retry_in_a_session_closed_since_still_gets_its_deal(
    club_setup: dict[str, Any], scorer_client: Any, start_session: Any
) -> None:
    session = start_session("velnias", FOUR)
    first = scorer_client.post(deals_url(session), {"client_id": CLIENT}, format="json").json()
    scorer_client.post(f"/api/deals/{first['id']}/entries/", END_4, format="json")
    assert scorer_client.post(f"/api/sessions/{session.pk}/close/", {}, format="json").status_code == 200
    again = scorer_client.post(deals_url(session), {"client_id": CLIENT}, format="json")
    assert (again.status_code, again.json()["id"]) == (200, first["id"])
    other = scorer_client.post(deals_url(session), {"client_id": "client-other"}, format="json")
    assert other.status_code == 400
    assert other.json() == {"code": "closed",
                            "error": "This session is closed; reopen it to record or correct anything."}


def test_the_same_client_id_with_another_dealer_is_a_conflict_and_changes_nothing(
    scorer_client: Any, start_session: Any, counts: Any
) -> None:
    session = start_session("velnias", FOUR)
    first = scorer_client.post(deals_url(session), {"client_id": CLIENT, "dealer": 1}, format="json").json()
    before = counts()
    response = scorer_client.post(deals_url(session), {"client_id": CLIENT, "dealer": 2}, format="json")
    assert response.status_code == 409
    assert response.json() == {
        "code": "duplicate_key_conflict",
        "error": "This client id was already used for a deal with another dealer; create a new id.",
        "number": 1,
    }
    assert counts() == before
    assert Deal.objects.get(session=session).dealer == first["dealer"] == 1


def test_two_client_ids_while_one_deal_runs_the_second_is_refused(
    scorer_client: Any, start_session: Any, counts: Any
) -> None:
    session = start_session("velnias", FOUR)
    assert scorer_client.post(deals_url(session), {"client_id": "client-a"}, format="json").status_code == 201
    before = counts()
    response = scorer_client.post(deals_url(session), {"client_id": "client-b"}, format="json")
    assert response.status_code == 400
    assert response.json() == {"code": "running_deal",
                               "error": "Deal 1 is still running; finish it before starting the next."}
    assert counts() == before


def test_the_same_client_id_in_another_session_is_another_deal(scorer_client: Any, start_session: Any) -> None:
    one, two = start_session("velnias", FOUR), start_session("velnias", FOUR)
    first = scorer_client.post(deals_url(one), {"client_id": CLIENT}, format="json")
    second = scorer_client.post(deals_url(two), {"client_id": CLIENT}, format="json")
    assert (first.status_code, second.status_code) == (201, 201)
    assert first.json()["id"] != second.json()["id"]


def test_a_start_without_client_id_answers_as_before(scorer_client: Any, start_session: Any) -> None:
    session = start_session("velnias", FOUR)
    response = scorer_client.post(deals_url(session), {}, format="json")
    assert response.status_code == 201
    assert "client_id" not in response.json()
    assert Deal.objects.get(session=session).client_id is None


def test_expected_number_refuses_when_another_device_started_first(
    scorer_client: Any, start_session: Any, counts: Any
) -> None:
    session = start_session("velnias", FOUR)
    started = scorer_client.post(deals_url(session), {"client_id": "client-a", "expected_number": 1}, format="json")
    assert started.status_code == 201
    scorer_client.post(f"/api/deals/{started.json()['id']}/entries/", END_4, format="json")
    before = counts()
    # This tablet saw no deal yet: it expects to start deal 1, but the other device's deal 1 was first.
    response = scorer_client.post(deals_url(session), {"client_id": "client-b", "expected_number": 1}, format="json")
    assert response.status_code == 409
    assert response.json() == {
        "code": "stale_deal_number",
        "error": "Another device started a deal first: the next deal is number 2. Reload and try again.",
        "number": 2,
    }
    assert counts() == before
    # The stale number is told before a running deal is: the tablet learns why.
    scorer_client.post(deals_url(session), {}, format="json")
    response = scorer_client.post(deals_url(session), {"expected_number": 2}, format="json")
    assert (response.status_code, response.json()["code"], response.json()["number"]) == (409, "stale_deal_number", 3)
    ok = scorer_client.post(deals_url(session), {"client_id": "client-a", "expected_number": 9}, format="json")
    assert (ok.status_code, ok.json()["number"]) == (200, 1)  # a retry is answered whatever the number


BAD_ID = "client_id must be 1 to 80 visible characters, without spaces."


@pytest.mark.parametrize(("body", "field", "messages"), [
    ({"client_id": ""}, "client_id", ["This field may not be blank."]),
    ({"client_id": "a b"}, "client_id", [BAD_ID]),
    ({"client_id": "abc\n"}, "client_id", [BAD_ID]),
    ({"client_id": "ab\tc"}, "client_id", [BAD_ID]),
    ({"client_id": "šaltas"}, "client_id", [BAD_ID]),
    ({"client_id": 17}, "client_id", [BAD_ID]),
    ({"client_id": "x" * 81}, "client_id", ["Ensure this field has no more than 80 characters.", BAD_ID]),
    ({"expected_number": 0}, "expected_number", ["Ensure this value is greater than or equal to 1."]),
    ({"expected_number": "2"}, "expected_number", ["A valid integer is required."]),
])
def test_a_bad_client_id_or_expected_number_is_refused_and_changes_nothing(
    scorer_client: Any, start_session: Any, counts: Any, body: dict[str, Any], field: str, messages: list[str]
) -> None:
    session = start_session("velnias", FOUR)
    before = counts()
    response = scorer_client.post(deals_url(session), body, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "invalid"
    assert response.json()["fields"] == {field: messages}
    assert counts() == before


def test_a_nul_in_the_client_id_is_refused(scorer_client: Any, start_session: Any, counts: Any) -> None:
    session = start_session("velnias", FOUR)
    before = counts()
    response = scorer_client.post(deals_url(session), {"client_id": "client-\x00"}, format="json")
    assert (response.status_code, response.json()) == (400, {
        "error": "The request body cannot be taken: Text may not contain the NUL character (\\u0000).",
        "code": "invalid"})
    assert counts() == before


def test_a_member_who_is_no_scorer_gets_no_deal_by_its_client_id(
    club_setup: dict[str, Any], client_for: Any, scorer_client: Any, start_session: Any
) -> None:
    session = start_session("velnias", FOUR)
    assert scorer_client.post(deals_url(session), {"client_id": CLIENT}, format="json").status_code == 201
    response = client_for(club_setup["users"]["member"]).post(deals_url(session), {"client_id": CLIENT}, format="json")
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"


def test_the_schema_documents_client_id_and_the_repeat(client_for: Any) -> None:
    schema = client_for().get("/api/schema/?format=json").json()
    post = schema["paths"]["/api/sessions/{id}/deals/"]["post"]
    assert {"200", "201", "409"} <= set(post["responses"])
    body = schema["components"]["schemas"]["DealStartRequest"]["properties"]
    assert body["client_id"]["maxLength"] == 80
    assert body["client_id"]["pattern"] == "^[!-~]{1,80}$"
    assert "expected_number" in body
    assert "stale_deal_number" in schema["components"]["schemas"]["Error"]["properties"]["code"]["description"]
