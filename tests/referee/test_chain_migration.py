"""The migration that brought the audit chain sealed the history written before it, in the order
it was written, with its own historical models: the chain holds right after it."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from referee.chain_seal import verify_club
from referee.models import ChainRecord

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("referee", "0009_session_plan")]
AFTER = [("referee", "0010_audit_chain")]


def migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def test_history_from_before_the_chain_is_sealed_by_the_migration(django_user_model: Any) -> None:
    old = migrate(BEFORE)
    try:
        user = old.get_model("auth", "User").objects.create(username="jonas")
        club = old.get_model("referee", "Club").objects.create(slug="vilnius", name="Vilniaus klubas")
        Member = old.get_model("referee", "Member")
        ona, jonas, ruta = (Member.objects.create(club=club, name=name) for name in ("Ona", "Jonas", "Rūta"))
        session = old.get_model("referee", "Session").objects.create(
            club=club, game="cheat", options={}, created_by_id=user.pk)
        for number, member in enumerate((ona, jonas)):
            old.get_model("referee", "Seat").objects.create(session=session, number=number, member=member)
        deal = old.get_model("referee", "Deal").objects.create(session=session, number=1, dealer=1, state={}, seq=1)
        Entry = old.get_model("referee", "Entry")
        first = Entry.objects.create(deal=deal, seq=1, payload={"type": "place", "player": 0}, author_id=user.pk,
                                     active=False)
        old.get_model("referee", "DealChange").objects.create(deal=deal, kind="undo", replaced=first,
                                                              author_id=user.pk)
        Entry.objects.create(deal=deal, seq=1, payload={"type": "place", "player": 0}, author_id=user.pk)
        old.get_model("referee", "SeatChange").objects.create(session=session, seat=1, was=jonas, now=ruta)
        old.get_model("referee", "Seat").objects.filter(session=session, number=1).update(member=ruta)
    finally:
        migrate(AFTER)
    kinds = list(ChainRecord.objects.filter(club_id=club.pk).order_by("seq").values_list("kind", flat=True))
    assert kinds == ["open", "entry", "undo", "entry", "seat"]
    verdict = verify_club(club.pk)
    assert verdict.ok, verdict.message
