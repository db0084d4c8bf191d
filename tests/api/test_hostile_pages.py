"""Hostile input on the pages: NUL characters in a page's query or form and a form
over the size limit never reach a 500 and change nothing. (Unreadable numbers and dates on
the pages: tests/pages/test_page_input.py; the preview's JSON: test_hostile_preview.py.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from referee import services
from referee.models import Deal, Entry
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


def test_nul_in_a_page_query_is_a_plain_400(scorer_page: Client) -> None:
    for address in ("/clubs/vilnius/leaderboard/?game=%00", "/clubs/vilnius/leaderboard/?period=custom&start=%00"):
        response = scorer_page.get(address)
        assert response.status_code == 400, address
        assert response.content.decode() == "Text may not contain the NUL character (\\u0000)."


def test_nul_in_a_page_form_stores_nothing(scorer_page: Client, deal: Deal) -> None:
    response = scorer_page.post(f"/deals/{deal.pk}/", {
        "action": "entry", "f:type:str": "trick", "f:cards:strs": ["2", "3"], "idempotency_key": "k\x00"})
    assert response.status_code == 400
    assert Entry.objects.filter(deal=deal).count() == 0


def test_a_page_form_over_the_size_limit_is_a_413(scorer_page: Client, deal: Deal, club_setup: dict) -> None:
    response = scorer_page.post(f"/deals/{deal.pk}/", {
        "action": "entry", "f:type:str": "trick", "f:cards:strs": ["2", "3"], "pad": "x" * 3_000_000})
    assert response.status_code == 413
    assert Entry.objects.filter(deal=deal).count() == 0
    # The page still works afterwards.
    services.entry_add(deal_id=deal.pk, user=club_setup["users"]["scorer"],
                       payload={"type": "trick", "cards": ["2", "3"]})
    assert scorer_page.get(f"/deals/{deal.pk}/").status_code == 200
