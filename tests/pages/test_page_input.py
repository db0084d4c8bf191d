"""What a page is sent is read safely: digits that str.isdigit() accepts but int() refuses
("²"), numbers no id column holds and far-future dates never reach a 500."""

from __future__ import annotations

from typing import Any

import pytest

from referee import services
from referee.models import Deal, Entry

pytestmark = pytest.mark.django_db


def test_a_dealer_written_in_superscript_is_no_dealer_given(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    session = deal.session
    services.deal_discard(deal=deal, user=club_setup["users"]["scorer"])
    response = page(club_setup["users"]["scorer"]).post(f"/sessions/{session.pk}/deals/new/", {"dealer": "²"})
    started = Deal.objects.get(session=session)
    assert response.status_code == 302 and response["Location"] == f"/deals/{started.pk}/"
    assert started.dealer == 2  # the last seat deals the first deal, as with no dealer chosen


def test_an_unreadable_expected_seq_or_round_number_is_ignored(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    response = page(club_setup["users"]["scorer"]).post(f"/deals/{deal.pk}/", {
        "expected_seq": "²", "f:type:str": "end", "f:condition:str": "last_card", "f:player:int": "0",
        "f:hand_counts:ints": ["3", "2", "6", "1"], "f:rounds:round:²": "AS",
    })
    assert response.status_code == 302
    assert Entry.objects.filter(deal=deal).count() == 1


def test_a_head_to_head_with_an_unreadable_member_asks_for_another(page: Any, club_setup: dict) -> None:
    member = club_setup["members"]["admin"]
    client = page(club_setup["users"]["scorer"])
    for vs in ("²", "99999999999999999999"):
        response = client.get(f"/clubs/vilnius/members/{member.pk}/", {"vs": vs})
        assert response.status_code == 400
        assert "Choose another member of this club." in response.content.decode()


def test_a_period_ending_past_what_a_leaderboard_can_count_is_refused(page: Any, club_setup: dict) -> None:
    response = page(club_setup["users"]["scorer"]).get(
        "/clubs/vilnius/leaderboard/", {"period": "custom", "start": "2026-01-01", "end": "9999-12-31"})
    assert response.status_code == 400
    assert "A custom period needs both start and end dates (YYYY-MM-DD)." in response.content.decode()


def test_a_minimum_of_deals_out_of_bounds_shows_the_default(page: Any, club_setup: dict) -> None:
    client = page(club_setup["users"]["scorer"])
    for min_deals in ("²", "-1", "1" + "0" * 30):
        response = client.get("/clubs/vilnius/leaderboard/", {"min_deals": min_deals})
        assert response.status_code == 200
        assert response.context["min_deals"] == 10
