"""The one error format holds where no DRF view answers: unknown /api/ addresses, crashes,
and errors of endpoints that can also answer in CSV (found by the schemathesis run)."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client
from django.urls import path

from config.urls import urlpatterns as project_urls

pytestmark = pytest.mark.django_db


@pytest.fixture
def scorer_api(api: Any, club_setup: dict[str, Any]) -> Any:
    client = api(club_setup["users"]["scorer"])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def test_an_unknown_api_address_is_a_json_404(scorer_api: Any) -> None:
    response = scorer_api.get("/api/clubs/+J%C3%99/")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"code": "not_found", "error": "Not found."}


def test_an_unknown_page_is_still_an_html_404() -> None:
    response = Client().get("/no-such-page/")
    assert response.status_code == 404
    assert response["Content-Type"].startswith("text/html")


def _crash(request: Any) -> Any:
    raise RuntimeError("boom")


urlpatterns = [path("api/crash/", _crash), path("crash/", _crash), *project_urls]
handler404 = "web.api.errors.not_found"
handler500 = "web.api.errors.server_error"


@pytest.mark.urls(__name__)
def test_a_crash_under_api_is_a_json_500_and_a_page_crash_stays_html() -> None:
    client = Client(raise_request_exception=False, HTTP_ACCEPT_LANGUAGE="en")
    response = client.get("/api/crash/")
    assert response.status_code == 500
    assert response.json() == {
        "code": "server_error", "error": "Something went wrong on our side; nothing was stored. Try again."
    }
    page = client.get("/crash/")
    assert page.status_code == 500
    assert page["Content-Type"].startswith("text/html")


@pytest.mark.parametrize("address", [
    "/api/clubs/nowhere/leaderboard/?format=csv",
    "/api/sessions/999999/standings/?format=csv",
    "/api/sessions/999999/ledger/?format=csv",
    "/api/sessions/999999/settlement/?format=csv",
])
def test_errors_of_csv_endpoints_are_json_too(scorer_api: Any, address: str) -> None:
    response = scorer_api.get(address)
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"code": "not_found", "error": "Not found."}


def test_errors_are_json_when_the_client_accepts_only_csv(scorer_api: Any) -> None:
    response = scorer_api.get("/api/sessions/999999/standings/", HTTP_ACCEPT="text/csv")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == {"code": "not_found", "error": "Not found."}


HUGE = 30470340203659715936256  # beyond any id column (found by schemathesis: a 500 on SQLite and PostgreSQL)


NOT_FOUND = (404, "Not found.", "not_found")


@pytest.mark.parametrize(("method", "address", "body", "answer"), [
    ("post", f"/api/deals/{HUGE}/entries/", {"type": "trick", "cards": ["2"]}, NOT_FOUND),
    ("get", f"/api/deals/{HUGE}/", None, NOT_FOUND),
    ("get", f"/api/deals/{HUGE}/entries/", None, NOT_FOUND),
    ("post", f"/api/deals/{HUGE}/undo/", {}, NOT_FOUND),
    ("put", f"/api/deals/{HUGE}/entries/{HUGE}/", {"type": "trick", "cards": ["2"]}, NOT_FOUND),
    ("get", f"/api/sessions/{HUGE}/", None, NOT_FOUND),
    ("post", f"/api/sessions/{HUGE}/deals/", {}, NOT_FOUND),
    ("get", f"/api/sessions/{HUGE}/standings/", None, NOT_FOUND),
    ("get", f"/api/clubs/vilnius/members/{HUGE}/history/", None, (404, f"No member {HUGE} in this club.", "not_found")),
    ("patch", f"/api/clubs/vilnius/members/{HUGE}/", {"role": "member"},
     (403, "Only the club's admins can manage members and roles.", "forbidden")),
])
def test_ids_beyond_any_column_are_not_found(
    scorer_api: Any, method: str, address: str, body: Any, answer: tuple[int, str, str]
) -> None:
    response = getattr(scorer_api, method)(address, body, format="json")
    assert (response.status_code, response.json()) == (answer[0], {"code": answer[2], "error": answer[1]})
