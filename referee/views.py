"""Pages for tablets, phones and the wall screen (server-rendered; small JavaScript enhances).

Every page works without JavaScript: the recording forms post here and the same services
decide. With JavaScript the forms drive the JSON API instead (idempotency keys, retries,
live updates); see static/js/table.js. Views stay thin: selectors read, services write.
"""

from __future__ import annotations

import json
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db.models import Max
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from referee.games import PAGES
from referee.rules import GAMES, IllegalEntry
from referee.rules.cards import SUITS

from . import presenters, selectors, services
from .errors import NotAllowed, Refusal
from .models import GAME_CHOICES, Deal, DealStatus, Entry, SessionStatus
from .pages.access import can_record as _can_record
from .pages.access import deal_or_404 as _deal_or_404
from .pages.entry_form import new_key, payload_from_form
from .services import refusal_from

#: How many of the deal's latest entries the recording screen lists.
RECENT_ENTRIES = 6


# -- small helpers -------------------------------------------------------------------------------


def _json_refusal(error: Refusal) -> JsonResponse:
    return JsonResponse({"error": error.message, **error.extra}, status=error.status)


# -- starting a session --------------------------------------------------------------------------

#: House rules the start form offers, per game: (option key, kind, choices), as the engine
#: declares them; defaults come from its ``option_defaults`` so the form can never disagree
#: with the referee.
RULE_FIELDS: dict[str, list[tuple[str, str, tuple[Any, ...]]]] = {
    slug: [(rule.key, rule.kind, rule.choices) for rule in game.house_rules] for slug, game in GAMES.items()
}


def _rules_context(values: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    games = []
    for slug, label in GAME_CHOICES:
        defaults = dict(GAMES[slug].option_defaults)
        texts = PAGES[slug].rule_texts()
        fields = []
        for key, kind, choices in RULE_FIELDS[slug]:
            default = defaults.get(key)
            value = values.get(slug, {}).get(key, default)
            text = texts[key]
            field: dict[str, Any] = {
                "key": key, "kind": kind, "name": f"opt_{slug}_{key}", "label": text.label, "help": text.help,
                "value": value, "default": default,
            }
            if kind == "choice":
                field["choices"] = [{"value": c, "label": text.choices[c]} for c in choices]
                field["default_label"] = text.choices.get(default, default)
            elif kind == "prizes":
                prizes = value if isinstance(value, list) and len(value) == 4 else ["AS", "KC", "QD", "JH"]
                field["prizes"] = [
                    {"rank": rank, "name": f"opt_{slug}_prize_{rank}", "label": rank_label,
                     "suit": next((p[-1] for p in prizes if p[:-1] == rank), "S")}
                    for rank, rank_label in (("A", _("Ace of")), ("K", _("King of")), ("Q", _("Queen of")),
                                             ("J", _("Jack of")))
                ]
                field["default_label"] = " ".join(presenters.show_card(p, "en") for p in (default or []))
            elif kind == "suits":
                field["value"] = " ".join(value) if isinstance(value, list) else ""
                field["default_label"] = _("by the number of players")
            elif kind == "bool":
                field["default_label"] = _("on") if default else _("off")
            else:
                field["default_label"] = default
            fields.append(field)
        games.append({"slug": slug, "label": label, "fields": fields, "game": GAMES[slug]})
    return games


# -- the recording screen -------------------------------------------------------------------------


def deal_context(
    deal: Deal, user: Any, role: str | None, *, errors: dict[str, str] | None = None,
    redraw: dict[str, Any] | None = None, entered: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Everything the recording screen shows, from the stored snapshot (never a replay).

    ``redraw`` is the typed form when the scorer asked for the screen again without storing
    anything (one of the game's ``redraw_actions``)."""
    session = deal.session
    names = selectors.seat_names_of(session)
    rules = GAMES[session.game]
    pages = PAGES[session.game]
    version = _deal_version(deal)
    view = _engine_view(deal, version)
    notation = session.notation
    finished = deal.status == DealStatus.FINISHED
    session_open = session.status == SessionStatus.OPEN
    can_record = _can_record(role) and session_open
    entries = selectors.recent_entries(deal, RECENT_ENTRIES)
    last_entry = entries[0] if entries else None
    later_deal = finished and session.deals.filter(number__gt=deal.number).exists()
    totals = selectors.running_totals(session, len(names))
    outcome = view.get("outcome")
    players = [
        {
            "seat": seat, "name": name, "total": totals[seat],
            "dealer": seat == deal.dealer, "first": seat == (deal.dealer + 1) % len(names),
            "points": outcome["points"][seat] if outcome else None,
            "place": outcome["placements"][seat] if outcome else None,
        }
        for seat, name in enumerate(names)
    ]
    context: dict[str, Any] = {
        "deal": deal, "session": session, "club": session.club, "game": session.game, "view": view,
        "game_template": pages.template,
        "names": names, "notation": notation, "players": players, "finished": finished,
        "can_record": can_record, "role": role, "session_open": session_open,
        "last_sentences": pages.explain_last(view, names, notation),
        "undo_label": (
            pages.describe_entry(last_entry.payload, last_entry.result, names, notation)
            if last_entry is not None and not later_deal else None
        ),
        "entries": [
            {"seq": e.seq, "text": pages.describe_entry(e.payload, e.result, names, notation)} for e in entries
        ],
        "errors": errors or {},
        # A refused form (without JavaScript) comes back holding what was typed, never a default.
        "entered": entered or {},
        "key": new_key(),
        "version": version,
        "rank_pad": presenters.rank_pad(notation),
        "suits": [{"letter": s, "symbol": presenters.SUIT_SYMBOLS[s], "name": presenters.suit_name(s)}
                  for s in SUITS],
        "unit": pages.unit_label(),
        "next_dealer": rules.next_dealer(rules.from_dict(deal.state)) if finished else None,
        "later_deal": later_deal,
        "stake": session.stake,
        "js_text": _js_text(names),
    }
    context.update(pages.screen(view, names, notation, state=deal.state, finished=finished, redraw=redraw))
    return context


def _js_text(names: list[str]) -> dict[str, Any]:
    """The few sentences table.js says, in the reader's language."""
    return {
        "saving": _("Saving…"),
        "saved": _("Saved."),
        "undoing": _("Undoing…"),
        "undone": _("Undone."),
        "retrying": _("Not saved yet: the connection failed. Retrying… (the entry is kept on this device)"),
        "offline": _("Offline: the entry is kept on this device and will be sent when the connection returns."),
        "resending": _("Sending the entry kept from before the reload…"),
        "server_error": _("The server could not save the entry (error %(status)s). Retrying…"),
        "updated": _("Updated from another device."),
        "changed_elsewhere": _("Another device recorded in this deal: the screen shows the latest state."),
        "already_played": _("%(name)s has already played %(rank)s this deal."),
        "not_allowed": _("%(rank)s is not possible for %(name)s here: %(reason)s"),
        "all_filled": _("Every card is filled in: confirm, or tap a card to change it."),
        "preview_error": _("The referee would refuse this:"),
        "starting": _("Starting the next deal…"),
        "tie_round": _("Tie-break round %(n)s"),
        "no_card": _("no card to add"),
        "names": names,
    }


def _engine_view(deal: Deal, version: str) -> dict[str, Any]:
    """The engine's view of the deal's snapshot, cached per deal version: every phone watching
    the table re-renders after each entry, and a long deal's snapshot (Mičiganas keeps its
    whole chip ledger) costs more to read than the page does to render."""
    # The creation time keeps keys apart should a database ever be rebuilt with the same ids.
    key = f"deal-view:{deal.pk}:{deal.created_at.timestamp()}:{version}"
    view = cache.get(key)
    if view is None:
        rules = GAMES[deal.session.game]
        view = rules.view(rules.from_dict(deal.state))
        cache.set(key, view, timeout=600)
    return view


def _deal_version(deal: Deal) -> str:
    """Changes with every entry, undo or correction (undo then re-record keeps seq, not the last id)."""
    last = Entry.objects.filter(deal=deal).aggregate(last=Max("id"))["last"] or 0
    return f"{deal.seq}.{last}.{deal.status}"


@login_required
def deal_page(request: HttpRequest, pk: int) -> HttpResponse:
    deal, role = _deal_or_404(request.user, pk)
    if request.method == "POST":
        return _deal_post(request, deal, role)
    context = deal_context(deal, request.user, role)
    if request.GET.get("fragment"):
        response = render(request, "referee/deal_live.html", context)
        response["X-Deal-Version"] = context["version"]
        return response
    return render(request, "referee/deal.html", context)


def _deal_post(request: HttpRequest, deal: Deal, role: str | None) -> HttpResponse:
    """The recording forms without JavaScript: the same services, then back to the screen."""
    action = request.POST.get("action", "entry")
    form_id = request.POST.get("form", "entry")
    expected = request.POST.get("expected_seq", "")
    expected_seq = int(expected) if expected.isdigit() else None
    if action in PAGES[deal.session.game].redraw_actions:
        # The screen again from what was typed (e.g. one more tie-break round): nothing is written.
        context = deal_context(deal, request.user, role, redraw=payload_from_form(request.POST))
        return render(request, "referee/deal.html", context)
    payload = payload_from_form(request.POST)
    try:
        if action == "undo":
            services.entry_undo(deal_id=deal.pk, user=request.user, expected_seq=expected_seq)
        else:
            services.entry_add(
                deal_id=deal.pk, payload=payload, user=request.user,
                idempotency_key=request.POST.get("idempotency_key") or None, expected_seq=expected_seq,
            )
    except Refusal as error:
        deal.refresh_from_db()
        context = deal_context(
            deal, request.user, role, errors={form_id: error.message}, entered={form_id: payload},
        )
        return render(request, "referee/deal.html", context, status=error.status)
    return redirect("deal", pk=deal.pk)


@login_required
def deal_live(request: HttpRequest, pk: int) -> HttpResponse:
    """Polling for watchers and a second tablet: 204 while nothing changed (two small queries),
    else the live part of the screen. ``X-Running-Deal`` names the session's running deal, so a
    finished deal's watchers follow the table to the next one."""
    found = selectors.deal_for_poll(request.user, pk)
    if found is None:
        raise Http404(_("Not found."))
    deal, role = found
    version = _deal_version(deal)
    running = Deal.objects.filter(session_id=deal.session_id, status=DealStatus.RUNNING).values_list("pk", flat=True)
    running_id = next(iter(running), None)
    if request.GET.get("v") == version:
        response = HttpResponse(status=204)
    else:
        deal, role = _deal_or_404(request.user, pk)
        response = render(request, "referee/deal_live.html", deal_context(deal, request.user, role))
    response["X-Deal-Version"] = version
    response["X-Running-Deal"] = str(running_id or "")
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def deal_preview(request: HttpRequest, pk: int) -> JsonResponse:
    """What the referee would conclude from an entry, without storing it (the points shown
    before the scorer confirms). Same checks, same messages; nothing is written."""
    deal, role = _deal_or_404(request.user, pk)
    session = deal.session
    try:
        if not _can_record(role):
            raise NotAllowed(_("Only the club's scorers and admins can record or change play."))
        try:
            payload = json.loads(request.body or b"{}")
        except ValueError as bad:
            raise Refusal(_("The entry must be a JSON object with a “type”.")) from bad
        if not isinstance(payload, dict):
            raise Refusal(_("The entry must be a JSON object with a “type”."))
        payload.pop("idempotency_key", None)
        payload.pop("expected_seq", None)
        rules = GAMES[session.game]
        pages = PAGES[session.game]
        names = selectors.seat_names_of(session)
        try:
            state = rules.apply(rules.from_dict(deal.state), payload)
        except IllegalEntry as error:
            refusal = refusal_from(error, session, names)
            refusal.extra.update(pages.refusal_hint(deal.state, session.notation, error.params, payload))
            raise refusal from error
    except Refusal as error:
        return _json_refusal(error)
    view = rules.view(state)
    outcome = view.get("outcome")
    html = render_to_string("referee/preview.html", {
        "names": names, "outcome": outcome, "view": view, "game": session.game,
        "sentences": pages.explain_last(view, names, session.notation),
        **pages.preview(view, names),
        "rows": [
            {"name": name, "points": outcome["points"][seat] if outcome else None}
            for seat, name in enumerate(names)
        ],
    }, request=request)
    return JsonResponse({"html": html, "points": outcome["points"] if outcome else None})
