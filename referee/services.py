"""Writes: starting sessions and deals, recording, undoing and correcting entries, closing.

Every function is keyword-only and atomic. The hot path (``entry_add``) locks the deal row,
answers a retried idempotency key with the stored entry, refuses a stale ``expected_seq``,
applies the entry to the stored snapshot (never replaying the deal), and stores the entry,
the new snapshot and, when the deal finished, its results, all in one transaction.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from referee.rules import GAMES, IllegalEntry

from . import selectors
from .errors import Conflict, NotFound, Refusal
from .models import (
    ChangeKind,
    Club,
    Deal,
    DealChange,
    DealStatus,
    Entry,
    Member,
    Role,
    Seat,
    Session,
    SessionStatus,
)
from .permissions import check_role, require_role


def _scoring() -> Any:
    # Imported late: scoring depends on referee's models, not the other way round.
    from scoring import services as scoring_services

    return scoring_services


def refusal_from(error: IllegalEntry, session: Session, names: Sequence[str] | None = None) -> Refusal:
    """A rules refusal in the session's language, with seats shown as the players' names."""
    if names is None:
        names = seat_names(session)
    notation = "lt" if session.notation == "lt" else "en"
    return Refusal(error.render(names=names, translate=_, notation=notation))


def seat_names(session: Session) -> list[str]:
    """The players' names in seat order, read once per session object (refusals name players)."""
    names = getattr(session, "_seat_names", None)
    if names is None:
        names = selectors.seat_names(session.pk)
        session._seat_names = names  # type: ignore[attr-defined]
    return names


# -- clubs and members ---------------------------------------------------------------------


def club_create(*, slug: str, name: str, user: Any, public_leaderboard: bool = False, currency: str = "EUR") -> Club:
    """A new club; its creator becomes its first admin."""
    with transaction.atomic():
        if Club.objects.filter(slug=slug).exists():
            raise Refusal(_("A club with the address “%(slug)s” already exists.") % {"slug": slug})
        club = Club.objects.create(slug=slug, name=name, public_leaderboard=public_leaderboard, currency=currency)
        Member.objects.create(club=club, name=_member_name_for(user), user=user, role=Role.ADMIN)
    return club


def _member_name_for(user: Any) -> str:
    full = f"{user.first_name} {user.last_name}".strip()
    return full or user.get_username()


def member_add(*, club: Club, name: str, user: Any, role: str = Role.MEMBER, linked_user: Any = None) -> Member:
    require_role(user, club, Role.ADMIN)
    name = name.strip()
    if not name:
        raise Refusal(_("A member needs a name."))
    if Member.objects.filter(club=club, name__iexact=name).exists():
        raise Refusal(_("%(name)s is already a member of this club.") % {"name": name})
    if linked_user is not None and Member.objects.filter(club=club, user=linked_user).exists():
        raise Refusal(_("That user is already linked to a member of this club."))
    return Member.objects.create(club=club, name=name, role=role, user=linked_user)


# -- sessions and deals --------------------------------------------------------------------


def session_start(
    *,
    club: Club,
    game: str,
    players: Sequence[Member],
    user: Any,
    options: Mapping[str, Any] | None = None,
    stake: Decimal = Decimal("0"),
    coin: Decimal | None = None,
) -> Session:
    """Seat the players (in seat order) and fix the house rules for the session."""
    require_role(user, club, Role.SCORER)
    if game not in GAMES:
        raise Refusal(
            _("Unknown game “%(game)s”; choose one of %(games)s.") % {"game": game, "games": ", ".join(GAMES)}
        )
    rules = GAMES[game]
    if len({member.pk for member in players}) != len(players):
        raise Refusal(_("A member can take only one seat."))
    for member in players:
        if member.club_id != club.pk:
            raise Refusal(_("%(name)s is not a member of this club.") % {"name": member.name})
    if stake < 0:
        raise Refusal(_("The stake cannot be negative."))
    if coin is not None and coin <= 0:
        raise Refusal(_("The smallest coin must be more than zero."))
    # Validate player count and house rules now, so a bad session is never created.
    try:
        probe = rules.new_deal(players=len(players), dealer=max(len(players) - 1, 0), options=dict(options or {}))
    except IllegalEntry as error:
        raise Refusal(error.render(translate=_)) from error
    merged = rules.to_dict(probe).get("options")
    stored_options = dict(merged) if isinstance(merged, Mapping) else dict(options or {})
    stored_options.pop("pot", None)  # a carried pot belongs to a deal, never to the session
    with transaction.atomic():
        session = Session.objects.create(
            club=club, game=game, options=stored_options, stake=stake, coin=coin,
            currency=club.currency, created_by=user,
        )
        Seat.objects.bulk_create(
            Seat(session=session, number=number, member=member) for number, member in enumerate(players)
        )
    return session


def _require_open(session: Session) -> None:
    if session.status != SessionStatus.OPEN:
        raise Refusal(_("This session is closed; reopen it to record or correct anything."))


def deal_start(*, session: Session, user: Any, dealer: int | None = None) -> Deal:
    """The next deal: dealer by the game's rotation (Cheat: the loser) unless given."""
    require_role(user, session.club, Role.SCORER)
    rules = GAMES[session.game]
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        _require_open(session)
        running = session.deals.filter(status=DealStatus.RUNNING).first()
        if running is not None:
            raise Refusal(
                _("Deal %(number)s is still running; finish it before starting the next.") % {"number": running.number}
            )
        previous = session.deals.order_by("-number").first()
        players = session.seats.count()
        options = dict(session.options)
        if previous is not None:
            previous_state = rules.from_dict(previous.state)
            default_dealer = rules.next_dealer(previous_state)
            if session.game == "michigan":
                options["pot"] = rules.pot_after(previous_state)  # type: ignore[attr-defined]
        else:
            default_dealer = players - 1  # so that seat 0 is the first player of the evening
        if dealer is None:
            dealer = default_dealer
        if isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise Refusal(_("The dealer must be a seat from 0 to %(last)s.") % {"last": players - 1})
        try:
            state = rules.new_deal(players=players, dealer=dealer, options=options)
        except IllegalEntry as error:
            raise refusal_from(error, session) from error
        return Deal.objects.create(
            session=session,
            number=(previous.number + 1) if previous else 1,
            dealer=dealer,
            options=options,
            state=rules.to_dict(state),
        )


def deal_discard(*, deal: Deal, user: Any) -> None:
    """Remove a deal that has no entries (started by mistake); nothing recorded is lost."""
    require_role(user, deal.session.club, Role.SCORER)
    with transaction.atomic():
        deal = Deal.objects.select_for_update().get(pk=deal.pk)
        _require_open(deal.session)
        if deal.entries.exists():
            raise Refusal(_("Only a deal with nothing recorded can be discarded; undo its entries first."))
        deal.delete()


@dataclass(frozen=True)
class EntryAdded:
    entry: Entry
    deal: Deal
    created: bool
    #: The engine's view of the new state (a stored entry), so the answer need not rebuild it.
    view: dict[str, Any] | None = None
    #: The players' names in seat order, read with the deal (None: read them when needed).
    names: list[str] | None = None


def _lock_deal(deal_id: int) -> Deal:
    """The deal, row-locked with its session (closing waits for a recording in flight), never
    the club: a plain FOR UPDATE over the join would lock the club row and serialise every
    table of it."""
    try:
        return (
            Deal.objects.select_for_update(of=("self", "session"))
            .select_related("session", "session__club")
            .get(pk=deal_id)
        )
    except Deal.DoesNotExist as missing:
        raise NotFound(_("Not found.")) from missing


# -- the hot path's statements, as SQL ----------------------------------------------------------
#
# ``entry_add`` runs for every card a table records, and issue 3 holds it to 0.6x the
# throughput of a bare insert. Profiling it (bench/bench_api.py) showed Django compiling its
# queries costing more CPU than everything else in the request: the locking read alone took
# longer to compile than the engine took to referee the entry. So its statements are plain
# SQL, built once from the models' own tables and columns (a new field is picked up, never
# misnamed), with values prepared and converted back by Django's own field methods, exactly
# as ``save()`` and a queryset would. Everything else stays with the ORM; ``_lock_deal`` is
# the same read for the other services. tests/referee/test_entry_service.py holds the rows
# written here to what the ORM writes.


@functools.cache
def _hot_reads(vendor: str) -> dict[str, Any]:
    qn = connection.ops.quote_name
    deal_fields = Deal._meta.concrete_fields
    session_fields = Session._meta.concrete_fields
    columns = [f"d.{qn(f.column)}" for f in deal_fields] + [f"s.{qn(f.column)}" for f in session_fields]
    features = connection.features
    lock = " FOR UPDATE OF d, s" if features.has_select_for_update_of else (
        " FOR UPDATE" if features.has_select_for_update else "")
    member = Member._meta
    role = (
        f"(SELECT m.{qn(member.get_field('role').column)} FROM {qn(member.db_table)} m"
        f" WHERE m.{qn(member.get_field('club').column)} = s.{qn(Session._meta.get_field('club').column)}"
        f" AND m.{qn(member.get_field('user').column)} = %s AND m.{qn(member.get_field('active').column)} = %s)"
    )
    # The players' names for the answer, as (seat, name) pairs: in the same statement, so the
    # answer needs no read of its own. Seats never change once a session has started.
    seat = Seat._meta
    pairs = (
        f"SELECT st.{qn(seat.get_field('number').column)} AS n, mm.{qn(member.get_field('name').column)} AS name"
        f" FROM {qn(seat.db_table)} st INNER JOIN {qn(member.db_table)} mm"
        f" ON mm.{qn('id')} = st.{qn(seat.get_field('member').column)}"
        f" WHERE st.{qn(seat.get_field('session').column)} = s.{qn('id')}"
    )
    names = {
        "postgresql": f", (SELECT json_agg(json_build_array(p.n, p.name)) FROM ({pairs}) p)",
        "sqlite": f", (SELECT json_group_array(json_array(p.n, p.name)) FROM ({pairs}) p)",
    }.get(vendor, "")
    entry = Entry._meta
    join = f"s.{qn('id')} = d.{qn(Deal._meta.get_field('session').column)}"
    return {
        # Note for PostgreSQL: the role subquery reads the snapshot taken before any wait for
        # the lock; a role is not written by the transactions this lock waits for.
        "lock": (
            f"SELECT {', '.join(columns)}, {role}{names} FROM {qn(Deal._meta.db_table)} d"
            f" INNER JOIN {qn(Session._meta.db_table)} s ON {join}"
            f" WHERE d.{qn('id')} = %s{lock}"
        ),
        # After the lock is held (a fresh statement, so it sees what the transaction we waited for stored).
        "earlier": (
            f"SELECT {qn('id')} FROM {qn(entry.db_table)} WHERE {qn(entry.get_field('deal').column)} = %s"
            f" AND {qn(entry.get_field('idempotency_key').column)} = %s"
        ),
        "names": bool(names),
        "deal": [(f.attname, _converters(f)) for f in deal_fields],
        "session": [(f.attname, _converters(f)) for f in session_fields],
    }


def _converters(field: Any) -> tuple[Any, list[Any]]:
    column = field.get_col(field.model._meta.db_table)
    return column, [*connection.ops.get_db_converters(column), *column.get_db_converters(connection)]


def _instance(model: Any, fields: list[tuple[str, tuple[Any, list[Any]]]], values: Sequence[Any]) -> Any:
    converted = []
    for (_name, (column, converters)), value in zip(fields, values):
        for convert in converters:
            value = convert(value, column, connection)
        converted.append(value)
    return model.from_db(connection.alias, [name for name, _conv in fields], converted)


#: The largest id a BigAutoField column holds.
MAX_ID = 2**63 - 1


def _lock_deal_with_role(deal_id: int, user: Any) -> tuple[Deal, str | None, list[str] | None]:
    """``_lock_deal`` plus the user's active role in the deal's club and the players' names in
    seat order (None where the database is neither PostgreSQL nor SQLite), in one round trip."""
    if not 0 < deal_id <= MAX_ID:
        # No such row can exist; the plain SQL below would fail on an id the column cannot hold.
        raise NotFound(_("Not found."))
    reads = _hot_reads(connection.vendor)
    user_id = user.pk if getattr(user, "is_authenticated", False) else None
    with connection.cursor() as cursor:
        cursor.execute(reads["lock"], [user_id, True, deal_id])
        row = cursor.fetchone()
    if row is None:
        raise NotFound(_("Not found."))
    names = None
    if reads["names"]:
        *row, pairs = row
        pairs = json.loads(pairs) if isinstance(pairs, str) else (pairs or [])
        names = [name for _seat, name in sorted(pairs)]
    split = len(reads["deal"])
    deal = _instance(Deal, reads["deal"], row[:split])
    deal.session = _instance(Session, reads["session"], row[split:-1])
    return deal, row[-1], names


@functools.cache
def _hot_writes(vendor: str) -> dict[str, Any]:
    qn = connection.ops.quote_name
    entry_fields = [f for f in Entry._meta.concrete_fields if not f.primary_key]
    returning = connection.features.can_return_columns_from_insert
    returning_id = f" RETURNING {qn(Entry._meta.pk.column)}" if returning else ""
    # PostgreSQL, and SQLite from 3.35 (RETURNING), skip an entry whose key the deal already
    # holds in the insert itself (the partial unique constraint idempotency_key_unique_per_deal).
    key = qn(Entry._meta.get_field("idempotency_key").column)
    skip_stored_key = returning and vendor in ("postgresql", "sqlite")
    on_conflict = (
        f" ON CONFLICT ({qn(Entry._meta.get_field('deal').column)}, {key}) WHERE {key} IS NOT NULL DO NOTHING"
        if skip_stored_key else ""
    )
    snapshot = [Deal._meta.get_field(name) for name in ("seq", "state", "status", "finished_at")]
    insert = (
        f"INSERT INTO {qn(Entry._meta.db_table)} ({', '.join(qn(f.column) for f in entry_fields)})"
        f" VALUES ({', '.join(['%s'] * len(entry_fields))}){on_conflict}{returning_id}"
    )
    update = (
        f"UPDATE {qn(Deal._meta.db_table)} SET {', '.join(f'{qn(f.column)} = %s' for f in snapshot)}"
        f" WHERE {qn(Deal._meta.pk.column)} = %s"
    )
    writes = {
        "insert": insert,
        "entry_fields": entry_fields,
        "returning": returning,
        "skip_stored_key": skip_stored_key,
        "update": update,
        "snapshot_fields": snapshot,
    }
    if vendor == "postgresql":
        # The entry and the snapshot in one round trip; the snapshot is saved only when the
        # entry was stored (not for a retry of a stored key).
        writes["insert_and_snapshot"] = (
            f"WITH e AS ({insert}), d AS ({update} AND EXISTS (SELECT 1 FROM e)) SELECT * FROM e"
        )
    return writes


def _insert_entry(entry: Entry) -> Entry | None:
    """``entry.save()`` for a new entry (``created_at`` is set as ``auto_now_add`` sets it);
    None, storing nothing, when the deal already holds an entry under its idempotency key."""
    writes = _hot_writes(connection.vendor)
    values = [f.get_db_prep_save(f.pre_save(entry, True), connection) for f in writes["entry_fields"]]
    with connection.cursor() as cursor:
        if writes["skip_stored_key"]:
            cursor.execute(writes["insert"], values)
            row = cursor.fetchone()
            if row is None:
                return None
            entry.pk = row[0]
        else:
            if entry.idempotency_key is not None and _earlier_entry(entry.deal, entry.idempotency_key):
                return None
            cursor.execute(writes["insert"], values)
            entry.pk = cursor.fetchone()[0] if writes["returning"] else cursor.lastrowid
    entry._state.adding = False
    entry._state.db = connection.alias
    return entry


def _store_entry(entry: Entry, deal: Deal) -> bool:
    """Insert a new entry and save the deal's snapshot; False, storing nothing, when the deal
    already holds an entry under the entry's idempotency key. One statement on PostgreSQL."""
    writes = _hot_writes(connection.vendor)
    if "insert_and_snapshot" not in writes:
        if _insert_entry(entry) is None:
            return False
        _save_snapshot(deal)
        return True
    values = [f.get_db_prep_save(f.pre_save(entry, True), connection) for f in writes["entry_fields"]]
    snapshot = [f.get_db_prep_save(getattr(deal, f.attname), connection) for f in writes["snapshot_fields"]]
    with connection.cursor() as cursor:
        cursor.execute(writes["insert_and_snapshot"], [*values, *snapshot, deal.pk])
        row = cursor.fetchone()
    if row is None:
        return False
    entry.pk = row[0]
    entry._state.adding = False
    entry._state.db = connection.alias
    return True


def _save_snapshot(deal: Deal) -> None:
    """``deal.save(update_fields=["seq", "state", "status", "finished_at"])``."""
    writes = _hot_writes(connection.vendor)
    values = [f.get_db_prep_save(getattr(deal, f.attname), connection) for f in writes["snapshot_fields"]]
    with connection.cursor() as cursor:
        cursor.execute(writes["update"], [*values, deal.pk])


def _earlier_entry(deal: Deal, idempotency_key: str) -> Entry | None:
    """The entry already stored under this key in this deal (a retry), if any."""
    with connection.cursor() as cursor:
        cursor.execute(_hot_reads(connection.vendor)["earlier"], [deal.pk, idempotency_key])
        row = cursor.fetchone()
    return None if row is None else Entry.objects.select_related("author").get(pk=row[0])


def _last_result(rules: Any, state: Any) -> Any:
    view = rules.view(state)
    return view.get("last")


def entry_add(
    *,
    deal_id: int,
    payload: Mapping[str, Any],
    user: Any,
    idempotency_key: str | None = None,
    expected_seq: int | None = None,
) -> EntryAdded:
    """Referee and store one entry (the hot path)."""
    with transaction.atomic():
        deal, role, names = _lock_deal_with_role(deal_id, user)
        session = deal.session
        check_role(user, role, Role.SCORER)
        # A retry of a stored key is answered with the original, before anything is refused.
        # The key is not looked up first: the insert skips a stored key (ON CONFLICT DO
        # NOTHING), so only a retry, or an entry about to be refused, pays for the lookup.
        key = idempotency_key or None

        def retried() -> EntryAdded | None:
            earlier = _earlier_entry(deal, key) if key else None
            if earlier is None:
                return None
            if earlier.payload != dict(payload):
                raise Conflict(
                    _("This idempotency key was already used for a different entry; create a new key."),
                    seq=deal.seq,
                )
            return EntryAdded(entry=earlier, deal=deal, created=False, names=names)

        try:
            _require_open(session)
            if expected_seq is not None and expected_seq != deal.seq:
                raise Conflict(
                    _("Another device recorded first: this deal is now at entry %(seq)s. Reload and try again.")
                    % {"seq": deal.seq},
                    seq=deal.seq,
                )
            rules = GAMES[session.game]
            state = rules.from_dict(deal.state)
            try:
                new_state = rules.apply(state, dict(payload))
            except IllegalEntry as error:
                raise refusal_from(error, session) from error
        except Refusal:
            added = retried()
            if added is not None:
                return added
            raise
        view = rules.view(new_state)
        outcome = rules.outcome(new_state)
        entry = Entry(
            deal=deal, seq=deal.seq + 1, payload=dict(payload), result=view.get("last"),
            author=user if getattr(user, "is_authenticated", False) else None,
            idempotency_key=key,
        )
        before = (deal.seq, deal.state, deal.status, deal.finished_at)
        deal.seq += 1
        deal.state = rules.to_dict(new_state)
        if outcome is not None:
            deal.status = DealStatus.FINISHED
            deal.finished_at = timezone.now()
        if not _store_entry(entry, deal):  # the key is stored already: a retry; nothing written
            deal.seq, deal.state, deal.status, deal.finished_at = before
            added = retried()
            assert added is not None  # the insert skipped the row only for a stored key
            return added
        if outcome is not None:
            _scoring().deal_finished(deal=deal, state=new_state)
        return EntryAdded(entry=entry, deal=deal, created=True, view=view, names=names)


def replay(deal: Deal, payloads: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None) -> Any:
    """The deal's state rebuilt from its log (undo and corrections; never the hot path)."""
    rules = GAMES[deal.session.game]
    options = dict(options if options is not None else deal.options)
    state = rules.new_deal(players=deal.session.seats.count(), dealer=deal.dealer, options=options)
    for payload in payloads:
        state = rules.apply(state, dict(payload))
    return state


def _active_entries(deal: Deal) -> list[Entry]:
    return list(deal.entries.filter(active=True).order_by("seq"))


def _store_replayed(deal: Deal, state: Any) -> None:
    """Save a replayed state and bring the deal's status and results in line with it."""
    rules = GAMES[deal.session.game]
    was_finished = deal.status == DealStatus.FINISHED
    deal.state = rules.to_dict(state)
    finished = rules.outcome(state) is not None
    deal.status = DealStatus.FINISHED if finished else DealStatus.RUNNING
    deal.finished_at = (deal.finished_at or timezone.now()) if finished else None
    deal.save(update_fields=["seq", "state", "status", "finished_at", "options"])
    if was_finished:
        _scoring().deal_reopened(deal=deal)
    if finished:
        _scoring().deal_finished(deal=deal, state=state)


def entry_undo(*, deal_id: int, user: Any, expected_seq: int | None = None) -> Deal:
    """Undo the deal's last entry: the entry is kept, marked inactive, and the undo logged."""
    with transaction.atomic():
        deal = _lock_deal(deal_id)
        session = deal.session
        require_role(user, session.club, Role.SCORER)
        _require_open(session)
        if expected_seq is not None and expected_seq != deal.seq:
            raise Conflict(
                _("Another device recorded first: this deal is now at entry %(seq)s. Reload and try again.")
                % {"seq": deal.seq},
                seq=deal.seq,
            )
        if session.deals.filter(number__gt=deal.number).exists():
            raise Refusal(_("A later deal has started; correct this deal's entries instead of undoing them."))
        entries = _active_entries(deal)
        if not entries:
            raise Refusal(_("There is nothing to undo in this deal."))
        last = entries[-1]
        state = replay(deal, [e.payload for e in entries[:-1]])
        last.active = False
        last.save(update_fields=["active"])
        DealChange.objects.create(deal=deal, kind=ChangeKind.UNDO, replaced=last, author=_author(user))
        deal.seq -= 1
        _store_replayed(deal, state)
        return deal


def _author(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None


def entry_correct(*, deal_id: int, seq: int, payload: Mapping[str, Any], user: Any) -> Deal:
    """Replace entry ``seq`` of a deal and replay; later deals that depend on it (Michigan's
    carried chips) are replayed too. Refused, changing nothing, if anything becomes illegal."""
    with transaction.atomic():
        deal = _lock_deal(deal_id)
        session = deal.session
        require_role(user, session.club, Role.SCORER)
        _require_open(session)
        entries = _active_entries(deal)
        target = next((e for e in entries if e.seq == seq), None)
        if target is None:
            raise NotFound(_("This deal has no entry %(seq)s.") % {"seq": seq})
        payloads = [dict(payload) if e.seq == seq else e.payload for e in entries]
        rules = GAMES[session.game]
        try:
            state = replay(deal, payloads)
        except IllegalEntry as error:
            raise Refusal(
                _("This correction is refused: %(reason)s") % {"reason": refusal_from(error, session).message}
            ) from error
        later = list(session.deals.filter(number__gt=deal.number).order_by("number"))
        replayed_later = _replay_later_deals(session, rules, state, later)
        target.active = False
        target.save(update_fields=["active"])
        replacement = Entry.objects.create(
            deal=deal, seq=seq, payload=dict(payload), author=_author(user),
            result=_last_result(rules, replay(deal, payloads[:seq])),
        )
        DealChange.objects.create(
            deal=deal, kind=ChangeKind.CORRECTION, replaced=target, replacement=replacement, author=_author(user)
        )
        _store_replayed(deal, state)
        for later_deal, later_state in replayed_later:
            _store_replayed(later_deal, later_state)
        return deal


def _replay_later_deals(session: Session, rules: Any, state: Any, later: list[Deal]) -> list[tuple[Deal, Any]]:
    """Replay deals after a corrected one when they depend on it (dealer, carried chips)."""
    results: list[tuple[Deal, Any]] = []
    previous_state = state
    for later_deal in later:
        if rules.outcome(previous_state) is None:
            raise Refusal(_("This correction would leave a finished deal unfinished while later deals exist."))
        if rules.next_dealer(previous_state) != later_deal.dealer and session.game == "cheat":
            raise Refusal(_("This correction changes who lost the deal, and so who dealt the next one."))
        options = dict(later_deal.options)
        if session.game == "michigan":
            options["pot"] = rules.pot_after(previous_state)
        if options == later_deal.options:
            break  # nothing carried over changed; later deals stand as they are
        later_deal.options = options
        try:
            previous_state = replay(later_deal, [e.payload for e in _active_entries(later_deal)], options)
        except IllegalEntry as error:
            raise Refusal(
                _("This correction is refused: deal %(number)s no longer adds up: %(reason)s")
                % {"number": later_deal.number, "reason": refusal_from(error, session).message}
            ) from error
        results.append((later_deal, previous_state))
    return results


def session_close(*, session: Session, user: Any) -> Session:
    """Close the evening: settle what the house rules settle at close, then build the summary
    in the background once this transaction has committed."""
    require_role(user, session.club, Role.SCORER)
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        _require_open(session)
        running = session.deals.filter(status=DealStatus.RUNNING).first()
        if running is not None:
            raise Refusal(
                _("Deal %(number)s is still running: finish it, or undo its entries and discard it, before closing.")
                % {"number": running.number}
            )
        session.status = SessionStatus.CLOSED
        session.closed_at = timezone.now()
        session.save(update_fields=["status", "closed_at"])
        _scoring().session_closed(session=session)
    return session


def session_reopen(*, session: Session, user: Any) -> Session:
    require_role(user, session.club, Role.SCORER)
    with transaction.atomic():
        session = Session.objects.select_for_update().get(pk=session.pk)
        if session.status != SessionStatus.CLOSED:
            raise Refusal(_("This session is already open."))
        session.status = SessionStatus.OPEN
        session.closed_at = None
        session.save(update_fields=["status", "closed_at"])
        _scoring().session_reopened(session=session)
    return session

