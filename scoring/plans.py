"""Where a session stands against its plan (``referee.rules.plan``), and the scorer's choice to
play on past it.

The standing folds the finished deals' results (one query) through the pure module, so the
server and the tablet's engine (which folds the deals it finishes offline the same way) agree.
The choice to play on is a deliberate step: the screens offer closing and settling first once
the plan is reached, and only after this choice the next deal's start (the referee itself
never refuses a deal past the plan; the choice only moves the screens' main action).
"""

from __future__ import annotations

from itertools import groupby
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from referee.errors import Refusal
from referee.games.base import and_list
from referee.models import PlanChange, Role, Session
from referee.permissions import require_role
from referee.refusals import require_open
from referee.rules import GAMES
from referee.rules.plan import Plan, Progress, Standing, advance, progress, read_plan, render, standing

from .models import DealResult


def session_plan(session: Session) -> Plan | None:
    """The session's stored plan (stored only after ``read_plan`` accepted it)."""
    return read_plan(session.plan)


def finished_progress(session: Session, players: int, *, before: int | None = None) -> Progress:
    """The session's finished deals folded under its plan (``before``: only deals numbered below it)."""
    rows = DealResult.objects.filter(session=session)
    if before is not None:
        rows = rows.filter(deal__number__lt=before)
    ordered = rows.order_by("deal__number", "seat").values_list("deal__number", "seat", "points")
    deals = []
    for _number, seats in groupby(ordered, key=lambda row: row[0]):
        points = [0] * players
        for _n, seat, value in seats:
            if 0 <= seat < players:
                points[seat] = value
        deals.append(points)
    return progress(deals, session_plan(session), GAMES[session.game].unit, players)


def plan_status(session: Session, names: list[str], *, running: int | None = None,
                done: Progress | None = None) -> dict[str, Any] | None:
    """The plan's standing for the screens and the API, texts in the reader's language; None
    without a plan. ``running``: the number of the deal being played, if one is."""
    plan = session_plan(session)
    if plan is None:
        return None
    if done is None:
        done = finished_progress(session, len(names))
    found = standing(plan, done, running=running, played_on_after=session.played_on_after)
    return describe(found, session, names)


def describe(found: Standing, session: Session, names: list[str]) -> dict[str, Any]:
    """A standing as the API and the pages give it (see ``PlanStatusSerializer``)."""
    unit = GAMES[session.game].unit
    texts = [render(phrase, names, unit, ngettext=ngettext, and_list=and_list) for phrase in found.phrases]
    return {
        "plan": found.plan.as_json(),
        "deals_played": found.deals_played,
        "deal": found.deal,
        "reached": found.reached,
        "reached_after": found.reached_after,
        "exceeded": found.exceeded,
        "deals_past": found.deals_past,
        "leaders": [{"seat": seat, "name": names[seat]} for seat in found.leaders if 0 <= seat < len(names)],
        "needs": found.needs,
        "played_on": found.played_on,
        # Once reached (and nobody has chosen to play on), closing and settling is the main action.
        "close_first": found.close_first,
        "headline": render(found.headline, names, unit, ngettext=ngettext, and_list=and_list),
        "text": " · ".join(texts),
    }


def plan_play_on(*, session: Session, user: Any) -> PlanChange:
    """The scorer's deliberate choice to play on past the reached plan (kept for the audit);
    the screens then offer the next deal again and show the plan as exceeded."""
    require_role(user, session.club, Role.SCORER)
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        require_open(session)
        players = session.seats.count()
        done = finished_progress(session, players)
        plan = session_plan(session)
        found = standing(plan, done) if plan is not None else None
        if found is None or not found.reached:
            raise Refusal(_("This session's plan is not reached yet: there is nothing to play on past."),
                          code="plan_not_reached")
        change = PlanChange.objects.create(
            session=session, kind=PlanChange.Kind.PLAY_ON, was=session.plan, now=session.plan, deals=done.deals,
            author=user if getattr(user, "pk", None) else None,
        )
        if session.played_on_after != done.deals:
            session.played_on_after = done.deals
            session.save(update_fields=["played_on_after"])
    return change


def deal_plan(session: Session, names: list[str], number: int, points: list[int] | None
              ) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """The deal screen's plan: its standing (as ``plan_status``) and what the tablet's engine needs
    to go on offline: the plan, the deals before this one folded, the choice to play on
    (``points``: this deal's outcome when it is finished, else it is the running deal)."""
    plan = session_plan(session)
    if plan is None:
        return None, None
    before = finished_progress(session, len(names), before=number)
    unit = GAMES[session.game].unit
    done = advance(before, points, plan, unit) if points is not None else before
    found = standing(plan, done, running=None if points is not None else number,
                     played_on_after=session.played_on_after)
    tablet = {"plan": plan.as_json(), "before": before.view(), "played_on_after": session.played_on_after}
    return describe(found, session, names), tablet
