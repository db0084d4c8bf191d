"""Hostile and broken input: every class answers 400 (or 404, 413) in the one JSON
error format with its stable code, and changes nothing.

The classes: JSON nested past the recursion limit (on every operation that reads a body,
the token endpoint included), NUL characters (PostgreSQL stores none) in query parameters,
idempotency keys and text fields, far-future or malformed leaderboard dates, digits that
``str.isdigit()`` accepts but ``int()`` does not, and a body over the size limit.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from django.test import override_settings

from tests.api.conftest import FOUR, row_counts
from tests.evenings.world import drawn_evening

pytestmark = pytest.mark.django_db

DEEP = "[" * 100_000 + "]" * 100_000
#: Valid JSON, but nested past what any entry or form needs (33 levels).
NESTED = json.dumps({"type": "trick", "cards": json.loads("[" * 32 + "]" * 32)})


@pytest.fixture
def world(club_setup: dict[str, Any], start_session: Callable[..., Any], start_deal: Callable[..., Any]) -> Any:
    from referee import services

    session = start_session("rukas", FOUR[:2])
    deal = start_deal(session)
    services.entry_add(deal_id=deal.pk, user=club_setup["users"]["scorer"],
                       payload={"type": "trick", "cards": ["2", "3"]})
    evening, drawn = drawn_evening(club_setup)
    return {"session": session, "deal": deal, "member": club_setup["members"]["member"], "evening": evening,
            "round": drawn, **club_setup}


def _state(world: dict[str, Any]) -> Any:
    """Rows per table plus what a write could change in place (a club's name, a member's role)."""
    from referee.models import Club, Deal, Member

    return (row_counts(), list(Club.objects.values_list("name", "public_leaderboard").order_by("pk")),
            list(Member.objects.values_list("name", "role", "active").order_by("pk")),
            list(Deal.objects.values_list("seq", "status", "state").order_by("pk")))


def _body_operations(world: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Every operation of /api/schema/ that reads a request body, with real ids in its path,
    and who calls it (the admin for the admin-only ones)."""
    from rest_framework.test import APIClient

    schema = APIClient().get("/api/schema/?format=json").json()
    ids = {"{slug}": "vilnius", "{seq}": "1"}
    found = []
    for path, methods in schema["paths"].items():
        for method, operation in methods.items():
            if "requestBody" not in operation:
                continue
            owner = ("member" if "/members/{id}/" in path else "deal" if path.startswith("/api/deals/")
                     else "evening" if path.startswith("/api/evenings/") else "round" if path.startswith("/api/rounds/")
                     else "session")
            address = path.replace("{id}", str(world[owner].pk))
            for key, value in ids.items():
                address = address.replace(key, value)
            who = "admin" if path.startswith("/api/clubs/{slug}") else "scorer"
            found.append((method, address, who))
    return found


def test_every_operation_that_reads_a_body_refuses_deep_nesting(world: dict[str, Any], client_for: Any) -> None:
    operations = _body_operations(world)
    assert {("post", "/api/auth/token/", "scorer"), ("post", f"/api/deals/{world['deal'].pk}/entries/", "scorer"),
            ("put", f"/api/deals/{world['deal'].pk}/entries/1/", "scorer")} <= set(operations)
    clients = {who: client_for(world["users"][who]) for who in ("admin", "scorer")}
    before = _state(world)
    for method, address, who in operations:
        client = clients[who] if address != "/api/auth/token/" else client_for()
        for body, code in ((DEEP, "invalid"), (NESTED, "invalid")):
            response = getattr(client, method)(address, data=body, content_type="application/json")
            assert response.status_code == 400, (method, address, response.content[:200])
            assert response["Content-Type"] == "application/json"
            assert response.json() == {
                "error": "The request body cannot be taken: It nests deeper than 32 levels.", "code": code,
            }, (method, address)
    assert _state(world) == before


@pytest.mark.parametrize("body", [
    {"type": "trick", "cards": ["2", "3"], "idempotency_key": "k\x00"},
    {"type": "trick", "cards": ["4\x00", "5"]},
    {"type": "trick\x00", "cards": ["4", "5"]},
    {"type": "trick", "cards": ["4", "5"], "note\x00": 1},
])
def test_nul_in_an_entry_is_refused(world: dict[str, Any], client_for: Any, body: dict[str, Any]) -> None:
    before = _state(world)
    response = client_for(world["users"]["scorer"]).post(
        f"/api/deals/{world['deal'].pk}/entries/", body, format="json")
    assert (response.status_code, response.json()) == (400, {
        "error": "The request body cannot be taken: Text may not contain the NUL character (\\u0000).",
        "code": "invalid"})
    assert _state(world) == before


@pytest.mark.parametrize(("body", "answer"), [
    ('{"type": "trick", "cards": [1e999, "5"]}', "The request body cannot be taken: Numbers must be finite."),
    ('{"type": "trick", "cards": [NaN, "5"]}', "The request body cannot be taken: NaN is not a number JSON allows."),
    ('{"type": "trick", "cards": [-Infinity, "5"]}',
     "The request body cannot be taken: -Infinity is not a number JSON allows."),
])
def test_numbers_json_cannot_store_are_refused(world: dict[str, Any], client_for: Any, body: str,
                                               answer: str) -> None:
    before = _state(world)
    response = client_for(world["users"]["scorer"]).post(
        f"/api/deals/{world['deal'].pk}/entries/", data=body, content_type="application/json")
    assert (response.status_code, response.json()) == (400, {"error": answer, "code": "invalid"})
    assert _state(world) == before


def test_nul_in_text_fields_is_refused(world: dict[str, Any], client_for: Any) -> None:
    admin = client_for(world["users"]["admin"])
    before = _state(world)
    for method, address, body in [
        ("post", "/api/clubs/", {"slug": "trakai", "name": "Trakai\x00"}),
        ("patch", "/api/clubs/vilnius/", {"name": "V\x00"}),
        ("post", "/api/clubs/vilnius/members/", {"name": "Ona\x00"}),
        ("post", "/api/sessions/", {"club": "vilnius", "game": "rukas", "players": [world["member"].pk, 1],
                                    "options": {"notation": "lt\x00"}}),
    ]:
        response = getattr(admin, method)(address, body, format="json")
        assert response.status_code == 400, (address, response.json())
        assert response.json()["code"] == "invalid", address
        assert "NUL character" in response.json()["error"] or "Null characters" in response.json()["error"]
    # A form-encoded body too (the API reads forms as well as JSON).
    response = admin.post("/api/clubs/vilnius/members/", {"name": "Ona\x00"})
    assert (response.status_code, response.json()) == (
        400, {"error": "Text may not contain the NUL character (\\u0000).", "code": "invalid"})
    assert _state(world) == before


@pytest.mark.parametrize("query", [
    "/api/sessions/?club=vil%00nius",
    "/api/clubs/vilnius/leaderboard/?game=%00",
    "/api/clubs/vilnius/leaderboard/?period=custom&start=2024-01-01%00&end=2024-02-01",
    "/api/clubs/vilnius/head-to-head/?a=1%00&b=2",
    "/api/deals/1/entries/?all=%00",
    "/api/clubs/vilnius/?x%00=1",
])
def test_nul_in_a_query_parameter_is_refused(world: dict[str, Any], client_for: Any, query: str) -> None:
    response = client_for(world["users"]["scorer"]).get(query)
    assert (response.status_code, response.json()) == (
        400, {"error": "Text may not contain the NUL character (\\u0000).", "code": "invalid"})


@pytest.mark.parametrize(("start", "end"), [
    ("9999-12-01", "9999-12-31"),
    ("2024-01-01", "9999-12-31"),
    ("10000-01-01", "10000-01-31"),
    ("0001-01-01", "2024-01-01"),
    ("2024-02-30", "2024-03-01"),
    ("2024-01-01T00:00", "2024-02-01"),
    ("-2024-01-01", "2024-02-01"),
])
def test_leaderboard_dates_out_of_range_or_malformed_are_refused(
    world: dict[str, Any], client_for: Any, start: str, end: str
) -> None:
    response = client_for(world["users"]["scorer"]).get(
        "/api/clubs/vilnius/leaderboard/", {"period": "custom", "start": start, "end": end})
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid"
    assert body["error"] in (
        "start: Give a date from 1900-01-01 to 9998-12-31 (YYYY-MM-DD).",
        "end: Give a date from 1900-01-01 to 9998-12-31 (YYYY-MM-DD).",
        "start: Date has wrong format. Use one of these formats instead: YYYY-MM-DD.",
        "end: Date has wrong format. Use one of these formats instead: YYYY-MM-DD.",
    ), body


def test_a_leaderboard_period_at_the_edges_of_the_range_is_answered(world: dict[str, Any], client_for: Any) -> None:
    response = client_for(world["users"]["scorer"]).get(
        "/api/clubs/vilnius/leaderboard/", {"period": "custom", "start": "1900-01-01", "end": "9998-12-31"})
    assert response.status_code == 200


@pytest.mark.parametrize("value", ["²", "1e3", " ", "0x1", "x" * 5000])
def test_head_to_head_members_that_are_no_whole_number(world: dict[str, Any], client_for: Any, value: str) -> None:
    response = client_for(world["users"]["scorer"]).get(
        "/api/clubs/vilnius/head-to-head/", {"a": value, "b": world["member"].pk})
    assert (response.status_code, response.json()) == (400, {
        "error": "a: Give a member id (a whole number).", "code": "invalid",
        "fields": {"a": ["Give a member id (a whole number)."]}})


def test_head_to_head_members_beyond_any_id_are_not_found(world: dict[str, Any], client_for: Any) -> None:
    response = client_for(world["users"]["scorer"]).get(
        "/api/clubs/vilnius/head-to-head/", {"a": "9" * 30, "b": world["member"].pk})
    assert (response.status_code, response.json()) == (
        404, {"error": f"No member {'9' * 30} in this club.", "code": "not_found"})


@pytest.mark.parametrize("value", ["²", -1, 1.5, "abc", True, "9" * 5000])
def test_dealer_and_expected_seq_that_are_no_whole_number(
    world: dict[str, Any], client_for: Any, value: Any
) -> None:
    client = client_for(world["users"]["scorer"])
    before = _state(world)
    deals = client.post(f"/api/sessions/{world['session'].pk}/deals/", {"dealer": value}, format="json")
    undo = client.post(f"/api/deals/{world['deal'].pk}/undo/", {"expected_seq": value}, format="json")
    for response in (deals, undo):
        assert response.status_code == 400, response.json()
        assert response.json()["code"] == "invalid"
    assert _state(world) == before


def test_a_body_over_the_size_limit_is_a_json_413(world: dict[str, Any], client_for: Any) -> None:
    client = client_for(world["users"]["scorer"])
    before = _state(world)
    big = json.dumps({"type": "trick", "cards": ["2", "3"], "pad": "x" * 3_000_000})
    for address in (f"/api/deals/{world['deal'].pk}/entries/", "/api/auth/token/", "/api/clubs/"):
        response = client.post(address, data=big, content_type="application/json")
        assert (response.status_code, response["Content-Type"]) == (413, "application/json"), address
        assert response.json() == {"error": "The request body is larger than this service takes.",
                                   "code": "too_large"}
    assert _state(world) == before


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=100)
def test_a_body_without_a_length_is_cut_at_the_limit_too() -> None:
    """A chunked body has no Content-Length for the middleware to read: the parser counts."""
    import io

    from rest_framework.exceptions import APIException

    from web.api.parsers import SafeJSONParser

    with pytest.raises(APIException) as refused:
        SafeJSONParser().parse(io.BytesIO(b"[" + b"1," * 100 + b"1]"), "application/json", {})
    assert (refused.value.status_code, refused.value.default_code) == (413, "too_large")
    assert SafeJSONParser().parse(io.BytesIO(b'{"type": "trick"}'), "application/json", {}) == {"type": "trick"}


def test_the_codes_of_the_framework_errors(world: dict[str, Any], client_for: Any) -> None:
    scorer = client_for(world["users"]["scorer"])
    deal = world["deal"].pk
    answers = {
        "method_not_allowed": scorer.get(f"/api/deals/{deal}/undo/"),
        "unsupported_media_type": scorer.post(f"/api/deals/{deal}/entries/", data="x", content_type="text/plain"),
        "not_authenticated": client_for().get("/api/clubs/"),
        "not_found": scorer.get("/api/no-such-thing/"),
        "malformed_json": scorer.post(f"/api/deals/{deal}/entries/", data="{", content_type="application/json"),
    }
    statuses = {"method_not_allowed": 405, "unsupported_media_type": 415, "not_authenticated": 401,
                "not_found": 404, "malformed_json": 400}
    for code, response in answers.items():
        assert (response.status_code, response["Content-Type"]) == (statuses[code], "application/json"), code
        body = response.json()
        assert body["code"] == code and isinstance(body["error"], str) and body["error"], body


def test_the_refusals_of_the_service_carry_a_code(world: dict[str, Any], client_for: Any) -> None:
    """The service chooses these codes (illegal_entry, stale_seq, ...): present and text."""
    scorer = client_for(world["users"]["scorer"])
    address = f"/api/deals/{world['deal'].pk}/entries/"
    for body, status in (({"type": "trick", "cards": ["2", "3"]}, 400),
                         ({"type": "trick", "cards": ["4", "5"], "expected_seq": 0}, 409)):
        response = scorer.post(address, body, format="json")
        assert response.status_code == status
        assert isinstance(response.json()["code"], str) and response.json()["code"]


def test_the_schema_lists_the_codes(client_for: Any) -> None:
    from web.api.errors import CODES

    schema = client_for().get("/api/schema/?format=json").json()
    error = schema["components"]["schemas"]["Error"]
    assert set(error["required"]) == {"error", "code"}
    assert all(f"`{code}`" in error["properties"]["code"]["description"] for code in CODES)
