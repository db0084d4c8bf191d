"""Correcting an earlier entry from the pages: the entry's fields in a form, in the club's words;
a preview of what the correction changes downstream (this deal's points, later deals, the
session's standings), computed by the same correction rolled back; then the correction saved.

The API has the same correction (``PUT /api/deals/{id}/entries/{seq}/``); both go through
``services.entry_correct``, and the preview through ``services.entry_correct_preview``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from referee import presenters, selectors, services
from referee.errors import NotFound, Refusal
from referee.games import PAGES
from referee.games.base import SEAT_FIELDS
from referee.models import Deal, Entry
from referee.rules.cards import SUITS
from scoring import selectors as scoring
from web.pages.access import can_record, deal_or_404
from web.pages.entry_form import payload_from_form


@login_required
def entry_correct_page(request: HttpRequest, pk: int, seq: int) -> HttpResponse:
    deal, role = deal_or_404(request.user, pk)
    entry = Entry.objects.filter(deal=deal, seq=seq, active=True).first()
    if entry is None:
        raise Http404(_("Not found."))
    session = deal.session
    names = selectors.seat_names_of(session)
    pages = PAGES[session.game]
    payload: dict[str, Any] = dict(entry.payload)
    context: dict[str, Any] = {
        "deal": deal, "session": session, "club": session.club, "entry": entry, "names": names,
        "described": pages.describe_entry(entry.payload, entry.result, names, session.notation),
        "can_record": can_record(role), "error": None, "preview": None,
    }
    status = 200
    if request.method == "POST" and can_record(role):
        payload = {"type": entry.payload.get("type"), **payload_from_form(request.POST)}
        try:
            # Saved only as previewed: a form changed after its preview is previewed again.
            if request.POST.get("action") == "save" and request.POST.get("previewed") == _key(payload):
                services.entry_correct(deal_id=deal.pk, seq=seq, payload=payload, user=request.user)
                return redirect("session", pk=session.pk)
            before = _picture(deal)
            after = services.entry_correct_preview(
                deal_id=deal.pk, seq=seq, payload=payload, user=request.user, read=_picture,
            )
            context["preview"] = _changes(before, after, names, deal.number)
            context["previewed"] = _key(payload)
        except (Refusal, NotFound) as error:
            context["error"] = error.message
            status = error.status
    context["fields"] = _fields(payload, entry.result, names, pages.words(), pages.field_choices)
    context.update(_card_hints(context["fields"], pages.card_fields, session.notation,
                               pages.rank_pad(deal.options or {}, session.notation)))
    return render(request, "referee/deal_correct.html", context, status=status)


def _card_hints(
    fields: list[dict[str, Any]], card_fields: Mapping[str, str], notation: str, pad: list[dict[str, str]]
) -> dict[str, Any]:
    """Card fields offer what the recording screen's pads offer: the session's ranks (or every
    card, rank and suit as the table writes them) as suggestions to pick from while typing,
    and one line naming the ranks and suits. A field keeps whatever is typed: the referee
    judges it, as on the recording screen."""
    kinds = set()
    for field in fields:
        kind = card_fields.get(field["key"])
        if kind is not None:
            field["card_hint"] = f"{kind}-hints"
            kinds.add(kind)
    if not kinds:
        return {}
    ranks = [button["label"] for button in pad]  # the deal's pad: a short deck's ranks only
    suits = [{"symbol": presenters.SUIT_SYMBOLS[s], "letter": s.lower(), "name": presenters.suit_name(s)}
             for s in SUITS]
    cards = [rank + suit["symbol"] for rank in reversed(ranks) for suit in suits] if "card" in kinds else []
    return {"hint_ranks": ranks, "hint_suits": suits if "card" in kinds else [],
            "hint_cards": cards, "hint_kinds": sorted(kinds)}


def _key(payload: Mapping[str, Any]) -> str:
    return json.dumps(payload, sort_keys=True, ensure_ascii=False)


def _picture(deal: Deal) -> dict[str, Any]:
    """What a correction can change, as the session's page shows it: every deal's points and
    the totals (read again inside the preview's transaction, before it is rolled back)."""
    table = scoring.standings(deal.session)
    return {
        "deals": {row["deal"]: list(row["values"]) for row in table["deals"]},
        "totals": [row["total"] for row in sorted(table["totals"], key=lambda r: r["seat"])],
        "places": [row["place"] for row in sorted(table["totals"], key=lambda r: r["seat"])],
    }


def _changes(before: Mapping[str, Any], after: Mapping[str, Any], names: Sequence[str], number: int) -> dict[str, Any]:
    """Before and after, per player: this deal, the session's total and place; and which later
    deals change."""
    empty = [None] * len(names)
    this_before = before["deals"].get(number, empty)
    this_after = after["deals"].get(number, empty)
    rows = [
        {"name": name, "deal_before": this_before[seat], "deal_after": this_after[seat],
         "total_before": before["totals"][seat], "total_after": after["totals"][seat],
         "place_before": before["places"][seat], "place_after": after["places"][seat],
         "changed": (this_before[seat], before["totals"][seat]) != (this_after[seat], after["totals"][seat])}
        for seat, name in enumerate(names)
    ]
    later = sorted(
        n for n in set(before["deals"]) | set(after["deals"])
        if n > number and before["deals"].get(n) != after["deals"].get(n)
    )
    return {"rows": rows, "later": later, "anything": any(r["changed"] for r in rows) or bool(later),
            "finished_before": number in before["deals"], "finished_after": number in after["deals"]}


def _fields(
    payload: Mapping[str, Any], result: Any, names: Sequence[str], words: Mapping[str, str],
    choices: Mapping[str, Sequence[str]],
) -> list[dict[str, Any]]:
    """The entry's fields as form controls named as ``payload_from_form`` reads them, each
    labelled in the club's words: seats as the players, choices as their words, per-seat
    counts by player, cards by the player who showed them when the referee recorded it."""
    # The seats in the order their cards were shown (Rūkas's reveal, Elgeta's play order).
    order = (result.get("reveal_order") or result.get("order")) if isinstance(result, Mapping) else None
    fields: list[dict[str, Any]] = []
    # Stored entries keep no key order (PostgreSQL's jsonb sorts them): choices first, then seats.
    keys = sorted((k for k in payload if k != "type"), key=lambda k: (k not in choices, k not in SEAT_FIELDS))
    for key in keys:
        value = payload[key]
        label = words.get(key, key)
        if key in SEAT_FIELDS:
            options = [{"value": str(seat), "label": name} for seat, name in enumerate(names)]
            options.append({"value": "", "label": _("nobody")})
            current = "" if value is None else str(value)
            fields.append({"kind": "choice", "key": key, "name": f"f:{key}:int", "label": label,
                           "options": options, "current": current})
        elif key in choices:
            # A choice as its tile on the recording screen says it (the word without its quotes).
            options = [{"value": c, "label": words.get(c, c).strip("“”„\"")} for c in choices[key]]
            fields.append({"kind": "choice", "key": key, "name": f"f:{key}:str", "label": label,
                           "options": options, "current": str(value)})
        elif isinstance(value, list) and value and all(isinstance(v, list) for v in value):
            rounds = [
                {"name": f"f:{key}:round:{index}", "label": _("Round %(n)s") % {"n": index + 1},
                 "items": [{"label": _who(order, position, names), "value": "" if v is None else str(v)}
                           for position, v in enumerate(cards)]}
                for index, cards in enumerate(value)
            ]
            fields.append({"kind": "rounds", "key": key, "label": label, "rounds": rounds})
        elif isinstance(value, list):
            per_seat = len(value) == len(names) and all(isinstance(v, int) for v in value)
            seats = order if isinstance(order, list) and len(order) == len(value) else None
            items = [{"label": names[position] if per_seat else _who(seats, position, names),
                      "value": "" if v is None else str(v)} for position, v in enumerate(value)]
            kind = "ints" if per_seat else "strs"
            fields.append({"kind": "list", "key": key, "name": f"f:{key}:{kind}", "label": label,
                           "items": items, "numeric": per_seat})
        elif isinstance(value, int) and not isinstance(value, bool):
            fields.append({"kind": "text", "key": key, "name": f"f:{key}:int", "label": label,
                           "value": str(value), "numeric": True})
        else:
            fields.append({"kind": "text", "key": key, "name": f"f:{key}:str", "label": label,
                           "value": "" if value is None else str(value), "numeric": False})
    return fields


def _who(order: Any, position: int, names: Sequence[str]) -> str:
    """Whose card sits at ``position``: the player the referee recorded there, else its number."""
    if isinstance(order, list) and position < len(order):
        seat = order[position]
        if isinstance(seat, int) and not isinstance(seat, bool) and 0 <= seat < len(names):
            return names[seat]
    return f"{position + 1}."
