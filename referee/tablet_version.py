"""A tablet's version of a deal instead of the server's: the conflict dialog's "use mine instead".

A tablet recorded entries offline while the server took others for the same deal (another
device, or this tablet's own entries it never saw stored). The scorer who chooses "use mine"
wants the deal to be what the tablet recorded: the server's entries after the point where the
tablet's version begins are undone, and the tablet's are refereed and stored in their place,
in one step, refused as a whole (changing nothing) when the referee refuses any of them. The
undone entries stay in the log, each with a change that names who chose the tablet's version.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from referee.rules import GAMES, IllegalEntry

from . import chain
from .errors import Conflict, Refusal
from .models import ChangeKind, Deal, DealChange, Entry, Role
from .permissions import require_role
from .refusals import refusal_from, require_open
from .services import _active_entries, _author, _lock_deal, _require_seq, _store_replayed, replay


@dataclass(frozen=True)
class TabletEntry:
    """One entry of the tablet's version: what was recorded and the key it was recorded under."""

    payload: Mapping[str, Any]
    idempotency_key: str


def use_tablet_version(
    *, deal_id: int, user: Any, expected_seq: int, since_seq: int, entries: Sequence[TabletEntry]
) -> Deal:
    """Replace the deal's active entries after ``since_seq`` with ``entries``.

    ``expected_seq`` is the server's seq the scorer saw in the dialog (a change since is a 409,
    as for any entry); the tablet's version was recorded on the deal as it stood at
    ``since_seq``. A retry (every key already stored, active, in this order) answers the deal
    as it is."""
    with transaction.atomic():
        deal = _lock_deal(deal_id)
        session = deal.session
        require_role(user, session.club, Role.SCORER)
        active = _active_entries(deal)
        if _already_stored(active, since_seq, entries):
            return deal
        require_open(session)
        _require_seq(deal, expected_seq)
        if since_seq > deal.seq:
            raise Refusal(
                _("The tablet's version begins after entry %(since)s, but this deal has only %(seq)s.")
                % {"since": since_seq, "seq": deal.seq},
                code="invalid",
            )
        if session.deals.filter(number__gt=deal.number).exists():
            raise Refusal(_("A later deal has started; correct this deal's entries instead of undoing them."))
        keys = [entry.idempotency_key for entry in entries]
        if Entry.objects.filter(deal=deal, idempotency_key__in=keys).exists():
            raise Conflict(
                _("This idempotency key was already used for a different entry; create a new key."),
                code="duplicate_key_conflict",
                seq=deal.seq,
            )
        kept = [entry.payload for entry in active[:since_seq]]
        rules = GAMES[session.game]
        results: list[Any] = []
        state = replay(deal, kept)
        for number, entry in enumerate(entries, start=since_seq + 1):
            try:
                state = rules.apply(state, dict(entry.payload))
            except IllegalEntry as error:
                raise Refusal(
                    _("The tablet's entry %(seq)s is refused: %(reason)s")
                    % {"seq": number, "reason": refusal_from(error, session).message},
                    code="illegal_entry",
                ) from error
            results.append(rules.view(state).get("last"))
        replaced = active[since_seq:]
        for old in replaced:
            old.active = False
            old.save(update_fields=["active"])
        stored = [
            Entry.objects.create(
                deal=deal, seq=number, payload=dict(entry.payload), result=result, author=_author(user),
                idempotency_key=entry.idempotency_key,
            )
            for number, (entry, result) in enumerate(zip(entries, results, strict=True), start=since_seq + 1)
        ]
        for position, old in enumerate(replaced):
            change = DealChange.objects.create(
                deal=deal, kind=ChangeKind.TABLET_VERSION, replaced=old,
                replacement=stored[position] if position < len(stored) else None, author=_author(user),
            )
            chain.append_change(change, deal, session.club_id)
        # The tablet's entries beyond the ones they replace are new entries of the chain.
        for added in stored[len(replaced):]:
            chain.append_entry(added, deal, session.club_id)
        deal.seq = since_seq + len(stored)
        _store_replayed(deal, state)
        return deal


def _already_stored(active: list[Entry], since_seq: int, entries: Sequence[TabletEntry]) -> bool:
    """A retry of this very choice: the tablet's entries stand, in order, right after since_seq."""
    if not entries:
        return False
    mine = active[since_seq:since_seq + len(entries)]
    return len(mine) == len(entries) and all(
        stored.idempotency_key == entry.idempotency_key and stored.payload == dict(entry.payload)
        for stored, entry in zip(mine, entries, strict=True)
    )
