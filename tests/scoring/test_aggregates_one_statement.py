"""The day, month and all-time aggregates: one PostgreSQL statement for the three upserts, and
the three statements elsewhere, leave exactly the same rows (those a rebuild computes)."""

from __future__ import annotations

import pytest
from django.db import connection

from scoring import rebuild, results
from tests.conftest import is_postgres
from tests.scoring.helpers import aggregates, play, start, undo, velnias_end

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("one_statement", [True, False], ids=["one statement", "three statements"])
def test_both_paths_keep_the_aggregates_a_rebuild_computes(club_setup, monkeypatch, one_statement):
    if one_statement and not is_postgres():
        pytest.skip("the one-statement path is PostgreSQL's")
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
