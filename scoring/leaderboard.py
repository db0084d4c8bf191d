"""The club's leaderboard over a period, from the aggregates only.

All time is one ``MemberTotal`` row per member and game; a period sums the ``MemberMonth``
rows of its whole months and the ``MemberDay`` rows of a partial month at either edge
(custom periods), so its cost does not grow with the club's history.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import Exists, Q, QuerySet, Sum
from django.utils import timezone
from django.utils.translation import gettext as _

from referee.errors import Refusal
from referee.models import Club
from referee.rules import GAMES, competition_ranking

from . import ratings
from .figures import money_text, unit_of
from .models import OVERALL, MemberDay, MemberMonth, MemberTotal, Rating, RatingEvent, RatingStream

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
    """(member, game) -> totals over the period, from the aggregates only: all time from the
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
    totals = period_totals(club, game, chosen)
    per_member: dict[int, Totals] = defaultdict(Totals)
    for (member, _game), t in totals.items():
        per_member[member].name = t.name
        per_member[member].add(t.deals, t.wins, t.points, t.money)
    key = game or OVERALL
    # One query for the ratings, whether they are being recomputed and whether deals wait for
    # their rating step (uncorrelated EXISTS, evaluated once); only a club without ratings
    # asks the stream itself.
    stale_stream = RatingStream.objects.filter(club=club, game=key, stale=True)
    waiting = RatingEvent.objects.filter(club=club, game=key)
    rating_rows = {
        r.member_id: r
        for r in Rating.objects.filter(club=club, game=key, member_id__in=list(per_member)).annotate(
            stream_stale=Exists(stale_stream), stream_waiting=Exists(waiting)
        )
    }
    if rating_rows:
        first = next(iter(rating_rows.values()))
        stale, pending = first.stream_stale, first.stream_stale or first.stream_waiting
    else:
        stale, waits = Club.objects.filter(pk=club.pk).annotate(
            s=Exists(stale_stream), w=Exists(waiting)
        ).values_list("s", "w").get()
        pending = stale or waits
    if pending:
        ratings.request_settle_if_pending(club.pk, [key])
    unit = GAMES[game].unit if game is not None else None
    rows: list[dict[str, Any]] = []
    for member, t in per_member.items():
        if t.deals == 0 and t.points == 0 and t.money == 0:
            continue
        rating = rating_rows.get(member)
        mu, sigma = (rating.mu, rating.sigma) if rating else (ratings.MODEL.mu, ratings.MODEL.sigma)
        rows.append({
            "member": member, "name": t.name, "deals": t.deals, "wins": t.wins,
            "win_rate": round(t.wins / t.deals, 4) if t.deals else None,
            "points": t.points if unit is not None else None,
            # In the game's unit (the board's "unit"): deals won, points, chips, or losses.
            "total": unit.of(t.points) if unit is not None else None,
            "money": money_text(t.money) if include_money else None,
            "rating": rating_text(mu, sigma, rating.deals if rating else 0),
        })
    rows.sort(key=lambda row: (-row["rating"]["ordinal"], -row["deals"], row["name"]))
    ranked = [row for row in rows if row["deals"] >= min_deals]
    unranked = [row for row in rows if row["deals"] < min_deals]
    ordinals = [row["rating"]["ordinal"] for row in ranked]
    for row, place in zip(ranked, competition_ranking(ordinals)):
        row["rank"] = place
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


def _iso(day: date | None) -> str | None:
    return None if day is None else day.isoformat()
