"""The hot path's storage: read a deal with what refereeing an entry needs, as it stands
(``read_deal``) or row-locked (``lock_deal``); store the entry with the deal's new snapshot, if
the deal has not moved since the read (``store_entry_if_unchanged``) or under the lock
(``store_entry``). The refereeing itself (idempotency, ``expected_seq``, the engine, which
path) stays in ``referee.services``; this module only reads and writes rows.

Two paths, the same rows: on PostgreSQL the statements below, written out; on any other
database (SQLite, the embedded default) the ORM. ``entry_add`` runs for every card a table
records, held to 0.6x the throughput of a bare one-INSERT endpoint (bench/bench_api.py).

Why written out: the ORM path spent most of an entry's time compiling the locking join with
its role subquery, the key check, the insert and the update (five round trips with the
answer's names, instead of two); these statements about double the entries a server takes
(``bench/bench_api.py``, whose ``--entry-store orm`` measures it again; the figures are in
docs/measurements.md).

Both statements run prepared (``db.prepared``): planned once per connection, which took
nearly half off the database's CPU per request of a Velnias table (bench_tables.py).
tests/referee/test_entry_store.py holds the statements' tables and columns to the models;
the entry-service tests run on both paths on PostgreSQL (tests/referee/conftest.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Field, Model, OuterRef, Subquery
from django.db.models import signals as model_signals
from django.db.models.base import ModelState
from django.utils.translation import gettext as _

from db import prepared

from . import chain, signals
from .errors import NotFound
from .models import Deal, Entry, Member, Session
from .permissions import signed_in_id
from .safe_input import is_row_id

#: Databases whose hot path runs the literal statements; a test empties it to force the ORM.
SQL_VENDORS = frozenset({"postgresql"})


@dataclass(frozen=True)
class DealRead:
    """A deal with its session, read with what refereeing an entry needs: row-locked with its
    session by ``lock_deal``, or as it stood by ``read_deal``."""

    deal: Deal
    #: The user's active role in the deal's club (None: not a member).
    role: str | None
    #: The players' names in seat order, when the read brought them (None: read when needed).
    names: list[str] | None
    #: Whether the deal already holds an entry under the key ``read_deal`` was asked about.
    key_stored: bool = False


def uses_sql() -> bool:
    return connection.vendor in SQL_VENDORS


# -- the lock and the read -------------------------------------------------------------------

# The deal and its session are locked, never the club: a lock on the club row would make
# every table of the club wait for the others. The role subquery reads the snapshot taken
# before any wait for the lock; a role is not written by the transactions this lock waits for.
# The names ride along so that the answer needs no read of its own (seats never change once a
# session has started).
_DEAL_READ = """
SELECT d.id, d.session_id, d.number, d.dealer, d.options, d.state, d.seq, d.status,
       d.created_at, d.finished_at, d.client_id, d.revision,
       s.id, s.club_id, s.game, s.options, s.stake, s.currency, s.coin, s.status,
       s.created_by_id, s.created_at, s.closed_at, s.plan, s.played_on_after,
       (SELECT m.role FROM "referee_member" m
         WHERE m.club_id = s.club_id AND m.user_id = %(user)s AND m.active) AS role,
       (SELECT json_agg(p.name ORDER BY st.number) FROM "referee_seat" st
          JOIN "referee_member" p ON p.id = st.member_id
         WHERE st.session_id = s.id) AS names{more}
  FROM "referee_deal" d
  JOIN "referee_session" s ON s.id = d.session_id
 WHERE d.id = %(deal)s
"""

LOCK_DEAL_SQL = _DEAL_READ.format(more="") + "   FOR UPDATE OF d, s\n"

# The same read without a lock, for an entry stored only if the deal has not moved since
# (``store_entry_if_unchanged``), and with whether the deal holds the entry's key already (a
# retry, which the locked path answers).
READ_DEAL_SQL = _DEAL_READ.format(more=""",
       EXISTS (SELECT 1 FROM "referee_entry" e
                WHERE e.deal_id = d.id AND e.idempotency_key = %(key)s) AS key_stored""")


def lock_deal(deal_id: int, user: Any) -> DealRead:
    """The deal, row-locked with its session (closing waits for a recording in flight), with
    the user's role in its club. Not found for an id no deal can have."""
    if not is_row_id(deal_id):
        raise NotFound(_("Not found."))
    user_id = signed_in_id(user)
    if uses_sql():
        return _lock_deal_sql(deal_id, user_id)
    return _lock_deal_orm(deal_id, user_id)


def _lock_deal_sql(deal_id: int, user_id: int | None) -> DealRead:
    return _deal_read(LOCK_DEAL_SQL, {"user": user_id, "deal": deal_id})


def read_deal(deal_id: int, user: Any, key: str | None) -> DealRead:
    """The deal as it stands, unlocked, with the user's role in its club and whether it holds
    an entry under ``key``. Only on PostgreSQL (``uses_sql``). Not found as ``lock_deal``."""
    if not is_row_id(deal_id):
        raise NotFound(_("Not found."))
    return _deal_read(READ_DEAL_SQL, {"user": signed_in_id(user), "deal": deal_id, "key": key})


def _deal_read(sql: str, params: dict[str, Any]) -> DealRead:
    with prepared.cursor() as cursor:
        cursor.execute(sql, params)
        row = cursor.fetchone()
    if row is None:
        raise NotFound(_("Not found."))
    (deal, session), (role, names, *key_stored) = split_row(row, Deal, Session)
    deal.session = session
    if isinstance(names, str):
        names = json.loads(names)
    return DealRead(deal=deal, role=role, names=list(names or []), key_stored=bool(key_stored and key_stored[0]))


def _lock_deal_orm(deal_id: int, user_id: int | None) -> DealRead:
    deals = Deal.objects.select_for_update(of=("self", "session")).select_related("session")
    if user_id is not None:
        role = Member.objects.filter(club=OuterRef("session__club"), user_id=user_id, active=True)
        deals = deals.annotate(member_role=Subquery(role.values("role")[:1]))
    try:
        deal = deals.get(pk=deal_id)
    except Deal.DoesNotExist as missing:
        raise NotFound(_("Not found.")) from missing
    return DealRead(deal=deal, role=getattr(deal, "member_role", None), names=None)


def columns(model: type[Model], alias: str) -> str:
    """The model's columns in field order, as a literal statement selects them (``alias."col"``)."""
    return ", ".join(f'{alias}."{field.column}"' for field in model._meta.concrete_fields)


def split_row(row: Sequence[Any], *models: type[Model]) -> tuple[list[Any], list[Any]]:
    """The instances of ``models`` from a row that selects their ``columns`` one model after the
    other, and the values that follow them."""
    instances, start = [], 0
    for model in models:
        end = start + len(model._meta.concrete_fields)
        instances.append(from_row(model, row[start:end]))
        start = end
    return instances, list(row[start:])


def from_row(model: type[Model], values: Sequence[Any]) -> Any:
    """An instance from its columns in field order, each value converted as a queryset would
    (the literal statements of the hot path: here, the deal start's and the token check's)."""
    db = prepared.database()
    attnames, converters = _converters(model, db)
    converted = list(values)
    for index, column, convert in converters:
        value = converted[index]
        for step in convert:
            value = step(value, column, db)
        converted[index] = value
    if signals_watch(model):
        return model.from_db(db.alias, attnames, converted)
    # What from_db does, without Model.__init__'s walk through every field's descriptor
    # (0.1 ms per request of the hot path): a new instance's values are its __dict__.
    instance = model.__new__(model)
    instance.__dict__.update(zip(attnames, converted))
    instance._state = ModelState()
    instance._state.adding = False
    instance._state.db = db.alias
    return instance


def signals_watch(model: type[Model]) -> bool:
    """Whether something listens to the model's instances being made (pre_init, post_init):
    then only Model.__init__ makes them."""
    return model_signals.pre_init.has_listeners(model) or model_signals.post_init.has_listeners(model)


_Converters = tuple[list[str], list[tuple[int, Any, list[Any]]]]
_CONVERTERS: dict[tuple[type[Model], str], _Converters] = {}


def _converters(model: type[Model], db: Any) -> _Converters:
    """The model's field names and, for the fields that have any, the database's and the field's
    converters (asked once per model and database: asking at every row cost a fifth of a
    millisecond per request)."""
    known = _CONVERTERS.get((model, db.alias))
    if known is None:
        fields = model._meta.concrete_fields
        steps = []
        for index, field in enumerate(fields):
            column = field.get_col(model._meta.db_table)
            convert = [*db.ops.get_db_converters(column), *column.get_db_converters(db)]
            if convert:
                steps.append((index, column, convert))
        known = _CONVERTERS[(model, db.alias)] = ([field.attname for field in fields], steps)
    return known


# -- the store -------------------------------------------------------------------------------

# The entry, the deal's snapshot and the entry's record of the club's audit chain in one round
# trip. A key the deal already holds skips the insert (the partial unique constraint
# idempotency_key_unique_per_deal), and then neither the snapshot nor the record is written:
# the caller answers the retry with the stored entry.
STORE_ENTRY_SQL = """
WITH e AS (
    INSERT INTO "referee_entry" (deal_id, seq, payload, result, author_id, created_at, idempotency_key, active)
    VALUES (%s, %s, %s, %s, %s, %s, %s, %s)
    ON CONFLICT (deal_id, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
    RETURNING id
), d AS (
    UPDATE "referee_deal" SET seq = %s, state = %s, status = %s, finished_at = %s, revision = %s
     WHERE id = %s AND EXISTS (SELECT 1 FROM e)
)""" + chain.ENTRY_LINK_SQL + """SELECT id FROM e
"""

#: What an entry changes in its deal's row.
SNAPSHOT_FIELDS = ("seq", "state", "status", "finished_at", "revision")


def store_entry(entry: Entry, deal: Deal) -> bool:
    """Insert a new entry and save the deal's snapshot (``SNAPSHOT_FIELDS``); False, storing
    nothing, when the deal already holds an entry under the entry's idempotency key. Call it
    with the deal locked by ``lock_deal``."""
    if not uses_sql():
        return _store_entry_orm(entry, deal)
    entry_fields = [f for f in Entry._meta.concrete_fields if not f.primary_key]
    # Values prepared by the fields themselves, exactly as save() would (created_at included).
    db = prepared.database()
    values = [f.get_db_prep_save(f.pre_save(entry, True), db) for f in entry_fields]
    values += [f.get_db_prep_save(getattr(deal, f.attname), db) for f in _snapshot_fields()]
    return _store(STORE_ENTRY_SQL, [*values, deal.pk, *_link(entry, deal)], entry, deal)


def _link(entry: Entry, deal: Deal) -> list[Any]:
    """The chain record's parameters of a store statement (the entry's ``created_at`` set)."""
    session = deal.session
    return chain.link_params(session.club_id, chain.of_entry(entry, deal, session.pk))


def _store(sql: str, values: list[Any], entry: Entry, deal: Deal) -> bool:
    """Run a store statement returning the new entry's id (no row: nothing stored), and tell of
    the insert: no model signal does."""
    with prepared.cursor() as cursor:
        cursor.execute(sql, values)
        row = cursor.fetchone()
    if row is None:
        return False
    entry.pk = row[0]
    entry._state.adding = False
    entry._state.db = connection.alias
    signals.entry_stored.send(sender=Entry, deal=deal)
    return True


# The plain entry in one statement and no lock held before it: the deal's snapshot is saved only
# if its revision is still the one the entry was refereed against, and the entry (with its
# chain record) is inserted only if it was. Every write of a deal's entries bumps its revision
# in the same transaction, under the deal row's lock, so an unchanged revision means unchanged
# entries: neither unique constraint can refuse this insert. Outside a transaction the statement
# commits by itself, so the club's chain head is locked for this statement only.
STORE_IF_UNCHANGED_SQL = """
WITH d AS (
    UPDATE "referee_deal" SET seq = %s, state = %s, status = %s, finished_at = %s, revision = %s
     WHERE id = %s AND revision = %s
    RETURNING id
), e AS (
    INSERT INTO "referee_entry" (deal_id, seq, payload, result, author_id, created_at, idempotency_key, active)
    SELECT d.id, %s, %s, %s, %s, %s, %s, %s FROM d
    RETURNING id
)""" + chain.ENTRY_LINK_SQL + """SELECT id FROM e
"""


def store_entry_if_unchanged(entry: Entry, deal: Deal, revision: int) -> bool:
    """Insert a new entry and save the deal's snapshot (``SNAPSHOT_FIELDS``) if the deal's row
    is still at ``revision`` (as ``read_deal`` read it); False, storing nothing, if the deal has
    moved since (or is gone). Only on PostgreSQL (``uses_sql``)."""
    db = prepared.database()
    entry_fields = [f for f in Entry._meta.concrete_fields if not f.primary_key and f.attname != "deal_id"]
    values = [f.get_db_prep_save(getattr(deal, f.attname), db) for f in _snapshot_fields()]
    values += [deal.pk, revision]
    values += [f.get_db_prep_save(f.pre_save(entry, True), db) for f in entry_fields]
    return _store(STORE_IF_UNCHANGED_SQL, [*values, *_link(entry, deal)], entry, deal)


def _snapshot_fields() -> list[Field[Any, Any]]:
    fields = [Deal._meta.get_field(name) for name in SNAPSHOT_FIELDS]
    return [field for field in fields if isinstance(field, Field)]


def _store_entry_orm(entry: Entry, deal: Deal) -> bool:
    # The deal is locked, so no other transaction can store this key between the look and the insert.
    if entry.idempotency_key is not None and (
        Entry.objects.filter(deal_id=deal.pk, idempotency_key=entry.idempotency_key).exists()
    ):
        return False
    entry.save(force_insert=True)
    deal.save(update_fields=list(SNAPSHOT_FIELDS))
    chain.append_entry(entry, deal, deal.session.club_id)
    return True


def stored_entry(deal: Deal, idempotency_key: str) -> Entry | None:
    """The entry the deal already holds under this key (a retry), if any. Read only for a
    retry or an entry about to be refused, never for a plain new entry."""
    return Entry.objects.select_related("author").filter(deal_id=deal.pk, idempotency_key=idempotency_key).first()
