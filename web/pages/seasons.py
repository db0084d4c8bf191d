"""The club's seasons: the list and a new season's rules (admins), a season's table (every
member; ``?wall=1`` for the wall screen), and closing it (admins)."""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from referee.errors import Refusal
from referee.models import GAME_CHOICES, Member, Role, game_name
from referee.permissions import club_role
from referee.safe_input import read_int
from scoring import seasons
from scoring.models import Season, SeasonDivision
from web.pages.access import club_or_404


def _date(text: str) -> date | None:
    try:
        return date.fromisoformat(text) if len(text) == 10 else None
    except ValueError:
        return None


@login_required
def seasons_page(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = club_or_404(request.user, slug)
    error, status = "", 200
    today = timezone.localdate()
    values: dict[str, Any] = {"name": "", "start": today.replace(day=1).isoformat(),
                              "end": today.replace(month=12, day=31).isoformat(), "game": "", "unit": "session",
                              "best_of": "", "min_results": "0", "below_minimum": "unranked",
                              "tie_breaks": list(seasons.DEFAULT_TIE_BREAKS), "divisions": "1", "movers": "2"}
    if request.method == "POST":
        post = request.POST
        values = {key: post.get(key, "").strip() for key in values if key != "tie_breaks"}
        values["tie_breaks"] = [t for t in post.getlist("tie_breaks") if t]
        try:
            start, end = _date(values["start"]), _date(values["end"])
            if start is None or end is None:
                raise Refusal(_("Give the first and the last day as dates."))
            season = seasons.season_create(
                club=club, user=request.user, name=values["name"], start=start, end=end, game=values["game"],
                unit=values["unit"], best_of=_small(values["best_of"]) if values["best_of"] else None,
                min_results=_small(values["min_results"]) or 0, below_minimum=values["below_minimum"],
                tie_breaks=values["tie_breaks"], divisions=_small(values["divisions"]) or 1,
                movers=_small(values["movers"]) or 2)
        except Refusal as refusal:
            error, status = refusal.message, refusal.status
        else:
            return redirect("season", pk=season.pk)
    return render(request, "scoring/seasons.html", {
        "club": club, "role": role, "is_admin": role == Role.ADMIN, "error": error, "values": values,
        "seasons": Season.objects.filter(club=club), "games": GAME_CHOICES,
        "units": Season.Unit.choices, "below": Season.BelowMinimum.choices,
        "tie_breaks": [(key, str(label)) for key, label in seasons.TIE_BREAKS.items()],
    }, status=status)


def _small(text: str) -> int | None:
    """A season's count as the form sends it (at most four digits: the fields are small integers)."""
    return read_int(text, high=9999)


def _season_or_404(request: HttpRequest, pk: int) -> tuple[Season, str]:
    season = Season.objects.select_related("club").filter(pk=pk).first()
    role = club_role(request.user, season.club) if season is not None else None
    if season is None or role is None:
        raise Http404(_("Not found."))
    return season, role


def season_context(season: Season) -> dict[str, Any]:
    rows = seasons.season_table(season)
    return {
        "season": season, "club": season.club, "rows": rows,
        "game_name": game_name(season.game) if season.game else _("All games"),
        "changes": seasons.changes_since_close(season, rows),
        "frozen": season.frozen,
        "chain": [str(seasons.TIE_BREAKS[t]) for t in season.tie_breaks if t in seasons.TIE_BREAKS],
        "overrides": SeasonDivision.objects.filter(season=season, override_at__isnull=False).select_related(
            "member", "override_by"),
        "members": Member.objects.filter(club=season.club, active=True).exclude(
            pk__in=[r.member for r in rows]).order_by("name"),
    }


@login_required
def season_page(request: HttpRequest, pk: int) -> HttpResponse:
    season, role = _season_or_404(request, pk)
    context = {**season_context(season), "role": role, "is_admin": role == Role.ADMIN,
               "wall": request.GET.get("wall") == "1", "error": ""}
    return render(request, "scoring/season.html", context)


@login_required
@require_POST
def season_close(request: HttpRequest, pk: int) -> HttpResponse:
    season, role = _season_or_404(request, pk)
    try:
        seasons.season_close(season=season, user=request.user)
    except Refusal as refusal:
        context = {**season_context(season), "role": role, "is_admin": role == Role.ADMIN, "wall": False,
                   "error": refusal.message}
        return render(request, "scoring/season.html", context, status=refusal.status)
    return redirect(reverse("season", args=[season.pk]))


@login_required
@require_POST
def season_division(request: HttpRequest, pk: int) -> HttpResponse:
    """An admin places a member in a division (an open season) or overrides where the standings
    send them (a closed one, with a reason)."""
    season, role = _season_or_404(request, pk)
    member = Member.objects.filter(club=season.club, pk=_small(request.POST.get("member", "")) or 0).first()
    division = _small(request.POST.get("division", "")) or 0
    try:
        if member is None:
            raise Refusal(_("Choose a division from 1 to %(n)s and a member of this club.") % {"n": season.divisions})
        if season.closed_at is None:
            seasons.division_place(season=season, member=member, division=division, user=request.user)
        else:
            seasons.division_override(season=season, member=member, division=division,
                                      reason=request.POST.get("reason", ""), user=request.user)
    except Refusal as refusal:
        context = {**season_context(season), "role": role, "is_admin": role == Role.ADMIN, "wall": False,
                   "error": refusal.message}
        return render(request, "scoring/season.html", context, status=refusal.status)
    return redirect(reverse("season", args=[season.pk]))
