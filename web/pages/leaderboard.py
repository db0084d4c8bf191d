"""Scoring's pages: the club's leaderboard (a wall screen too) and a member's history with
head-to-head.

Figures come from ``scoring.selectors`` (fixed query counts, JSON-safe dicts); these views
only choose what to show and in which language. A public leaderboard is open to anyone;
everything else is for the club's members, and a private club is a 404 to outsiders.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from referee import selectors as referee_selectors
from referee.errors import Refusal
from referee.models import GAME_CHOICES, Club, Role
from referee.permissions import club_role
from referee.rules import GAMES
from referee.safe_input import read_date, read_int
from scoring import page_selectors
from scoring import selectors as scoring
from scoring.models import OVERALL, RatingSettings
from scoring.ratings import form as rating_form
from scoring.ratings import history as rating_history
from scoring.settlement import debts

#: How many of a member's latest sessions their page lists.
MEMBER_SESSIONS_SHOWN = 30
#: The most deals a leaderboard may ask a ranked player to have played.
MAX_MIN_DEALS = 1_000_000


def _game_names() -> dict[str, str]:
    # Read when asked: a game registered after start-up (a plug-in) is named too.
    return dict(GAME_CHOICES)


# -- the club's leaderboard ------------------------------------------------------------------------


def leaderboard_context(request: HttpRequest, club: Club, role: str | None) -> dict[str, Any]:
    game = request.GET.get("game") or None
    period = request.GET.get("period") or "all"
    start_text, end_text = request.GET.get("start", ""), request.GET.get("end", "")
    wall = request.GET.get("wall") == "1"
    error = None
    # As the API bounds it; anything else shows the default.
    min_deals = read_int(request.GET.get("min_deals", ""), high=MAX_MIN_DEALS)
    if min_deals is None:
        min_deals = scoring.DEFAULT_MIN_DEALS
    start, end = read_date(start_text), read_date(end_text)
    if period == "custom" and (start is None or end is None):
        error = _("A custom period needs both start and end dates (YYYY-MM-DD).")
    board = None
    if error is None:
        try:
            board = scoring.leaderboard(
                club, game=game, period=period, start=start, end=end, min_deals=min_deals,
                include_money=role is not None,
            )
        except Refusal as refusal:
            error = refusal.message
    base = reverse("leaderboard", args=[club.slug])
    period_names = {"all": _("All time"), "year": _("This year"), "month": _("This month")}

    def link(**changes: Any) -> str:
        params = {"game": game or "", "period": period, "start": start_text, "end": end_text,
                  "wall": "1" if wall else "", "min_deals": request.GET.get("min_deals", "")}
        params.update({k: ("" if v is None else str(v)) for k, v in changes.items()})
        query = "&".join(f"{k}={v}" for k, v in params.items() if v)
        return base + ("?" + query if query else "")

    return {
        "club": club, "role": role, "board": board, "error": error, "game": game, "period": period,
        "start": start_text, "end": end_text, "wall": wall, "min_deals": min_deals,
        "game_name": _game_names().get(game or "", _("All games")),
        "game_tabs": [{"label": _("All games"), "href": link(game=None), "current": game is None}] + [
            {"label": label, "href": link(game=slug), "current": game == slug} for slug, label in GAME_CHOICES
        ],
        "period_tabs": [
            {"label": label, "href": link(period=name, start=None, end=None), "current": period == name}
            for name, label in period_names.items()
        ],
        "period_name": period_names.get(period, f"{start_text} – {end_text}"),
        "wall_href": link(wall="1" if not wall else None),
        "show_money": role is not None,
        "watch_url": link(),
        "lines": _top_lines(club, game, board) if request.GET.get("lines") == "1" else "",
        "idle_per_week": RatingSettings.objects.filter(club=club).values_list(
            "idle_sigma_per_week", flat=True).first() or 0,
        "lines_href": base + ("?" + "&".join(f"{k}={v}" for k, v in (("game", game or ""), ("lines", "1")) if v)),
    }


def _top_lines(club: Club, game: str | None, board: dict[str, Any] | None) -> str:
    """The top ten's cautious ratings over time, one line each (asked for with ``lines=1``)."""
    if not board or not board.get("ranked"):
        return ""
    top = [(row["member"], row["name"]) for row in board["ranked"][:10]]
    # Our own SVG: numbers, and names escaped.
    return mark_safe(rating_history.top_lines_svg(club_id=club.pk, game=game or OVERALL, members=top,
                                                  label=_("The cautious rating of the top ten, deal by deal")))


def leaderboard_page(request: HttpRequest, slug: str) -> HttpResponse:
    club = referee_selectors.club_by_slug(slug)
    role = club_role(request.user, club) if club is not None else None
    if club is None or (role is None and not club.public_leaderboard):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise Http404(_("Not found."))
    context = leaderboard_context(request, club, role)
    # A watching page asks again with ``v`` (the version it shows) and swaps in the board alone.
    template = "scoring/leaderboard_board.html" if request.GET.get("v") is not None else "scoring/leaderboard.html"
    return render(request, template, context, status=400 if context["error"] else 200)


# -- a member's history and head-to-head -----------------------------------------------------------


def member_page(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    club = referee_selectors.club_by_slug(slug)
    role = club_role(request.user, club) if club is not None else None
    if club is None or role is None:
        raise Http404(_("Not found."))
    member = page_selectors.club_member(club, member_id)
    if member is None:
        raise Http404(_("Not found."))
    history = scoring.member_history(member, sessions_limit=MEMBER_SESSIONS_SHOWN)
    others = page_selectors.other_members(club, member)
    versus = None
    error = None
    vs = request.GET.get("vs")
    if vs:
        other = page_selectors.club_member(club, read_int(vs) or 0)
        if other is None:
            error = _("Choose another member of this club.")
        else:
            try:
                versus = scoring.head_to_head(club, member, other)
            except Refusal as refusal:
                error = refusal.message
    names = _game_names()
    # A game counted in chips (its engine's Unit) shows them under "Chips", never summed as points.
    for row in (*history["sessions"], *history["months"]):
        row["game_name"] = names.get(row["game"], row["game"])
        row["in_chips"] = _in_chips(row["game"])
    games = [{"slug": slug_, "name": names.get(slug_, slug_), "in_chips": _in_chips(slug_),
              **figures} for slug_, figures in history["games"].items()]
    any_chips = any(row["in_chips"] for row in (*games, *history["sessions"], *history["months"]))
    if versus:
        versus["rows"] = [{"name": names.get(g, g), **figures} for g, figures in versus["games"].items()]
    # The rating history of one stream: the game asked for, else all games together.
    asked = request.GET.get("chart", "")
    chart_game = asked if asked in history["games"] else OVERALL
    points = rating_history.member_points(club_id=club.pk, member_id=member.pk, game=chart_game)
    if versus:
        # Today's chance in the game they played most together (the ratings of that game).
        most = max(versus["games"].items(), key=lambda item: item[1]["deals"], default=None)
        if most is not None:
            versus["chance"] = rating_form.chance(club_id=club.pk, game=most[0], a=member.pk, b=versus["b"]["member"])
            versus["chance_game"] = names.get(most[0], most[0])
    rival, nemesis = rating_form.rival_and_nemesis(member)
    form = rating_form.form(points)
    balance = debts.balances(club).get(member.pk)
    session_url = reverse("session", args=[999999999]).replace("999999999", "{}")
    chart = mark_safe(rating_history.chart_svg(  # our own SVG: numbers, the label escaped
        points, session_url=session_url,
        label=_("The rating after each of %(n)s rated deals") % {"n": len(points)},
        session_label=_("Open the session: rating {rating} after it, {deals} deals")))
    return render(request, "scoring/member.html", {
        "club": club, "member": member, "history": history, "games": games, "others": others,
        "versus": versus, "vs": vs, "error": error, "show_money": True,
        "chart": chart, "chart_points": len(points), "chart_game": chart_game,
        "chart_game_name": names.get(chart_game, _("All games")),
        "chart_last": points[-1] if points else None,
        "chart_sessions": len(rating_history.sessions_of(points)),
        "form": form, "form_trend": _trend_svg(form),
        "rival": rival, "nemesis": nemesis, "min_together": rating_form.MIN_TOGETHER,
        "balance": balance, "currency": club.currency, "any_chips": any_chips,
    }, status=400 if error else 200)


def _in_chips(game: str) -> bool:
    """Whether the game's totals count chips (its engine's unit), not points."""
    rules = GAMES.get(game)
    return rules is not None and rules.unit.key == "chips"


def _trend_svg(form: rating_form.Form | None) -> str:
    """The form's last deals as a small line (no words: the sentence beside it says it)."""
    if form is None or len(form.trend) < 2:
        return ""
    low, high = min(form.trend), max(form.trend)
    span = max(high - low, 0.5)
    step = 96 / (len(form.trend) - 1)
    points = " ".join(f"{i * step + 2:.1f},{22 - (v - low) / span * 20:.1f}" for i, v in enumerate(form.trend))
    colour = "#2ca02c" if form.change >= 0 else "#d62728"
    return mark_safe(  # our own SVG: numbers only
        f'<svg class="form-trend" viewBox="0 0 100 24" width="100" height="24" aria-hidden="true">'
        f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2.5"/></svg>')


@login_required
@require_POST
def rating_settings(request: HttpRequest, slug: str) -> HttpResponse:
    """The club's rating settings (admins): how much uncertainty grows per week away."""
    club = referee_selectors.club_by_slug(slug)
    role = club_role(request.user, club) if club is not None else None
    if club is None or role is None:
        raise Http404(_("Not found."))
    if role != Role.ADMIN:
        return HttpResponse(_("Only the club's admins can manage members and roles."), status=403)
    try:
        value = float(request.POST.get("idle_sigma_per_week", "0").replace(",", "."))
    except ValueError:
        value = -1.0
    if not 0 <= value <= 5:
        return HttpResponse(_("Give a number from 0 to 5."), status=400)
    RatingSettings.objects.update_or_create(club=club, defaults={"idle_sigma_per_week": value})
    return redirect(reverse("leaderboard", args=[club.slug]) + "#rating-settings")
