"""What the recording screen shows: the deal from its stored snapshot (never a replay), the
players with their totals, the latest entries and what the game adds (``PAGES[slug].screen``)."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator, Mapping
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder
from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language
from django.utils.translation import gettext as _

from referee import presenters, screen_views, selectors
from referee.games import PAGES, GamePages
from referee.models import Deal, DealStatus, SessionStatus
from referee.rules import GAMES
from referee.rules.cards import SUITS
from scoring import page_selectors, plans
from web.pages.access import can_record
from web.pages.entry_form import new_key
from web.pages.house_rules import house_rules_of
from web.pages.offline_text import offline_text
from web.pages.table_offline_text import table_offline_text

#: How many of the deal's latest entries the recording screen lists.
RECENT_ENTRIES = 6


def deal_context(
    deal: Deal, user: Any, role: str | None, *, errors: dict[str, str] | None = None,
    redraw: dict[str, Any] | None = None, entered: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Everything the recording screen shows, from the stored snapshot (never a replay).

    ``redraw`` is the typed form when the scorer asked for the screen again without storing
    anything (one of the game's ``redraw_actions``)."""
    session = deal.session
    names = selectors.seat_names_of(session)
    pages = PAGES[session.game]
    figures = page_selectors.screen_figures(deal, len(names))
    version = figures.version
    view, next_dealer = engine_view(deal, version)
    notation = session.notation
    finished = deal.status == DealStatus.FINISHED
    session_open = session.status == SessionStatus.OPEN
    entries = selectors.recent_entries(deal, RECENT_ENTRIES)
    last_entry = entries[0] if entries else None
    later_deal = finished and figures.later_deal
    totals = figures.totals
    # A game that keeps a running count (Rūkas tricks) shows it in the totals as the deal goes.
    running = None if finished else pages.running_points(view)
    if running is not None:
        totals = [total + points for total, points in zip(totals, running, strict=True)]
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
    plan_status, plan_tablet = plans.deal_plan(
        session, names, deal.number, outcome["points"] if outcome and finished else None)
    context: dict[str, Any] = {
        "plan_status": plan_status,
        # What the tablet's engine needs to say the plan's standing offline (static/js/table/plan.js).
        "plan_tablet": plan_tablet,
        "deal": deal, "session": session, "club": session.club, "game": session.game, "view": view,
        "game_template": pages.template,
        "names": names, "notation": notation, "players": players, "finished": finished,
        "base_totals": figures.totals,  # before this deal counts: the offline templates' finished panel
        "can_record": can_record(role) and session_open, "role": role, "session_open": session_open,
        "last_sentences": pages.explain_last(view, names, notation),
        "undo_label": (
            pages.describe_entry(last_entry.payload, last_entry.result, names, notation)
            if last_entry is not None and not later_deal else None
        ),
        # What an undo takes back, so that the screen can put it back in the form.
        "undo_payload": json.dumps(last_entry.payload) if last_entry is not None else "",
        "totals_running": running is not None,
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
        "next_dealer": next_dealer,
        "later_deal": later_deal,
        "stake": session.stake,
        # The deal's raw snapshot, on a scorer's screen only: the tablet's engine goes on from it offline.
        "snapshot_script": snapshot_script(deal) if can_record(role) and session_open else "",
        "js_text": _js_text(names, pages),
        "house_rules": house_rules_of(session, names),
    }
    context.update(pages.screen(view, names, notation, state=_Snapshot(deal), finished=finished, redraw=redraw))
    return context


def _js_text(names: list[str], pages: GamePages) -> dict[str, Any]:
    """The few sentences the screen's modules (static/js/table/) say, in the reader's language,
    and the players' names."""
    return {**_sentences(get_language(), pages.slug), "names": names}


@functools.lru_cache(maxsize=64)
def _sentences(language: str | None, game: str) -> dict[str, Any]:
    """What ``_js_text`` says, once per language and game in a process (about 150 translations
    looked up on every GET before): the words come from the process's compiled catalogues, so
    a kept copy is only ever another process's when they change. Nobody changes it: it is
    read by the page's JSON only."""
    pages = PAGES[game]
    return {
        "saving": _("Saving…"),
        "saved": _("Saved."),
        "undoing": _("Undoing…"),
        "undone": _("Undone."),
        "retrying": _("Not saved yet: the connection failed. Retrying… (the entry is kept on this device)"),
        "offline": _("Offline: the entry is kept on this device and will be sent when the connection returns."),
        "resending": _("Sending the entry kept from before the reload…"),
        "unsent": _(
            "Not saved: the connection failed and this browser cannot keep the entry. Its values are back in the "
            "form: record it again."
        ),
        "server_error": _("The server could not save the entry (error %(status)s). Retrying…"),
        "updated": _("Updated from another device."),
        "changed_elsewhere": _("Another device recorded in this deal: the screen shows the latest state."),
        "already_played": _("%(name)s has already played %(rank)s this deal."),
        "not_allowed": _("%(rank)s is not possible for %(name)s here: %(reason)s"),
        "all_filled": _("Every card is filled in: confirm, or tap a card to change it."),
        "starting": _("Starting the next deal…"),
        "tie_round": _("Round %(n)s: tie-break"),
        "no_card": _("no card to add"),
        # The words refusals use for fields: a refusal goes beside the control that claims one.
        "words": pages.words(),
        # What the offline modules say (status, conflict, drafts: static/js/table/).
        "offline_text": offline_text(),
        "offline_table": table_offline_text(pages),
    }


#: What json_script escapes, so that the JSON cannot end the <script> element early.
_SCRIPT_ESCAPES = (("<", "\\u003C"), (">", "\\u003E"), ("&", "\\u0026"))


def snapshot_script(deal: Deal) -> SafeString:
    """``deal.state|json_script:"deal-snapshot"``, from the database's own JSON text when the
    page read it so (``deal_for_page(snapshot_as_text=True)``): decoding a 500-entry Mičiganas
    deal's 83 KB and encoding it again took 3 ms. Otherwise encoded without the spaces after
    commas and colons, and without the cycle check (a snapshot read from the database holds no
    cycle)."""
    text = getattr(deal, "snapshot_text", None)
    if text is None:
        text = json.dumps(deal.state, cls=DjangoJSONEncoder, separators=(",", ":"), check_circular=False)
    for character, escaped in _SCRIPT_ESCAPES:  # str.replace: 0.003 ms on 83 KB, translate() 0.1 ms
        text = text.replace(character, escaped)
    return format_html('<script id="deal-snapshot" type="application/json">{}</script>', mark_safe(text))  # noqa: S308


def engine_view(deal: Deal, version: str) -> tuple[dict[str, Any], int | None]:
    """The engine's view of the deal's snapshot and, once the deal is finished, the next deal's
    dealer, kept per deal version (``referee.screen_views``: the entry that made the version
    usually kept it already). Both come from one reading of the snapshot: a finished deal's
    screen read it a second time for the dealer, on every GET."""
    found = screen_views.kept(deal, version)
    if found is not None:
        return found
    rules = GAMES[deal.session.game]
    state = rules.from_dict(snapshot_of(deal))
    next_dealer = rules.next_dealer(state) if deal.status == DealStatus.FINISHED else None
    return screen_views.keep(deal, version, rules.view(state), next_dealer)


class _Snapshot(Mapping[str, Any]):
    """The deal's snapshot for a game's ``screen``, decoded only if the game reads it (Elgeta
    does; a Mičiganas screen, whose snapshot is the largest, does not)."""

    def __init__(self, deal: Deal) -> None:
        self._deal = deal

    def __getitem__(self, key: str) -> Any:
        return snapshot_of(self._deal)[key]

    def __iter__(self) -> Iterator[str]:
        return iter(snapshot_of(self._deal))

    def __len__(self) -> int:
        return len(snapshot_of(self._deal))


def snapshot_of(deal: Deal) -> dict[str, Any]:
    """The deal's snapshot as the engine reads it: decoded from ``snapshot_text`` at first use
    when the page read it as text (``deal_for_page(snapshot_as_text=True)``)."""
    text = getattr(deal, "snapshot_text", None)
    if text is not None and "state" in deal.get_deferred_fields():
        deal.state = json.loads(text)
    state: dict[str, Any] = deal.state
    return state
