"""What the recording screen's offline path (static/js/table/offline.js, offline-view.js) says
when it draws a deal the server has not seen yet: the same sentences the server's pages use
(the same msgids, so the same Lithuanian), with their ``%(name)s`` left for the browser to fill
in, plus the few sentences only the offline path needs."""

from __future__ import annotations

from django.utils.translation import gettext as _
from django.utils.translation import ngettext


def _counted(singular: str, plural: str) -> dict[str, str]:
    """One sentence per CLDR plural category (the browser picks with Intl.PluralRules), as
    offline_text.py does."""
    return {category: ngettext(singular, plural, n) for category, n in {"one": 1, "few": 2, "other": 10}.items()}


def table_offline_text() -> dict[str, object]:
    """The offline path's sentences in the reader's language (keys are offline-view.js's)."""
    return {
        "unavailable": _("Offline recording is not available on this browser."),
        "unavailable_game": _("Offline recording is not available for this game yet."),
        "moving": _("The server has this deal now: opening its page…"),
        "waiting_tag": _("waiting to be sent"),
        "dealer": _("dealer"),
        # The deal's heading and dealer line (deal.html, _finished.html).
        "deal_n": _("deal %(n)s"),
        "deal_over": _("Deal %(n)s is over"),
        "start_deal": _("Start deal %(n)s"),
        "and_list": _("%(rest)s and %(last)s"),
        # A trick's verdict and the next trick's form (the same words as the server's screen).
        "trick_n": _("Trick %(n)s"),
        "takes": _("%(name)s takes"),
        "nobody_takes": _("nobody takes"),
        "trick_of_13": _("Trick %(n)s of 13"),
        "reveals_first": _("%(name)s reveals first"),
        "reveals_first_short": _("reveals first"),
        "status": {"cancelled": _("cancelled"), "beaten": _("beaten"), "live": _("in play"), "taker": _("takes")},
        "pending": _counted("%(n)s point waits for the next taker.", "%(n)s points wait for the next taker."),
        "seven_beat_ace": _("the 7 of %(by)s beat the ace of %(ace)s"),
        "cancel": _("the cards %(rank)s of %(names)s cancel each other"),
        "none_left": _("no card is left in play"),
        "nobody_sentence": _("Nobody takes the trick: %(reasons)s."),
        "void_again": _("No point; %(name)s reveals first again."),
        "lost_points": _("The pending points are lost: no trick is left to take them."),
        "waits": _("Its point waits for the next taker (%(count)s pending)."),
        "ace_stands": _("the ace stands, since no 7 beat it"),
        "seven_would": _("the 7 that beat the ace would take the trick"),
        "highest": _("%(rank)s is the highest card in play"),
        "one_lower": _("%(lower)s of %(name)s, one rank lower, takes from %(higher)s"),
        "none_below": _("no %(below)s is in play to take from %(rank)s"),
        "takes_sentence": _("%(name)s takes the trick with %(rank)s: %(reasons)s."),
        "carried": _counted("%(name)s also collects %(count)s carried point.",
                            "%(name)s also collects %(count)s carried points."),
        "trick_entry": _("the trick %(cards)s"),
        # A deal's end and who pays whom.
        "headline": {
            "empty_hand": _("%(name)s placed their last card and called stop."),
            "last_card": _("%(name)s turned the last face-down card, could not place it and called stop."),
            "blocked": _("Nobody could place a card: the fewest cards in hand win."),
        },
        "who_pays": _("Who pays whom"),
        "why": {
            "cards_left": _("cards left in %(name)s's hand"),
            "last_card": _("penalty for losing to the last-card stop"),
            "fewer_cards": _("%(name)s holds fewer cards than the caller"),
            "more_cards": _("%(name)s holds more cards than the winner"),
        },
        "conditions": {"empty_hand": _("emptied hand"), "last_card": _("last face-down card"), "blocked": _("blocked")},
        "end_entry": _("the end of the deal: %(condition)s"),
        "end_entry_who": _("the end of the deal: %(condition)s, %(name)s"),
    }
