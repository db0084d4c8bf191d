"""The schema tells the truth: the statuses and content types each operation
answers are in /api/schema/, and request bodies the schema calls invalid are refused."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import FOUR

pytestmark = pytest.mark.django_db


@pytest.fixture
def schema(client_for: Any) -> dict[str, Any]:
    return client_for().get("/api/schema/?format=json").json()


def test_the_particular_answers_are_documented(schema: dict[str, Any]) -> None:
    paths = schema["paths"]
    assert "409" in paths["/api/deals/{id}/undo/"]["post"]["responses"]
    assert "429" in paths["/api/auth/token/"]["post"]["responses"]
    for kind in ("standings", "ledger", "settlement", "summary"):
        content = paths[f"/api/sessions/{{id}}/{kind}/"]["get"]["responses"]["200"]["content"]
        assert set(content) == {"application/json", "text/csv"}, kind


def test_every_operation_documents_the_shared_errors_in_the_error_format(schema: dict[str, Any]) -> None:
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            wanted = {"400", "401", "403", "404", "406"}
            if "requestBody" in operation:
                wanted |= {"413", "415"}
                assert set(operation["requestBody"]["content"]) == {"application/json"}, (method, path)
            assert wanted <= set(operation["responses"]), (method, path)
            for status in wanted:
                content = operation["responses"][status]["content"]
                assert content == {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}


def test_text_that_is_only_spaces_is_not_promised(schema: dict[str, Any]) -> None:
    member = schema["components"]["schemas"]["MemberCreateRequest"]["properties"]["name"]
    assert (member["minLength"], member["pattern"]) == (1, r"[^\s\x1c-\x1f]")


@pytest.mark.parametrize(("method", "address", "body", "message"), [
    ("patch", "/api/clubs/vilnius/", {"public_leaderboard": "yes"}, 'public_leaderboard: Must be a valid boolean.'),
    ("patch", "/api/clubs/vilnius/", {"name": 17}, "name: Not a valid string."),
    ("post", "/api/clubs/vilnius/members/", {"name": "Ona", "role": 1}, 'role: "1" is not a valid choice.'),
    ("post", "/api/sessions/", {"club": "vilnius", "game": "rukas", "players": [1, "2"]},
     "players: 1: A valid integer is required."),
    ("post", "/api/sessions/", {"club": "vilnius", "game": "rukas", "players": [1, 2], "stake": 0.5},
     'stake: Give an amount as text, e.g. "0.50".'),
    ("post", "/api/sessions/", {"club": "vilnius", "game": "rukas", "players": [1, 2], "stake": "1e2"},
     'stake: Give an amount as text, e.g. "0.50".'),
])
def test_a_body_of_the_wrong_json_types_is_refused(
    club_setup: dict[str, Any], client_for: Any, counts: Any, method: str, address: str, body: Any, message: str
) -> None:
    before = counts()
    response = getattr(client_for(club_setup["users"]["admin"]), method)(address, body, format="json")
    assert (response.status_code, response.json()["code"], response.json()["error"]) == (400, "invalid", message)
    assert counts() == before


def test_undo_takes_a_json_object_with_a_whole_number(
    club_setup: dict[str, Any], client_for: Any, start_session: Any, start_deal: Any
) -> None:
    deal = start_deal(start_session("rukas", FOUR[:2]))
    client = client_for(club_setup["users"]["scorer"])
    client.post(f"/api/deals/{deal.pk}/entries/", {"type": "trick", "cards": ["2", "3"]}, format="json")
    for body, message in (([None], "The body must be a JSON object, e.g. {\"expected_seq\": 3}."),
                          ({"expected_seq": "1"}, "expected_seq: A valid integer is required.")):
        response = client.post(f"/api/deals/{deal.pk}/undo/", body, format="json")
        assert (response.status_code, response.json()["code"], response.json()["error"]) == (400, "invalid", message)
    deal.refresh_from_db()
    assert deal.seq == 1


@pytest.mark.parametrize("fmt", ["", "xml"])
def test_a_format_other_than_json_or_csv_is_refused(club_setup: dict[str, Any], client_for: Any,
                                                    start_session: Any, fmt: str) -> None:
    session = start_session("rukas", FOUR[:2])
    response = client_for(club_setup["users"]["member"]).get(f"/api/sessions/{session.pk}/standings/?format={fmt}")
    assert (response.status_code, response.json()) == (
        400, {"error": f"Unknown format “{fmt}”; use json or csv.", "code": "invalid"})


@pytest.mark.parametrize("query", ["club=", "club=a%20b"])
def test_a_session_filter_that_is_no_slug_is_refused(club_setup: dict[str, Any], client_for: Any,
                                                     query: str) -> None:
    response = client_for(club_setup["users"]["member"]).get(f"/api/sessions/?{query}")
    assert (response.status_code, response.json()["code"]) == (400, "invalid")


@pytest.mark.parametrize("query", ["period=", "min_deals=", "start=&end=2024-01-01&period=custom"])
def test_empty_leaderboard_parameters_are_refused(club_setup: dict[str, Any], client_for: Any, query: str) -> None:
    response = client_for(club_setup["users"]["member"]).get(f"/api/clubs/vilnius/leaderboard/?{query}")
    assert (response.status_code, response.json()["code"]) == (400, "invalid")
