"""Starting a deal: the next deal of a session, by the game's rotation (or by how the last deal
ended), with what the last deal carries over; a tablet's retried start (``client_id``) gets
the deal it made.

Two paths, the same rows and answers, as in ``referee.entry_store``: on PostgreSQL one
statement reads everything the start needs (the user's role, the players' names, the last
deal, the running one, a deal already made under the ``client_id``), without a lock, and one
literal INSERT stores the deal if nothing it was made from has moved since (two statements,
no transaction of their own); a retried ``client_id``, or a session that moved in between,
takes the same read and insert under the session's lock. On any other database the ORM, under
the lock. A deal start is half of a Velnias table's requests, and the ORM's path
cost 13 statements with the API's session read (four compiled queries before the lock).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models.signals import post_save, pre_save
from django.utils.translation import gettext as _

from db import prepared
from referee.rules import GAMES, IllegalEntry

from . import entry_store, selectors
from .errors import Conflict, NotFound, Refusal
from .models import Deal, DealStatus, Role, Session, SessionStatus
from .permissions import check_role, require_role, signed_in_id
from .refusals import refusal_from, require_open
from .safe_input import is_row_id


@dataclass(frozen=True)
class DealStarted:
    deal: Deal
    #: False: a retried start under the same ``client_id``, answered with the deal it made.
    created: bool
    #: The players' names in seat order, when the start read them (None: read when needed).
    names: list[str] | None = None


@dataclass(frozen=True)
class _Table:
    """What a deal start reads of its session, under the session's lock."""

    session: Session
    names: list[str]
    #: The last deal's number, stored state and revision (None: this is the session's first deal).
    previous: tuple[int, Any, int] | None
    #: The number of the deal still running, if one is.
    running: int | None
    #: The deal already started under the ``client_id``, if one was.
    earlier: Deal | None


def deal_start_once(*, session: Session, user: Any, dealer: int | None = None, client_id: str | None = None,
                    expected_number: int | None = None) -> DealStarted:
    """The next deal; a start retried under the ``client_id`` that made a deal gets that deal back
    (refused if the dealer given differs). ``expected_number`` refuses if another device started
    one meanwhile."""
    if entry_store.uses_sql():
        return start(session_id=session.pk, user=user, dealer=dealer, client_id=client_id,
                     expected_number=expected_number)
    require_role(user, session.club, Role.SCORER)
    with transaction.atomic():
        return _start(_read_orm(session, client_id), user, dealer, client_id, expected_number)


def start(*, session_id: int, user: Any, dealer: int | None = None, client_id: str | None = None,
          expected_number: int | None = None) -> DealStarted:
    """``deal_start_once`` by the session's id (the API): not found for a session the user may
    not see, as reading the session first would answer."""
    if not entry_store.uses_sql():
        session = selectors.sessions_for(user).filter(pk=session_id).first()
        if session is None:
            raise NotFound(_("Not found."))
        return deal_start_once(session=session, user=user, dealer=dealer, client_id=client_id,
                               expected_number=expected_number)
    if not is_row_id(session_id):
        raise NotFound(_("Not found."))
    started = _start_unlocked(session_id, user, dealer, client_id, expected_number)
    if started is not None:
        return started
    with transaction.atomic():
        table, role = _read_sql(session_id, user, client_id)
        check_role(user, role, Role.SCORER)
        return _start(table, user, dealer, client_id, expected_number)


def _start_unlocked(session_id: int, user: Any, dealer: int | None, client_id: str | None,
                    expected_number: int | None) -> DealStarted | None:
    """``start`` without a lock held while the deal is made: the session read as it stands, and
    the deal inserted only if nothing it was made from has changed (``INSERT_IF_UNCHANGED_SQL``).
    None when the locked path must decide: a retried ``client_id``, or a session that moved
    (another start, a close, an undo or correction of the last deal). A refusal here is the
    locked path's: the read is one snapshot, and no deal had this ``client_id`` in it."""
    table, role = _read_sql(session_id, user, client_id, lock=False)
    check_role(user, role, Role.SCORER)
    if table.earlier is not None:
        return None
    deal = _new_deal(table, dealer, client_id, expected_number)
    if not _insert(deal, table):
        return None
    return DealStarted(deal=deal, created=True, names=table.names)


def _start(table: _Table, user: Any, dealer: int | None, client_id: str | None,
           expected_number: int | None) -> DealStarted:
    """The refusals, in the order the API documents, and the new deal (in the caller's transaction)."""
    # Before the closed and running refusals: the deal this id started is likely the running one.
    earlier = table.earlier
    if earlier is not None:
        if dealer is not None and dealer != earlier.dealer:
            raise Conflict(_("This client id was already used for a deal with another dealer; create a new id."),
                           code="duplicate_key_conflict", number=earlier.number)
        return DealStarted(deal=earlier, created=False, names=table.names)
    deal = _new_deal(table, dealer, client_id, expected_number)
    if entry_store.uses_sql():
        inserted = _insert(deal, table)
        assert inserted  # under the session's lock, nothing the deal was made from can have moved
    else:
        deal.save(force_insert=True)
    return DealStarted(deal=deal, created=True, names=table.names)


def _new_deal(table: _Table, dealer: int | None, client_id: str | None, expected_number: int | None) -> Deal:
    """The next deal of the table, not saved; a Refusal if the session is closed, another device
    started one first, a deal still runs, or the dealer or the house rules are refused."""
    session, rules = table.session, GAMES[table.session.game]
    require_open(session)
    number = table.previous[0] + 1 if table.previous else 1
    if expected_number is not None and expected_number != number:
        raise Conflict(_("Another device started a deal first: the next deal is number %(number)s. "
                         "Reload and try again.") % {"number": number}, code="stale_deal_number", number=number)
    if table.running is not None:
        raise Refusal(_("Deal %(number)s is still running; finish it before starting the next.")
                      % {"number": table.running}, code="running_deal")
    players, options = len(table.names), dict(session.options)
    if table.previous is not None:
        previous_state = rules.from_dict(table.previous[1])
        default_dealer = rules.next_dealer(previous_state)
        options.update(rules.carry_over(previous_state))
    else:
        default_dealer = players - 1  # so that seat 0 is the first player of the evening
    if dealer is None:
        dealer = default_dealer
    if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
        raise Refusal(_("The dealer must be a seat from 0 to %(last)s.") % {"last": players - 1})
    try:
        state = rules.new_deal(players=players, dealer=dealer, options=options)
    except IllegalEntry as error:
        raise refusal_from(error, session, table.names) from error
    return Deal(session=session, number=number, dealer=dealer, options=options, state=rules.to_dict(state),
                client_id=client_id)


# -- the ORM's path --------------------------------------------------------------------------


def _read_orm(session: Session, client_id: str | None) -> _Table:
    session = Session.objects.select_for_update().get(pk=session.pk)
    earlier = session.deals.filter(client_id=client_id).first() if client_id is not None else None
    previous = session.deals.order_by("-number").only("number", "state", "revision").first()
    running = session.deals.filter(status=DealStatus.RUNNING).order_by("number").first()
    return _Table(session=session, names=selectors.seat_names(session.pk),
                  previous=(previous.number, previous.state, previous.revision) if previous else None,
                  running=running.number if running else None, earlier=earlier)


# -- PostgreSQL's statements -----------------------------------------------------------------

_SESSION_COLUMNS = entry_store.columns(Session, "s")

# Two statements, prepared (``db.prepared``): the lock first, and then the read, which
# takes its own snapshot after any wait for the lock, so it sees a deal that another start (or a
# finishing entry) committed meanwhile. The role subquery reads no row that this lock waits
# for. (They were one round trip with client-side binding; a prepared statement is one
# statement, and planning the read cost the database more than the second round trip does.)
LOCK_SESSION_SQL = 'SELECT 1 FROM "referee_session" WHERE id = %(session)s FOR UPDATE'

READ_SESSION_SQL = f"""
SELECT {_SESSION_COLUMNS},
       (SELECT m.role FROM "referee_member" m
         WHERE m.club_id = s.club_id AND m.user_id = %(user)s AND m.active) AS role,
       (SELECT json_agg(p.name ORDER BY st.number) FROM "referee_seat" st
          JOIN "referee_member" p ON p.id = st.member_id
         WHERE st.session_id = s.id) AS names,
       (SELECT json_build_array(d.number, d.state, d.revision) FROM "referee_deal" d
         WHERE d.session_id = s.id ORDER BY d.number DESC LIMIT 1) AS previous,
       (SELECT min(d.number) FROM "referee_deal" d
         WHERE d.session_id = s.id AND d.status = %(running)s) AS running,
       (SELECT d.id FROM "referee_deal" d
         WHERE d.session_id = s.id AND d.client_id = %(client)s) AS earlier
  FROM "referee_session" s
 WHERE s.id = %(session)s
"""


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


def _read_sql(session_id: int, user: Any, client_id: str | None, *, lock: bool = True) -> tuple[_Table, str | None]:
    with prepared.cursor() as cursor:
        if lock:
            cursor.execute(LOCK_SESSION_SQL, {"session": session_id})
        cursor.execute(READ_SESSION_SQL, {"session": session_id, "user": signed_in_id(user),
                                          "running": DealStatus.RUNNING.value,
                                          "client": client_id})
        row = cursor.fetchone()
    if row is None:
        raise NotFound(_("Not found."))
    (session,), (role, names, previous, running, earlier_id) = entry_store.split_row(row, Session)
    names = list(_json(names) or [])
    session._seat_names = names  # refusals name the players
    previous = _json(previous)
    earlier = None
    if earlier_id is not None:  # a retry: rare, so the ORM reads the deal
        earlier = Deal.objects.get(pk=earlier_id)
        earlier.session = session
    table = _Table(session=session, names=names, previous=(previous[0], previous[1], previous[2]) if previous else None,
                   running=running, earlier=earlier)
    return table, role


_DEAL_FIELDS = [field for field in Deal._meta.concrete_fields if not field.primary_key]

# The new deal's row, written only if the session is open and its last deal is the one read,
# as read (its revision): both rows are locked for the statement, so a close, an undo or a
# correction in flight is waited for and then seen. Another deal started meanwhile (the next
# number, a second running deal, the same client id) meets a unique constraint and nothing is
# inserted. Outside a transaction the statement commits by itself. (The first deal of a
# session has no last deal: its number, 1, is then the guard.)
INSERT_IF_UNCHANGED_SQL = f"""
WITH s AS (
    SELECT id FROM "referee_session" WHERE id = %s AND status = %s FOR UPDATE
), p AS (
    SELECT id FROM "referee_deal" WHERE session_id = %s AND number = %s AND revision = %s FOR UPDATE
)
INSERT INTO "referee_deal" ({", ".join(f'"{field.column}"' for field in _DEAL_FIELDS)})
SELECT {", ".join(["%s"] * len(_DEAL_FIELDS))} FROM s
 WHERE %s = 0 OR EXISTS (SELECT 1 FROM p)
ON CONFLICT DO NOTHING
RETURNING id
"""


def _insert(deal: Deal, table: _Table) -> bool:
    """The deal's row, written as ``save()`` writes it (each field prepares its value), and
    announced as ``save()`` announces it: receivers of the model's signals (the watchers'
    poll cache) cannot tell the difference. False, writing nothing, if the session or its last
    deal has moved since ``table`` was read."""
    pre_save.send(sender=Deal, instance=deal, raw=False, using=connection.alias, update_fields=None)
    db = prepared.database()
    number, revision = (table.previous[0], table.previous[2]) if table.previous else (0, 0)
    values = [field.get_db_prep_save(field.pre_save(deal, True), db) for field in _DEAL_FIELDS]
    with prepared.cursor() as cursor:
        cursor.execute(INSERT_IF_UNCHANGED_SQL, [
            deal.session_id, SessionStatus.OPEN.value, deal.session_id, number, revision, *values, number])
        row = cursor.fetchone()
    if row is None:
        return False
    (deal.pk,) = row
    deal._state.adding = False
    deal._state.db = connection.alias
    post_save.send(sender=Deal, instance=deal, created=True, update_fields=None, raw=False, using=connection.alias)
    return True
