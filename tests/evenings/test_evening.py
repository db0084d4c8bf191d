"""A club night through its services: arrivals, the draw, the director's swap, starting rounds
(one ordinary session per table), leaving, and the evening's standings checked by hand."""

from __future__ import annotations

from itertools import combinations
from typing import Any

import pytest

from evenings import services
from evenings.draw import pair
from evenings.models import Round
from referee.errors import Refusal
from referee.models import Member, Session, SessionStatus
from scoring.evening_standings import evening_standings, place_score
from tests.scoring.helpers import close, play, velnias_end

pytestmark = pytest.mark.django_db

NAMES = ["Ona", "Jonas", "Rūta", "Petras", "Asta", "Tomas", "Eglė", "Marius"]


@pytest.fixture
def night(club_setup: dict[str, Any]) -> dict[str, Any]:
    by_name = {member.name: member for member in club_setup["members"].values()}
    evening = services.evening_open(
        club=club_setup["club"],
        user=club_setup["users"]["scorer"],
        game="velnias",
        name="Penktadienis",
        rounds=3,
        table_size=4,
        members=[by_name[n] for n in NAMES],
    )
    return {**club_setup, "members": by_name, "evening": evening, "scorer": club_setup["users"]["scorer"]}


def seats_of(round_: Round) -> list[list[int]]:
    return [table.seats for table in round_.tables.order_by("number")]


def test_a_round_seats_everyone_present_at_tables_of_the_preferred_size(night: dict[str, Any]) -> None:
    drawn = services.round_draw(evening=night["evening"], user=night["scorer"], seed=42)
    seated = sorted(m for table in seats_of(drawn) for m in table)
    assert seated == sorted(m.pk for m in Member.objects.filter(name__in=NAMES, club=night["club"]))
    assert [len(t) for t in seats_of(drawn)] == [4, 4] and drawn.byes == []
    # The same facts and seed replay to the same seating.
    again = services.round_draw(evening=night["evening"], user=night["scorer"], seed=42)
    assert again.pk == drawn.pk and seats_of(again) == seats_of(drawn)


def test_starting_a_round_opens_one_session_per_table_in_the_drawn_seat_order(night: dict[str, Any]) -> None:
    drawn = services.round_draw(evening=night["evening"], user=night["scorer"], seed=1)
    services.round_start(round=drawn, user=night["scorer"])
    for table in drawn.tables.order_by("number"):
        session = Session.objects.get(pk=table.session_id)
        assert [s.member_id for s in session.seats.order_by("number")] == table.seats
        assert session.game == "velnias" and session.status == SessionStatus.OPEN
    with pytest.raises(Refusal, match="Round 1 has started; only rounds not yet played change."):
        services.round_swap(
            round=drawn, first=night["members"]["Ona"], second=night["members"]["Asta"], user=night["scorer"]
        )


def test_the_next_round_waits_for_the_tables_of_the_last_and_parts_who_met(night: dict[str, Any]) -> None:
    first = services.round_draw(evening=night["evening"], user=night["scorer"], seed=1)
    services.round_start(round=first, user=night["scorer"])
    second = services.round_draw(evening=night["evening"], user=night["scorer"], seed=2)
    with pytest.raises(Refusal, match=r"Round 1 is still playing at table 1, 2; close its sessions first."):
        services.round_start(round=second, user=night["scorer"])
    for table in first.tables.all():
        close(night, table.session)
    services.round_start(round=second, user=night["scorer"])
    met_before = {pair(a, b) for t in seats_of(first) for a, b in combinations(t, 2)}
    again = [pair(a, b) for t in seats_of(second) for a, b in combinations(t, 2) if pair(a, b) in met_before]
    # Two tables of 4 from two of 4: each new table takes two from each old one (2 pairs each).
    assert len(again) == 4
    assert second.costs["opponents"] == 40.0


def test_an_arrival_and_a_departure_redraw_only_the_round_not_yet_started(
    night: dict[str, Any], club_setup: dict[str, Any]
) -> None:
    first = services.round_draw(evening=night["evening"], user=night["scorer"], seed=1)
    services.round_start(round=first, user=night["scorer"])
    played = seats_of(first)
    second = services.round_draw(evening=night["evening"], user=night["scorer"], seed=2)
    late = Member.objects.create(club=night["club"], name="Vėlius")
    services.player_arrive(evening=night["evening"], member=late, user=night["scorer"])
    services.player_leave(evening=night["evening"], member=night["members"]["Ona"], user=night["scorer"])
    second.refresh_from_db()
    now = sorted(m for table in seats_of(second) for m in table) + second.byes
    assert late.pk in now and night["members"]["Ona"].pk not in now
    first.refresh_from_db()
    assert seats_of(first) == played  # the round that started is untouched


def test_a_swap_is_kept_and_its_cost_measured_against_the_draw(night: dict[str, Any]) -> None:
    first = services.round_draw(evening=night["evening"], user=night["scorer"], seed=3)
    a, b = seats_of(first)[0][0], seats_of(first)[1][0]
    ona, asta = Member.objects.get(pk=a), Member.objects.get(pk=b)
    swapped = services.round_swap(round=first, first=ona, second=asta, user=night["scorer"])
    assert seats_of(swapped)[0][0] == b and seats_of(swapped)[1][0] == a
    assert swapped.fixed == {str(b): [0, 0], str(a): [1, 0]}
    assert swapped.drawn_costs == first.costs
    redrawn = services.round_draw(evening=night["evening"], user=night["scorer"], seed=99)
    assert seats_of(redrawn)[0][0] == b and seats_of(redrawn)[1][0] == a  # fixed seats survive a redraw


def test_a_pair_kept_apart_never_sits_together(night: dict[str, Any]) -> None:
    ona, jonas = night["members"]["Ona"], night["members"]["Jonas"]
    services.keep_apart(club=night["club"], first=jonas, second=ona, user=night["scorer"])
    for seed in range(10):
        drawn = services.round_draw(evening=night["evening"], user=night["scorer"], seed=seed)
        assert not any({ona.pk, jonas.pk} <= set(table) for table in seats_of(drawn))


def test_too_few_players_is_said_plainly(club_setup: dict[str, Any]) -> None:
    evening = services.evening_open(
        club=club_setup["club"],
        user=club_setup["users"]["scorer"],
        game="velnias",
        members=[club_setup["members"]["admin"], club_setup["members"]["scorer"]],
    )
    with pytest.raises(Refusal, match="2 players present; a table needs at least 3."):
        services.round_draw(evening=evening, user=club_setup["users"]["scorer"])
    assert not Round.objects.filter(evening=evening).exists()


def test_a_member_cannot_direct_a_club_night(club_setup: dict[str, Any]) -> None:
    with pytest.raises(Refusal):
        services.evening_open(club=club_setup["club"], user=club_setup["users"]["member"], game="velnias")


def test_the_evening_standings_by_hand(night: dict[str, Any]) -> None:
    """Round 1 at two tables of 4, one deal each; the standings are computed here by hand."""
    drawn = services.round_draw(evening=night["evening"], user=night["scorer"], seed=5)
    services.round_start(round=drawn, user=night["scorer"])
    one, two = [Session.objects.get(pk=t.session_id) for t in drawn.tables.order_by("number")]
    # Table 1: seat 1 empties their hand; counts 0, 2, 4, 6 -> points +12, -2, -4, -6: places 1..4.
    play(night, one, [velnias_end("empty_hand", 0, [0, 2, 4, 6])])
    # Table 2: two deals. Deal 1 like table 1's; deal 2 seat 4 goes out: counts 3, 3, 1, 0.
    play(night, two, [velnias_end("empty_hand", 0, [0, 2, 4, 6])])
    play(night, two, [velnias_end("empty_hand", 3, [3, 3, 1, 0])])
    standings = {row.member_id: row for row in evening_standings(night["evening"])}
    t1, t2 = seats_of(drawn)
    thirds = [1.0, 2 / 3, 1 / 3, 0.0]
    for seat, member in enumerate(t1):
        assert standings[member].score == pytest.approx(thirds[seat])
    # Table 2, deal 2: +7 for seat 4; seats 1, 2 lose 3 (shared 3rd), seat 3 loses 1 (2nd).
    second_deal = [place_score(3, 4), place_score(3, 4), place_score(2, 4), place_score(1, 4)]
    for seat, member in enumerate(t2):
        assert standings[member].score == pytest.approx((thirds[seat] + second_deal[seat]) / 2)
    assert standings[t1[0]].place == 1 and standings[t1[0]].rounds_won == 1
    # Seat 1 of table 2: (1 + 1/3) / 2 = 2/3, level with seat 2 of table 1 (2/3); the first
    # tie-break, rounds won, puts the winner of table 2 ahead (seat 2 of table 1 won nothing).
    assert standings[t2[0]].score == pytest.approx(2 / 3) == standings[t1[1]].score
    assert standings[t2[0]].rounds_won == 1 and standings[t1[1]].rounds_won == 0
    assert (standings[t2[0]].place, standings[t1[1]].place) == (2, 3)
    assert standings[t2[0]].deals == 2 and standings[t2[0]].deals_won == 1
    assert sum(row.points for row in standings.values()) == 0  # the game's points stay zero-sum
