"""The day, month and all-time aggregates: one PostgreSQL statement for the three upserts, and
the three statements elsewhere, leave exactly the same rows (those a rebuild computes)."""

from __future__ import annotations

import pytest
from django.db import connection

from scoring import rebuild, results
from tests.conftest import is_postgres, need
from tests.scoring.helpers import aggregates, play, start, undo, velnias_end

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("one_statement", [True, False], ids=["one statement", "three statements"])
def test_both_paths_keep_the_aggregates_a_rebuild_computes(club_setup, monkeypatch, one_statement):
    if one_statement:
        need(is_postgres(), "the one-statement path is PostgreSQL's: set DATABASE_URL=postgres://... (as .ci/run does)")
    monkeypatch.setattr(results, "ONE_STATEMENT_VENDORS", frozenset({connection.vendor} if one_statement else ()))
    velnias = start(club_setup, "velnias", ["admin", "scorer", "member", "Petras"], stake="0.10")
    other = start(club_setup, "velnias", ["Petras", "Asta", "Tomas"], stake="0.25")
    for counts, caller in (([0, 4, 2, 1], 0), ([3, 0, 2, 2], 1), ([1, 1, 0, 5], 2)):
        play(club_setup, velnias, [velnias_end("empty_hand", caller, counts)])
    last = play(club_setup, other, [velnias_end("empty_hand", 1, [2, 0, 5])])
    undo(club_setup, last)
    kept = aggregates()
    assert kept[2]  # all-time rows were written
    rebuild._rebuild_aggregates(club_setup["club"])
    assert aggregates() == kept


@pytest.mark.parametrize("one_statement", [True, False], ids=["one statement", "the ORM"])
def test_recording_a_finished_deal_again_replaces_its_record(club_setup, monkeypatch, one_statement):
    """A replay records a deal that has a record already: the old one goes first, so the deal has
    one result per seat, two rating events per recording and aggregates counted once."""
    from referee import rules
    from scoring.models import DealResult, RatingEvent

    if one_statement:
        need(is_postgres(), "the one-statement path is PostgreSQL's: set DATABASE_URL=postgres://... (as .ci/run does)")
    monkeypatch.setattr(results, "ONE_STATEMENT_VENDORS", frozenset({connection.vendor} if one_statement else ()))
    session = start(club_setup, "velnias", ["admin", "scorer", "member", "Petras"], stake="0.10")
    deal = play(club_setup, session, [velnias_end("empty_hand", 0, [0, 4, 2, 1])])
    kept = aggregates()
    points = sorted(DealResult.objects.filter(deal=deal).values_list("seat", "points"))
    game = rules.GAMES["velnias"]
    results.record_deal(deal=deal, state=game.from_dict(deal.state))
    assert sorted(DealResult.objects.filter(deal=deal).values_list("seat", "points")) == points
    assert aggregates() == kept
    rebuild._rebuild_aggregates(club_setup["club"])
    assert aggregates() == kept
    # The first recording's events were settled when it committed; waiting now: the removal's
    # (reopened) and the second recording's, one per stream each.
    waiting = sorted(RatingEvent.objects.filter(deal_id=deal.pk).values_list("game", "reopened"))
    assert waiting == [("all", False), ("all", True), ("velnias", False), ("velnias", True)]
