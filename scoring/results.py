"""Writing a finished deal's results, the chip ledger and the leaderboard aggregates.

Called by the hooks in ``scoring.services`` inside the referee's transaction, so a deal's
results, its chip movements and its day's, month's and all-time aggregates are stored (or
removed again) together with the entry that finished (or reopened) it: the leaderboard's
totals are never behind. The rating step is only queued there and runs after commit
(``scoring.ratings``), so that no table waits for another table's rating step.

Money (decided for a real club table, and the same in the settlement), by each game's
``money_rule`` (``Game.money_units``):

* ``AS_PLAYED`` (Pašėlęs Velnias, Mičiganas): a seat's money in a deal is its
  points (Velnias) or net chips (Mičiganas) x the session's stake. Velnias points are
  zero-sum in every deal; Mičiganas chips are zero-sum together with the prize cards, and
  M3 shares the prize cards' chips out at close, so the evening is zero-sum.
* ``PAIR_DIFFERENCE`` (Elgeta, Rūkas, Apgaudinėjimas): points that are not zero-sum (one
  winner, tricks, one loser), so every pair of players settles the difference of their points: a seat gets
  ``(its points - the other's points) x stake`` from every other seat, i.e.
  ``units = n x points - sum(points)``. That is the club's "each pays each the difference":
  in Elgeta every beggar pays the winner one stake, in Apgaudinėjimas the apgavikas pays
  every other player one stake, in Rūkas each pair settles the difference in tricks. It is
  zero-sum in every deal and stays in whole stakes, so money is exact (no division).

A seat's money in a deal is ``units x stake`` (exact decimals: the stake has two decimal
places and units are whole numbers), in the session's currency (the club's).

A game that keeps chips (``scoring.chips``) stores its deals' ``chip_movements`` and, at
the session's close, the ``close_movements`` of its last finished deal (Mičiganas M3: the
chips still on the prize cards shared out). Those are stored without a deal and added to
the month of the close; reopening the session removes exactly those movements and
subtracts exactly what they added.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal
from functools import cache
from typing import Any

from django.db import connection
from django.db.models import Field, Model
from django.utils import timezone

from db import prepared
from referee.models import Deal, DealStatus, Seat, Session
from referee.rules import GAMES
from scoring import board_version
from scoring.ledger import chips
from scoring.ratings import rating as ratings

from .models import AGGREGATES, ChipMovement, DealResult, RatingEvent


def month_of(moment: datetime) -> date:
    """The aggregate month of a moment, in the club's time zone (settings.TIME_ZONE)."""
    local = timezone.localtime(moment)
    return date(local.year, local.month, 1)


# -- aggregates --------------------------------------------------------------------------------


def _bump(
    club_id: int, game: str, moment: datetime, rows: Iterable[tuple[int, int, int, int, Decimal]], sign: int
) -> None:
    """Add (sign=1) or subtract (sign=-1) (member, deals, wins, points, money) to the day's, the
    month's and the all-time aggregates of ``moment`` (in the club's time zone)."""
    # Sorted by member, so two tables finishing deals with players in common lock their rows
    # in the same order (never a deadlock).
    rows = sorted((member, sign * d, sign * w, sign * p, sign * m) for member, d, w, p, m in rows)
    if not rows:
        return
    board_version.changed(club_id, moment)  # the leaderboard's cached totals of that day retire once this commits
    buckets = _buckets(moment)
    if connection.vendor in ONE_STATEMENT_VENDORS:
        members, deals, wins, points, money = (list(column) for column in zip(*rows, strict=True))
        with prepared.cursor() as cursor:
            cursor.execute(_bump_sql(), {"club": club_id, "game": game, **buckets, "members": members,
                                         "deals": deals, "wins": wins, "points": points, "money": money})
    else:
        with connection.cursor() as cursor:
            for model, bucket in AGGREGATES:
                cursor.execute(*_upsert_rows(model, bucket, club_id, game, buckets, rows))
    if sign < 0:
        # An undo leaves the tables exactly as before: no empty rows behind.
        for model, bucket in AGGREGATES:
            filters: dict[str, Any] = {"club_id": club_id, "game": game, "member_id__in": [r[0] for r in rows],
                                       "deals": 0, "wins": 0, "points": 0, "money": 0}
            if bucket:
                filters[bucket] = buckets[bucket]
            model.objects.filter(**filters).delete()  # type: ignore[attr-defined]


def _buckets(moment: datetime) -> dict[str, date]:
    """The month and the day of ``moment`` in the club's time zone: its aggregate rows' keys."""
    return {"month": month_of(moment), "day": timezone.localtime(moment).date()}


#: Where the three upserts go to the database as one prepared statement (``_bump_sql``);
#: elsewhere (SQLite has no INSERT inside WITH) they are sent one by one, with the same effect.
ONE_STATEMENT_VENDORS = frozenset({"postgresql"})

#: What an aggregate row adds up; the key columns come before them.
SUMS = ("deals", "wins", "points", "money")


def _keys(bucket: str | None) -> list[str]:
    return ["club_id", "game", *([bucket] if bucket else []), "member_id"]


def _on_conflict(table: str, keys: list[str]) -> str:
    # The increment happens in the database, so two tables finishing deals at the same moment
    # cannot lose each other's counts.
    return (f" ON CONFLICT ({', '.join(keys)}) DO UPDATE SET "
            + ", ".join(f"{c} = {table}.{c} + excluded.{c}" for c in SUMS))


def _upsert_rows(model: type[Model], bucket: str | None, club_id: int, game: str, buckets: dict[str, date],
                 rows: list[tuple[int, int, int, int, Decimal]]) -> tuple[str, list[Any]]:
    """One table's upsert with its rows as VALUES (the path of databases other than PostgreSQL)."""
    table, keys = model._meta.db_table, _keys(bucket)
    columns = [*keys, *SUMS]
    values = ", ".join(["(" + ", ".join(["%s"] * len(columns)) + ")"] * len(rows))
    params: list[Any] = []
    for member, deals, wins, points, money in rows:
        params += [club_id, game, *([buckets[bucket]] if bucket else []), member, deals, wins, points, money]
    sql = f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values}"  # noqa: S608 - names from models
    return sql + _on_conflict(table, keys), params


def _column_type(model: type[Model], name: str) -> str:
    field = model._meta.get_field(name)
    assert isinstance(field, Field)
    return str(field.db_type(connection))


def _upserts(rows: str) -> list[str]:
    """The month's, the day's and the all-time upserts (in that order) of the aggregate rows
    that ``rows`` gives as (member, deals, wins, points, money), in member order."""
    upserts = []
    for model, bucket in AGGREGATES:
        table, keys = model._meta.db_table, _keys(bucket)
        fixed = [f"%(club)s::{_column_type(model, 'club')}", f"%(game)s::{_column_type(model, 'game')}",
                 *([f"%({bucket})s::{_column_type(model, bucket)}"] if bucket else [])]
        upserts.append(
            f"INSERT INTO {table} ({', '.join([*keys, *SUMS])})"  # noqa: S608 - names from the models
            f" SELECT {', '.join(fixed)}, v.* FROM {rows} AS v"
            + _on_conflict(table, keys)
        )
    return upserts


def _with(clauses: list[str], upserts: list[str]) -> str:
    """``clauses`` (named, in order) and the upserts in one statement: the month's as the primary
    statement, the others as data-modifying WITH clauses. PostgreSQL runs the primary statement
    first and then the WITH clauses that nothing reads, later ones first; so they are listed
    last to first, and every transaction locks the month's, the day's and the all-time rows in
    the same order as the separate statements do (never a deadlock between the paths)."""
    first, *others = upserts
    named = [*clauses, *(f"a{n} AS ({text})" for n, text in enumerate(reversed(others)))]
    return "WITH " + ", ".join(named) + " " + first


@cache
def _bump_sql() -> str:
    """The three upserts as one PostgreSQL statement whose text does not depend on the number of
    players (the rows come as one array per column, in member order), so it is prepared once per
    connection (``db.prepared``)."""
    model = AGGREGATES[0][0]
    arrays = ", ".join([f"%(members)s::{_column_type(model, 'member')}[]",
                        *(f"%({name})s::{_column_type(model, name)}[]" for name in SUMS)])
    return _with([], _upserts(f"unnest({arrays})"))


# -- deals -------------------------------------------------------------------------------------


def record_deal(*, deal: Deal, state: Any) -> None:
    """Store a finished deal's results, chip movements and aggregates, and queue its rating step."""
    session: Session = deal.session
    rules = GAMES[session.game]
    outcome = rules.outcome(state)
    if outcome is None:
        raise ValueError(f"deal {deal.pk} has not finished")
    finished_at = deal.finished_at or timezone.now()
    units = rules.money_units(outcome.points)
    if connection.vendor in ONE_STATEMENT_VENDORS:
        # A deal is recorded once; recording it again (a replay) replaces the earlier record:
        # only a replay pays for the removal.
        if not _record(deal, session, outcome, units, finished_at):
            unrecord_deal(deal=deal)
            _record(deal, session, outcome, units, finished_at)
    else:
        _record_orm(deal, session, outcome, units, finished_at)
    movements = [chips.movement(session, deal, order, move, finished_at)
                 for order, move in enumerate(rules.chip_movements(state)) if move["chips"]]
    if movements:  # most deals move no chips: no queryset to build for nothing
        ChipMovement.objects.bulk_create(movements)
    ratings.announce(club_id=session.club_id, game=session.game)


def _record_orm(deal: Deal, session: Session, outcome: Any, units: list[int], finished_at: datetime) -> None:
    """The results, the rating events and the aggregates, through the ORM (databases other than
    PostgreSQL); what ``_finish_sql`` writes on PostgreSQL."""
    if DealResult.objects.filter(deal=deal).exists():
        unrecord_deal(deal=deal)
    results = [
        DealResult(
            deal=deal, session=session, club_id=session.club_id, game=session.game, member_id=member, seat=seat,
            points=outcome.points[seat], placement=outcome.placements[seat], won=seat in outcome.winners,
            units=units[seat], money=units[seat] * session.stake, finished_at=finished_at,
        )
        for seat, member in session.seats.order_by("number").values_list("number", "member_id")
    ]
    DealResult.objects.bulk_create(results)
    RatingEvent.objects.bulk_create(ratings.events(deal_id=deal.pk, club_id=session.club_id, game=session.game,
                                                   finished_at=finished_at, reopened=False))
    _bump(
        session.club_id, session.game, finished_at,
        ((r.member_id, 1, int(r.won), r.points, r.money) for r in results), sign=1,
    )


def _record(deal: Deal, session: Session, outcome: Any, units: list[int], finished_at: datetime) -> bool:
    """The results, the rating events and the aggregates in one prepared PostgreSQL statement
    (``_finish_sql``); False, writing nothing, when the deal has a record already."""
    seats = range(len(units))
    with prepared.cursor() as cursor:
        cursor.execute(_finish_sql(), {
            "deal": deal.pk, "session": session.pk, "club": session.club_id, "game": session.game,
            "finished_at": finished_at, "streams": ratings.streams(session.game), **_buckets(finished_at),
            # One array per result column, a seat's value at its index.
            "seat": list(seats), "points": [outcome.points[seat] for seat in seats],
            "placement": [outcome.placements[seat] for seat in seats],
            "won": [seat in outcome.winners for seat in seats], "units": list(units),
            "money": [unit * session.stake for unit in units],
        })
        written = cursor.rowcount
    if written <= 0:
        return False
    board_version.changed(session.club_id, finished_at)  # as _bump: cached totals of that day retire
    return True


@cache
def _finish_sql() -> str:
    """A finished deal's record in one statement ("finishing a deal costs about what a
    mid-deal entry costs"): its seats' players come from the seats table, and its results, its
    rating events and its month's, day's and all-time aggregates are written from them. The
    rows come as one array per column, so the text is the same for every deal and prepared once
    per connection. The record is written only if the deal has none yet (the month's upsert then
    writes one row per seat: a rowcount of 0 tells the caller to remove the old record first).
    The same rows as ``_record_orm``; the aggregates in member order (``_bump``)."""
    result = [field for field in DealResult._meta.concrete_fields if not field.primary_key]
    types = {field.name: field.db_type(connection) for field in result}
    given = ("seat", "points", "placement", "won", "units", "money")
    arrays = ", ".join(f"%({name})s::{types[name]}[]" for name in given)
    seat_table, event_table = Seat._meta.db_table, RatingEvent._meta.db_table
    values = {"deal": f"%(deal)s::{types['deal']}", "session": f"%(session)s::{types['session']}",
              "club": f"%(club)s::{types['club']}", "game": f"%(game)s::{types['game']}",
              "member": "v.member_id", "finished_at": f"%(finished_at)s::{types['finished_at']}",
              **{name: f"v.{name}" for name in given}}
    seated = (
        f"seated AS (SELECT st.member_id, v.* FROM unnest({arrays}) AS v({', '.join(given)})"
        f" JOIN {seat_table} st ON st.session_id = %(session)s::{types['session']} AND st.number = v.seat"
        f" WHERE NOT EXISTS (SELECT 1 FROM {DealResult._meta.db_table} r"
        f" WHERE r.deal_id = %(deal)s::{types['deal']}))"
    )
    results = (
        f"r AS (INSERT INTO {DealResult._meta.db_table} ({', '.join(field.column for field in result)})"
        f" SELECT {', '.join(values[field.name] for field in result)} FROM seated AS v)"
    )
    event_types = {field.name: field.db_type(connection) for field in RatingEvent._meta.concrete_fields}
    events = (
        f"e AS (INSERT INTO {event_table} (club_id, game, deal_id, finished_at, reopened)"
        f" SELECT %(club)s::{event_types['club']}, stream, %(deal)s::{event_types['deal']},"
        f" %(finished_at)s::{event_types['finished_at']}, false"
        f" FROM unnest(%(streams)s::{event_types['game']}[]) AS stream WHERE EXISTS (SELECT 1 FROM seated))"
    )
    sums = "(SELECT member_id, 1, won::int, points, money FROM seated ORDER BY member_id)"
    return _with([seated, results, events], _upserts(sums)) + " RETURNING 1"


def unrecord_deal(*, deal: Deal) -> None:
    """Remove everything ``record_deal`` stored for this deal, subtracting exactly what it added."""
    results = list(DealResult.objects.filter(deal=deal))
    if not results:
        return
    first = results[0]
    _bump(
        first.club_id, first.game, first.finished_at,
        ((r.member_id, 1, int(r.won), r.points, r.money) for r in results), sign=-1,
    )
    ChipMovement.objects.filter(deal=deal).delete()
    DealResult.objects.filter(deal=deal).delete()
    ratings.queue(deal_id=deal.pk, club_id=first.club_id, game=first.game, finished_at=first.finished_at,
                  reopened=True)


# -- sessions ----------------------------------------------------------------------------------


def close_movements(session: Session, at: datetime) -> list[ChipMovement]:
    """What closing the session now settles (Mičiganas M3), as movements (not saved): the game's
    ``close_movements`` after the last finished deal; none for a game without chips."""
    rules = GAMES[session.game]
    if not chips.keeps_chips(rules):
        return []
    last = session.deals.filter(status=DealStatus.FINISHED).order_by("-number").only("state").first()
    if last is None:
        return []
    moves = [move for move in rules.close_movements(rules.from_dict(last.state)) if move["chips"]]
    return [chips.movement(session, None, order, move, at) for order, move in enumerate(moves)]


def _split_rows(session: Session, moves: Iterable[ChipMovement]) -> list[tuple[int, int, int, int, Decimal]]:
    members = dict(session.seats.values_list("number", "member_id"))
    per_seat: dict[int, int] = {}
    for move in moves:
        assert move.target_seat is not None
        per_seat[move.target_seat] = per_seat.get(move.target_seat, 0) + move.chips
    return [(members[seat], 0, 0, count, count * session.stake) for seat, count in sorted(per_seat.items())]


def close_session(*, session: Session) -> None:
    """Store what the close settles (Mičiganas M3: the chips left on the prize cards shared out)."""
    if not chips.keeps_chips(GAMES[session.game]):
        return
    reopen_session(session=session)  # never settle twice
    at = session.closed_at or timezone.now()
    moves = ChipMovement.objects.bulk_create(close_movements(session, at))
    _bump(session.club_id, session.game, at, _split_rows(session, moves), sign=1)


def reopen_session(*, session: Session) -> None:
    """Reverse what the close settled exactly: remove its movements and subtract what they added."""
    if not chips.keeps_chips(GAMES[session.game]):
        return
    moves = list(ChipMovement.objects.filter(session=session, deal__isnull=True))
    if not moves:
        return
    by_moment: dict[datetime, list[ChipMovement]] = {}
    for move in moves:
        by_moment.setdefault(move.at, []).append(move)
    for moment, group in by_moment.items():
        _bump(session.club_id, session.game, moment, _split_rows(session, group), sign=-1)
    ChipMovement.objects.filter(pk__in=[m.pk for m in moves]).delete()
