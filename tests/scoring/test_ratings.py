"""Ratings (openskill Plackett-Luce), after commit: incremental per deal, exact undo of the latest,
recompute otherwise."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import TestCase

from referee import services
from scoring import selectors
from scoring.models import OVERALL, Rating, RatingStream
from scoring.ratings import rating as ratings
from tests.scoring.helpers import play, start, undo, velnias_end

pytestmark = pytest.mark.django_db


def table(club: Any, game: str) -> dict[str, tuple[float, float, int]]:
    return {
        r.member.name: (r.mu, r.sigma, r.deals)
        for r in Rating.objects.filter(club=club, game=game).select_related("member")
    }


def test_a_deal_is_rated_from_its_placements_with_ties_shared(club_setup):
    """The seed's blocked example: A 1, B 1, C 3, D 2, E 3 -> +5, +5, -4, -2, -4: places 1, 1, 4, 3, 4."""
    names = ["admin", "scorer", "member", "Petras", "Asta"]
    session = start(club_setup, "velnias", names)
    play(club_setup, session, [velnias_end("blocked", None, [1, 1, 3, 2, 3])])
    model = ratings.MODEL
    expected = model.rate([[model.rating()] for _ in names], ranks=[1, 1, 4, 3, 4])
    got = table(club_setup["club"], "velnias")
    display = ["Ona", "Jonas", "Rūta", "Petras", "Asta"]
    for name, (team,) in zip(display, expected):
        assert got[name] == (pytest.approx(team.mu, abs=1e-12), pytest.approx(team.sigma, abs=1e-12), 1)
    # Tied players get the same rating; the overall stream rated the same deal the same way.
    assert got["Ona"] == got["Jonas"] and got["Rūta"] == got["Asta"]
    assert table(club_setup["club"], OVERALL) == got


def test_undo_of_the_latest_deal_restores_ratings_exactly(club_setup):
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    play(club_setup, session, [velnias_end("empty_hand", 0, [0, 4, 2])])
    before = {game: table(club_setup["club"], game) for game in ("velnias", OVERALL)}
    deal = play(club_setup, session, [velnias_end("empty_hand", 1, [3, 0, 2])])
    assert table(club_setup["club"], "velnias") != before["velnias"]
    undo(club_setup, deal)
    assert {game: table(club_setup["club"], game) for game in ("velnias", OVERALL)} == before
    assert RatingStream.objects.get(club=club_setup["club"], game="velnias").stale is False


def test_undo_of_an_older_deal_recomputes_after_commit(club_setup):
    """Undoing a deal under a later one is queued with the entry; the worker (here: once the undo
    commits) cannot take it back step by step, so it recomputes the stream from the results."""
    velnias = start(club_setup, "velnias", ["admin", "scorer", "member"])
    older = play(club_setup, velnias, [velnias_end("empty_hand", 0, [0, 4, 2])])
    other = start(club_setup, "velnias", ["Petras", "Asta", "Tomas", "member"])
    play(club_setup, other, [velnias_end("empty_hand", 3, [2, 2, 5, 0])])
    with TestCase.captureOnCommitCallbacks(execute=False) as callbacks:
        services.entry_undo(deal_id=older.pk, user=club_setup["users"]["scorer"])
    board = selectors.leaderboard(club_setup["club"], game="velnias", min_deals=0)
    assert (board["ratings_pending"], board["ratings_stale"]) == (True, False)
    assert selectors.leaderboard(club_setup["club"], game="cheat", min_deals=0)["ratings_pending"] is False
    # One rating step for the velnias stream and the overall one (the watchers' poll cache
    # renews its keys after the same commit: not a rating step).
    rating_steps = [c for c in callbacks if getattr(c, "func", c).__module__.startswith("scoring.")]
    assert len(rating_steps) == 1, callbacks
    rating_steps[0]()
    assert RatingStream.objects.get(club=club_setup["club"], game="velnias").stale is False
    board = selectors.leaderboard(club_setup["club"], game="velnias", min_deals=0)
    assert (board["ratings_pending"], board["ratings_stale"]) == (False, False)
    # Only the other table's deal is left: ratings as if it were the club's only deal.
    model = ratings.MODEL
    expected = model.rate([[model.rating()] for _ in range(4)], ranks=[2, 2, 4, 1])
    got = table(club_setup["club"], "velnias")
    assert set(got) == {"Petras", "Asta", "Tomas", "Rūta"}
    for name, (team,) in zip(["Petras", "Asta", "Tomas", "Rūta"], expected):
        assert got[name] == (pytest.approx(team.mu, abs=1e-12), pytest.approx(team.sigma, abs=1e-12), 1)


def test_recompute_gives_the_incremental_ratings(club_setup):
    session = start(club_setup, "velnias", ["admin", "scorer", "member", "Petras"])
    for counts, caller in (([0, 4, 2, 1], 0), ([3, 0, 2, 2], 1), ([1, 1, 0, 5], 2), ([2, 6, 3, 0], 3)):
        play(club_setup, session, [velnias_end("empty_hand", caller, counts)])
    cheat = start(club_setup, "cheat", ["admin", "Asta", "member"])
    play(club_setup, cheat, [{"type": "place", "player": i % 3} for i in range(50)] + [{"type": "stands"}])
    incremental = {game: table(club_setup["club"], game) for game in ("velnias", "cheat", OVERALL)}
    assert ratings.recompute(club_id=club_setup["club"].pk, game=OVERALL) == 5
    assert ratings.recompute(club_id=club_setup["club"].pk, game="velnias") == 4
    for game in ("velnias", "cheat", OVERALL):
        again = table(club_setup["club"], game)
        assert set(again) == set(incremental[game])
        for name, (mu, sigma, deals) in incremental[game].items():
            assert again[name] == (pytest.approx(mu, rel=1e-12), pytest.approx(sigma, rel=1e-12), deals)


def test_a_stale_stream_is_recomputed_by_its_next_rating_step(club_setup):
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    RatingStream.objects.create(club=club_setup["club"], game="velnias", stale=True)
    play(club_setup, session, [velnias_end("empty_hand", 0, [0, 4, 2])])
    assert RatingStream.objects.get(club=club_setup["club"], game="velnias").stale is False
    assert table(club_setup["club"], "velnias") == table(club_setup["club"], OVERALL)
    assert len(table(club_setup["club"], OVERALL)) == 3
