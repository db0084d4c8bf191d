"""A wrong member on a seat, found after entries were recorded, is corrected in one step: the
entries stand, the seat's member changes, and results, aggregates, ratings, the chip ledger and
the settlement follow exactly as if the right member had sat there from the start."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import TestCase
from django.utils import translation

from referee.errors import Refusal
from referee.models import Entry, SeatChange
from referee.seat_corrections import seat_correct
from scoring.ledger.ledger import settlement
from scoring.models import ChipMovement, DealResult, MemberTotal
from tests.scoring.helpers import close, play, start, velnias_end

pytestmark = pytest.mark.django_db

ENDS = [velnias_end("empty_hand", 0, [0, 3, 5, 2]), velnias_end("last_card", 2, [3, 2, 6, 1])]


def figures(session: Any) -> dict[str, Any]:
    """What scoring holds about a session, by member name (ids differ between two sessions)."""
    results = sorted((r.member.name, r.points, r.placement, str(r.money))
                     for r in DealResult.objects.filter(session=session).select_related("member"))
    return {"results": results}


def totals() -> list[tuple[str, str, int, int]]:
    return sorted((t.member.name, t.game, t.deals, t.points)
                  for t in MemberTotal.objects.select_related("member").exclude(deals=0))


def test_a_corrected_seat_scores_as_if_the_right_member_had_sat_there(club_setup: dict[str, Any]) -> None:
    wrong = start(club_setup, "velnias", ["admin", "scorer", "member", "Petras"], stake="0.10")
    for entries in ENDS:
        play(club_setup, wrong, [entries])
    close(club_setup, wrong)
    entries_before = list(Entry.objects.filter(deal__session=wrong).values_list("pk", "payload", "active"))
    with TestCase.captureOnCommitCallbacks(execute=True):
        change = seat_correct(session=wrong, seat=2, member=club_setup["members"]["Marius"],
                              user=club_setup["users"]["scorer"])
    assert (change.seat, change.was.name, change.now.name, change.author) == (
        2, "Rūta", "Marius", club_setup["users"]["scorer"])
    assert list(Entry.objects.filter(deal__session=wrong).values_list("pk", "payload", "active")) == entries_before
    corrected, corrected_totals = figures(wrong), totals()
    assert "Rūta" not in [name for name, *_ in corrected_totals]
    # The same deals played with Marius from the start, in a club of its own making: the same figures.
    DealResult.objects.all().delete()
    MemberTotal.objects.all().delete()
    right = start(club_setup, "velnias", ["admin", "scorer", "Marius", "Petras"], stake="0.10")
    for entries in ENDS:
        play(club_setup, right, [entries])
    close(club_setup, right)
    assert figures(right) == corrected
    assert totals() == corrected_totals


def test_the_chip_ledger_and_settlement_follow_the_seat(club_setup: dict[str, Any]) -> None:
    session = start(club_setup, "michigan", ["admin", "scorer", "member"], stake="0.05")
    play(club_setup, session, [{"type": "out", "player": 0, "hand_counts": [0, 3, 5]}])
    close(club_setup, session)
    chips = list(ChipMovement.objects.filter(session=session).values_list("order", "source_seat", "target_seat",
                                                                            "chips", "reason"))
    before = settlement(session)
    seat_correct(session=session, seat=1, member=club_setup["members"]["Asta"], user=club_setup["users"]["scorer"])
    session.refresh_from_db()
    after = settlement(session)
    assert "Jonas" in str(before) and "Jonas" not in str(after)

    def nets(figures: dict[str, Any]) -> list[tuple[Any, ...]]:
        return [(n["seat"], n["exact"], n["rounded"], n["close"], n["chips"]) for n in figures["nets"]]

    assert nets(before) == nets(after)
    assert [n["name"] for n in after["nets"]] == [n["name"].replace("Jonas", "Asta") for n in before["nets"]]
    # The ledger is by seat: the same movements, rewritten once, none lost or doubled.
    assert list(ChipMovement.objects.filter(session=session).values_list(
        "order", "source_seat", "target_seat", "chips", "reason")) == chips


def test_refusals(club_setup: dict[str, Any]) -> None:
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    scorer = club_setup["users"]["scorer"]
    with translation.override("en"):
        with pytest.raises(Refusal, match="Rūta already sits on seat 3."):
            seat_correct(session=session, seat=2, member=club_setup["members"]["member"], user=scorer)
        with pytest.raises(Refusal, match="Ona already has another seat at this table."):
            seat_correct(session=session, seat=2, member=club_setup["members"]["admin"], user=scorer)
        with pytest.raises(Refusal, match="This session has no seat 5."):
            seat_correct(session=session, seat=4, member=club_setup["members"]["Asta"], user=scorer)
        with pytest.raises(Refusal, match="Darius is not a member of this club."):
            seat_correct(session=session, seat=0, member=club_setup["members"]["outsider"], user=scorer)
        with pytest.raises(Refusal):
            seat_correct(session=session, seat=0, member=club_setup["members"]["Asta"],
                         user=club_setup["users"]["member"])
    assert not SeatChange.objects.exists()
