"""The recording page's preview endpoint reads its JSON body with safe_input.read_json (issue
11): JSON nested past the recursion limit, NUL characters and infinities are the usual 400."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from referee.models import Deal
from tests.api.conftest import FOUR

pytestmark = pytest.mark.django_db


@pytest.fixture
def deal(club_setup: dict[str, Any], start_session: Any, start_deal: Any) -> Deal:
    return start_deal(start_session("rukas", FOUR[:2]))


@pytest.fixture
def scorer_page(club_setup: dict[str, Any]) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(club_setup["users"]["scorer"])
    return client


@pytest.mark.parametrize("body", [
    "[" * 100_000 + "]" * 100_000,
    '{"type": "trick", "cards": ' + "[" * 40 + "]" * 40 + "}",
    '{"type": "trick", "cards": ["2\\u0000", "3"]}',
    '{"type": "trick", "cards": [1e999, "3"]}',
])
def test_the_preview_refuses_json_it_cannot_read(scorer_page: Client, deal: Deal, body: str) -> None:
    response = scorer_page.post(f"/deals/{deal.pk}/preview/", data=body, content_type="application/json")
    assert (response.status_code, response["Content-Type"]) == (400, "application/json")
    assert response.json()["error"] == "The entry must be a JSON object with a “type”."
    deal.refresh_from_db()
    assert deal.seq == 0
