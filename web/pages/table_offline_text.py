"""What the recording screen's offline path (static/js/table/offline.js, offline-view.js) says
when it draws a deal the server has not seen yet (each game adds its own from
``referee/games/<game>.py``): the same sentences the server's pages use
(the same msgids, so the same Lithuanian), with their ``%(name)s`` left for the browser to fill
in, plus the few sentences only the offline path needs."""

from __future__ import annotations

from django.utils.translation import gettext as _

from referee.games import GamePages
from referee.games.base import plural_forms
from referee.rules.plan import PHRASES


def table_offline_text(pages: GamePages) -> dict[str, object]:
    """The offline path's sentences in the reader's language: the ones every game's screen
    shares (keys are offline-view.js's), then the game's own (its drawer's, from
    ``pages.offline_text()``)."""
    return {
        "unavailable": _("Offline recording is not available on this browser."),
        "unavailable_game": _("Offline recording is not available for this game yet."),
        "moving": _("The server has this deal now: opening its page…"),
        "waiting_tag": _("waiting to be sent"),
        "dealer": _("dealer"),
        # The entry list's heading, for a deal that had none when the page was rendered (deal_live.html).
        "recorded": _("Recorded in this deal"),
        # The deal's heading and dealer line (deal.html, _finished.html).
        "deal_n": _("deal %(n)s"),
        "crumb_deal": _("Deal %(n)s"),
        "deal_over": _("Deal %(n)s is over"),
        "start_deal": _("Start deal %(n)s"),
        "and_list": _("%(rest)s and %(last)s"),
        # The plan's sentences (referee/rules/plan.py), per plural category (static/js/table/plan.js).
        "plan_phrases": {key: plural_forms(*forms) for key, forms in PHRASES.items()},
        "plan_unit": plural_forms(*pages.rules.unit.counted),
        **pages.offline_text(),
    }
