"""referee.selectors: the one statement written out (the players' names, read for every entry)
names the models' tables and columns, and reads what the ORM would."""

from __future__ import annotations

from typing import Any

import pytest

from referee import selectors, services
from referee.models import Member, Seat


def test_the_seat_names_statement_names_the_models_tables_and_columns() -> None:
    seat, member = Seat._meta, Member._meta
    expected = (
        f"SELECT m.{member.get_field('name').column} FROM {seat.db_table} s"
        f" INNER JOIN {member.db_table} m ON m.{member.pk.column} = s.{seat.get_field('member').column}"
        f" WHERE s.{seat.get_field('session').column} = %s ORDER BY s.{seat.get_field('number').column}"
    )
    assert expected == selectors.SEAT_NAMES_SQL


@pytest.mark.django_db
def test_the_seat_names_are_read_in_seat_order_as_the_orm_reads_them(club_setup: dict[str, Any]) -> None:
    members = [club_setup["members"][key] for key in ("Petras", "member", "admin", "Asta")]
    session = services.session_start(club=club_setup["club"], game="rukas", players=members,
                                     user=club_setup["users"]["scorer"], options={})
    orm = list(Seat.objects.filter(session=session).order_by("number").values_list("member__name", flat=True))
    assert selectors.seat_names(session.pk) == orm == ["Petras", "Rūta", "Ona", "Asta"]
