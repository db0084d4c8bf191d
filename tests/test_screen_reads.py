"""The recording screen's reads: ``deal_for_page`` reads the deal, its session, club,
seats and the user's role in two queries and answers as ``club_role`` does; ``screen_figures``
reads in one statement what ``deal_version``, ``has_later_deal`` and ``running_totals`` read."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from referee import selectors, services
from referee.models import Deal, DealStatus
from referee.permissions import club_role
from scoring import page_selectors
from scoring.models import DealResult
from tests.scoring.helpers import play, start, undo, velnias_end

pytestmark = pytest.mark.django_db


def test_the_screen_statement_names_the_models_tables() -> None:
    for table in (Deal._meta.db_table, DealResult._meta.db_table):
        assert f"FROM {table} " in page_selectors.SCREEN_SQL
    for column in ("session_id", "number", "seat", "points"):
        assert column in page_selectors.SCREEN_SQL


def figures_the_slow_way(deal: Deal, players: int) -> tuple[str, bool, list[int]]:
    deal = Deal.objects.select_related("session").get(pk=deal.pk)
    return (selectors.deal_version(deal), selectors.has_later_deal(deal),
            page_selectors.running_totals(deal.session, players))


def test_the_screen_figures_are_what_the_three_reads_give(club_setup: dict[str, Any]) -> None:
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    first = play(club_setup, session, [velnias_end("empty_hand", 0, [0, 4, 2])])
    second = play(club_setup, session, [velnias_end("empty_hand", 1, [3, 0, 2])])
    undo(club_setup, second)  # an undo: seq drops, the entry row stays (the version must change)
    running = Deal.objects.get(pk=second.pk)
    assert running.status == DealStatus.RUNNING
    for deal in (first, running):
        deal = Deal.objects.select_related("session").get(pk=deal.pk)
        got = page_selectors.screen_figures(deal, 3)
        assert (got.version, got.later_deal, got.totals) == figures_the_slow_way(deal, 3)
    assert page_selectors.screen_figures(Deal.objects.get(pk=first.pk), 3).later_deal is True
    assert page_selectors.screen_figures(Deal.objects.get(pk=first.pk), 3).totals == [6, -4, -2]
    fresh = services.deal_start(session=start(club_setup, "velnias", ["admin", "scorer", "member"]),
                                user=club_setup["users"]["scorer"])
    assert page_selectors.screen_figures(fresh, 3) == page_selectors.ScreenFigures("0.0.running.open", False, [0, 0, 0])


@pytest.mark.parametrize("who", ["admin", "scorer", "member", "outsider", "inactive", "superuser"])
def test_the_page_read_answers_as_club_role_in_two_queries(club_setup: dict[str, Any], make_user: Any,
                                                           who: str) -> None:
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    if who == "inactive":
        user = club_setup["users"]["member"]
        club_setup["members"]["member"].active = False
        club_setup["members"]["member"].save()
    elif who == "superuser":
        user = make_user("root", is_superuser=True)
    else:
        user = club_setup["users"][who]
    with CaptureQueriesContext(connection) as queries:
        found = selectors.deal_for_page(user, deal.pk)
        if found is not None:
            names = selectors.seat_names_of(found[0].session)
            club = found[0].session.club.slug
    expected = club_role(user, club_setup["club"])
    if expected is None:
        assert found is None
        return
    assert found is not None and found[1] == expected and found[0].pk == deal.pk
    assert (names, club) == (["Ona", "Jonas", "Rūta"], "vilnius")
    assert len(queries.captured_queries) == 2
    assert selectors.deal_for_page(user, deal.pk + 1000) is None


def test_the_statements_and_the_orm_read_the_same_page(club_setup: dict[str, Any], monkeypatch: Any) -> None:
    """On PostgreSQL the page's two reads are literal statements (``PAGE_DEAL_SQL``,
    ``PAGE_SEATS_SQL``); they give the deal, its session, club, seats and members the ORM gives."""
    from referee import entry_store
    from tests.conftest import is_postgres, need

    need(is_postgres(), "the statements are PostgreSQL's: set DATABASE_URL=postgres://... (as .ci/run does)")
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    deal = play(club_setup, session, [velnias_end("empty_hand", 0, [0, 4, 2])])
    user = club_setup["users"]["scorer"]

    def picture(found: Any) -> Any:
        deal, role = found
        session = deal.session
        fields = [(obj, [(f.attname, getattr(obj, f.attname)) for f in type(obj)._meta.concrete_fields])
                  for obj in (deal, session, session.club)]
        seats = [(seat.number, seat.member.name, seat.member.pk, seat.member.user_id) for seat in session.seats.all()]
        return [values for _obj, values in fields], seats, role

    with CaptureQueriesContext(connection) as queries:
        by_statements = picture(selectors.deal_for_page(user, deal.pk))
    assert len(queries.captured_queries) == 2  # the seats came with the read, not with .all()
    monkeypatch.setattr(entry_store, "SQL_VENDORS", frozenset())
    assert picture(selectors.deal_for_page(user, deal.pk)) == by_statements


def test_the_snapshot_read_as_text_is_the_snapshot(club_setup: dict[str, Any]) -> None:
    """``snapshot_as_text``: the page reads the snapshot as the database's JSON text, loads no
    ``state`` (it is deferred: reading it asks again) and decodes the same snapshot on demand."""
    from tests.conftest import is_postgres
    from web.pages.deal_screen import snapshot_of, snapshot_script

    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    stored = Deal.objects.get(pk=deal.pk).state
    found = selectors.deal_for_page(club_setup["users"]["scorer"], deal.pk, snapshot_as_text=True)
    assert found is not None
    page_deal = found[0]
    if is_postgres():
        assert "state" in page_deal.get_deferred_fields()
        assert json.loads(page_deal.snapshot_text) == stored
    script = str(snapshot_script(page_deal))
    assert json.loads(script.split(">", 1)[1].rsplit("<", 1)[0]) == stored
    with CaptureQueriesContext(connection) as queries:
        assert snapshot_of(page_deal) == stored
    assert queries.captured_queries == []


def test_the_recent_entries_statement_reads_what_the_orm_reads(club_setup: dict[str, Any], monkeypatch: Any) -> None:
    """``RECENT_ENTRIES_SQL`` (PostgreSQL): the latest active entries, newest first, as the ORM
    reads them, an undone entry left out."""
    from referee import entry_store
    from tests.conftest import is_postgres, need

    need(is_postgres(), "the statement is PostgreSQL's: set DATABASE_URL=postgres://... (as .ci/run does)")
    scorer = club_setup["users"]["scorer"]
    session = start(club_setup, "cheat", ["admin", "scorer", "member"])
    deal = services.deal_start(session=session, user=scorer)
    for player in (0, 1, 2, 0, 1):
        services.entry_add(deal_id=deal.pk, payload={"type": "place", "player": player}, user=scorer)
    services.entry_undo(deal_id=deal.pk, user=scorer)

    def picture(entries: list[Any]) -> list[Any]:
        return [[getattr(e, f.attname) for f in type(e)._meta.concrete_fields] for e in entries]

    by_statement = picture(selectors.recent_entries(deal, 3))
    assert [row[2] for row in by_statement] == [4, 3, 2]  # seq, the undone fifth left out
    monkeypatch.setattr(entry_store, "SQL_VENDORS", frozenset())
    assert picture(selectors.recent_entries(deal, 3)) == by_statement


def test_the_snapshot_text_cannot_end_its_script_element() -> None:
    """The database's text is embedded as json_script would embed it: <, > and & escaped."""
    from types import SimpleNamespace

    from web.pages.deal_screen import snapshot_script

    text = '{"note": "</script><script>alert(1)</script> & more"}'
    html = str(snapshot_script(SimpleNamespace(snapshot_text=text)))  # type: ignore[arg-type]
    inner = html.removeprefix('<script id="deal-snapshot" type="application/json">').removesuffix("</script>")
    assert "<" not in inner and ">" not in inner and "&" not in inner
    assert json.loads(inner) == json.loads(text)
