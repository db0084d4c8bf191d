"""Reads: one place for the queries the API and the pages share."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Count, Max, OuterRef, Prefetch, Q, QuerySet, Subquery

from db import prepared
from referee.rules import GAMES
from referee.rules.seat_names import with_names

from . import entry_store
from .models import Club, Deal, DealChange, DealStatus, Entry, Member, Role, Seat, Session
from .permissions import club_role
from .safe_input import is_row_id


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
#: the ORM's ``values_list("member__name")`` took several times as long as this statement
#: (docs/measurements.md). tests/test_selectors.py holds it to the models.
SEAT_NAMES_SQL = (
    "SELECT m.name FROM referee_seat s INNER JOIN referee_member m ON m.id = s.member_id"
    " WHERE s.session_id = %s ORDER BY s.number"
)


def seat_names(session_id: int) -> list[str]:
    """The players' names in seat order (one statement, no ORM compiling)."""
    with connection.cursor() as cursor:
        cursor.execute(SEAT_NAMES_SQL, [session_id])
        return [name for (name,) in cursor.fetchall()]


def active_entries(deal: Deal) -> QuerySet[Entry]:
    return deal.entries.filter(active=True).order_by("seq")


def running_deal(session: Session) -> Deal | None:
    return session.deals.filter(status=DealStatus.RUNNING).first()


def has_later_deal(deal: Deal) -> bool:
    """Whether the table has moved on: a finished deal with a later one can no longer be undone."""
    return Deal.objects.filter(session_id=deal.session_id, number__gt=deal.number).exists()


def deal_version(deal: Deal) -> str:
    """What the recording screen shows of the deal, as a token that changes with every entry,
    undo or correction, with a replay that a correction of an earlier deal carried into this
    one (a Mičiganas pot), and with the session's closing or reopening; the watchers' poll
    (``deal_poll``) computes the same token in its one statement.

    The deal's ``revision`` counts every write of its snapshot, so it never repeats. (The
    token before counted the deal's entry rows, which a carried replay does not change: the
    later deal's screen and its watchers kept the old pot.)"""
    return _version(deal.seq, deal.revision, deal.status, deal.session.status)


def _version(seq: int, revision: int, status: str, session_status: str) -> str:
    return f"{seq}.{revision}.{status}.{session_status}"


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


def deal_for_page(user: Any, pk: int, *, snapshot_as_text: bool = False) -> tuple[Deal, str] | None:
    """A deal with its session, club and seated members and the user's role in the club (two
    queries: the role is read with the deal, the seats with their members), if the user may see
    it (None otherwise: a private club's deals stay hidden). ``club_role``'s answer, read in the
    deal's query: every recording screen and its every refresh asks this first.

    ``snapshot_as_text``: on PostgreSQL the deal's snapshot is left as the database's JSON text
    in ``deal.snapshot_text`` and ``state`` is not loaded (reading it would ask the database
    again): the screen embeds the text for the tablet as it is, and decodes it only when the
    engine's view of this version is not cached (a 500-entry Mičiganas snapshot is 83 KB:
    decoding it and encoding it again for the page took 3 ms of every GET)."""
    if user is None or not user.is_authenticated:
        return None
    if entry_store.uses_sql():
        found = _deal_for_page_sql(user.pk, pk, snapshot_as_text)
    else:
        found = _deal_for_page_orm(user, pk)
    if found is None:
        return None
    deal, member_role = found
    role: str | None = Role.ADMIN if user.is_superuser else member_role
    if role is None:
        return None
    return deal, role


def _deal_for_page_orm(user: Any, pk: int) -> tuple[Deal, str | None] | None:
    role_in_club = Member.objects.filter(club=OuterRef("session__club"), user=user, active=True).values("role")[:1]
    # get(), not filter().first(), and the seats by number: the models' ordering (session,
    # number) orders by the session's own ordering, which joined referee_session to a lookup by
    # key and to the seats of one session (0.6 + 0.4 ms of the recording screen).
    seats = Seat.objects.select_related("member").order_by("number")
    try:
        deal = (
            Deal.objects.select_related("session", "session__club")
            .prefetch_related(Prefetch("session__seats", queryset=seats))
            .annotate(member_role=Subquery(role_in_club))
            .get(pk=pk)
        )
    except Deal.DoesNotExist:
        return None
    return deal, deal.member_role


# The ORM's two queries, written out and prepared (``db.prepared``): the whole read (deal,
# session, club, seats and members built) took six times as long through the ORM as with these
# (docs/measurements.md), on every game's screen and its every refresh.
# tests/test_screen_reads.py holds both paths to the same answers.
PAGE_DEAL_SQL = (
    f"SELECT {entry_store.columns(Deal, 'd')}, {entry_store.columns(Session, 's')}, {entry_store.columns(Club, 'c')},"  # noqa: S608 - names from the models
    f' (SELECT m."role" FROM "{Member._meta.db_table}" m WHERE m."club_id" = s."club_id"'
    ' AND m."user_id" = %(user)s AND m."active" LIMIT 1)'
    f' FROM "{Deal._meta.db_table}" d JOIN "{Session._meta.db_table}" s ON s."id" = d."session_id"'
    f' JOIN "{Club._meta.db_table}" c ON c."id" = s."club_id" WHERE d."id" = %(deal)s'
)
PAGE_SEATS_SQL = (
    f"SELECT {entry_store.columns(Seat, 'st')}, {entry_store.columns(Member, 'm')}"  # noqa: S608 - names from the models
    f' FROM "{Seat._meta.db_table}" st JOIN "{Member._meta.db_table}" m ON m."id" = st."member_id"'
    ' WHERE st."session_id" = %(session)s ORDER BY st."number"'
)


#: Where the deal's snapshot is in a row of PAGE_DEAL_SQL (the Deal's columns come first).
_STATE_AT = [field.attname for field in Deal._meta.concrete_fields].index("state")


def _deal_for_page_sql(user_id: int, pk: int, snapshot_as_text: bool) -> tuple[Deal, str | None] | None:
    if not is_row_id(pk):
        return None
    with prepared.cursor() as cursor:
        cursor.execute(PAGE_DEAL_SQL, {"user": user_id, "deal": pk})
        row = cursor.fetchone()
        if row is None:
            return None
        text = None
        if snapshot_as_text:
            # Django reads jsonb as text and decodes it in the field's converter: skip that.
            text, row = row[_STATE_AT], (*row[:_STATE_AT], None, *row[_STATE_AT + 1:])
        (deal, session, club), (role,) = entry_store.split_row(row, Deal, Session, Club)
        if text is not None:
            del deal.state  # deferred: the screen reads ``snapshot_text``
            deal.snapshot_text = text
        session.club = club
        deal.session = session
        cursor.execute(PAGE_SEATS_SQL, {"session": session.pk})
        rows = cursor.fetchall()
    seats = []
    for seat_row in rows:
        (seat, member), _rest = entry_store.split_row(seat_row, Seat, Member)
        seat.member, seat.session = member, session
        seats.append(seat)
    # As prefetch_related leaves them: session.seats.all() answers from these, with no query.
    prefetched = session.seats.all()
    prefetched._result_cache = seats
    prefetched._prefetch_done = True
    session._prefetched_objects_cache = {"seats": prefetched}
    return deal, role


@dataclass(frozen=True)
class Poll:
    """A watcher's "anything new?": the version of what the screen shows, the user's role and,
    for a deal, the session's running deal (its watchers follow the table to the next one)."""

    version: str
    role: str
    running_deal: int | None = None
    #: When the deal was created, as it reads (no space): with its id, it tells it apart from
    #: any deal of an earlier database that had the same id (keys of shared caches).
    created: str = ""


#: Everything a deal's poll needs in one statement (an index probe per line: the deal and its
#: session by key, the running deal by the one-running-deal constraint's index, the role by
#: (club, user)). Written out because it runs every two or three seconds for every phone
#: watching every table; the ORM took five queries (3.3-4.4 ms).
#: tests/pages/test_poll.py holds it to the models.
DEAL_POLL_SQL = (
    "SELECT d.seq, d.status, s.status, d.created_at, d.revision,"
    " (SELECT r.id FROM referee_deal r WHERE r.session_id = d.session_id AND r.status = %s),"
    " (SELECT m.role FROM referee_member m WHERE m.club_id = s.club_id AND m.user_id = %s AND m.active)"
    " FROM referee_deal d INNER JOIN referee_session s ON s.id = d.session_id"
    " WHERE d.id = %s"
)


def deal_poll(user: Any, pk: int) -> Poll | None:
    """The deal's version (``deal_version``'s token), its session's running deal and the user's
    role, in one statement; None when the user may not see the deal, whatever its version, so
    that an outsider's poll learns nothing, not even whether it changed."""
    if not is_row_id(pk) or not getattr(user, "is_authenticated", False):
        return None
    with connection.cursor() as cursor:
        cursor.execute(DEAL_POLL_SQL, [DealStatus.RUNNING.value, user.pk, pk])
        row = cursor.fetchone()
    if row is None:
        return None
    seq, status, session_status, created, revision, running, role = row
    role = Role.ADMIN.value if user.is_superuser else role
    if role is None:
        return None
    return Poll(version=_version(seq, revision, status, session_status), role=role, running_deal=running,
                created=str(created).replace(" ", "T"))


def session_for_page(user: Any, pk: int) -> Session | None:
    session = Session.objects.select_related("club").prefetch_related("seats__member").filter(pk=pk).first()
    if session is None or not _may_see(user, session.club):
        return None
    return session


def _may_see(user: Any, club: Club) -> bool:
    return club_role(user, club) is not None


def recent_entries(deal: Deal, limit: int = 8) -> list[Entry]:
    """The deal's last few active entries, newest first (an index range scan, however long the deal)."""
    if entry_store.uses_sql():
        with prepared.cursor() as cursor:
            cursor.execute(RECENT_ENTRIES_SQL, {"deal": deal.pk, "limit": limit})
            return [entry_store.from_row(Entry, row) for row in cursor.fetchall()]
    return list(deal.entries.filter(active=True).order_by("-seq")[:limit])


#: ``recent_entries`` written out and prepared (``db.prepared``), read by every recording
#: screen: 1.7 ms through the ORM for six entries, most of it building the query.
RECENT_ENTRIES_SQL = (
    f"SELECT {entry_store.columns(Entry, 'e')} FROM \"{Entry._meta.db_table}\" e"  # noqa: S608 - names from the model
    ' WHERE e."deal_id" = %(deal)s AND e."active" ORDER BY e."seq" DESC LIMIT %(limit)s'
)


def session_deals(session: Session) -> list[Deal]:
    return list(session.deals.order_by("number").only("id", "number", "dealer", "seq", "status", "session_id"))


#: A session's poll in one statement: its status, the user's role and a fingerprint of what
#: the session page shows (its deals, their entries, the summary's progress). Written out for
#: the same reason as DEAL_POLL_SQL (the ORM took four queries, plus three for the access
#: check); tests/pages/test_poll.py holds it to the models.
SESSION_POLL_SQL = (
    "SELECT s.status,"
    " (SELECT m.role FROM referee_member m WHERE m.club_id = s.club_id AND m.user_id = %s AND m.active),"
    " (SELECT COUNT(*) FROM referee_deal d WHERE d.session_id = s.id),"
    " (SELECT SUM(d.seq) FROM referee_deal d WHERE d.session_id = s.id),"
    " (SELECT MAX(d.id) FROM referee_deal d WHERE d.session_id = s.id),"
    " (SELECT MAX(d.finished_at) FROM referee_deal d WHERE d.session_id = s.id),"
    " (SELECT COUNT(*) FROM referee_entry e INNER JOIN referee_deal d ON d.id = e.deal_id"
    " WHERE d.session_id = s.id),"
    " (SELECT u.state FROM scoring_sessionsummary u WHERE u.session_id = s.id),"
    " (SELECT u.progress FROM scoring_sessionsummary u WHERE u.session_id = s.id)"
    " FROM referee_session s WHERE s.id = %s"
)


def _session_poll_row(user_id: int | None, session_id: int) -> tuple[Any, ...] | None:
    if not is_row_id(session_id):
        return None
    with connection.cursor() as cursor:
        cursor.execute(SESSION_POLL_SQL, [user_id, session_id])
        row: tuple[Any, ...] | None = cursor.fetchone()
    return row


def _session_fingerprint(row: tuple[Any, ...]) -> str:
    # Entries are never deleted: their count with the seqs' sum changes with every entry, undo
    # (the sum drops) or correction (a row more); a new deal, a close and summary progress too.
    status, _role, deals, seqs, last, finished, entries, summary_state, progress = row
    summary = f"{summary_state}{progress}" if summary_state else "none"
    return "-".join(str(part) for part in (deals, seqs or 0, last, finished, status, entries, summary))


def session_version(session_id: int) -> str:
    """A cheap fingerprint of everything a watcher's page shows: it changes with every entry,
    undo, new deal, close or summary progress (one statement, the one ``session_poll`` runs)."""
    row = _session_poll_row(None, session_id)
    return _session_fingerprint(row) if row is not None else "none"


def session_poll(user: Any, pk: int) -> Poll | None:
    """The session's fingerprint (``session_version``'s) and the user's role in one statement;
    None when the user may not see the session, whatever changed in it."""
    if not getattr(user, "is_authenticated", False):
        return None
    row = _session_poll_row(user.pk, pk)
    if row is None:
        return None
    role = Role.ADMIN.value if user.is_superuser else row[1]
    if role is None:
        return None
    return Poll(version=_session_fingerprint(row), role=role)
