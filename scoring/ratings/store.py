"""The rating worker's statements for its everyday run, written out for PostgreSQL.

On a club night the worker's task takes one stream's waiting events: finished deals that all
come after the latest rated one. ``scoring.ratings.settle`` rates them in one pass; through the
ORM that pass compiled twenty statements afresh for every run, whatever the number of deals;
a Velnias table finishes a deal every second request, so on a busy night the worker spent a
seventh of the server's CPU there (``bench/bench_tables.py``; docs/measurements.md).

Here the same pass is three prepared statements per stream (``db.prepared``): the
stream's lock, one read of everything the run needs, and one write of everything it changes.
The arithmetic stays in ``scoring.ratings``; this module only reads and writes rows, and
reports (``Run.plain``) whether the run is the everyday one. Anything else (a reopened deal, a
deal rated already, a deal that belongs before the latest rated one, a stale stream) goes the
ORM's way in ``ratings``, which decides exactly as before. Only on PostgreSQL
(``referee.entry_store.uses_sql``); tests/scoring run the rating tests on both ways in CI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from db import prepared
from referee.entry_store import columns, from_row, uses_sql
from scoring.models import OVERALL, DealResult, Rating, RatingEvent, RatingPoint, RatingStream, RatingUpdate

__all__ = ["Run", "enabled", "lock_stream", "read_run", "write_run"]


def enabled() -> bool:
    return uses_sql()


_STREAM = RatingStream._meta.db_table
_EVENT = RatingEvent._meta.db_table
_UPDATE = RatingUpdate._meta.db_table
_RESULT = DealResult._meta.db_table
_RATING = Rating._meta.db_table
_POINT = RatingPoint._meta.db_table

LOCK_STREAM_SQL = f"""
SELECT {columns(RatingStream, "s")} FROM "{_STREAM}" s
 WHERE s.club_id = %(club)s AND s.game = %(game)s
   FOR UPDATE
"""


def lock_stream(club_id: int, game: str) -> RatingStream | None:
    """The stream, row-locked (None when the club has none yet: ``ratings`` makes it)."""
    with prepared.cursor() as cursor:
        cursor.execute(LOCK_STREAM_SQL, {"club": club_id, "game": game})
        row = cursor.fetchone()
    return None if row is None else from_row(RatingStream, row)


# Read after the lock, in a statement of its own, so that it sees every event committed before
# the lock was granted. One row: the events in order, the latest step, the steps of the events'
# deals, the deals' placements in the stream, and the current ratings of their players.
READ_RUN_SQL = f"""
WITH ev AS (
    SELECT id, deal_id, reopened FROM "{_EVENT}" WHERE club_id = %(club)s AND game = %(game)s
), res AS (
    SELECT r.deal_id, r.member_id, r.placement, r.finished_at FROM "{_RESULT}" r
     WHERE r.deal_id IN (SELECT deal_id FROM ev) AND (%(game)s = '{OVERALL}' OR r.game = %(game)s)
)
SELECT (SELECT array_agg(id ORDER BY id) FROM ev),
       (SELECT array_agg(deal_id ORDER BY id) FROM ev),
       (SELECT bool_or(reopened) FROM ev),
       (SELECT u.deal_id FROM "{_UPDATE}" u WHERE u.stream_id = %(stream)s AND u.seq = %(seq)s),
       (SELECT u.finished_at FROM "{_UPDATE}" u WHERE u.stream_id = %(stream)s AND u.seq = %(seq)s),
       (SELECT count(*) FROM "{_UPDATE}" u WHERE u.stream_id = %(stream)s AND u.deal_id IN (SELECT deal_id FROM ev)),
       (SELECT array_agg(deal_id) FROM res), (SELECT array_agg(member_id) FROM res),
       (SELECT array_agg(placement) FROM res), (SELECT array_agg(finished_at) FROM res),
       (SELECT array_agg(array[x.member_id::float8, x.mu, x.sigma, x.deals::float8]) FROM "{_RATING}" x
         WHERE x.club_id = %(club)s AND x.game = %(game)s AND x.member_id IN (SELECT member_id FROM res))
"""


@dataclass
class Run:
    """What the stream's waiting events ask for, as ``read_run`` found it."""

    events: list[int]
    #: deal -> member -> place, and deal -> when it finished (the deals with results in the stream).
    by_deal: dict[int, dict[int, int]]
    finished: dict[int, datetime]
    #: member -> (mu, sigma, deals rated) of the deals' players that have a rating.
    current: dict[int, tuple[float, float, int]]
    #: Whether ``ratings`` may rate it in one pass and ``write_run`` it: finished deals only, none
    #: rated already or twice, each with results, all after the latest rated deal.
    plain: bool


def read_run(stream: RatingStream) -> Run:
    with prepared.cursor() as cursor:
        cursor.execute(READ_RUN_SQL, {"club": stream.club_id, "game": stream.game, "stream": stream.pk,
                                      "seq": stream.last_seq})
        row = cursor.fetchone()
    (events, deal_ids, reopened, latest, latest_at, rated, r_deals, r_members, r_places, r_finished,
     ratings_found) = row
    events, deal_ids = events or [], deal_ids or []
    by_deal: dict[int, dict[int, int]] = {}
    finished: dict[int, datetime] = {}
    for deal, member, place, at in zip(r_deals or [], r_members or [], r_places or [], r_finished or [], strict=True):
        by_deal.setdefault(deal, {})[member] = place
        finished[deal] = at
    current = {int(m): (mu, sigma, int(deals)) for m, mu, sigma, deals in ratings_found or []}
    plain = bool(events) and not reopened and not rated and len(set(deal_ids)) == len(deal_ids)
    plain = plain and set(by_deal) == set(deal_ids)
    if plain and stream.last_seq:
        # Every deal after the latest rated one, in finishing order (finished_at, deal id).
        plain = latest is not None and latest_at is not None and all(
            (finished[deal], deal) > (latest_at, latest) for deal in deal_ids)
    return Run(events=events, by_deal=by_deal, finished=finished, current=current, plain=plain)


# The run's changes in one statement: the players' new ratings, the stream's last step, the new
# steps, the steps no longer kept, and the events taken. The new steps' numbers all lie above
# the old last one, so the removal (which sees the rows as they were) never meets them.
WRITE_RUN_SQL = f"""
WITH rated AS (
    INSERT INTO "{_RATING}" (club_id, member_id, game, mu, sigma, deals)
    SELECT %(club)s, t.m, %(game)s, t.mu, t.sigma, t.deals
      FROM unnest(%(members)s::bigint[], %(mus)s::float8[], %(sigmas)s::float8[], %(deals)s::integer[])
           AS t(m, mu, sigma, deals)
    ON CONFLICT (club_id, game, member_id)
    DO UPDATE SET mu = EXCLUDED.mu, sigma = EXCLUDED.sigma, deals = EXCLUDED.deals
), stream AS (
    UPDATE "{_STREAM}" SET last_seq = %(last_seq)s, updated_at = %(now)s WHERE id = %(stream)s
), steps AS (
    INSERT INTO "{_UPDATE}" (stream_id, deal_id, seq, finished_at, before)
    SELECT %(stream)s, t.deal, t.seq, t.at, t.before
      FROM unnest(%(step_deals)s::bigint[], %(step_seqs)s::integer[], %(step_at)s::timestamptz[],
                  %(step_before)s::text[]::jsonb[]) AS t(deal, seq, at, before)
), forgotten AS (
    DELETE FROM "{_UPDATE}" WHERE stream_id = %(stream)s AND seq <= %(forget_to)s
), taken AS (
    DELETE FROM "{_EVENT}" WHERE id = ANY(%(events)s::bigint[])
), history AS (
    INSERT INTO "{_POINT}" (stream_id, seq, deal_id, member_id, mu, sigma)
    SELECT %(stream)s, t.seq, t.deal, t.m, t.mu, t.sigma
      FROM unnest(%(point_seqs)s::integer[], %(point_deals)s::bigint[], %(point_members)s::bigint[],
                  %(point_mus)s::float8[], %(point_sigmas)s::float8[]) AS t(seq, deal, m, mu, sigma)
)
SELECT 1
"""


def write_run(stream: RatingStream, run: Run, ratings: dict[int, tuple[float, float, int]],
              steps: list[tuple[int, int, datetime, dict[str, Any]]], forget_to: int,
              points: list[tuple[int, int, int, float, float]]) -> None:
    """Store a plain run: ``ratings`` the players' new ones, ``steps`` (deal, seq, finished, before)
    in order, the steps up to ``forget_to`` no longer kept (nor written), and the rating
    history's ``points`` (seq, deal, member, mu, sigma), all of them kept."""
    members = sorted(ratings)
    kept = [step for step in steps if step[1] > forget_to]
    stream.last_seq = steps[-1][1]
    stream.updated_at = timezone.now()
    with prepared.cursor() as cursor:
        cursor.execute(WRITE_RUN_SQL, {
            "club": stream.club_id, "game": stream.game, "stream": stream.pk,
            "members": members, "mus": [ratings[m][0] for m in members], "sigmas": [ratings[m][1] for m in members],
            "deals": [ratings[m][2] for m in members], "last_seq": stream.last_seq, "now": stream.updated_at,
            "step_deals": [s[0] for s in kept], "step_seqs": [s[1] for s in kept], "step_at": [s[2] for s in kept],
            "step_before": [json.dumps(s[3]) for s in kept], "forget_to": forget_to, "events": run.events,
            "point_seqs": [p[0] for p in points], "point_deals": [p[1] for p in points],
            "point_members": [p[2] for p in points], "point_mus": [p[3] for p in points],
            "point_sigmas": [p[4] for p in points],
        })
