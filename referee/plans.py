"""A session's plan (how long the players agreed to play): read, set and changed by the scorer.

The plan is checked by the pure ``referee.rules.plan``; a bad one is refused with its reason and
nothing is stored. Every change is kept as a :class:`PlanChange` (who, when, from what to what)
for the audit page. Where the session stands against the plan is read in ``scoring.plans``
(it needs the deals' results); the choice to play on past it is stored there too.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from referee.rules import IllegalEntry
from referee.rules.plan import read_plan

from .errors import Refusal
from .models import DealStatus, PlanChange, Role, Session
from .permissions import require_role
from .refusals import require_open


def checked_plan(value: object) -> dict[str, int] | None:
    """The plan as stored (``{"deals": N}``, ``{"target": T}`` or None), or a refusal saying why."""
    try:
        plan = read_plan(value)
    except IllegalEntry as error:
        raise Refusal(error.render(translate=_), code="invalid_plan") from error
    return None if plan is None else plan.as_json()


def plan_set(*, session: Session, plan: object, user: Any) -> Session:
    """Set or change the session's plan (None: open-ended). A change forgets an earlier choice to
    play on: the new plan is reached, or not, on its own."""
    require_role(user, session.club, Role.SCORER)
    stored = checked_plan(plan)
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        require_open(session)
        if session.plan == stored:
            return session
        PlanChange.objects.create(
            session=session, kind=PlanChange.Kind.SET, was=session.plan, now=stored,
            deals=session.deals.filter(status=DealStatus.FINISHED).count(),
            author=user if getattr(user, "pk", None) else None,
        )
        session.plan = stored
        session.played_on_after = None
        session.save(update_fields=["plan", "played_on_after"])
    return session
