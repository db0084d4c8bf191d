"""The recording screen's offline <template>s, rendered once per deal and process, not on every GET.

static/js/table/offline-view.js draws a deal the server has not rendered from two pieces of
markup the page carries: the empty entry form of a fresh deal (``#fresh-deal``) and a finished
deal's panel (``#fresh-finished``); it then draws the state into them (every figure, name order
and heading that follows the play). Rendering them with the deal as it stands cost as much as
the rest of the screen on a long deal, after every entry. They are rendered instead from the
deal as it started (its stored dealer and options, seq 0: the fresh form it had), which no entry
changes, and kept in this process keyed by every input of that rendering, so a kept copy is
never stale: a renamed player, a correction of an earlier deal (the session totals) or another
language is another key, and a deployment is another process. What is personal to a request
(the CSRF token, the page's idempotency key) is put in on the way out.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from types import SimpleNamespace
from typing import Any

from django.middleware.csrf import get_token
from django.template.loader import render_to_string
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language

from referee import presenters
from referee.games import PAGES
from referee.models import Deal
from referee.rules import GAMES
from referee.rules.cards import SUITS

#: How many deals' templates one process keeps (about 2-15 KiB each).
KEPT = 512
#: What stands for the request's own values in a kept rendering (neither can occur in markup
#: the templates produce from a deal: they are not words, names or numbers).
CSRF_MARK = "\x00csrf\x00"
KEY_MARK = "\x00key\x00"

_kept: OrderedDict[tuple[Any, ...], str] = OrderedDict()
_lock = threading.Lock()


def offline_templates(request: Any, deal: Deal, names: list[str], totals: list[int], key: str) -> SafeString:
    """The two <template>s for a scorer's screen of ``deal``: ``names`` in seat order, ``totals``
    the session totals before this deal (the finished panel's last column), ``key`` the page's
    idempotency key."""
    session = deal.session
    inputs = (
        deal.pk, deal.created_at, deal.number, deal.dealer, json.dumps(deal.options, sort_keys=True),
        session.pk, session.game, session.notation, tuple(names), tuple(totals), get_language(),
    )
    with _lock:
        html = _kept.get(inputs)
        if html is not None:
            _kept.move_to_end(inputs)
    if html is None:
        html = render_to_string("referee/_offline_templates.html", fresh_context(deal, names, totals))
        with _lock:
            _kept[inputs] = html
            while len(_kept) > KEPT:
                _kept.popitem(last=False)
    return mark_safe(html.replace(CSRF_MARK, get_token(request)).replace(KEY_MARK, key))  # noqa: S308


def fresh_context(deal: Deal, names: list[str], totals: list[int]) -> dict[str, Any]:
    """What the game's template sees for the deal as it started, built only from the inputs
    ``offline_templates`` keys on (the deal and session as light records: anything else read
    from them would not be in the key)."""
    session = deal.session
    rules = GAMES[session.game]
    pages = PAGES[session.game]
    notation = session.notation
    state = rules.to_dict(rules.new_deal(players=len(names), dealer=deal.dealer, options=dict(deal.options)))
    view = dict(rules.view(rules.from_dict(state)))
    players = [
        {"seat": seat, "name": name, "total": totals[seat], "dealer": seat == deal.dealer,
         "first": seat == (deal.dealer + 1) % len(names), "points": None, "place": None}
        for seat, name in enumerate(names)
    ]
    context: dict[str, Any] = {
        "deal": SimpleNamespace(pk=deal.pk, number=deal.number, seq=0),
        "session": SimpleNamespace(pk=session.pk),
        "game": session.game, "game_template": pages.template, "view": view, "names": names,
        "notation": notation, "players": players, "finished": False, "can_record": True,
        "session_open": True, "errors": {}, "entered": {}, "later_deal": False, "next_dealer": None,
        "key": KEY_MARK, "csrf_token": CSRF_MARK, "unit": pages.unit_label(),
        "rank_pad": presenters.rank_pad(notation),
        "suits": [{"letter": s, "symbol": presenters.SUIT_SYMBOLS[s], "name": presenters.suit_name(s)}
                  for s in SUITS],
    }
    context.update(pages.screen(view, names, notation, state=state, finished=False, redraw=None))
    return context
