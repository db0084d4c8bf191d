"""Ten tablets' retries of one offline deal start, racing on a real PostgreSQL server: the
session's row lock lets one start the deal; the others find it by its client id."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from referee.models import Deal

from .conftest import FOUR
from .test_concurrency import race

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def scorer_token(require_postgres: None, club_setup: dict[str, Any]) -> str:
    return Token.objects.get_or_create(user=club_setup["users"]["scorer"])[0].key


def test_ten_threads_starting_one_client_id_make_one_deal(scorer_token: str, start_session: Any) -> None:
    session = start_session("velnias", FOUR)
    body = {"client_id": "client-7d2e", "idempotency_key": "start"}

    def post(client: APIClient, _i: int) -> tuple[int, int]:
        response = client.post(f"/api/sessions/{session.pk}/deals/", body, format="json")
        return response.status_code, response.json()["id"]

    answers = race(10, post, scorer_token)
    assert Counter(status for status, _ in answers) == {201: 1, 200: 9}
    deal = Deal.objects.get(session=session)
    assert {deal_id for _, deal_id in answers} == {deal.pk}
    assert (deal.client_id, deal.number) == ("client-7d2e", 1)


def test_ten_threads_with_ten_client_ids_start_one_deal(scorer_token: str, start_session: Any) -> None:
    session = start_session("velnias", FOUR)

    def post(client: APIClient, i: int) -> tuple[int, str]:
        response = client.post(f"/api/sessions/{session.pk}/deals/", {"client_id": f"client-{i}"}, format="json")
        return response.status_code, response.json().get("code", "")

    answers = race(10, post, scorer_token)
    assert Counter(answers) == {(201, ""): 1, (400, "running_deal"): 9}
    assert Deal.objects.filter(session=session).count() == 1
