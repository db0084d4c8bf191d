"""Seasons: a league table over a span of days, by rules the club sets as data.

A result is one unit a member played (a closed session, or a club night's sessions taken
together): the mean place score of their deals there, (n - place) / (n - 1) per deal at a
table of n, shown out of 100. A member's season score is the mean of the results that count:

* ``best_of`` N: their best N results count, the others are struck through (all count when
  N is not set);
* ``min_results``: a member with fewer results is, as the season says, not ranked (listed
  below, with how many more they need) or ranked with the missing results counted as zeros.

Ties on the score are broken by the season's chain, in order (``TIE_BREAKS``): the best single
result, the most results, the latest result; members equal on all of them share the place.
Each ranked row also says what its next result must be to pass the member above.

A closed season is frozen: its table as closed is stored, and the page shows it with any
difference a later correction made (shown, not applied).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from django.db import connection, transaction
from django.db.models import Count, F, Q, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from evenings.models import RoundTable
from referee.entry_store import uses_sql
from referee.errors import Refusal
from referee.models import Club, Member, Role, Session, SessionStatus
from referee.permissions import require_role
from referee.rules import GAMES

from .evening_standings import place_score
from .models import DealResult, Season, SeasonDivision, SessionResult

#: The tie-breaks a season may chain, by key, as the pages write them out.
TIE_BREAKS = {
    "best": gettext_lazy("the best single result"),
    "results": gettext_lazy("the most results"),
    "latest": gettext_lazy("the latest result"),
}
DEFAULT_TIE_BREAKS = ["best", "results", "latest"]


@dataclass(frozen=True)
class Result:
    key: str  # "s<session id>" or "e<evening id>": what the result links to
    day: date
    score: float  # 0-100
    deals: int


@dataclass
class Row:
    member: int
    name: str
    results: list[Result]
    counted: list[bool] = field(default_factory=list)
    score: float = 0.0
    ranked: bool = True
    place: int = 0
    needs: float | None = None  # the next result that passes the member above (None: cannot, or first)
    missing: int = 0  # results still needed to be ranked
    division: int = 1
    move: str = ""  # "up" or "down" at the season's end (divisions only)
    count: int = 0  # every result of the season (``results`` may hold only those that matter)

    @property
    def not_shown(self) -> int:
        return self.count - len(self.results)

    @property
    def key(self) -> tuple[float, ...]:
        return (-round(self.score, 9),)


def ensure_results(sessions: Iterable[Session]) -> None:
    """Write the results of closed sessions that have none yet (as a session closes): one read
    of their deals' places, one insert."""
    missing = [s for s in sessions if s.status == SessionStatus.CLOSED]
    if not missing:
        return
    have = set(SessionResult.objects.filter(session__in=missing).values_list("session_id", flat=True).distinct())
    missing = [s for s in missing if s.pk not in have]
    if not missing:
        return
    players = {s.pk: s.seats.count() for s in missing}
    scores: dict[tuple[int, int], list[float]] = defaultdict(list)
    for session_id, member, placement in DealResult.objects.filter(session__in=missing).values_list(
            "session_id", "member_id", "placement"):
        scores[(session_id, member)].append(place_score(placement, players[session_id]))
    by_id = {s.pk: s for s in missing}
    SessionResult.objects.bulk_create([
        SessionResult(session_id=session_id, club_id=by_id[session_id].club_id, member_id=member,
                      game=by_id[session_id].game,
                      day=timezone.localdate(by_id[session_id].closed_at or timezone.now()),
                      deals=len(values), score=sum(values) / len(values))
        for (session_id, member), values in scores.items()], ignore_conflicts=True)


def forget_results(session: Session) -> None:
    SessionResult.objects.filter(session=session).delete()


def season_results(season: Season) -> dict[int, list[Result]]:
    """Each member's results in the season's days (and game), by the season's unit: all of them,
    or, for a season of sessions counting its best N, only those that can matter (the best N+1
    and the latest), with every member's count in ``counts`` (a league of years reads a few rows
    per member, not all of them)."""
    # Every closed session has its results (written as it closes; scoring's migration 0013 wrote
    # those of the sessions closed before seasons existed).
    rows = SessionResult.objects.filter(club_id=season.club_id, day__gte=season.start, day__lte=season.end)
    if season.game:
        rows = rows.filter(game=season.game)
    found: dict[int, list[Result]] = defaultdict(list)
    if season.unit == Season.Unit.EVENING:
        night_of = dict(RoundTable.objects.filter(round__evening__club_id=season.club_id, session__isnull=False)
                        .values_list("session_id", "round__evening_id"))
        nights: dict[tuple[int, int], list[tuple[float, int, date]]] = defaultdict(list)
        for session, member, score, deals, day in rows.values_list("session_id", "member_id", "score", "deals", "day"):
            night = night_of.get(session)
            if night is not None:
                nights[(member, night)].append((score, deals, day))
        for (member, night), parts in nights.items():
            deals = sum(d for _s, d, _day in parts)
            score = sum(s * d for s, d, _day in parts) / deals if deals else 0.0
            found[member].append(Result(f"e{night}", max(day for *_r, day in parts), round(score * 100, 2), deals))
    elif season.best_of is not None and uses_sql():
        return _best_and_latest(season)
    elif season.best_of is not None:
        ranked = rows.annotate(
            best=Window(RowNumber(), partition_by=[F("member_id")],
                        order_by=[F("score").desc(), F("day").asc(), F("session_id").asc()]),
            recent=Window(RowNumber(), partition_by=[F("member_id")],
                          order_by=[F("day").desc(), F("session_id").desc()]),
            total=Window(Count("id"), partition_by=[F("member_id")]),
        ).filter(Q(best__lte=season.best_of + 1) | Q(recent=1)).values_list(
            "session_id", "member_id", "score", "deals", "day", "total")
        counts: dict[int, int] = {}
        for session, member, score, deals, day, total in ranked:
            counts[member] = total
            found[member].append(Result(f"s{session}", day, round(score * 100, 2), deals))
        return _Found(found, counts)
    else:
        for session, member, score, deals, day in rows.values_list("session_id", "member_id", "score", "deals", "day"):
            found[member].append(Result(f"s{session}", day, round(score * 100, 2), deals))
    return found


# Each member's best N+1 results and latest one, and how many they have, for a season of
# sessions counting its best N: one pass counts the members' results, and for each member two
# index scans (scoring_sessionresult's session_result_best and _latest) read only the rows that
# can count. The ORM's window functions sort every result of the season twice instead (and
# spill to disk): the read took 67 ms against 21 ms, the table 75 against 31 ms, for 40,000
# session results (1,000,000 deal results) of 120 members (bench/bench_season.py).
BEST_AND_LATEST_SQL = f"""
WITH members AS (
    SELECT member_id, count(*) AS total FROM "{SessionResult._meta.db_table}"
     WHERE club_id = %(club)s AND day BETWEEN %(start)s AND %(end)s AND (%(game)s = '' OR game = %(game)s)
     GROUP BY member_id
)
SELECT m.member_id, t.session_id, t.score, t.deals, t.day, m.total
  FROM members m
 CROSS JOIN LATERAL (
    (SELECT r.session_id, r.score, r.deals, r.day FROM "{SessionResult._meta.db_table}" r
      WHERE r.club_id = %(club)s AND r.member_id = m.member_id AND r.day BETWEEN %(start)s AND %(end)s
        AND (%(game)s = '' OR r.game = %(game)s)
      ORDER BY r.score DESC, r.day, r.session_id LIMIT %(best)s)
    UNION
    (SELECT r.session_id, r.score, r.deals, r.day FROM "{SessionResult._meta.db_table}" r
      WHERE r.club_id = %(club)s AND r.member_id = m.member_id AND r.day BETWEEN %(start)s AND %(end)s
        AND (%(game)s = '' OR r.game = %(game)s)
      ORDER BY r.day DESC, r.session_id DESC LIMIT 1)
 ) t
"""


def _best_and_latest(season: Season) -> _Found:
    found: dict[int, list[Result]] = defaultdict(list)
    counts: dict[int, int] = {}
    assert season.best_of is not None
    with connection.cursor() as cursor:
        cursor.execute(BEST_AND_LATEST_SQL, {"club": season.club_id, "start": season.start, "end": season.end,
                                             "game": season.game, "best": season.best_of + 1})
        for member, session, score, deals, day, total in cursor.fetchall():
            counts[member] = total
            found[member].append(Result(f"s{session}", day, round(score * 100, 2), deals))
    return _Found(found, counts)


class _Found(dict[int, list[Result]]):
    """Results some of which were left unread, with each member's count of all of them."""

    def __init__(self, found: dict[int, list[Result]], counts: dict[int, int]) -> None:
        super().__init__(found)
        self.counts = counts


def _counted(season: Season, results: Sequence[Result], count: int | None = None) -> tuple[list[bool], float]:
    """Which results count (best N, ties to the earlier) and the season score (their mean, with
    zeros for the missing ones below the minimum when the season pads). ``count``: how many
    results the member has in all, when ``results`` holds only those that can count."""
    count = len(results) if count is None else count
    order = sorted(range(len(results)), key=lambda i: (-results[i].score, results[i].day))
    n = len(results) if season.best_of is None else min(season.best_of, len(results))
    chosen = set(order[:n])
    counted = [i in chosen for i in range(len(results))]
    total = sum(results[i].score for i in chosen)
    slots = n
    if season.below_minimum == Season.BelowMinimum.ZEROS and count < season.min_results:
        slots = season.min_results if season.best_of is None else min(season.best_of, season.min_results)
        slots = max(slots, n)
    return counted, (total / slots if slots else 0.0)


def _tie_key(season: Season, row: Row) -> tuple[Any, ...]:
    chain = season.tie_breaks if season.tie_breaks is not None else DEFAULT_TIE_BREAKS
    key: list[Any] = [-round(row.score, 9)]
    for name in chain:
        if name == "best":
            key.append(-max((r.score for r in row.results), default=0.0))
        elif name == "results":
            key.append(-row.count)
        elif name == "latest":
            latest = max(row.results, key=lambda r: r.day, default=None)
            key.append(-(latest.score if latest else 0.0))
    return tuple(key)


def season_table(season: Season, results: dict[int, list[Result]] | None = None) -> list[Row]:
    """The season's table: per division (one when the season has none), the ranked rows in
    order (shared places for full ties) with who goes up and down, then the unranked."""
    results = season_results(season) if results is None else results
    counts = getattr(results, "counts", {})
    placed = dict(SeasonDivision.objects.filter(season_id=season.pk).values_list("member_id", "division")) \
        if season.pk else {}
    names = dict(Member.objects.filter(club_id=season.club_id, pk__in=list(results)).values_list("pk", "name"))
    rows = []
    for member, own in results.items():
        own = sorted(own, key=lambda r: (r.day, r.key))
        row = Row(member=member, name=names.get(member, "?"), results=own, count=counts.get(member, len(own)))
        row.counted, row.score = _counted(season, own, row.count)
        row.missing = max(0, season.min_results - row.count)
        row.ranked = row.missing == 0 or season.below_minimum == Season.BelowMinimum.ZEROS
        row.division = min(placed.get(member, season.divisions), season.divisions)
        rows.append(row)
    table: list[Row] = []
    for division in range(1, season.divisions + 1):
        mine = [r for r in rows if r.division == division]
        ranked = sorted((r for r in mine if r.ranked), key=lambda r: (_tie_key(season, r), r.name))
        for index, row in enumerate(ranked):
            same = index and _tie_key(season, ranked[index - 1]) == _tie_key(season, row)
            row.place = ranked[index - 1].place if same else index + 1
            if index and not same:
                row.needs = _needed(season, row, ranked[index - 1])
        if season.divisions > 1:
            movers = min(season.movers, len(ranked) // 2)
            for row in ranked[:movers] if division > 1 else []:
                row.move = "up"
            for row in ranked[len(ranked) - movers:] if division < season.divisions and movers else []:
                row.move = "down"
        unranked = sorted((r for r in mine if not r.ranked), key=lambda r: (r.missing, -r.score, r.name))
        table += ranked + unranked
    return table


def _needed(season: Season, row: Row, above: Row) -> float | None:
    """The least next result (0-100, to 0.1) that lifts the row's score above the row above's;
    None when even 100 would not. A next result only competes with the ones counted now: it is
    added to them (fewer than N counted) or replaces the lowest when it beats it, so the score
    it gives is linear in it and the threshold is solved directly (then checked)."""
    kept = sorted((r.score for r, counted in zip(row.results, row.counted, strict=True) if counted), reverse=True)
    count = row.count + 1
    target = above.score
    capped = season.best_of is not None and len(kept) >= season.best_of
    slots = len(kept) if capped else len(kept) + 1
    if season.below_minimum == Season.BelowMinimum.ZEROS and count < season.min_results:
        slots = max(slots, season.min_results if season.best_of is None else min(season.best_of, season.min_results))
    total = sum(kept)
    lowest = kept[-1] if capped and kept else 0.0
    # Above the target: (total - lowest + r) / slots when capped (and r beats the lowest), else
    # (total + r) / slots.
    threshold = target * slots - total + lowest
    if capped:
        threshold = max(threshold, lowest)
    needed = math.floor(threshold * 10 + 1e-9) / 10 + 0.1
    needed = round(max(needed, 0.0), 1)

    def score_with(value: float) -> float:
        return _counted(season, [*row.results, Result("next", date.max, value, 0)], count)[1]

    while needed <= 100.0 and score_with(needed) <= target:  # float edges: one step more
        needed = round(needed + 0.1, 1)
    return needed if needed <= 100.0 else None


def table_json(rows: list[Row]) -> list[dict[str, Any]]:
    """The table as stored when the season closes (and as the API gives it)."""
    return [{"member": r.member, "name": r.name, "place": r.place if r.ranked else None, "ranked": r.ranked,
             "score": round(r.score, 2), "missing": r.missing, "needs": r.needs, "division": r.division,
             "count": r.count,
             "move": r.move,
             "results": [{"key": res.key, "day": res.day.isoformat(), "score": res.score, "deals": res.deals,
                          "counted": counted} for res, counted in zip(r.results, r.counted, strict=True)]}
            for r in rows]


def changes_since_close(season: Season, rows: list[Row]) -> list[str]:
    """The members whose row today differs from the frozen table (a correction after the close)."""
    if season.frozen is None:
        return []
    now = {r["member"]: (r["score"], r["place"]) for r in table_json(rows)}
    then = {r["member"]: (r["score"], r["place"]) for r in season.frozen}
    names = {r["member"]: r["name"] for r in [*season.frozen, *table_json(rows)]}
    return sorted(names[m] for m in set(now) | set(then) if now.get(m) != then.get(m))


# -- writes --------------------------------------------------------------------------------------


def season_create(*, club: Club, user: Any, name: str, start: date, end: date, game: str = "",
                  unit: str = Season.Unit.SESSION, best_of: int | None = None, min_results: int = 0,
                  below_minimum: str = Season.BelowMinimum.UNRANKED,
                  tie_breaks: Sequence[str] | None = None, divisions: int = 1, movers: int = 2,
                  divisions_from: Season | None = None) -> Season:
    """A new season; ``divisions_from``: a closed season whose promotions and relegations place
    the members in this one's divisions."""
    require_role(user, club, Role.ADMIN)
    name = name.strip()
    if not name:
        raise Refusal(_("A name is required."), code="name_missing")
    if end < start:
        raise Refusal(_("The season ends before it starts."))
    if game and game not in GAMES:
        raise Refusal(_("Unknown game “%(game)s”; choose one of %(games)s.") % {
            "game": game, "games": ", ".join(GAMES)})
    if unit not in Season.Unit.values or below_minimum not in Season.BelowMinimum.values:
        raise Refusal(_("Unknown season rule."))
    if best_of is not None and best_of < 1:
        raise Refusal(_("Best of: at least 1, or empty for every result."))
    chain = list(tie_breaks) if tie_breaks is not None else list(DEFAULT_TIE_BREAKS)
    if len(set(chain)) != len(chain) or any(t not in TIE_BREAKS for t in chain):
        raise Refusal(_("Tie-breaks: each once, from %(known)s.") % {"known": ", ".join(TIE_BREAKS)})
    if not 1 <= divisions <= 9 or movers < 1:
        raise Refusal(_("Divisions: 1 to 9, and at least one member going up and down."))
    with transaction.atomic():
        season = Season.objects.create(club=club, name=name[:80], game=game, start=start, end=end, unit=unit,
                                       best_of=best_of, min_results=min_results, below_minimum=below_minimum,
                                       tie_breaks=chain, divisions=divisions, movers=movers, created_by=user)
        if divisions_from is not None:
            SeasonDivision.objects.bulk_create(
                SeasonDivision(season=season, member_id=member, division=min(max(next_division or 1, 1), divisions))
                for member, next_division in SeasonDivision.objects.filter(
                    season=divisions_from, next_division__isnull=False).values_list("member_id", "next_division"))
    return season


def season_close(*, season: Season, user: Any) -> Season:
    """Freeze the table as it stands now."""
    require_role(user, season.club, Role.ADMIN)
    with transaction.atomic():
        season = Season.objects.select_for_update().select_related("club").get(pk=season.pk)
        if season.closed_at is not None:
            raise Refusal(_("This season is already closed."), code="closed")
        rows = season_table(season)
        season.frozen = table_json(rows)
        for row in rows:
            step = -1 if row.move == "up" else 1 if row.move == "down" else 0
            SeasonDivision.objects.update_or_create(season=season, member_id=row.member, defaults={
                "division": row.division, "next_division": row.division + step})
        season.closed_at = timezone.now()
        season.closed_by = user
        season.save(update_fields=["frozen", "closed_at", "closed_by"])
    return season


def division_place(*, season: Season, member: Member, division: int, user: Any) -> SeasonDivision:
    """Put a member in a division for the season (before it closes)."""
    require_role(user, season.club, Role.ADMIN)
    if season.closed_at is not None:
        raise Refusal(_("This season is already closed."), code="closed")
    if not 1 <= division <= season.divisions or member.club_id != season.club_id:
        raise Refusal(_("Choose a division from 1 to %(n)s and a member of this club.") % {"n": season.divisions})
    placed, _created = SeasonDivision.objects.update_or_create(season=season, member=member,
                                                             defaults={"division": division})
    return placed


def division_override(*, season: Season, member: Member, division: int, reason: str, user: Any) -> SeasonDivision:
    """An admin sends a member to another division than the standings did, saying why; the row
    keeps who did it and when (shown on the season's page)."""
    require_role(user, season.club, Role.ADMIN)
    if season.closed_at is None:
        raise Refusal(_("Promotion and relegation are decided when the season closes."))
    reason = reason.strip()
    if not reason:
        raise Refusal(_("Say why the standings are overridden."))
    if not 1 <= division <= season.divisions:
        raise Refusal(_("Choose a division from 1 to %(n)s and a member of this club.") % {"n": season.divisions})
    with transaction.atomic():
        placed = SeasonDivision.objects.select_for_update().filter(season=season, member=member).first()
        if placed is None:
            raise Refusal(_("%(name)s has no result in this season.") % {"name": member.name})
        placed.next_division = division
        placed.override_reason = reason[:200]
        placed.override_by = user
        placed.override_at = timezone.now()
        placed.save(update_fields=["next_division", "override_reason", "override_by", "override_at"])
    return placed
