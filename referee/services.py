"""Writes: starting sessions and deals, recording, undoing and correcting entries, closing.

Every function is keyword-only and atomic. The hot path (``entry_add``) locks the deal row,
answers a retried idempotency key with the stored entry, refuses a stale ``expected_seq``,
applies the entry to the stored snapshot (never replaying the deal), and stores the entry,
the new snapshot and, when the deal finished, its results, all in one transaction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, TypeVar

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from referee.rules import GAMES, IllegalEntry

from . import chain, entry_store, screen_views, selectors, signals
from .deal_starts import DealStarted as DealStarted
from .deal_starts import deal_start_once as deal_start_once
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
from .plans import checked_plan
from .refusals import refusal_from as refusal_from
from .refusals import require_open as _require_open
from .refusals import seat_names as seat_names

#: What a correction's preview reads back (the pages choose).
T = TypeVar("T")


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
    plan: object = None,
) -> Session:
    """Seat the players (in seat order) and fix the house rules and the plan for the session."""
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
    stored_plan = checked_plan(plan)
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
            currency=club.currency, created_by=user, plan=stored_plan,
        )
        Seat.objects.bulk_create(
            Seat(session=session, number=number, member=member) for number, member in enumerate(players)
        )
        chain.append_open(session, [member.pk for member in players], user)
    return session


def _lock_open_session(session: Session, running_refusal: str) -> Session:
    """The session, row-locked, refused if it is closed or one of its deals is still running
    (``running_refusal`` says what to do about that deal, with its ``%(number)s``)."""
    session = Session.objects.select_for_update().get(pk=session.pk)
    _require_open(session)
    running = session.deals.filter(status=DealStatus.RUNNING).first()
    if running is not None:
        raise Refusal(running_refusal % {"number": running.number}, code="running_deal")
    return session


def deal_start(*, session: Session, user: Any, dealer: int | None = None, client_id: str | None = None,
               expected_number: int | None = None) -> Deal:
    """The next deal: dealer by the game's rotation (or by how the last deal ended) unless given;
    what the last deal carries over (chips left on prize cards) joins the session's options."""
    return deal_start_once(session=session, user=user, dealer=dealer, client_id=client_id,
                           expected_number=expected_number).deal


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
    view: Mapping[str, Any] | None = None
    #: The players' names in seat order, read with the deal (None: read them when needed).
    names: list[str] | None = None


def _lock_deal(deal_id: int) -> Deal:
    """The deal, row-locked with its session (closing waits for a change in flight), never
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


def _require_seq(deal: Deal, expected_seq: int | None) -> None:
    """Refuse a change made against an older picture of the deal (another tablet got there first)."""
    if expected_seq is not None and expected_seq != deal.seq:
        raise Conflict(
            _("Another device recorded first: this deal is now at entry %(seq)s. Reload and try again.")
            % {"seq": deal.seq},
            code="stale_seq",
            seq=deal.seq,
        )


def _retried(read: entry_store.DealRead, key: str | None, payload: Mapping[str, Any]) -> EntryAdded | None:
    """The answer to a retry: the entry stored under this key, if the deal holds one."""
    earlier = entry_store.stored_entry(read.deal, key) if key else None
    if earlier is None:
        return None
    if earlier.payload != dict(payload):
        raise Conflict(
            _("This idempotency key was already used for a different entry; create a new key."),
            code="duplicate_key_conflict",
            seq=read.deal.seq,
        )
    return EntryAdded(entry=earlier, deal=read.deal, created=False, names=read.names)


def entry_add(
    *,
    deal_id: int,
    payload: Mapping[str, Any],
    user: Any,
    idempotency_key: str | None = None,
    expected_seq: int | None = None,
) -> EntryAdded:
    """Referee and store one entry (the hot path).

    On PostgreSQL the entry is refereed against the deal as it stands, read without a lock,
    and stored only if the deal has not moved since: a mid-deal entry is then two statements
    and no transaction of its own. A retry of a stored key, or a deal that moved in between
    (another tablet, an undo), takes the locked path, which decides it as if it came first."""
    key = idempotency_key or None
    if entry_store.uses_sql():
        added = _entry_add_unlocked(deal_id, payload, user, key, expected_seq)
        if added is not None:
            return added
    with transaction.atomic():
        read = entry_store.lock_deal(deal_id, user)
        check_role(user, read.role, Role.SCORER)
        # A retry of a stored key is answered with the original, before anything is refused.
        # The key is not looked up first: the store skips a stored key, so only a retry, or
        # an entry about to be refused, pays for the lookup.
        try:
            rules, new_state = _referee(read, payload, expected_seq)
        except Refusal:
            added = _retried(read, key, payload)
            if added is not None:
                return added
            raise
        deal = read.deal
        before = (deal.seq, deal.state, deal.status, deal.finished_at, deal.revision)
        entry, view, outcome = _advance(deal, rules, new_state, payload, user, key)
        if not entry_store.store_entry(entry, deal):  # the key is stored already: a retry; nothing written
            deal.seq, deal.state, deal.status, deal.finished_at, deal.revision = before
            added = _retried(read, key, payload)
            assert added is not None  # the store skipped the row only for a stored key
            return added
        return _stored(read, entry, rules, new_state, view, outcome)


def _entry_add_unlocked(
    deal_id: int, payload: Mapping[str, Any], user: Any, key: str | None, expected_seq: int | None
) -> EntryAdded | None:
    """``entry_add`` without a lock held while refereeing; None when the locked path must decide
    (a retry, or the deal moved). A refusal here is the locked path's: the read is one snapshot,
    and the key was not stored in it, so no retry comes before the refusal."""
    read = entry_store.read_deal(deal_id, user, key)
    check_role(user, read.role, Role.SCORER)
    if read.key_stored:
        return None
    rules, new_state = _referee(read, payload, expected_seq)
    deal = read.deal
    revision = deal.revision
    entry, view, outcome = _advance(deal, rules, new_state, payload, user, key)
    # Mid-deal, the one statement commits the entry with the snapshot, or stores nothing. A deal
    # that finishes needs a transaction for its results, whose conditional update locks the
    # deal's row (no other lock is needed: a session with a running deal cannot close, and the
    # deal was running when read).
    with transaction.atomic() if outcome is not None else nullcontext():
        if not entry_store.store_entry_if_unchanged(entry, deal, revision):
            return None
        return _stored(read, entry, rules, new_state, view, outcome)


def _referee(read: entry_store.DealRead, payload: Mapping[str, Any], expected_seq: int | None) -> tuple[Any, Any]:
    """The game's rules and the deal's state after the entry; a Refusal if the session is
    closed, ``expected_seq`` is stale or the rules refuse the entry."""
    deal, session = read.deal, read.deal.session
    _require_open(session)
    _require_seq(deal, expected_seq)
    rules = GAMES[session.game]
    try:
        return rules, rules.apply(rules.from_dict(deal.state), dict(payload))
    except IllegalEntry as error:
        raise refusal_from(error, session, read.names) from error


def _advance(
    deal: Deal, rules: Any, new_state: Any, payload: Mapping[str, Any], user: Any, key: str | None
) -> tuple[Entry, Mapping[str, Any], Any]:
    """The new entry, and the deal brought to the new state (not saved): the entry, the
    engine's view of the new state and the deal's outcome (None while it runs)."""
    view = rules.view(new_state)
    outcome = rules.outcome(new_state)
    entry = Entry(
        deal=deal, seq=deal.seq + 1, payload=dict(payload), result=view.get("last"),
        author=_author(user), idempotency_key=key,
    )
    deal.seq += 1
    deal.revision += 1
    deal.state = rules.to_dict(new_state)
    if outcome is not None:
        deal.status = DealStatus.FINISHED
        deal.finished_at = timezone.now()
    return entry, view, outcome


def _stored(read: entry_store.DealRead, entry: Entry, rules: Any, new_state: Any, view: Mapping[str, Any],
            outcome: Any) -> EntryAdded:
    """What follows a stored entry, in its transaction: a finished deal's results, and the
    screens' view of the new version, kept once it commits."""
    deal = read.deal
    if outcome is not None:
        signals.deal_finished.send(sender=Deal, deal=deal, state=new_state)
    # Every screen of the deal asks for this version next: they find its view kept.
    screen_views.keep_after_commit(
        deal, selectors.deal_version(deal), view, rules.next_dealer(new_state) if outcome else None)
    return EntryAdded(entry=entry, deal=deal, created=True, view=view, names=read.names)


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
    deal.revision += 1  # a later deal replayed here changes no entry of its own: its screen must still change
    finished = rules.outcome(state) is not None
    deal.status = DealStatus.FINISHED if finished else DealStatus.RUNNING
    deal.finished_at = (deal.finished_at or timezone.now()) if finished else None
    deal.save(update_fields=["seq", "state", "status", "finished_at", "options", "revision"])
    if was_finished:
        signals.deal_reopened.send(sender=Deal, deal=deal)
    if finished:
        signals.deal_finished.send(sender=Deal, deal=deal, state=state)


def entry_undo(*, deal_id: int, user: Any, expected_seq: int | None = None) -> Deal:
    """Undo the deal's last entry: the entry is kept, marked inactive, and the undo logged."""
    with transaction.atomic():
        deal = _lock_deal(deal_id)
        session = deal.session
        require_role(user, session.club, Role.SCORER)
        _require_open(session)
        _require_seq(deal, expected_seq)
        if session.deals.filter(number__gt=deal.number).exists():
            raise Refusal(_("A later deal has started; correct this deal's entries instead of undoing them."))
        entries = _active_entries(deal)
        if not entries:
            raise Refusal(_("There is nothing to undo in this deal."))
        last = entries[-1]
        state = replay(deal, [e.payload for e in entries[:-1]])
        last.active = False
        last.save(update_fields=["active"])
        change = DealChange.objects.create(deal=deal, kind=ChangeKind.UNDO, replaced=last, author=_author(user))
        chain.append_change(change, deal, session.club_id)
        deal.seq -= 1
        _store_replayed(deal, state)
        return deal


def _author(user: Any) -> Any:
    return user if getattr(user, "is_authenticated", False) else None


def entry_correct(*, deal_id: int, seq: int, payload: Mapping[str, Any], user: Any) -> Deal:
    """Replace entry ``seq`` of a deal and replay; later deals that depend on it (carried-over
    chips) are replayed too. Refused, changing nothing, if anything becomes illegal."""
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
                _("This correction is refused: %(reason)s") % {"reason": refusal_from(error, session).message},
                code="illegal_entry",
            ) from error
        later = list(session.deals.filter(number__gt=deal.number).order_by("number"))
        replayed_later = _replay_later_deals(session, rules, state, later)
        target.active = False
        target.save(update_fields=["active"])
        replacement = Entry.objects.create(
            deal=deal, seq=seq, payload=dict(payload), author=_author(user),
            result=rules.view(replay(deal, payloads[:seq])).get("last"),
        )
        change = DealChange.objects.create(
            deal=deal, kind=ChangeKind.CORRECTION, replaced=target, replacement=replacement, author=_author(user)
        )
        chain.append_change(change, deal, session.club_id)
        _store_replayed(deal, state)
        for later_deal, later_state in replayed_later:
            _store_replayed(later_deal, later_state)
        return deal


class _PreviewDone(Exception):
    """Raised to roll a correction's preview back once it has been read."""


def entry_correct_preview(
    *, deal_id: int, seq: int, payload: Mapping[str, Any], user: Any, read: Callable[[Deal], T],
) -> T:
    """What correcting entry ``seq`` would change, stored nowhere: :func:`entry_correct` itself
    runs (same checks, same replay of this deal and the later ones, same results written) in a
    transaction that is rolled back after ``read`` has read the corrected picture. Refused
    exactly as the correction would be. The saved correction therefore equals its preview."""
    seen: list[T] = []
    try:
        with transaction.atomic():
            deal = entry_correct(deal_id=deal_id, seq=seq, payload=payload, user=user)
            seen.append(read(deal))
            raise _PreviewDone
    except _PreviewDone:
        pass
    return seen[0]


def _replay_later_deals(session: Session, rules: Any, state: Any, later: list[Deal]) -> list[tuple[Deal, Any]]:
    """Replay deals after a corrected one when they depend on it (dealer, carried chips)."""
    results: list[tuple[Deal, Any]] = []
    previous_state = state
    for later_deal in later:
        if rules.outcome(previous_state) is None:
            raise Refusal(_("This correction would leave a finished deal unfinished while later deals exist."))
        if rules.dealer_follows_outcome and rules.next_dealer(previous_state) != later_deal.dealer:
            raise Refusal(_("This correction changes who lost the deal, and so who dealt the next one."))
        options = {**later_deal.options, **rules.carry_over(previous_state)}
        if options == later_deal.options:
            break  # nothing carried over changed; later deals stand as they are
        later_deal.options = options
        try:
            previous_state = replay(later_deal, [e.payload for e in _active_entries(later_deal)], options)
        except IllegalEntry as error:
            raise Refusal(
                _("This correction is refused: deal %(number)s no longer adds up: %(reason)s")
                % {"number": later_deal.number, "reason": refusal_from(error, session).message},
                code="illegal_entry",
            ) from error
        results.append((later_deal, previous_state))
    return results


def session_close(*, session: Session, user: Any) -> Session:
    """Close the evening: settle what the house rules settle at close, then build the summary
    in the background once this transaction has committed."""
    require_role(user, session.club, Role.SCORER)
    with transaction.atomic():
        session = _lock_open_session(
            session,
            _("Deal %(number)s is still running: finish it, or undo its entries and discard it, before closing."),
        )
        session.status = SessionStatus.CLOSED
        session.closed_at = timezone.now()
        session.save(update_fields=["status", "closed_at"])
        chain.append_close(session, user)
        signals.session_closed.send(sender=Session, session=session)
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
        chain.append_reopen(session, user, timezone.now())
        signals.session_reopened.send(sender=Session, session=session)
    return session

