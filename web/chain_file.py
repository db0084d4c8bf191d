"""The audit chain in a club export file: what the export writes (``chain_part``) and the
file read back as the chain sees it (``ledger_of_file``, the seat changes from the file's club
records, ``web.club_records``), so
that a file is verified exactly as the database is (``referee.chain_verify``): an entry's
payload edited in the file fails at that entry's record."""

from __future__ import annotations

from typing import Any

from django.utils.dateparse import parse_datetime
from django.utils.translation import gettext as _

from referee import chain
from referee.chain_verify import Ledger, Verdict, verify
from referee.errors import Refusal
from referee.models import ChainHead, ChainRecord, Club

RECORD_FIELDS = ("seq", "kind", "ref", "content", "prev_hash", "hash")


def chain_part(club: Club) -> dict[str, Any]:
    """The club's chain as the export writes it: the head and every record, in order."""
    head = ChainHead.objects.filter(club=club).first()
    return {
        "head": None if head is None else {"seq": head.seq, "hash": head.hash},
        "records": list(ChainRecord.objects.filter(club=club).order_by("seq").values(*RECORD_FIELDS)),
    }


def _when(text: Any) -> str | None:
    if text is None:
        return None
    moment = parse_datetime(str(text))
    if moment is None or moment.tzinfo is None:
        raise Refusal(_("The file has a date that cannot be read: “%(text)s”.") % {"text": str(text)[:40]})
    return chain.moment(moment)


def ledger_of_file(data: dict[str, Any]) -> Ledger:
    """The export's rows and chain as the chain sees them; a Refusal for a file that is not
    a club export with a chain."""
    if not isinstance(data, dict) or not isinstance(data.get("chain"), dict):
        raise Refusal(_("The file carries no audit chain (it was exported before the chain existed)."))
    try:
        return _ledger(data)
    except (KeyError, TypeError, ValueError, AttributeError) as error:
        raise Refusal(_("The file is not a club export this application can read: %(error)s")
                      % {"error": str(error)[:80]}) from error


def _ledger(data: dict[str, Any]) -> Ledger:
    users = {u["id"]: u["username"] for u in data["users"]}
    ledger = Ledger()
    for s in data["sessions"]:
        ledger.sessions[s["id"]] = {
            "game": s["game"], "options": s["options"], "stake": chain.money(s["stake"]), "currency": s["currency"],
            "coin": chain.money(s["coin"]), "status": s["status"], "closed_at": _when(s["closed_at"]),
            "by": users.get(s["created_by"]), "at": _when(s["created_at"]),
        }
    for seat in data["seats"]:
        ledger.seats.setdefault(seat["session"], {})[seat["number"]] = seat["member"]
    for d in data["deals"]:
        ledger.deals[d["id"]] = {"session": d["session"], "number": d["number"], "dealer": d["dealer"]}
    for e in data["entries"]:
        ledger.entries[e["id"]] = {"deal": e["deal"], "seq": e["seq"], "payload": e["payload"],
                                   "by": users.get(e["author"]), "at": _when(e["created_at"])}
    for c in data["changes"]:
        ledger.changes[c["id"]] = {"deal": c["deal"], "kind": c["kind"], "replaced": c["replaced"],
                                   "replacement": c["replacement"], "by": users.get(c["author"]),
                                   "at": _when(c["created_at"])}
    for row in (data.get("records") or {}).get("referee.seatchange", []):
        sc = row["fields"]
        ledger.seat_changes[row["pk"]] = {"session": sc["session"], "seat": sc["seat"], "was": sc["was"],
                                          "now": sc["now"], "by": users.get(sc["author"]),
                                          "at": _when(sc["created_at"])}
    part = data["chain"]
    # In the file's order, not sorted: records moved in the file fail where they were moved.
    ledger.records = [{name: record[name] for name in RECORD_FIELDS} for record in part["records"]]
    for record in ledger.records:
        if not all(isinstance(record[name], int) and not isinstance(record[name], bool) for name in ("seq", "ref")):
            raise ValueError(_("a record's number is not a whole number"))
        if not all(isinstance(record[name], str) for name in ("kind", "content", "prev_hash", "hash")):
            raise ValueError(_("a record's content or hash is not text"))
    head = part.get("head")
    ledger.head = None if head is None else (int(head["seq"]), str(head["hash"]))
    return ledger


def verify_file(data: dict[str, Any], *, anchor: tuple[int, str] | None = None) -> Verdict:
    return verify(ledger_of_file(data), anchor=anchor)
