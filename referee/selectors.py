"""Reads: one place for the queries the API and the pages share."""

from __future__ import annotations

import re
from typing import Any

from django.db.models import Q, QuerySet

from referee.rules import GAMES

from .models import Club, Deal, DealStatus, Entry, Member, Session


def clubs_for(user: Any) -> QuerySet[Club]:
    if user.is_superuser:
        return Club.objects.all()
    return Club.objects.filter(members__user=user, members__active=True).distinct()


def sessions_for(user: Any) -> QuerySet[Session]:
    sessions = Session.objects.select_related("club").prefetch_related("seats__member")
    if user.is_superuser:
        return sessions
    return sessions.filter(club__members__user=user, club__members__active=True).distinct()


def deals_for(user: Any) -> QuerySet[Deal]:
    deals = Deal.objects.select_related("session", "session__club")
    if user.is_superuser:
        return deals
    return deals.filter(
        Q(session__club__members__user=user) & Q(session__club__members__active=True)
    ).distinct()


def seated_members(session: Session) -> list[Member]:
    return [seat.member for seat in session.seats.select_related("member").order_by("number")]


def deal_view(deal: Deal, names: list[str] | None = None) -> dict[str, Any]:
    """What the tablet needs: the engine's view plus names, seq and status."""
    session = deal.session
    rules = GAMES[session.game]
    state = rules.from_dict(deal.state)
    if names is None:
        names = [m.name for m in seated_members(session)]
    return {
        "id": deal.pk,
        "session": session.pk,
        "game": session.game,
        "number": deal.number,
        "dealer": deal.dealer,
        "seq": deal.seq,
        "status": deal.status,
        "finished": deal.status == DealStatus.FINISHED,
        "players": names,
        "notation": session.notation,
        "state": with_names(rules.view(state), names),
    }


_SEAT = re.compile(r"\b([Ss])eat (\d+)\b")


def with_names(value: Any, names: list[str]) -> Any:
    """The engine writes "seat 2" in its explanations; the table wants "Rūta"."""
    if isinstance(value, dict):
        return {key: (_name_seats(item, names) if key == "text" and isinstance(item, str) else with_names(item, names))
                for key, item in value.items()}
    if isinstance(value, list):
        return [with_names(item, names) for item in value]
    return value


def _name_seats(text: str, names: list[str]) -> str:
    def name(match: re.Match[str]) -> str:
        index = int(match.group(2))
        return names[index] if 0 <= index < len(names) else match.group(0)

    return _SEAT.sub(name, text)


def active_entries(deal: Deal) -> QuerySet[Entry]:
    return deal.entries.filter(active=True).order_by("seq")


def running_deal(session: Session) -> Deal | None:
    return session.deals.filter(status=DealStatus.RUNNING).first()


def session_audit(session: Session) -> dict[str, Any]:
    """Every entry (active or not) and every undo or correction, in order, with who and when."""
    from .models import DealChange

    entries = (
        Entry.objects.filter(deal__session=session).select_related("author", "deal").order_by("deal__number", "id")
    )
    changes = (
        DealChange.objects.filter(deal__session=session)
        .select_related("author", "deal", "replaced", "replacement")
        .order_by("created_at", "id")
    )
    return {
        "session": session.pk,
        "entries": [
            {"deal": e.deal.number, "seq": e.seq, "payload": e.payload, "active": e.active,
             "author": e.author.get_username() if e.author else None, "created_at": e.created_at.isoformat()}
            for e in entries
        ],
        "changes": [
            {"deal": c.deal.number, "kind": c.kind, "seq": c.replaced.seq, "replaced": c.replaced.payload,
             "replacement": c.replacement.payload if c.replacement else None,
             "author": c.author.get_username() if c.author else None, "created_at": c.created_at.isoformat()}
            for c in changes
        ],
    }
