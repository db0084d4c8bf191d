"""The club's audit chain: every entry, undo, correction, seat change, opening, close and
reopen of a session becomes a numbered record whose hash covers the record before it, as in a
transparency log. A treasurer who kept last month's head (its number and hash, or last
month's export) can show that nothing recorded before it was edited since: an edit of an
entry's payload, of a record, or a record removed or moved shows at exactly that record
(``referee.chain_verify``).

A record's ``content`` is the canonical JSON (sorted keys, no spaces, UTF-8) of what matters
for money: the session, the deal's number and dealer, the entry's seq and payload, who and
when. Row ids other than the session's stay out of it, so the hot path can build it before
its insert; the record's ``ref`` names the row. ``hash = sha256(prev_hash + content)`` in hex,
the first record linking to ``GENESIS``.

Appending takes the lock of the club's ``ChainHead`` row, inside the transaction (or the one
statement) of the write it records: the record commits or rolls back with that write, and two
tables of one club number their records one after the other, with no gap. The lock is held
from the append to the commit, so the hot path appends in its store statement (a mid-deal entry
on PostgreSQL holds it for that statement only). Every writer takes the head before scoring's
rows (a finishing entry's results and aggregates follow its store), never after them: two
writers taking the two in opposite orders could deadlock. On PostgreSQL the head is advanced and the
record inserted by one statement that hashes in the database (``sha256``, PostgreSQL 11 and
newer); elsewhere (SQLite) Python hashes the same text under the head row's lock.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from django.db import connection

from db import prepared

#: What the first record of a club links to.
GENESIS = "0" * 64

#: The kinds of record, in the order a tie in time is sealed (``referee.chain_seal``).
KINDS = ("open", "entry", "undo", "correction", "tablet", "seat", "close", "reopen")

#: The kinds a deal change (``DealChange.kind``) is recorded under: its own.
CHANGE_KINDS = ("undo", "correction", "tablet")


def link(prev_hash: str, content: str) -> str:
    """A record's hash: SHA-256 over the previous record's hash and this record's content."""
    return hashlib.sha256((prev_hash + content).encode()).hexdigest()


def canonical(data: Mapping[str, Any]) -> str:
    """The one text of a record's content (what is hashed and compared)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def moment(value: datetime | None) -> str | None:
    """A time as the chain writes it: UTC, to the microsecond (what both databases keep)."""
    return None if value is None else value.astimezone(UTC).isoformat(timespec="microseconds")


def money(value: Decimal | str | None) -> str | None:
    """A stake or coin as the chain writes it: two decimals, as the columns keep it."""
    return None if value is None else format(Decimal(value).quantize(Decimal("0.01")), "f")


def who(user: Any) -> str | None:
    """A person as the chain names them: by username (kept across an export and import)."""
    if user is None or not getattr(user, "is_authenticated", False):
        return None
    return str(user.get_username())


# -- the content of each kind (the writers and the verification build it the same way) --------


def entry_content(*, session: int, deal: int, dealer: int, seq: int, payload: Any, by: str | None,
                  at: str | None) -> str:
    return canonical({"kind": "entry", "session": session, "deal": deal, "dealer": dealer, "seq": seq,
                      "payload": payload, "by": by, "at": at})


def change_content(*, kind: str, session: int, deal: int, replaced: Mapping[str, Any],
                   replacement: Mapping[str, Any] | None, by: str | None, at: str | None) -> str:
    """An undo, correction or tablet's version: the entry it replaced and the one put in its
    place (seq, payload, who and when of each)."""
    return canonical({"kind": kind, "session": session, "deal": deal, "replaced": replaced,
                      "replacement": replacement, "by": by, "at": at})


def entry_part(*, seq: int, payload: Any, by: str | None, at: str | None) -> dict[str, Any]:
    """An entry as a change's content names it."""
    return {"seq": seq, "payload": payload, "by": by, "at": at}


def seat_content(*, session: int, seat: int, was: int, now: int, by: str | None, at: str | None) -> str:
    return canonical({"kind": "seat", "session": session, "seat": seat, "was": was, "now": now, "by": by,
                      "at": at})


def open_content(*, session: int, game: str, options: Any, stake: str | None, currency: str, coin: str | None,
                 seats: Sequence[int], by: str | None, at: str | None) -> str:
    """A session's start: its game, house rules, stake and the members on its seats then."""
    return canonical({"kind": "open", "session": session, "game": game, "options": options, "stake": stake,
                      "currency": currency, "coin": coin, "seats": list(seats), "by": by, "at": at})


def close_content(*, session: int, stake: str | None, currency: str, coin: str | None, by: str | None,
                  at: str | None) -> str:
    """A session's close, with the stake it settles at."""
    return canonical({"kind": "close", "session": session, "stake": stake, "currency": currency, "coin": coin,
                      "by": by, "at": at})


def reopen_content(*, session: int, by: str | None, at: str | None) -> str:
    return canonical({"kind": "reopen", "session": session, "by": by, "at": at})


def of_entry(entry: Any, deal: Any, session_id: int) -> str:
    """The content of an entry being stored (its ``created_at`` already set)."""
    return entry_content(session=session_id, deal=deal.number, dealer=deal.dealer, seq=entry.seq,
                         payload=entry.payload, by=who(entry.author), at=moment(entry.created_at))


def of_change(change: Any, deal: Any) -> str:
    """The content of a deal change being stored, with the entries it names in hand."""
    replacement = change.replacement
    return change_content(
        kind=change.kind, session=deal.session_id, deal=deal.number,
        replaced=_part(change.replaced), replacement=None if replacement is None else _part(replacement),
        by=who(change.author), at=moment(change.created_at),
    )


def _part(entry: Any) -> dict[str, Any]:
    return entry_part(seq=entry.seq, payload=entry.payload, by=who(entry.author), at=moment(entry.created_at))


# -- appending -------------------------------------------------------------------------------

# The head advanced (made at the club's first record) and the record inserted, in one
# statement: the upsert takes the head row's lock and, after waiting for another table's
# append, hashes over the head as that one left it. Parameters: the club, the genesis twice,
# the content twice (``_head_params``).
_HEAD_UPSERT = """
    INSERT INTO "referee_chainhead" AS h (club_id, seq, prev_hash, hash)
    SELECT %s::bigint, 1, %s::text, encode(sha256(convert_to(%s::text || %s::text, 'UTF8')), 'hex'){source}
    ON CONFLICT (club_id) DO UPDATE
       SET seq = h.seq + 1, prev_hash = h.hash,
           hash = encode(sha256(convert_to(h.hash || %s::text, 'UTF8')), 'hex')
    RETURNING h.seq, h.prev_hash, h.hash
"""

# Parameters: the club, the kind, (the ref,) the content.
_RECORD_INSERT = """
    INSERT INTO "referee_chainrecord" (club_id, seq, kind, ref, content, prev_hash, hash)
    SELECT %s::bigint, h.seq, %s::text, {ref}, %s::text, h.prev_hash, h.hash FROM h{source}
"""

APPEND_SQL = (
    "WITH h AS (" + _HEAD_UPSERT.format(source="") + ")\n"
    + _RECORD_INSERT.format(ref="%s::bigint", source="") + "RETURNING seq\n"
)

#: The chain's part of the hot path's store statements: two more steps of their WITH, after
#: the entry's insert ``e``, run only if the entry was inserted (parameters: ``link_params``).
ENTRY_LINK_SQL = (
    ", h AS (" + _HEAD_UPSERT.format(source=" FROM e") + ")"
    + ", c AS (" + _RECORD_INSERT.format(ref="e.id", source=", e") + ")\n"
)


def _head_params(club_id: int, content: str) -> list[Any]:
    return [club_id, GENESIS, GENESIS, content, content]


def link_params(club_id: int, content: str) -> list[Any]:
    """The parameters of ``ENTRY_LINK_SQL``, in order."""
    return [*_head_params(club_id, content), club_id, "entry", content]


def append(*, club_id: int, kind: str, ref: int, content: str) -> int:
    """Append a record to the club's chain, in the caller's transaction; its number."""
    assert kind in KINDS, kind
    if connection.vendor == "postgresql":
        with prepared.cursor() as cursor:
            cursor.execute(APPEND_SQL, [*_head_params(club_id, content), club_id, kind, ref, content])
            return int(cursor.fetchone()[0])
    return _append_orm(club_id, kind, ref, content)


def _append_orm(club_id: int, kind: str, ref: int, content: str) -> int:
    from .models import ChainHead, ChainRecord

    if not connection.in_atomic_block:
        raise RuntimeError("a chain record is appended inside the transaction of the write it records")
    head = ChainHead.objects.select_for_update().filter(club_id=club_id).first()
    if head is None:
        head = ChainHead(club_id=club_id, seq=0, prev_hash="", hash=GENESIS)
    prev = head.hash
    head.seq, head.prev_hash, head.hash = head.seq + 1, prev, link(prev, content)
    head.save()
    ChainRecord.objects.create(club_id=club_id, seq=head.seq, kind=kind, ref=ref, content=content,
                               prev_hash=prev, hash=head.hash)
    return head.seq


def append_entry(entry: Any, deal: Any, club_id: int) -> int:
    return append(club_id=club_id, kind="entry", ref=entry.pk, content=of_entry(entry, deal, deal.session_id))


def append_change(change: Any, deal: Any, club_id: int) -> int:
    return append(club_id=club_id, kind=change.kind, ref=change.pk, content=of_change(change, deal))


def append_seat_change(change: Any, club_id: int) -> int:
    return append(club_id=club_id, kind="seat", ref=change.pk, content=seat_content(
        session=change.session_id, seat=change.seat, was=change.was_id, now=change.now_id, by=who(change.author),
        at=moment(change.created_at)))


def append_open(session: Any, seats: Sequence[int], user: Any) -> int:
    return append(club_id=session.club_id, kind="open", ref=session.pk, content=open_content(
        session=session.pk, game=session.game, options=session.options, stake=money(session.stake),
        currency=session.currency, coin=money(session.coin), seats=seats, by=who(user),
        at=moment(session.created_at)))


def append_close(session: Any, user: Any) -> int:
    return append(club_id=session.club_id, kind="close", ref=session.pk, content=close_content(
        session=session.pk, stake=money(session.stake), currency=session.currency, coin=money(session.coin),
        by=who(user), at=moment(session.closed_at)))


def append_reopen(session: Any, user: Any, at: datetime) -> int:
    return append(club_id=session.club_id, kind="reopen", ref=session.pk,
                  content=reopen_content(session=session.pk, by=who(user), at=moment(at)))
