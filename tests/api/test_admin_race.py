"""Two admins stepping down at the same moment, against a real PostgreSQL server: the API
writes through the membership service, which locks the club's admins' rows, so one of them
stays admin and the other is told why not."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connections
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from referee.models import Member, Role

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("body", [{"role": "member"}, {"active": False}])
def test_two_admins_stepping_down_at_once_leave_the_club_one_admin(
    require_postgres: None, club_setup: dict[str, Any], make_user: Any, body: dict[str, Any]
) -> None:
    club = club_setup["club"]
    ona = club_setup["members"]["admin"]
    second = make_user("second-admin")
    jurga = Member.objects.create(club=club, name="Jurga", user=second, role=Role.ADMIN)
    admins = [(club_setup["users"]["admin"], ona), (second, jurga)]
    barrier = threading.Barrier(len(admins))
    answers: list[Any] = [None] * len(admins)

    def step_down(i: int) -> None:
        user, member = admins[i]
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=user)[0].key}")
            client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
            barrier.wait(timeout=30)
            answers[i] = client.patch(f"/api/clubs/vilnius/members/{member.pk}/", body, format="json")
        finally:
            connections.close_all()

    for _round in range(5):  # a race lost by luck once is not enough to trust
        Member.objects.filter(pk__in=[ona.pk, jurga.pk]).update(role=Role.ADMIN, active=True)
        threads = [threading.Thread(target=step_down, args=(i,)) for i in range(len(admins))]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        statuses = sorted(answer.status_code for answer in answers)
        assert statuses == [200, 400], [a.content for a in answers]
        refused = next(a for a in answers if a.status_code == 400).json()
        assert refused["code"] == "last_admin"
        assert Member.objects.filter(club=club, role=Role.ADMIN, active=True).count() == 1
