"""Seasons: a league table recomputed by hand for best-N, the minimum of results (unranked or
padded with zeros), every tie-break step, what a member needs next, and a closed season frozen
with later corrections shown, not applied."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

import pytest
from django.utils import timezone, translation

from referee.errors import Refusal
from referee.models import Member, Session
from scoring import seasons
from scoring.models import Season, SeasonDivision
from tests.scoring.helpers import close, play, reopen, start, velnias_end

pytestmark = pytest.mark.django_db

DAY = date(2026, 11, 1)


def res(*scores: float) -> list[seasons.Result]:
    return [seasons.Result(f"s{i}", DAY + timedelta(days=i), score, 4) for i, score in enumerate(scores)]


def season(club: Any, **rules: Any) -> Season:
    return Season(club=club, name="Ruduo", start=DAY, end=DAY + timedelta(days=60), **rules)


def by_name(rows: list[seasons.Row], ids: dict[str, int]) -> dict[str, seasons.Row]:
    names = {v: k for k, v in ids.items()}
    return {names[r.member]: r for r in rows}


def test_best_two_minimum_two_and_every_tie_break(club_setup: dict[str, Any]) -> None:
    club = club_setup["club"]
    members = {name: Member.objects.create(club=club, name=name).pk for name in "ABCDEF"}
    s = season(club, best_of=2, min_results=2, tie_breaks=["best", "results", "latest"])
    results = {members["A"]: res(100, 50, 0),     # best two 100, 50: 75 (the 0 struck through)
               members["B"]: res(75, 75),          # 75, best 75, two results
               members["C"]: res(80),              # one result: below the minimum, not ranked
               members["D"]: res(90, 60, 60),      # 90, 60: 75, best 90
               members["E"]: res(75, 75),          # as B on every step: they share the place
               members["F"]: res(75, 75, 75)}      # 75, best 75, three results: ahead of B and E
    rows = seasons.season_table(s, results)
    table = by_name(rows, members)
    assert [(r.place, r.name) for r in rows if r.ranked] == [(1, "A"), (2, "D"), (3, "F"), (4, "B"), (4, "E")]
    assert table["A"].score == 75 and table["A"].counted == [True, True, False]
    assert table["D"].counted == [True, True, False]  # of two 60s the earlier counts
    assert (table["C"].ranked, table["C"].missing) == (False, 1) and rows[-1].name == "C"
    # What the next result must be to pass the one above: D passes A with more than 60 (90 and it).
    assert table["D"].needs == 60.1
    # F (75, 75, 75) passes D (75 with best 90) only by a better score: more than 75.
    assert table["F"].needs == 75.1
    assert table["A"].needs is None


def test_the_latest_result_breaks_what_the_rest_leave_tied(club_setup: dict[str, Any]) -> None:
    club = club_setup["club"]
    members = {name: Member.objects.create(club=club, name=name).pk for name in "XY"}
    s = season(club, tie_breaks=["latest"])
    rows = seasons.season_table(s, {members["X"]: res(60, 40), members["Y"]: res(40, 60)})
    assert [(r.place, r.name) for r in rows] == [(1, "Y"), (2, "X")]
    rows = seasons.season_table(season(club, tie_breaks=[]), {members["X"]: res(60, 40), members["Y"]: res(40, 60)})
    assert [r.place for r in rows] == [1, 1]  # no chain: a shared place


def test_below_the_minimum_padded_with_zeros(club_setup: dict[str, Any]) -> None:
    club = club_setup["club"]
    members = {name: Member.objects.create(club=club, name=name).pk for name in "GH"}
    s = season(club, best_of=3, min_results=2, below_minimum=Season.BelowMinimum.ZEROS)
    table = by_name(seasons.season_table(s, {members["G"]: res(100), members["H"]: res(40, 40, 40)}), members)
    assert table["G"].ranked and table["G"].score == 50  # 100 and a zero
    assert table["H"].score == 40 and table["G"].place == 1


def test_results_from_real_sessions_and_a_frozen_close(club_setup: dict[str, Any]) -> None:
    club, users = club_setup["club"], club_setup["users"]
    first = start(club_setup, "velnias", ["admin", "scorer", "member"])
    play(club_setup, first, [velnias_end("empty_hand", 0, [0, 2, 3])])   # Ona 1st, Jonas 2nd, Rūta 3rd
    play(club_setup, first, [velnias_end("empty_hand", 1, [2, 0, 3])])   # Jonas 1st, Ona 2nd, Rūta 3rd
    close(club_setup, first)
    today = timezone.localdate()
    with translation.override("en"):
        with pytest.raises(Refusal, match="Only the club's admins"):
            seasons.season_create(club=club, user=users["scorer"], name="Žiema", start=today, end=today)
        s = seasons.season_create(club=club, user=users["admin"], name="Žiema", start=today - timedelta(days=1),
                                  end=today + timedelta(days=30), game="velnias")
    rows = seasons.season_table(s)
    m = club_setup["members"]
    table = {r.member: r for r in rows}
    # Ona: places 1 and 2 of 3 -> (1 + 0.5) / 2 = 75; Jonas the same; Rūta 0.
    assert table[m["admin"].pk].results[0].score == 75.0 and table[m["scorer"].pk].results[0].score == 75.0
    assert table[m["member"].pk].score == 0.0
    closed = seasons.season_close(season=s, user=users["admin"])
    assert [r["name"] for r in closed.frozen][:2] == [r.name for r in rows][:2]
    # A correction after the close: reopened, another deal, closed again. Shown, not applied.
    reopen(club_setup, Session.objects.get(pk=first.pk))
    play(club_setup, Session.objects.get(pk=first.pk), [velnias_end("empty_hand", 2, [3, 2, 0])])
    close(club_setup, Session.objects.get(pk=first.pk))
    now = seasons.season_table(closed)
    assert seasons.changes_since_close(closed, now) == ["Jonas", "Ona", "Rūta"]
    closed.refresh_from_db()
    assert closed.frozen == seasons.table_json(rows)


def test_the_season_pages(club_setup: dict[str, Any], client: Any) -> None:
    first = start(club_setup, "velnias", ["admin", "scorer", "member"])
    play(club_setup, first, [velnias_end("empty_hand", 0, [0, 2, 3])])
    close(club_setup, first)
    today = timezone.localdate()
    client.force_login(club_setup["users"]["admin"])
    response = client.post("/clubs/vilnius/seasons/", {
        "name": "Žiema", "start": (today - timedelta(days=3)).isoformat(),
        "end": (today + timedelta(days=3)).isoformat(),
        "game": "", "unit": "session", "best_of": "2", "min_results": "1", "below_minimum": "unranked",
        "tie_breaks": ["best", "latest"]}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302
    s = Season.objects.get()
    assert (s.best_of, s.min_results, s.tie_breaks) == (2, 1, ["best", "latest"])
    page = client.get(f"/seasons/{s.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "League table" in page and "Ties are broken by the best single result, the latest result." in page
    assert client.get(f"/seasons/{s.pk}/?wall=1").status_code == 200
    client.force_login(club_setup["users"]["member"])
    assert client.post(f"/seasons/{s.pk}/close/", HTTP_ACCEPT_LANGUAGE="en").status_code == 403
    client.force_login(club_setup["users"]["admin"])
    assert client.post(f"/seasons/{s.pk}/close/").status_code == 302
    s.refresh_from_db()
    assert s.closed_at is not None and len(s.frozen) == 3


def test_promotion_and_relegation_at_the_boundaries_and_an_audited_override(club_setup: dict[str, Any]) -> None:
    """Two divisions of four, one goes up and one down: at the boundary the last of division 1
    and the first of division 2 swap; the next season starts from there; an admin's override
    says who and why."""
    club, users = club_setup["club"], club_setup["users"]
    today = timezone.localdate()
    with translation.override("en"):
        s = seasons.season_create(club=club, user=users["admin"], name="Ruduo", start=today - timedelta(days=5),
                                  end=today, divisions=2, movers=1)
        members = {name: Member.objects.create(club=club, name=name) for name in "ABCDEFGH"}
        for name in "ABCD":
            seasons.division_place(season=s, member=members[name], division=1, user=users["admin"])
        results = {members[n].pk: res(score) for n, score in zip("ABCDEFGH", (90, 70, 50, 10, 95, 60, 40, 20),
                                                                  strict=True)}
        rows = seasons.season_table(s, results)
        moves = {r.name: (r.division, r.place, r.move) for r in rows}
        assert moves == {"A": (1, 1, ""), "B": (1, 2, ""), "C": (1, 3, ""), "D": (1, 4, "down"),
                         "E": (2, 1, "up"), "F": (2, 2, ""), "G": (2, 3, ""), "H": (2, 4, "")}
        # Closing writes where each goes next (the results here are synthetic: close from them).
        for row in rows:
            step = -1 if row.move == "up" else 1 if row.move == "down" else 0
            SeasonDivision.objects.update_or_create(season=s, member_id=row.member, defaults={
                "division": row.division, "next_division": row.division + step})
        s.closed_at = timezone.now()
        s.save()
        with pytest.raises(Refusal, match="Say why the standings are overridden."):
            seasons.division_override(season=s, member=members["D"], division=1, reason=" ",
                                      user=users["admin"])
        with pytest.raises(Refusal):
            seasons.division_override(season=s, member=members["D"], division=1, reason="moved away",
                                      user=users["scorer"])
        kept = seasons.division_override(season=s, member=members["D"], division=1,
                                         reason="E moved to Kaunas", user=users["admin"])
        assert (kept.next_division, kept.override_by, kept.override_reason) == (1, users["admin"], "E moved to Kaunas")
        winter = seasons.season_create(club=club, user=users["admin"], name="Žiema", start=today,
                                       end=today + timedelta(days=90), divisions=2, movers=1, divisions_from=s)
    placed = dict(SeasonDivision.objects.filter(season=winter).values_list("member__name", "division"))
    assert placed == {"A": 1, "B": 1, "C": 1, "D": 1, "E": 1, "F": 2, "G": 2, "H": 2}


def test_reading_only_the_results_that_matter_gives_the_same_table(club_setup: dict[str, Any]) -> None:
    """A season counting its best N reads each member's best N+1 and latest results only; its
    table is the one computed from every result."""
    import random

    rng = random.Random(3)
    for _ in range(6):
        session = start(club_setup, "velnias", ["admin", "scorer", "member", "Petras"])
        for _deal in range(2):
            caller = rng.randrange(4)
            play(club_setup, session, [velnias_end("empty_hand", caller, [0 if s == caller else rng.randint(1, 8)
                                                                         for s in range(4)])])
        close(club_setup, session)
    today = timezone.localdate()
    s = seasons.season_create(club=club_setup["club"], user=club_setup["users"]["admin"], name="Žiema",
                              start=today - timedelta(days=1), end=today, best_of=2, min_results=3)
    every = seasons.season_results(Season(club=club_setup["club"], name="all", start=s.start, end=s.end))
    assert sum(len(v) for v in every.values()) == 24
    few = seasons.season_results(s)
    assert sum(len(v) for v in few.values()) < 24 and few.counts == {m: 6 for m in every}

    def shown(rows: list[seasons.Row]) -> list[tuple[Any, ...]]:
        return [(r.member, r.place, round(r.score, 6), r.needs, r.count, r.ranked) for r in rows]

    assert shown(seasons.season_table(s)) == shown(seasons.season_table(s, every))
