"""Reads: one place for the queries the API and the pages share."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.db import connection
from django.db.models import Count, Max, Q, QuerySet, Sum

from referee.rules import GAMES

from .models import Club, Deal, DealChange, DealStatus, Entry, Member, Session
from .permissions import club_role


def club_by_slug(slug: str) -> Club | None:
    return Club.objects.filter(slug=slug).first()


def member_roles(user: Any) -> dict[int, str]:
    """The user's role in each club where they are an active member, by club id."""
    return dict(Member.objects.filter(user=user, active=True).values_list("club_id", "role"))


def active_members(club: Club) -> list[Member]:
    """Who may take a seat in a new session, by name."""
    return list(club.members.filter(active=True).order_by("name"))


def club_sessions(club: Club, limit: int = 30) -> list[Session]:
    """The club's latest sessions with their seated members, deal count and last deal (two queries)."""
    return list(
        Session.objects.filter(club=club)
        .prefetch_related("seats__member")
        .annotate(deal_count=Count("deals"), last_deal=Max("deals__id"))
        .order_by("-created_at", "-id")[:limit]
    )


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


def deal_view(
    deal: Deal, names: list[str] | None = None, state_view: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """What the tablet needs: the engine's view plus names, seq and status.

    ``state_view`` is the engine's view when the caller already has it (the hot path just
    computed it), so the snapshot is not decoded and viewed a second time.
    """
    session = deal.session
    if state_view is None:
        rules = GAMES[session.game]
        state_view = rules.view(rules.from_dict(deal.state))
    if names is None:
        names = seat_names(session.pk)
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
        "state": with_names(state_view, names),
    }


#: The players' names in seat order, written out: this runs in the answer to every entry, where
#: the ORM's ``values_list("member__name")`` took 0.70 ms on SQLite and 1.5-1.7 ms on PostgreSQL
#: against 0.04-0.10 ms and 0.42-0.49 ms for this statement (3000 reads of a 5-seat session,
#: 2 shared cores under load, 1 December 2026). tests/test_selectors.py holds it to the models.
SEAT_NAMES_SQL = (
    "SELECT m.name FROM referee_seat s INNER JOIN referee_member m ON m.id = s.member_id"
    " WHERE s.session_id = %s ORDER BY s.number"
)


def seat_names(session_id: int) -> list[str]:
    """The players' names in seat order (one statement, no ORM compiling)."""
    with connection.cursor() as cursor:
        cursor.execute(SEAT_NAMES_SQL, [session_id])
        return [name for (name,) in cursor.fetchall()]


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


def running_deal_id(session_id: int) -> int | None:
    """The id of the session's running deal, if any (one small query, no snapshot read)."""
    running = Deal.objects.filter(session_id=session_id, status=DealStatus.RUNNING).values_list("pk", flat=True)
    return next(iter(running), None)


def has_later_deal(deal: Deal) -> bool:
    """Whether the table has moved on: a finished deal with a later one can no longer be undone."""
    return Deal.objects.filter(session_id=deal.session_id, number__gt=deal.number).exists()


def deal_version(deal: Deal) -> str:
    """Changes with every entry, undo or correction (undo then re-record keeps seq, not the last id)."""
    last = Entry.objects.filter(deal=deal).aggregate(last=Max("id"))["last"] or 0
    return f"{deal.seq}.{last}.{deal.status}"


def last_deal(session: Session) -> Deal | None:
    """The session's latest deal (its snapshot says who deals next)."""
    return session.deals.order_by("-number").first()


def deal_count(session: Session) -> int:
    return session.deals.count()


def session_audit(session: Session) -> dict[str, Any]:
    """Every entry (active or not) and every undo or correction, in order, with who and when."""
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


# -- the pages (tablet, phone, wall screen) --------------------------------------------------------


def seat_names_of(session: Session) -> list[str]:
    """The players' names in seat order, from seats prefetched with their members when possible."""
    return [seat.member.name for seat in sorted(session.seats.all(), key=lambda seat: seat.number)]


def deal_for_page(user: Any, pk: int) -> tuple[Deal, str] | None:
    """A deal with its session, club and seated members (three queries) and the user's role in
    the club, if the user may see it (None otherwise: a private club's deals stay hidden)."""
    deal = (
        Deal.objects.select_related("session", "session__club")
        .prefetch_related("session__seats__member")
        .filter(pk=pk)
        .first()
    )
    role = club_role(user, deal.session.club) if deal is not None else None
    if deal is None or role is None:
        return None
    return deal, role


def deal_for_poll(user: Any, pk: int) -> tuple[Deal, str] | None:
    """What a watcher's poll needs to tell whether anything changed: the deal without its
    snapshot (a long deal's is large) and the user's role (two queries)."""
    deal = Deal.objects.select_related("session__club").defer("state", "options").filter(pk=pk).first()
    role = club_role(user, deal.session.club) if deal is not None else None
    if deal is None or role is None:
        return None
    return deal, role


def session_for_page(user: Any, pk: int) -> Session | None:
    session = Session.objects.select_related("club").prefetch_related("seats__member").filter(pk=pk).first()
    if session is None or not _may_see(user, session.club):
        return None
    return session


def _may_see(user: Any, club: Club) -> bool:
    return club_role(user, club) is not None


def running_totals(session: Session, players: int) -> list[int]:
    """Each seat's total over the session's finished deals, in the game's unit (one query)."""
    from scoring.models import DealResult

    totals = [0] * players
    rows = DealResult.objects.filter(session=session).values("seat").annotate(total=Sum("points"))
    for row in rows:
        if 0 <= row["seat"] < len(totals):
            totals[row["seat"]] = row["total"] or 0
    return totals


def recent_entries(deal: Deal, limit: int = 8) -> list[Entry]:
    """The deal's last few active entries, newest first (an index range scan, however long the deal)."""
    return list(deal.entries.filter(active=True).order_by("-seq")[:limit])


def session_deals(session: Session) -> list[Deal]:
    return list(session.deals.order_by("number").only("id", "number", "dealer", "seq", "status", "session_id"))


def session_version(session_id: int) -> str:
    """A cheap fingerprint of everything a watcher's page shows: it changes with every entry,
    undo, new deal, close or summary progress (one query)."""
    row = Deal.objects.filter(session_id=session_id).aggregate(
        deals=Count("id"), seqs=Sum("seq"), last=Max("id"), finished=Max("finished_at")
    )
    session = Session.objects.filter(pk=session_id).values("status").first()
    summary = _summary_mark(session_id)
    changes = Entry.objects.filter(deal__session_id=session_id).aggregate(entries=Max("id"), rows=Count("id"))
    parts = [
        row["deals"], row["seqs"], row["last"], row["finished"], session["status"] if session else None,
        changes["entries"], changes["rows"], summary,
    ]
    return "-".join(str(part) for part in parts)


def _summary_mark(session_id: int) -> str:
    from scoring.models import SessionSummary

    summary = SessionSummary.objects.filter(session_id=session_id).values("state", "progress").first()
    return f"{summary['state']}{summary['progress']}" if summary else "none"
