"""Two tables finishing deals at the same moment, with players in common (PostgreSQL)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from referee import services
from scoring.models import MemberTotal, Rating, RatingStream
from tests.scoring.helpers import start, velnias_end

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_simultaneous_finishes_lose_nothing_and_never_deadlock(club_setup, require_postgres):
    user = club_setup["users"]["scorer"]
    # The same three players, seated in opposite orders at the two tables.
    first = start(club_setup, "velnias", ["admin", "scorer", "member"])
    second = start(club_setup, "velnias", ["member", "scorer", "admin"])
    deals = [services.deal_start(session=s, user=user) for s in (first, second)]
    barrier = threading.Barrier(2)
    errors: list[BaseException] = []

    def finish(deal: Any) -> None:
        try:
            barrier.wait(timeout=10)
            services.entry_add(deal_id=deal.pk, payload=velnias_end("empty_hand", 0, [0, 4, 2]), user=user)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    for _round in range(3):
        threads = [threading.Thread(target=finish, args=(deal,)) for deal in deals]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=30)
        assert errors == []
        deals = [services.deal_start(session=s, user=user) for s in (first, second)]
    totals = {t.member.name: (t.deals, t.points) for t in MemberTotal.objects.select_related("member")}
    # Each round: Ona +6 at the first table, -2 at the second; Rūta -2 and +6; Jonas -4 twice.
    assert totals == {"Ona": (6, 12), "Jonas": (6, -24), "Rūta": (6, 12)}
    assert {r.deals for r in Rating.objects.filter(game="velnias")} == {6}
    assert RatingStream.objects.get(game="velnias").last_seq == 6
