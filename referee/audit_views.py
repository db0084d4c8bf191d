"""The audit page of a session: every entry (undone and replaced ones too), every undo and
correction, with who and when, so a dispute at the end of the evening is settled from the
record. Readable by every member of the club (like the scores); nobody else learns it exists.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from . import selectors
from .models import GAME_CHOICES, ChangeKind, DealChange, Entry, Session
from .permissions import club_role

SEAT_FIELDS = ("player", "challenger")


def describe(payload: Any, names: list[str]) -> str:
    """An entry as a person reads it: its type, then its fields, seats as players' names."""
    if not isinstance(payload, dict):
        return str(payload)
    parts = [str(payload.get("type", "?"))]
    for key, value in payload.items():
        if key == "type":
            continue
        if key in SEAT_FIELDS and isinstance(value, int) and 0 <= value < len(names):
            text = names[value]
        elif key == "hand_counts" and isinstance(value, list) and len(value) == len(names):
            text = ", ".join(f"{name} {count}" for name, count in zip(names, value))
        elif key == "rounds" and isinstance(value, list):
            text = " | ".join(" ".join("–" if card is None else str(card) for card in round_)
                              if isinstance(round_, list) else str(round_) for round_ in value)
        elif isinstance(value, list):
            text = " ".join(str(item) for item in value)
        else:
            text = "–" if value is None else str(value)
        parts.append(f"{key}: {text}")
    return " · ".join(parts)


def audit_context(session: Session) -> dict[str, Any]:
    """Deals in order, each with its entries (oldest first) and its changes (two queries)."""
    names = selectors.seat_names_of(session)
    entries = list(
        Entry.objects.filter(deal__session=session).select_related("author", "deal").order_by("deal__number", "id")
    )
    changes = list(
        DealChange.objects.filter(deal__session=session)
        .select_related("author", "deal", "replaced", "replacement").order_by("created_at", "id")
    )
    fate: dict[int, DealChange] = {change.replaced_id: change for change in changes}
    deals: dict[int, dict[str, Any]] = {}
    for entry in entries:
        deal = deals.setdefault(entry.deal.number, {"number": entry.deal.number, "id": entry.deal_id,
                                                    "entries": [], "changes": []})
        change = fate.get(entry.pk)
        if entry.active:
            status = _("recorded")
        elif change is not None and change.kind == ChangeKind.CORRECTION:
            status = _("replaced by a correction")
        else:
            status = _("undone")
        result = entry.result if isinstance(entry.result, dict) else {}
        deal["entries"].append({
            "seq": entry.seq, "text": describe(entry.payload, names), "active": entry.active, "status": status,
            "conclusion": selectors.with_names(result, names).get("text", ""),
            "author": entry.author.get_username() if entry.author else "–", "at": entry.created_at,
            "key": entry.idempotency_key or "",
        })
    for change in changes:
        deal = deals.setdefault(change.deal.number, {"number": change.deal.number, "id": change.deal_id,
                                                     "entries": [], "changes": []})
        deal["changes"].append({
            "kind": change.kind, "kind_label": change.get_kind_display(), "seq": change.replaced.seq,
            "replaced": describe(change.replaced.payload, names),
            "replacement": describe(change.replacement.payload, names) if change.replacement else "",
            "author": change.author.get_username() if change.author else "–", "at": change.created_at,
        })
    return {
        "session": session, "club": session.club, "names": names, "game_name": dict(GAME_CHOICES)[session.game],
        "deals": [deals[number] for number in sorted(deals)],
        "entry_count": len(entries), "change_count": len(changes),
    }


@login_required
def audit_page(request: HttpRequest, pk: int) -> HttpResponse:
    session = selectors.session_for_page(request.user, pk)
    if session is None or club_role(request.user, session.club) is None:
        raise Http404(_("Not found."))
    return render(request, "referee/audit.html", audit_context(session))
