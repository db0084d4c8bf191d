"""A club's rows as the chain sees them, read from the database (``ledger_of``); the club's
verification (``verify_club``); and sealing (``seal_club``): rows that no record covers yet
(a club's history from before the chain, or restored from an export that had none) get their
records, in the order they were written.

Both take the models from an app registry, so the migration that brought the chain sealed the
existing history with its own historical models, exactly as ``manage.py seal_chain`` does.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps as current_apps
from django.db import transaction

from . import chain
from .chain_verify import Ledger, Verdict, covered, expected_content, verify


def _models(apps: Any) -> dict[str, Any]:
    names = ("Session", "Seat", "Deal", "Entry", "DealChange", "SeatChange", "ChainRecord", "ChainHead")
    return {name: apps.get_model("referee", name) for name in names}


def ledger_of(club_id: int, apps: Any = current_apps) -> Ledger:
    """The club's sessions, seats, deals, entries, changes, seat changes and chain, as plain
    values (one query each)."""
    m = _models(apps)
    ledger = Ledger()
    for s in m["Session"].objects.filter(club_id=club_id).values(
        "id", "game", "options", "stake", "currency", "coin", "status", "closed_at", "created_at",
        "created_by__username",
    ):
        ledger.sessions[s["id"]] = {
            "game": s["game"], "options": s["options"], "stake": chain.money(s["stake"]),
            "currency": s["currency"], "coin": chain.money(s["coin"]), "status": s["status"],
            "closed_at": chain.moment(s["closed_at"]), "by": s["created_by__username"],
            "at": chain.moment(s["created_at"]),
        }
    for seat in m["Seat"].objects.filter(session__club_id=club_id).values("session_id", "number", "member_id"):
        ledger.seats.setdefault(seat["session_id"], {})[seat["number"]] = seat["member_id"]
    for d in m["Deal"].objects.filter(session__club_id=club_id).values("id", "session_id", "number", "dealer"):
        ledger.deals[d["id"]] = {"session": d["session_id"], "number": d["number"], "dealer": d["dealer"]}
    for e in m["Entry"].objects.filter(deal__session__club_id=club_id).values(
        "id", "deal_id", "seq", "payload", "author__username", "created_at",
    ):
        ledger.entries[e["id"]] = {"deal": e["deal_id"], "seq": e["seq"], "payload": e["payload"],
                                   "by": e["author__username"], "at": chain.moment(e["created_at"])}
    for c in m["DealChange"].objects.filter(deal__session__club_id=club_id).values(
        "id", "deal_id", "kind", "replaced_id", "replacement_id", "author__username", "created_at",
    ):
        ledger.changes[c["id"]] = {"deal": c["deal_id"], "kind": c["kind"], "replaced": c["replaced_id"],
                                   "replacement": c["replacement_id"], "by": c["author__username"],
                                   "at": chain.moment(c["created_at"])}
    for sc in m["SeatChange"].objects.filter(session__club_id=club_id).values(
        "id", "session_id", "seat", "was_id", "now_id", "author__username", "created_at",
    ):
        ledger.seat_changes[sc["id"]] = {"session": sc["session_id"], "seat": sc["seat"], "was": sc["was_id"],
                                         "now": sc["now_id"], "by": sc["author__username"],
                                         "at": chain.moment(sc["created_at"])}
    ledger.records = list(m["ChainRecord"].objects.filter(club_id=club_id).order_by("seq").values(
        "seq", "kind", "ref", "content", "prev_hash", "hash"))
    head = m["ChainHead"].objects.filter(club_id=club_id).values_list("seq", "hash").first()
    ledger.head = None if head is None else (head[0], head[1])
    return ledger


def verify_club(club_id: int, *, anchor: tuple[int, str] | None = None) -> Verdict:
    return verify(ledger_of(club_id), anchor=anchor)


def _unsealed(ledger: Ledger) -> list[tuple[str, int, str]]:
    """(kind, ref, content) of every row no record covers, in the order they were written: by
    time, a session's start before its entries, its close after them."""
    seen = covered(ledger)
    replacements = {c["replacement"] for c in ledger.changes.values() if c["replacement"] is not None}
    rows: list[tuple[str, int, str, dict[str, Any]]] = []
    for sid, session in ledger.sessions.items():
        if sid not in seen["open"]:
            rows.append((session["at"] or "", sid, "open", {}))
        if session["status"] == "closed" and sid not in seen["status"]:
            rows.append((session["closed_at"] or "", sid, "close", {"by": None, "at": session["closed_at"]}))
    rows += [(e["at"] or "", eid, "entry", {}) for eid, e in ledger.entries.items()
             if eid not in seen["entry"] and eid not in replacements]
    rows += [(c["at"] or "", cid, c["kind"], {}) for cid, c in ledger.changes.items() if cid not in seen["change"]]
    rows += [(c["at"] or "", scid, "seat", {}) for scid, c in ledger.seat_changes.items() if scid not in seen["seat"]]
    rows.sort(key=lambda row: (row[0], chain.KINDS.index(row[2]), row[1]))
    sealed = []
    for _at, ref, kind, said in rows:
        content = expected_content(ledger, kind, ref, said)
        assert content is not None  # every row above is in the ledger
        sealed.append((kind, ref, content))
    return sealed


def seal_club(club_id: int, apps: Any = current_apps) -> int:
    """Give every row of the club that no record covers its record, in the order the rows were
    written, after the chain's last record; how many were added. Idempotent."""
    m = _models(apps)
    with transaction.atomic():
        head = m["ChainHead"].objects.select_for_update().filter(club_id=club_id).first()
        rows = _unsealed(ledger_of(club_id, apps))
        if not rows:
            return 0
        if head is None:
            head = m["ChainHead"](club_id=club_id, seq=0, prev_hash="", hash=chain.GENESIS)
        records = []
        for kind, ref, content in rows:
            prev = head.hash
            head.seq, head.prev_hash, head.hash = head.seq + 1, prev, chain.link(prev, content)
            records.append(m["ChainRecord"](club_id=club_id, seq=head.seq, kind=kind, ref=ref, content=content,
                                            prev_hash=prev, hash=head.hash))
        m["ChainRecord"].objects.bulk_create(records, batch_size=1000)
        head.save()
        return len(records)


def seal_all(apps: Any = current_apps) -> int:
    return sum(seal_club(club_id, apps) for club_id in apps.get_model("referee", "Club").objects.values_list(
        "pk", flat=True))
