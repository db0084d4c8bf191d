"""Starting a deal: the next deal of a session, by the game's rotation (or by how the last deal
ended), with what the last deal carries over; a tablet's retried start (``client_id``) gets
the deal it made.

Two paths, the same rows and answers, as in ``referee.entry_store``: on PostgreSQL one round
trip locks the session and reads everything the start needs (the user's role, the players'
names, the last deal, the running one, a deal already made under the ``client_id``), and one
literal INSERT stores the deal; on any other database the ORM. A deal start is half of a
Velnias table's requests (issue 15), and the ORM's path cost 13 statements with the API's
session read (four compiled queries before the lock).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.db.models.signals import post_save, pre_save
from django.utils.translation import gettext as _

from referee.rules import GAMES, IllegalEntry

from . import entry_store, prepared, selectors
from .errors import Conflict, NotFound, Refusal
from .models import Deal, DealStatus, Role, Session
from .permissions import check_role, require_role
from .refusals import refusal_from, require_open


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
    #: The last deal's number and stored state (None: this is the session's first deal).
    previous: tuple[int, Any] | None
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
    if not 0 < session_id <= entry_store.MAX_ID:
        raise NotFound(_("Not found."))
    with transaction.atomic():
        table, role = _read_sql(session_id, user, client_id)
        check_role(user, role, Role.SCORER)
        return _start(table, user, dealer, client_id, expected_number)


def _start(table: _Table, user: Any, dealer: int | None, client_id: str | None,
           expected_number: int | None) -> DealStarted:
    """The refusals, in the order the API documents, and the new deal (in the caller's transaction)."""
    session, rules = table.session, GAMES[table.session.game]
    # Before the closed and running refusals: the deal this id started is likely the running one.
    earlier = table.earlier
    if earlier is not None:
        if dealer is not None and dealer != earlier.dealer:
            raise Conflict(_("This client id was already used for a deal with another dealer; create a new id."),
                           code="duplicate_key_conflict", number=earlier.number)
        return DealStarted(deal=earlier, created=False, names=table.names)
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
    deal = Deal(session=session, number=number, dealer=dealer, options=options, state=rules.to_dict(state),
                client_id=client_id)
    if entry_store.uses_sql():
        _insert(deal)
    else:
        deal.save(force_insert=True)
    return DealStarted(deal=deal, created=True, names=table.names)


# -- the ORM's path --------------------------------------------------------------------------


def _read_orm(session: Session, client_id: str | None) -> _Table:
    session = Session.objects.select_for_update().get(pk=session.pk)
    earlier = session.deals.filter(client_id=client_id).first() if client_id is not None else None
    previous = session.deals.order_by("-number").only("number", "state").first()
    running = session.deals.filter(status=DealStatus.RUNNING).order_by("number").first()
    return _Table(session=session, names=selectors.seat_names(session.pk),
                  previous=(previous.number, previous.state) if previous else None,
                  running=running.number if running else None, earlier=earlier)


# -- PostgreSQL's statements -----------------------------------------------------------------

_SESSION_COLUMNS = entry_store.columns(Session, "s")

# Two statements, prepared (``referee.prepared``): the lock first, and then the read, which
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
       (SELECT json_build_array(d.number, d.state) FROM "referee_deal" d
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


def _read_sql(session_id: int, user: Any, client_id: str | None) -> tuple[_Table, str | None]:
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    with prepared.cursor() as cursor:
        cursor.execute(LOCK_SESSION_SQL, {"session": session_id})
        cursor.execute(READ_SESSION_SQL, {"session": session_id, "user": user_id, "running": DealStatus.RUNNING.value,
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
    table = _Table(session=session, names=names, previous=(previous[0], previous[1]) if previous else None,
                   running=running, earlier=earlier)
    return table, role


def _insert(deal: Deal) -> None:
    """The deal's row, written as ``save()`` writes it (each field prepares its value), and
    announced as ``save()`` announces it: receivers of the model's signals (the watchers'
    poll cache) cannot tell the difference."""
    fields = [field for field in Deal._meta.concrete_fields if not field.primary_key]
    pre_save.send(sender=Deal, instance=deal, raw=False, using=connection.alias, update_fields=None)
    db = prepared.database()
    values = [field.get_db_prep_save(field.pre_save(deal, True), db) for field in fields]
    columns = ", ".join(f'"{field.column}"' for field in fields)
    with prepared.cursor() as cursor:
        cursor.execute(f'INSERT INTO "referee_deal" ({columns}) VALUES ({", ".join(["%s"] * len(fields))})'
                       " RETURNING id", values)
        (deal.pk,) = cursor.fetchone()
    deal._state.adding = False
    deal._state.db = connection.alias
    post_save.send(sender=Deal, instance=deal, created=True, update_fields=None, raw=False, using=connection.alias)
