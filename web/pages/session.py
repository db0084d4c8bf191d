"""The session's screen: standings, ledger, settlement and summary; its live fragment for the
phones watching; and closing the session.

Figures come from ``scoring.selectors`` (fixed query counts, JSON-safe dicts); these views
only choose what to show and in which language. Phones watching a session poll
``/sessions/{id}/live/`` and get the new fragment only when something changed.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from evenings import selectors as evening_selectors
from referee import selectors, services
from referee.errors import NotFound, Refusal
from referee.games import PAGES
from referee.models import Member, Role, Session, SessionStatus
from referee.permissions import club_role
from referee.plans import plan_set
from referee.rules import GAMES
from referee.safe_input import read_int
from referee.seat_corrections import seat_correct
from scoring import page_selectors, plans
from scoring import selectors as scoring
from scoring.summaries.services import summary_status
from scoring.summaries.summary import summary_html
from web.pages.access import can_record, session_or_404
from web.pages.conditional import etag, unchanged
from web.pages.house_rules import house_rules_of
from web.pages.plan_form import plan_shown, read_plan_fields


def _session_and_role(user: Any, pk: int) -> tuple[Session, str]:
    session = selectors.session_for_page(user, pk)
    role = club_role(user, session.club) if session is not None else None
    if session is None or role is None:
        raise Http404(_("Not found."))
    return session, role


def _summary_context(session: Session) -> dict[str, Any]:
    summary = page_selectors.session_summary(session)
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
    deals_count = selectors.deal_count(session)
    is_open = session.status == SessionStatus.OPEN
    check = ledger["zero_sum_check"]
    plan_status = plans.plan_status(session, names, running=running.number if running else None)
    pages = PAGES[session.game]
    for movement in ledger["movements"]:
        movement["reason_text"] = pages.movement_reason(movement["reason"])
    unit_key = ledger["unit"]
    context: dict[str, Any] = {
        "session": session, "club": session.club, "names": names, "game_name": PAGES[session.game].name,
        "standings": standing, "ledger": ledger, "settlement": settlement, "running": running,
        "deals_count": deals_count, "can_record": can_record(role) and is_open, "role": role,
        "plan_status": plan_status, "plan_form": plan_shown(None, session.plan),
        "is_open": is_open, "can_reopen": can_record(role) and not is_open,
        "ledger_nets": [{"name": row["name"], "value": row[unit_key], "money": row["money"]} for row in ledger["nets"]],
        "zero_sum": check,
        # Stakes per chip, chips left on prize cards: what the game counts in (Mičiganas).
        "in_chips": GAMES[session.game].unit.key == "chips",
        "version": selectors.session_version(session.pk),
        "csv_links": [
            (_("Standings"), reverse("api-session-standings", args=[session.pk]) + "?format=csv"),
            (_("Ledger"), reverse("api-session-ledger", args=[session.pk]) + "?format=csv"),
            (_("Settlement: who pays whom"), reverse("api-session-settlement", args=[session.pk])
             + "?format=csv&table=transfers"),
            (_("Settlement: each player's net"), reverse("api-session-settlement", args=[session.pk])
             + "?format=csv&table=nets"),
        ],
    }
    context.update(_summary_context(session))
    if context["summary"] and context["summary"]["state"] == "done" and not context["summary"]["outdated"]:
        context["csv_links"].append((_("Summary"), context["summary"]["links"]["csv"]))
    return context


def session_page_response(request: HttpRequest, session: Session, *, error: str | None = None,
                          status: int = 200, plan_form: dict[str, str] | None = None) -> HttpResponse:
    role = club_role(request.user, session.club) or Role.MEMBER
    context = session_context(session, role)
    context["error"] = error
    if plan_form is not None:  # the plan form shows what was typed, with the refusal beside it
        context["plan_form"], context["plan_errors"] = plan_form, {"plan": error}
    context["night"] = night = evening_selectors.table_of(session.pk)
    context["night_next"] = evening_selectors.later_table(night) if night else None
    context["seat_members"] = selectors.active_members(session.club)
    context["house_rules"] = house_rules_of(session, context["names"])
    return render(request, "referee/session.html", context, status=status)


@login_required
def session_page(request: HttpRequest, pk: int) -> HttpResponse:
    session, _role = _session_and_role(request.user, pk)
    return session_page_response(request, session)


def session_live(request: HttpRequest, pk: int) -> HttpResponse:
    """304 while nothing changed (the page's version as ``If-None-Match``, checked with the
    access check in one statement; ``?v=``, the earlier pages' question, gets 204), else the
    session's live fragment."""
    if not request.user.is_authenticated:
        return HttpResponse(status=403)
    poll = selectors.session_poll(request.user, pk)
    if poll is None:
        raise Http404(_("Not found."))
    version = poll.version
    if not unchanged(request, version):
        session, role = _session_and_role(request.user, pk)
        context = session_context(session, role)
        version = context["version"]
        response = render(request, "referee/session_live.html", context)
    elif request.headers.get("If-None-Match"):
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(status=204)
    response["ETag"] = etag(version)
    response["X-Version"] = version
    response["Cache-Control"] = "private, no-cache"
    return response


@login_required
def session_close(request: HttpRequest, pk: int) -> HttpResponse:
    """Closing asks first: the settlement that becomes final and what closing does, then a
    confirming POST (``confirm=yes``) closes. A POST without it only asks again."""
    session = session_or_404(request.user, pk)
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        try:
            services.session_close(session=session, user=request.user)
        except (Refusal, NotFound) as error:
            return session_page_response(request, session, error=error.message, status=error.status)
        return redirect(reverse("session", args=[session.pk]))
    role = club_role(request.user, session.club) or Role.MEMBER
    if not can_record(role):
        return session_page_response(
            request, session, error=_("Only the club's scorers and admins can close a session."), status=403,
        )
    context = session_context(session, role)
    if not context["is_open"]:
        return redirect(reverse("session", args=[session.pk]))
    # What closing adds (Mičiganas' M3: the chips left on the prize cards are split now), so
    # the amounts here match the deal screen's plus that split.
    settlement = context.get("settlement") or {}
    context["close_split"] = [(net["name"], net["close"]) for net in settlement.get("nets", [])
                              if net.get("close") and Decimal(net["close"]) != 0]
    return render(request, "referee/session_close.html", context)


@login_required
@require_POST
def session_reopen(request: HttpRequest, pk: int) -> HttpResponse:
    """A closed session opened again from its page, by whoever may (the service checks)."""
    session = session_or_404(request.user, pk)
    try:
        services.session_reopen(session=session, user=request.user)
    except (Refusal, NotFound) as error:
        return session_page_response(request, session, error=error.message, status=error.status)
    return redirect(reverse("session", args=[session.pk]))


@login_required
@require_POST
def session_seat(request: HttpRequest, pk: int) -> HttpResponse:
    """A seat's member corrected after entries were recorded (referee.seat_corrections)."""
    session = session_or_404(request.user, pk)
    seat_text, member_text = request.POST.get("seat", ""), request.POST.get("member", "")
    numbers = [int(t) if t.isascii() and t.isdigit() and len(t) < 10 else -1 for t in (seat_text, member_text)]
    member = Member.objects.filter(club=session.club, active=True, pk=max(numbers[1], 0)).first()
    try:
        if member is None or numbers[0] < 0:
            raise Refusal(_("Choose a seat and a member of this club."))
        seat_correct(session=session, seat=numbers[0], member=member, user=request.user)
    except (Refusal, NotFound) as error:
        return session_page_response(request, session, error=error.message, status=error.status)
    return redirect(reverse("session", args=[session.pk]))


@login_required
@require_POST
def session_plan(request: HttpRequest, pk: int) -> HttpResponse:
    """The scorer sets or changes how long the session runs (the audit page keeps who did)."""
    session = session_or_404(request.user, pk)
    try:
        plan = read_plan_fields(request.POST)
        plan_set(session=session, plan=plan, user=request.user)
    except ValidationError as error:
        return session_page_response(request, session, error=error.messages[0], status=400,
                                     plan_form=plan_shown(request.POST))
    except (Refusal, NotFound) as error:
        return session_page_response(request, session, error=error.message, status=error.status,
                                     plan_form=plan_shown(request.POST))
    return redirect(reverse("session", args=[session.pk]))


@login_required
@require_POST
def session_play_on(request: HttpRequest, pk: int) -> HttpResponse:
    """The deliberate step past a reached plan; back to the deal it was taken from (``deal``), whose
    screen then offers the next deal, or to the session's page."""
    session = session_or_404(request.user, pk)
    try:
        plans.plan_play_on(session=session, user=request.user)
    except (Refusal, NotFound) as error:
        return session_page_response(request, session, error=error.message, status=error.status)
    deal = session.deals.filter(pk=read_int(request.POST.get("deal", "")) or 0).values_list("pk", flat=True).first()
    return redirect(reverse("deal", args=[deal]) if deal else reverse("session", args=[session.pk]))
