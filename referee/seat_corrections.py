"""Correcting a seat's member after entries were recorded.

The deals' entries and snapshots know seats, not members, so they stand as they are. What
follows the member (the results, aggregates, ratings, chip ledger, settlement and summary)
is told through the same signals an undo or a reopen uses: each finished deal is reopened and
finished again with the new member on the seat (and a closed session reopened and closed
again), inside one transaction, so scoring rebuilds exactly what it would have written had
the right member sat there from the start.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from referee.rules import GAMES

from . import chain, signals
from .errors import Refusal
from .models import Deal, DealStatus, Member, Role, Seat, SeatChange, Session, SessionStatus
from .permissions import require_role


def seat_correct(*, session: Session, seat: int, member: Member, user: Any) -> SeatChange:
    """Put ``member`` on ``seat`` (0-based) of ``session``; every deal stands."""
    require_role(user, session.club, Role.SCORER)
    if member.club_id != session.club_id:
        raise Refusal(_("%(name)s is not a member of this club.") % {"name": member.name})
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        seats = {s.number: s for s in Seat.objects.select_for_update().filter(session=session)}
        if seat not in seats:
            raise Refusal(_("This session has no seat %(n)s.") % {"n": seat + 1})
        target = seats[seat]
        if target.member_id == member.pk:
            raise Refusal(_("%(name)s already sits on seat %(n)s.") % {"name": member.name, "n": seat + 1})
        if any(s.member_id == member.pk for s in seats.values()):
            raise Refusal(_("%(name)s already has another seat at this table.") % {"name": member.name})
        change = SeatChange.objects.create(session=session, seat=seat, was_id=target.member_id, now=member,
                                           author=user if getattr(user, "pk", None) else None)
        # The club's chain head is taken before scoring's rows, as every write of the club's
        # record takes them (an entry finishing a deal locks the head, then the aggregates).
        chain.append_seat_change(change, session.club_id)
        was_closed = session.status == SessionStatus.CLOSED
        if was_closed:
            signals.session_reopened.send(sender=Session, session=session)
        finished = list(Deal.objects.filter(session=session, status=DealStatus.FINISHED).order_by("number"))
        for deal in finished:
            signals.deal_reopened.send(sender=Deal, deal=deal)
        target.member = member
        target.save(update_fields=["member"])
        rules = GAMES[session.game]
        for deal in finished:
            signals.deal_finished.send(sender=Deal, deal=deal, state=rules.from_dict(deal.state))
        if was_closed:
            signals.session_closed.send(sender=Session, session=session)
        signals.seat_corrected.send(sender=Session, session=session, seat=seat, was=change.was_id, now=member.pk)
    return change
