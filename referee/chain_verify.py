"""Verifying a club's audit chain (``referee.chain``), in the database or in an export file.

Each record is checked in order: its number follows the one before, it links to the hash of
the record before, its hash is the hash of its content, and its content is what the rows it
records say NOW (recomputed from the entries, deal changes, seat changes and sessions). The
first record that fails is named, with what failed: an entry's payload edited behind the
application's back fails at that entry's record; a record edited, removed or moved fails where
the chain breaks. Then the chain's head (a tail removed), and rows no record covers (an entry
inserted behind the application's back).

What the chain cannot show by itself: the whole chain rewritten from some record on, with the
rows. A head noted earlier (its number and hash, as the verify page shows it, or an earlier
export file) is the proof against that: ``anchor`` checks that the chain still holds it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext as _

from . import chain
from .models import game_name


@dataclass
class Ledger:
    """A club's rows as the chain sees them (from the database or a file): plain values, ids
    as keys, times as ``chain.moment`` writes them, people by username."""

    sessions: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: session id -> seat number -> member id (the seats as they are now).
    seats: dict[int, dict[int, int]] = field(default_factory=dict)
    deals: dict[int, dict[str, Any]] = field(default_factory=dict)
    entries: dict[int, dict[str, Any]] = field(default_factory=dict)
    changes: dict[int, dict[str, Any]] = field(default_factory=dict)
    seat_changes: dict[int, dict[str, Any]] = field(default_factory=dict)
    #: The chain's records in the order of their numbers: seq, kind, ref, content, prev_hash, hash.
    records: list[dict[str, Any]] = field(default_factory=list)
    #: The chain's head (seq, hash), or None when the club has no chain yet.
    head: tuple[int, str] | None = None


@dataclass(frozen=True)
class Verdict:
    """What a verification found: ``ok``, or the first record (``bad_seq``) that does not match
    and the ``message`` a person reads."""

    ok: bool
    message: str
    checked: int
    head_seq: int
    head_hash: str
    bad_seq: int | None = None


# -- what each record should say, from the rows -----------------------------------------------


def session_label(ledger: Ledger, session_id: Any) -> str:
    session = ledger.sessions.get(session_id) if isinstance(session_id, int) else None
    game = game_name(session["game"]) if session else "?"
    return f"{game} #{session_id}"


def seats_at_start(ledger: Ledger, session_id: int) -> list[int]:
    """The members on the session's seats when it started: the seats now, with the session's
    seat changes taken back, latest first."""
    seats = dict(ledger.seats.get(session_id, {}))
    changes = sorted((cid, c) for cid, c in ledger.seat_changes.items() if c["session"] == session_id)
    for _cid, change in reversed(changes):
        seats[change["seat"]] = change["was"]
    return [seats[number] for number in sorted(seats)]


def _part(ledger: Ledger, entry_id: int | None) -> dict[str, Any] | None:
    entry = ledger.entries.get(entry_id) if entry_id is not None else None
    if entry is None:
        return None
    return chain.entry_part(seq=entry["seq"], payload=entry["payload"], by=entry["by"], at=entry["at"])


def expected_content(ledger: Ledger, kind: str, ref: int, said: Mapping[str, Any]) -> str | None:
    """The content a record of ``kind`` about row ``ref`` has, recomputed from the rows; None
    when the row is gone. ``said`` is the record's own content, read for what no row keeps
    (who closed or reopened a session, and when, except the close a closed session stands at)."""
    if kind == "entry":
        entry = ledger.entries.get(ref)
        deal = ledger.deals.get(entry["deal"]) if entry else None
        if entry is None or deal is None:
            return None
        return chain.entry_content(session=deal["session"], deal=deal["number"], dealer=deal["dealer"],
                                   seq=entry["seq"], payload=entry["payload"], by=entry["by"], at=entry["at"])
    if kind in chain.CHANGE_KINDS:
        change = ledger.changes.get(ref)
        deal = ledger.deals.get(change["deal"]) if change else None
        replaced = _part(ledger, change["replaced"]) if change else None
        if change is None or deal is None or replaced is None:
            return None
        return chain.change_content(kind=change["kind"], session=deal["session"], deal=deal["number"],
                                    replaced=replaced, replacement=_part(ledger, change["replacement"]),
                                    by=change["by"], at=change["at"])
    if kind == "seat":
        seat = ledger.seat_changes.get(ref)
        if seat is None:
            return None
        return chain.seat_content(session=seat["session"], seat=seat["seat"], was=seat["was"], now=seat["now"],
                                  by=seat["by"], at=seat["at"])
    session = ledger.sessions.get(ref)
    if session is None:
        return None
    if kind == "open":
        return chain.open_content(session=ref, game=session["game"], options=session["options"],
                                  stake=session["stake"], currency=session["currency"], coin=session["coin"],
                                  seats=seats_at_start(ledger, ref), by=session["by"], at=session["at"])
    if kind == "close":
        return chain.close_content(session=ref, stake=session["stake"], currency=session["currency"],
                                   coin=session["coin"], by=said.get("by"), at=said.get("at"))
    return chain.reopen_content(session=ref, by=said.get("by"), at=said.get("at"))


def describe(ledger: Ledger, kind: str, said: Mapping[str, Any]) -> str:
    """What a record is about, in the club's words (from its own content, so that a record
    whose row is gone is still named)."""
    session = session_label(ledger, said.get("session"))
    if kind == "entry":
        return _("entry %(seq)s of deal %(deal)s, session %(session)s") % {
            "seq": said.get("seq"), "deal": said.get("deal"), "session": session}
    if kind in chain.CHANGE_KINDS:
        named = said.get("replaced")
        replaced: Mapping[str, Any] = named if isinstance(named, dict) else {}
        what = {"undo": _("undo"), "correction": _("correction"), "tablet": _("tablet's version")}[kind]
        return _("%(what)s of entry %(seq)s of deal %(deal)s, session %(session)s") % {
            "what": what, "seq": replaced.get("seq"), "deal": said.get("deal"), "session": session}
    if kind == "seat":
        seat = said.get("seat")
        return _("seat %(seat)s changed, session %(session)s") % {
            "seat": seat + 1 if isinstance(seat, int) else "?", "session": session}
    if kind == "open":
        return _("start of session %(session)s") % {"session": session}
    if kind == "close":
        return _("close of session %(session)s") % {"session": session}
    if kind == "reopen":
        return _("reopening of session %(session)s") % {"session": session}
    return _("a record of an unknown kind “%(kind)s”") % {"kind": kind[:20]}


def _said(record: Mapping[str, Any]) -> dict[str, Any]:
    try:
        said = json.loads(record["content"])
    except (TypeError, ValueError):
        return {}
    return said if isinstance(said, dict) else {}


# -- the walk ---------------------------------------------------------------------------------


def verify(ledger: Ledger, *, anchor: tuple[int, str] | None = None) -> Verdict:
    """Check the chain record by record and stop at the first that does not match."""
    prev_hash, prev_seq = chain.GENESIS, 0
    last_of_session = _last_status_records(ledger.records)
    checked = 0
    for record in ledger.records:
        problem = _check(ledger, record, prev_seq, prev_hash, last_of_session, anchor)
        if problem is not None:
            message, at = problem
            return Verdict(ok=False, message=message, checked=checked, head_seq=prev_seq, head_hash=prev_hash,
                           bad_seq=at)
        prev_hash, prev_seq = record["hash"], record["seq"]
        checked += 1
    return _after_walk(ledger, checked, prev_seq, prev_hash, anchor)


def _check(ledger: Ledger, record: Mapping[str, Any], prev_seq: int, prev_hash: str,
           last_of_session: Mapping[int, int], anchor: tuple[int, str] | None) -> tuple[str, int] | None:
    """What is wrong with one record following ``prev_seq``/``prev_hash``, and the number of the
    record to blame; None when it holds."""
    seq, kind = record["seq"], record["kind"]
    said = _said(record)
    what = describe(ledger, kind, said)
    if seq != prev_seq + 1:
        expected = prev_seq + 1
        if seq > expected and any(later["seq"] == expected for later in ledger.records):
            return _("Record %(seq)s (%(what)s) is out of place: record %(expected)s comes after it, so records "
                     "were moved.") % {"seq": seq, "what": what, "expected": expected}, expected
        if seq > expected:
            return _("Record %(seq)s is missing: the chain goes from record %(prev)s to record %(next)s.") % {
                "seq": expected, "prev": prev_seq, "next": seq}, expected
        return _("Record %(seq)s (%(what)s) is out of order: it comes after record %(prev)s.") % {
            "seq": seq, "what": what, "prev": prev_seq}, seq
    if record["prev_hash"] != prev_hash:
        return _("Record %(seq)s (%(what)s) does not follow record %(prev)s: a record before it was changed, "
                 "removed or moved.") % {"seq": seq, "what": what, "prev": prev_seq}, seq
    if chain.link(prev_hash, record["content"]) != record["hash"]:
        return _("Record %(seq)s (%(what)s) was edited: its hash does not match its content.") % {
            "seq": seq, "what": what}, seq
    if kind not in chain.KINDS:
        return _("Record %(seq)s is of an unknown kind “%(kind)s”.") % {"seq": seq, "kind": kind[:20]}, seq
    expected_text = expected_content(ledger, kind, record["ref"], said)
    if expected_text is None:
        return _("Record %(seq)s (%(what)s): what it records is no longer there: it was deleted.") % {
            "seq": seq, "what": what}, seq
    if expected_text != record["content"]:
        return _("Record %(seq)s (%(what)s): its content does not match what is stored now: it was edited after "
                 "it was recorded.") % {"seq": seq, "what": what}, seq
    if last_of_session.get(record["ref"]) == seq and not _status_agrees(ledger, kind, record["ref"], said):
        return _("Record %(seq)s (%(what)s): the session's state or closing time does not match it: it was "
                 "changed after it was recorded.") % {"seq": seq, "what": what}, seq
    if anchor is not None and anchor[0] == seq and not record["hash"].startswith(anchor[1]):
        return _("Record %(seq)s (%(what)s) is not the record noted earlier: its hash is %(hash)s, not "
                 "%(noted)s.") % {"seq": seq, "what": what, "hash": record["hash"][:16], "noted": anchor[1][:16]}, seq
    return None


def _after_walk(ledger: Ledger, checked: int, last_seq: int, last_hash: str,
                anchor: tuple[int, str] | None) -> Verdict:
    def bad(message: str, at: int | None) -> Verdict:
        return Verdict(ok=False, message=message, checked=checked, head_seq=last_seq, head_hash=last_hash,
                       bad_seq=at)

    if ledger.head is not None and ledger.head != (last_seq, last_hash):
        head_seq = ledger.head[0]
        if head_seq > last_seq:
            return bad(_("The chain ends at record %(seq)s, but its head says %(head)s: the records after "
                         "%(seq)s were removed.") % {"seq": last_seq, "head": head_seq}, last_seq + 1)
        return bad(_("The chain's head (record %(head)s) does not match its last record %(seq)s.")
                   % {"head": head_seq, "seq": last_seq}, last_seq)
    if anchor is not None and anchor[0] > last_seq:
        return bad(_("The chain ends at record %(seq)s, before record %(noted)s noted earlier: records were "
                     "removed.") % {"seq": last_seq, "noted": anchor[0]}, last_seq + 1)
    loose = next(iter(unchained(ledger)), None)
    if loose is not None:
        return bad(_("%(what)s is not in the chain: it was written behind the application's back.")
                   % {"what": loose}, None)
    return Verdict(ok=True, message=_("The chain holds: all %(count)s records match what is stored.")
                   % {"count": checked}, checked=checked, head_seq=last_seq, head_hash=last_hash)


def _last_status_records(records: Iterable[Mapping[str, Any]]) -> dict[int, int]:
    """Session id -> the number of its last close or reopen record."""
    last: dict[int, int] = {}
    for record in records:
        if record["kind"] in ("close", "reopen"):
            last[record["ref"]] = record["seq"]
    return last


def _status_agrees(ledger: Ledger, kind: str, session_id: int, said: Mapping[str, Any]) -> bool:
    """A session's last close or reopen is what its row says now: closed at that close's time,
    or open."""
    session = ledger.sessions[session_id]
    if kind == "close":
        return session["status"] == "closed" and session["closed_at"] == said.get("at")
    return session["status"] == "open" and session["closed_at"] is None


def covered(ledger: Ledger) -> dict[str, set[int]]:
    """The rows the chain's records name, by what they are."""
    seen: dict[str, set[int]] = {"entry": set(), "change": set(), "seat": set(), "open": set(), "status": set()}
    for record in ledger.records:
        kind, ref = record["kind"], record["ref"]
        if kind == "entry":
            seen["entry"].add(ref)
        elif kind in chain.CHANGE_KINDS:
            seen["change"].add(ref)
            change = ledger.changes.get(ref)
            if change is not None and change["replacement"] is not None:
                seen["entry"].add(change["replacement"])
        elif kind == "seat":
            seen["seat"].add(ref)
        elif kind == "open":
            seen["open"].add(ref)
        else:
            seen["status"].add(ref)
    return seen


def unchained(ledger: Ledger) -> Iterable[str]:
    """Each row no record covers, named: a session's start, an entry (that no change put in
    place), a deal change, a seat change, a closed session's close."""
    seen = covered(ledger)
    replacements = {c["replacement"] for c in ledger.changes.values() if c["replacement"] is not None}
    for sid in sorted(ledger.sessions):
        if sid not in seen["open"]:
            yield _("The start of session %(session)s") % {"session": session_label(ledger, sid)}
        elif ledger.sessions[sid]["status"] == "closed" and sid not in seen["status"]:
            yield _("The close of session %(session)s") % {"session": session_label(ledger, sid)}
    for eid in sorted(ledger.entries):
        if eid not in seen["entry"] and eid not in replacements:
            entry = ledger.entries[eid]
            deal = ledger.deals.get(entry["deal"], {})
            yield _("Entry %(seq)s of deal %(deal)s, session %(session)s") % {
                "seq": entry["seq"], "deal": deal.get("number"), "session": session_label(ledger, deal.get("session"))}
    for cid in sorted(ledger.changes):
        if cid not in seen["change"]:
            deal = ledger.deals.get(ledger.changes[cid]["deal"], {})
            yield _("A change of deal %(deal)s, session %(session)s") % {
                "deal": deal.get("number"), "session": session_label(ledger, deal.get("session"))}
    for scid in sorted(ledger.seat_changes):
        if scid not in seen["seat"]:
            change = ledger.seat_changes[scid]
            yield _("A seat change of session %(session)s") % {"session": session_label(ledger, change["session"])}
