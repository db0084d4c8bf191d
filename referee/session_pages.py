"""The pages that read the scores: a session (standings, ledger, settlement, summary), the club's
leaderboard (a wall screen too), a member's history and head-to-head.

Figures come from ``scoring.selectors`` (fixed query counts, JSON-safe dicts); these views
only choose what to show and in which language. Phones watching a session poll
``/sessions/{id}/live/`` and get the new fragment only when something changed.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _

from referee.rules import GAMES
from scoring import selectors as scoring

from . import selectors
from .errors import Refusal
from .models import GAME_CHOICES, ROLE_RANK, Member, Role, Session, SessionStatus
from .permissions import club_role

GAME_NAMES = dict(GAME_CHOICES)


def _session_or_404(user: Any, pk: int) -> tuple[Session, str]:
    session = selectors.session_for_page(user, pk)
    role = club_role(user, session.club) if session is not None else None
    if session is None or role is None:
        raise Http404(_("Not found."))
    return session, role


def _summary_context(session: Session) -> dict[str, Any]:
    from scoring.models import SessionSummary
    from scoring.summary import summary_html
    from scoring.summary_services import summary_status

    summary = SessionSummary.objects.filter(session=session).first()
    if summary is None:
        return {"summary": None}
    status = summary_status(summary, session)
    status.pop("summary", None)
    return {"summary": status, "summary_html": summary_html(session) if summary.data is not None else ""}


def session_context(session: Session, role: str) -> dict[str, Any]:
    names = selectors.seat_names_of(session)
    standing = scoring.standings(session)
    ledger = scoring.ledger(session)
    settlement = scoring.settlement(session)
    running = selectors.running_deal(session)
    deals_count = session.deals.count()
    can_record = ROLE_RANK[Role(role)] >= ROLE_RANK[Role.SCORER] and session.status == SessionStatus.OPEN
    check = ledger["zero_sum_check"]
    unit_key = ledger["unit"]
    context: dict[str, Any] = {
        "session": session, "club": session.club, "names": names, "game_name": GAME_NAMES[session.game],
        "standings": standing, "ledger": ledger, "settlement": settlement, "running": running,
        "deals_count": deals_count, "can_record": can_record, "role": role,
        "is_open": session.status == SessionStatus.OPEN,
        "ledger_nets": [{"name": row["name"], "value": row[unit_key], "money": row["money"]} for row in ledger["nets"]],
        "zero_sum": check,
        # Stakes per chip, chips left on prize cards: what the game counts in (Mičiganas).
        "in_chips": GAMES[session.game].unit.key == "chips",
        "version": selectors.session_version(session.pk),
        "csv_links": [
            (_("Standings"), reverse("api-session-standings", args=[session.pk]) + "?format=csv"),
            (_("Ledger"), reverse("api-session-ledger", args=[session.pk]) + "?format=csv"),
            (_("Settlement"), reverse("api-session-settlement", args=[session.pk]) + "?format=csv"),
        ],
    }
    context.update(_summary_context(session))
    if context["summary"] and context["summary"]["state"] == "done" and not context["summary"]["outdated"]:
        context["csv_links"].append((_("Summary"), context["summary"]["links"]["csv"]))
    return context


def session_page_response(request: HttpRequest, session: Session, *, error: str | None = None,
                          status: int = 200) -> HttpResponse:
    role = club_role(request.user, session.club) or Role.MEMBER
    context = session_context(session, role)
    context["error"] = error
    return render(request, "referee/session.html", context, status=status)


@login_required
def session_page(request: HttpRequest, pk: int) -> HttpResponse:
    session, _role = _session_or_404(request.user, pk)
    return session_page_response(request, session)


def session_live(request: HttpRequest, pk: int) -> HttpResponse:
    """204 while nothing changed (a few small queries), else the session's live fragment."""
    if not request.user.is_authenticated:
        return HttpResponse(status=403)
    session, role = _session_or_404(request.user, pk)
    version = selectors.session_version(session.pk)
    if request.GET.get("v") == version:
        response = HttpResponse(status=204)
    else:
        response = render(request, "referee/session_live.html", session_context(session, role))
    response["X-Version"] = version
    response["Cache-Control"] = "no-store"
    return response


# -- the club's leaderboard ------------------------------------------------------------------------


def _date(text: str | None) -> date | None:
    if not text:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


def leaderboard_context(request: HttpRequest, club: Any, role: str | None) -> dict[str, Any]:
    game = request.GET.get("game") or None
    period = request.GET.get("period") or "all"
    start_text, end_text = request.GET.get("start", ""), request.GET.get("end", "")
    wall = request.GET.get("wall") == "1"
    error = None
    try:
        min_deals = int(request.GET.get("min_deals", scoring.DEFAULT_MIN_DEALS))
    except ValueError:
        min_deals = scoring.DEFAULT_MIN_DEALS
    if period == "custom" and (_date(start_text) is None or _date(end_text) is None):
        error = _("A custom period needs both start and end dates (YYYY-MM-DD).")
    board = None
    if error is None:
        try:
            board = scoring.leaderboard(
                club, game=game, period=period, start=_date(start_text), end=_date(end_text), min_deals=min_deals,
                include_money=role is not None,
            )
        except Refusal as refusal:
            error = refusal.message
    base = reverse("leaderboard", args=[club.slug])

    def link(**changes: Any) -> str:
        params = {"game": game or "", "period": period, "start": start_text, "end": end_text,
                  "wall": "1" if wall else "", "min_deals": request.GET.get("min_deals", "")}
        params.update({k: ("" if v is None else str(v)) for k, v in changes.items()})
        query = "&".join(f"{k}={v}" for k, v in params.items() if v)
        return base + ("?" + query if query else "")

    return {
        "club": club, "role": role, "board": board, "error": error, "game": game, "period": period,
        "start": start_text, "end": end_text, "wall": wall, "min_deals": min_deals,
        "game_name": GAME_NAMES.get(game or "", _("All games")),
        "game_tabs": [{"label": _("All games"), "href": link(game=None), "current": game is None}] + [
            {"label": label, "href": link(game=slug), "current": game == slug} for slug, label in GAME_CHOICES
        ],
        "period_tabs": [
            {"label": label, "href": link(period=name, start=None, end=None), "current": period == name}
            for name, label in (("all", _("All time")), ("year", _("This year")), ("month", _("This month")))
        ],
        "wall_href": link(wall="1" if not wall else None),
        "show_money": role is not None,
        "watch_url": link(),
    }


def leaderboard_page(request: HttpRequest, slug: str) -> HttpResponse:
    from .models import Club

    club = Club.objects.filter(slug=slug).first()
    role = club_role(request.user, club) if club is not None else None
    if club is None or (role is None and not club.public_leaderboard):
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        raise Http404(_("Not found."))
    context = leaderboard_context(request, club, role)
    template = "referee/leaderboard_board.html" if request.GET.get("v") is not None else "referee/leaderboard.html"
    return render(request, template, context, status=400 if context["error"] else 200)


# -- a member's history and head-to-head -----------------------------------------------------------


def member_page(request: HttpRequest, slug: str, member_id: int) -> HttpResponse:
    from .models import Club

    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    club = Club.objects.filter(slug=slug).first()
    role = club_role(request.user, club) if club is not None else None
    if club is None or role is None:
        raise Http404(_("Not found."))
    member = Member.objects.filter(club=club, pk=member_id).first()
    if member is None:
        raise Http404(_("Not found."))
    history = scoring.member_history(member, sessions_limit=30)
    others = list(club.members.exclude(pk=member.pk).order_by("name").values("pk", "name"))
    versus = None
    error = None
    vs = request.GET.get("vs")
    if vs:
        other = Member.objects.filter(club=club, pk=int(vs) if vs.isdigit() else 0).first()
        if other is None:
            error = _("Choose another member of this club.")
        else:
            try:
                versus = scoring.head_to_head(club, member, other)
            except Refusal as refusal:
                error = refusal.message
    for row in (*history["sessions"], *history["months"]):
        row["game_name"] = GAME_NAMES.get(row["game"], row["game"])
    games = [{"slug": slug_, "name": GAME_NAMES.get(slug_, slug_), **figures}
             for slug_, figures in history["games"].items()]
    if versus:
        versus["rows"] = [{"name": GAME_NAMES.get(g, g), **figures} for g, figures in versus["games"].items()]
    return render(request, "referee/member.html", {
        "club": club, "member": member, "history": history, "games": games, "others": others,
        "versus": versus, "vs": vs, "error": error, "show_money": True,
    }, status=400 if error else 200)
