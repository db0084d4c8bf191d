"""The club's leaderboard over a period, from the aggregates only.

All time is one ``MemberTotal`` row per member and game; a period sums the ``MemberMonth``
rows of its whole months and the ``MemberDay`` rows of a partial month at either edge
(custom periods), so its cost does not grow with the club's history.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.db import connection
from django.db.models import Max, Q, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from referee.errors import Refusal
from referee.models import Club, Member
from referee.rules import GAMES
from scoring import board_version
from scoring.ratings import rating as ratings

from .figures import money_text, unit_of
from .models import OVERALL, MemberDay, MemberMonth, MemberTotal, Rating, RatingEvent, RatingSettings, RatingStream

DEFAULT_MIN_DEALS = 10
PERIODS = ("all", "year", "month", "custom")


@dataclass(frozen=True)
class Period:
    name: str
    start: date | None  # inclusive
    end: date | None  # inclusive


def period_of(name: str, start: date | None = None, end: date | None = None, today: date | None = None) -> Period:
    today = today or timezone.localdate()
    if name == "all":
        return Period(name, None, None)
    if name == "year":
        return Period(name, date(today.year, 1, 1), date(today.year, 12, 31))
    if name == "month":
        return Period(name, date(today.year, today.month, 1), _next_month(today) - timedelta(days=1))
    if name == "custom":
        if start is None or end is None:
            raise Refusal(_("A custom period needs both start and end dates (YYYY-MM-DD)."))
        if start > end:
            raise Refusal(_("The period's start (%(start)s) is after its end (%(end)s).") % {
                "start": start.isoformat(), "end": end.isoformat()})
        return Period(name, start, end)
    raise Refusal(_("Unknown period “%(period)s”; choose one of %(periods)s.") % {
        "period": name, "periods": ", ".join(PERIODS)})


def _month_start(day: date) -> date:
    return date(day.year, day.month, 1)


def _next_month(day: date) -> date:
    return date(day.year + (day.month == 12), day.month % 12 + 1, 1)


@dataclass
class Totals:
    name: str = ""
    deals: int = 0
    wins: int = 0
    points: int = 0
    money: Decimal = Decimal(0)

    def add(self, deals: int, wins: int, points: int, money: Decimal) -> None:
        self.deals += deals
        self.wins += wins
        self.points += points
        self.money += money


def period_totals(club: Club, game: str | None, period: Period,
                  members: Iterable[int] | None = None) -> dict[tuple[int, str], Totals]:
    """(member, game) -> totals over the period (a member's history, ``scoring.members``; the
    board sums per member in one statement: ``board_totals``), from the aggregates only: all time from the
    all-time rows; otherwise whole months from the month rows and the days of a partial month
    at either edge from the day rows (results and what closes settled alike)."""
    totals: dict[tuple[int, str], Totals] = defaultdict(Totals)
    sources: list[QuerySet[Any]] = []
    if period.start is None or period.end is None:
        sources.append(MemberTotal.objects.filter(club=club))
    else:
        first_whole = period.start if period.start.day == 1 else _next_month(period.start)
        after = period.end + timedelta(days=1)
        end_whole = _month_start(after)  # the first month not wholly inside the period
        if first_whole < end_whole:
            sources.append(MemberMonth.objects.filter(club=club, month__gte=first_whole, month__lt=end_whole))
            edges = Q(day__gte=period.start, day__lt=first_whole) | Q(day__gte=end_whole, day__lt=after)
        else:
            edges = Q(day__gte=period.start, day__lt=after)
        sources.append(MemberDay.objects.filter(edges, club=club))
    for rows in sources:
        if game is not None:
            rows = rows.filter(game=game)
        if members is not None:
            rows = rows.filter(member__in=list(members))
        for row in rows.values("member_id", "member__name", "game").annotate(
            d=Sum("deals"), w=Sum("wins"), p=Sum("points"), m=Sum("money")
        ):
            total = totals[(row["member_id"], row["game"])]
            total.name = row["member__name"]
            total.add(row["d"], row["w"], row["p"], row["m"])
    return totals


#: A member's totals over a period on the board: deals, wins, points (in the game's unit), money.
BoardTotals = tuple[int, int, int, Decimal]

CENT = Decimal("0.01")


def board_totals(club: Club, game: str | None, period: Period) -> dict[int, BoardTotals]:
    """member -> totals over the period (one game, or every game together), over the aggregates
    only: all time from the all-time rows; otherwise whole months from the month rows and the
    days of a partial month at either edge from the day rows (results and what closes settled
    alike). Cached when it may be (``board_version``): as they stand under the club's current
    version, and the part before this month under its past version, so that after a deal only
    the period's days in this month are summed again (none for a past month)."""
    # The shape of what is kept is in the key's name (a deploy that changes it reads no old entry).
    key = f"board-split:{club.pk}:{club.created_at.timestamp()}:{game or ''}:{_iso(period.start)}:{_iso(period.end)}"
    versions, entry = board_version.cached(club.pk, key)
    # (current version, past version, where the past ends, its totals, the whole period's), money in cents:
    # a Decimal pickles slowly (a few milliseconds for a club's 120 members).
    stored = entry if versions is not None and isinstance(entry, tuple) and len(entry) == 5 else None
    if stored is not None and versions is not None and stored[0] == versions.current:
        return _from_cents(stored[4])
    boundary = board_version.recent_start()
    past, recent = _split(period, boundary)
    if stored is not None and versions is not None and stored[1:3] == (versions.past, boundary):
        past_cents = stored[3]
    else:
        past_cents = _cents(_sum_aggregates(club.pk, game, past)) if past is not None else []
    recent_cents = _cents(_sum_aggregates(club.pk, game, recent)) if recent is not None else []
    cents = _add_cents(past_cents, recent_cents) if past_cents else recent_cents
    if versions is not None:
        board_version.put(key, (versions.current, versions.past, boundary, past_cents, cents))
    return _from_cents(cents)


#: A member's totals with the money in cents: what the cache keeps.
Cents = list[tuple[int, int, int, int, int]]


def _cents(totals: dict[int, BoardTotals]) -> Cents:
    return [(member, d, w, p, int(m.scaleb(2))) for member, (d, w, p, m) in totals.items()]


def _from_cents(cents: Cents) -> dict[int, BoardTotals]:
    return {member: (d, w, p, Decimal(money).scaleb(-2)) for member, d, w, p, money in cents}


def _add_cents(past: Cents, recent: Cents) -> Cents:
    """The sum of both parts per member, the past's members first (in its order), then new ones."""
    totals = {member: [d, w, p, m] for member, d, w, p, m in past}
    for member, d, w, p, m in recent:
        row = totals.get(member)
        if row is None:
            totals[member] = [d, w, p, m]
        else:
            row[0] += d
            row[1] += w
            row[2] += p
            row[3] += m
    return [(member, d, w, p, m) for member, (d, w, p, m) in totals.items()]


def _split(period: Period, boundary: date) -> tuple[Period | None, Period | None]:
    """The period's days before ``boundary`` and from it on (None: no such days). All time is
    one part, the recent one (the all-time rows are a few per member: summed again after each change)."""
    if period.start is None or period.end is None:
        return None, period
    if period.end < boundary:
        return period, None
    if period.start >= boundary:
        return None, period
    return (Period(period.name, period.start, boundary - timedelta(days=1)),
            Period(period.name, boundary, period.end))


def _sum_aggregates(club_id: int, game: str | None, period: Period) -> dict[int, BoardTotals]:
    sums = "SUM(deals), SUM(wins), SUM(points), SUM(money)"
    of_game = " AND game = %s" if game is not None else ""
    games = [game] if game is not None else []
    if period.start is None or period.end is None:
        sql = (f"SELECT member_id, {sums} FROM {MemberTotal._meta.db_table}"  # noqa: S608 - names from models
               f" WHERE club_id = %s{of_game} GROUP BY member_id")
        params: list[Any] = [club_id, *games]
    else:
        first_whole = period.start if period.start.day == 1 else _next_month(period.start)
        after = period.end + timedelta(days=1)
        end_whole = _month_start(after)  # the first month not wholly inside the period
        columns = "member_id, deals, wins, points, money"
        parts = []
        params = []
        if first_whole < end_whole:
            parts.append(f"SELECT {columns} FROM {MemberMonth._meta.db_table}"  # noqa: S608
                         f" WHERE club_id = %s{of_game} AND month >= %s AND month < %s")
            params += [club_id, *games, first_whole, end_whole]
            edges = "((day >= %s AND day < %s) OR (day >= %s AND day < %s))"
            days: list[Any] = [period.start, first_whole, end_whole, after]
        else:
            edges, days = "day >= %s AND day < %s", [period.start, after]
        parts.append(f"SELECT {columns} FROM {MemberDay._meta.db_table}"  # noqa: S608
                     f" WHERE club_id = %s{of_game} AND {edges}")
        params += [club_id, *games, *days]
        sql = f"SELECT member_id, {sums} FROM ({' UNION ALL '.join(parts)}) AS rows GROUP BY member_id"  # noqa: S608
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        rows = cursor.fetchall()
    # SQLite sums decimals as floats: back to cents, as the ORM's Sum would.
    return {member: (int(d), int(w), int(p), m if isinstance(m, Decimal) else Decimal(str(m)).quantize(CENT))
            for member, d, w, p, m in rows}


@dataclass(frozen=True)
class Idleness:
    per_week: float
    weeks: dict[int, int]


def idleness(club_id: int, game: str | None) -> Idleness:
    """How many whole weeks each member has not played (the game, or any), when the club lets
    uncertainty grow while members are away (``RatingSettings``); nothing is read otherwise."""
    per_week = RatingSettings.objects.filter(club_id=club_id).values_list("idle_sigma_per_week", flat=True).first()
    if not per_week:
        return Idleness(0.0, {})
    days = MemberDay.objects.filter(club_id=club_id)
    if game is not None:
        days = days.filter(game=game)
    today = timezone.localdate()
    weeks = {member: (today - last).days // 7 for member, last in days.values("member_id").annotate(
        last=Max("day")).values_list("member_id", "last")}
    return Idleness(per_week, {member: w for member, w in weeks.items() if w > 0})


def rating_text(mu: float, sigma: float, deals: int) -> dict[str, Any]:
    return {"mu": round(mu, 3), "sigma": round(sigma, 3), "ordinal": round(ratings.ordinal(mu, sigma), 3),
            "deals": deals}


def leaderboard(
    club: Club,
    game: str | None = None,
    period: str = "all",
    start: date | None = None,
    end: date | None = None,
    min_deals: int = DEFAULT_MIN_DEALS,
    include_money: bool = True,
) -> dict[str, Any]:
    """Deals, wins, win rate, points (one game), money and rating per member, ranked by rating.

    Members with fewer than ``min_deals`` deals in the period are listed as unranked. The
    rating is the member's current one (all time); the period chooses the totals.
    """
    if game is not None and game not in GAMES:
        raise Refusal(
            _("Unknown game “%(game)s”; choose one of %(games)s.") % {"game": game, "games": ", ".join(GAMES)}
        )
    if min_deals < 0:
        raise Refusal(_("min_deals must be 0 or more."))
    chosen = period_of(period, start, end)
    totals = board_totals(club, game, chosen)
    key = game or OVERALL
    people, stale, pending = _people(club.pk, key)
    if pending:
        ratings.request_settle_if_pending(club.pk, [key])
    unit = GAMES[game].unit if game is not None else None
    idle = idleness(club.pk, game)
    rows: list[dict[str, Any]] = []
    for member, (deals, wins, points, money) in totals.items():
        person = people.get(member)
        if person is None or (deals == 0 and points == 0 and money == 0):
            continue  # nothing in the period (or a member no longer in the club: no name to show)
        name, mu, sigma, rated = person
        weeks = idle.weeks.get(member, 0)
        if weeks and idle.per_week:
            sigma = math.sqrt(sigma * sigma + (weeks * idle.per_week) ** 2)  # grown while away
        rows.append({
            "member": member, "name": name, "deals": deals, "wins": wins,
            "win_rate": round(wins / deals, 4) if deals else None,
            "points": points if unit is not None else None,
            # In the game's unit (the board's "unit"): deals won, points, chips, or losses.
            "total": unit.of(points) if unit is not None else None,
            "money": money_text(money) if include_money else None,
            "rating": rating_text(mu, sigma, rated),
            # Only where the club lets uncertainty grow while away: the answer is otherwise as it was.
            **({"idle_weeks": weeks} if idle.per_week else {}),
        })
    rows.sort(key=lambda row: (-row["rating"]["ordinal"], -row["deals"], row["name"]))
    ranked = [row for row in rows if row["deals"] >= min_deals]
    unranked = [row for row in rows if row["deals"] < min_deals]
    # Places 1, 2, 2, 4 by ordinal (referee.rules.competition_ranking's), in one pass over the
    # rows already sorted by it: that function compares every pair (14,400 for 120 members).
    for index, row in enumerate(ranked):
        same = index and row["rating"]["ordinal"] == ranked[index - 1]["rating"]["ordinal"]
        row["rank"] = ranked[index - 1]["rank"] if same else index + 1
    for row in unranked:
        row["rank"] = None
    unit_key, unit_label = unit_of(game) if game else ("deals", _("deals"))
    return {
        "club": club.slug,
        "game": game,
        "period": {"name": chosen.name, "start": _iso(chosen.start), "end": _iso(chosen.end)},
        "min_deals": min_deals,
        "unit": unit_key,
        "unit_label": unit_label,
        "currency": club.currency,
        "ratings_stale": stale,
        # Deals wait for their rating step (after commit), or a recompute: the ratings shown
        # are those before them.
        "ratings_pending": pending,
        "ranked": ranked,
        "unranked": unranked,
    }


#: The club's members with their current rating in one stream, and whether that stream is being
#: recomputed or has deals waiting for their rating step, in one statement (the leaderboard's
#: every read: never cached, so a name or a rating is never behind). The first row carries
#: the stream's two flags (so that a club without members still gets them), the others a
#: member each. Written out: the ORM took two queries and its compiling more than the work.
PEOPLE_SQL = (
    "SELECT NULL, NULL, NULL, NULL, NULL,"
    f" EXISTS (SELECT 1 FROM {RatingStream._meta.db_table} s WHERE s.club_id = %s AND s.game = %s AND s.stale),"
    f" EXISTS (SELECT 1 FROM {RatingEvent._meta.db_table} e WHERE e.club_id = %s AND e.game = %s)"
    " UNION ALL"
    f" SELECT m.id, m.name, r.mu, r.sigma, r.deals, NULL, NULL FROM {Member._meta.db_table} m"
    f" LEFT JOIN {Rating._meta.db_table} r ON r.member_id = m.id AND r.club_id = %s AND r.game = %s"
    " WHERE m.club_id = %s"
)


def _people(club_id: int, stream: str) -> tuple[dict[int, tuple[str, float, float, int]], bool, bool]:
    """member -> (name, mu, sigma, rated deals) (a newcomer's rating for the unrated), whether
    the stream is stale, and whether its ratings are pending (stale, or deals wait)."""
    with connection.cursor() as cursor:
        cursor.execute(PEOPLE_SQL, [club_id, stream, club_id, stream, club_id, stream, club_id])
        rows = cursor.fetchall()
    people = {}
    stale = waiting = False
    for member, name, mu, sigma, rated, is_stale, waits in rows:
        if member is None:
            stale, waiting = bool(is_stale), bool(waits)
        elif mu is None:
            people[member] = (name, ratings.MODEL.mu, ratings.MODEL.sigma, 0)
        else:
            people[member] = (name, mu, sigma, rated)
    return people, stale, stale or waiting


def _iso(day: date | None) -> str | None:
    return None if day is None else day.isoformat()
