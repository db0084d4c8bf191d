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
from django.utils.translation import ngettext

from referee import selectors
from referee.games import PAGES
from referee.models import ChangeKind, DealChange, Entry, PlanChange, SeatChange, Session
from referee.permissions import club_role
from referee.rules import GAMES
from referee.rules.plan import Progress, read_plan, standing
from referee.rules.plan import render as plan_words


def audit_context(session: Session) -> dict[str, Any]:
    """Deals in order, each with its entries (oldest first) and its changes (two queries)."""
    names = selectors.seat_names_of(session)
    # How an entry reads is the game's own (seats by name, its own fields its own way).
    pages = PAGES[session.game]
    describe = pages.audit_line
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
        elif change is not None and change.kind == ChangeKind.TABLET_VERSION:
            status = _("replaced by a tablet's version, chosen by %(name)s") % {
                "name": change.author.get_username() if change.author else "–"}
        else:
            status = _("undone")
        deal["entries"].append({
            "seq": entry.seq, "text": describe(entry.payload, names), "active": entry.active, "status": status,
            # The entry in the club's words (as the undo button says it), the exact fields below it.
            "said": _said(pages, entry, names, session.notation),
            "conclusion": pages.audit_conclusion(entry.result, names, session.notation),
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
        "session": session, "club": session.club, "names": names, "game_name": PAGES[session.game].name,
        "deals": [deals[number] for number in sorted(deals)],
        "entry_count": len(entries), "change_count": len(changes),
        "plan_changes": [
            {"kind": c.kind, "what": _plan_change_text(c, session), "at": c.created_at,
             "author": c.author.get_username() if c.author else "–"}
            for c in PlanChange.objects.filter(session=session).select_related("author")
        ],
        "seat_changes": [
            {"seat": c.seat + 1, "was": c.was.name, "now": c.now.name, "at": c.created_at,
             "author": c.author.get_username() if c.author else "–"}
            for c in SeatChange.objects.filter(session=session).select_related("was", "now", "author")
        ],
    }


def _plan_words(plan: Any, session: Session) -> str:
    """A stored plan as the screens name it ("Plan: 10 deals", "Target: 50 points"), or open-ended."""
    found = read_plan(plan)
    if found is None:
        return _("open-ended")
    headline = standing(found, Progress()).headline
    return plan_words(headline, [], GAMES[session.game].unit, ngettext=ngettext)


def _plan_change_text(change: PlanChange, session: Session) -> str:
    if change.kind == PlanChange.Kind.PLAY_ON:
        return ngettext("played on past the plan after %(n)s deal", "played on past the plan after %(n)s deals",
                        change.deals) % {"n": change.deals}
    return _("the plan changed from “%(was)s” to “%(now)s” after %(n)s finished deals") % {
        "was": _plan_words(change.was, session), "now": _plan_words(change.now, session), "n": change.deals}


def _said(pages: Any, entry: Entry, names: list[str], notation: str) -> str:
    if not isinstance(entry.payload, dict):
        return ""
    result = entry.result if isinstance(entry.result, dict) else None
    try:
        return str(pages.describe_entry(entry.payload, result, names, notation))
    except (KeyError, TypeError, ValueError, IndexError):  # an old entry of another shape: its fields say it
        return ""


@login_required
def audit_page(request: HttpRequest, pk: int) -> HttpResponse:
    session = selectors.session_for_page(request.user, pk)
    if session is None or club_role(request.user, session.club) is None:
        raise Http404(_("Not found."))
    return render(request, "referee/audit.html", audit_context(session))
