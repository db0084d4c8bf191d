"""Pašėlęs Velnias to the pages: how a deal ended, who pays whom and why, who called stop most."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from referee.presenters import name_of

from .base import FactQuery, GamePages, Row, and_list, tied_names, top_count


def headline(condition: str, player: int | None, names: Sequence[str]) -> str:
    who = name_of(names, player)
    if condition == "empty_hand":
        return _("%(name)s placed their last card and called stop.") % {"name": who}
    if condition == "last_card":
        return _("%(name)s turned the last face-down card, could not place it and called stop.") % {"name": who}
    return _("Nobody could place a card: the fewest cards in hand win.")


def payments(last: Mapping[str, Any], names: Sequence[str]) -> list[dict[str, Any]]:
    """Each payment of a Velnias ending with its reason in words."""
    rows = []
    for payment in last.get("payments", []):
        why = payment["why"]
        payer, payee = name_of(names, payment["from"]), name_of(names, payment["to"])
        if why == "cards_left":
            reason = _("cards left in %(name)s's hand") % {"name": payer}
        elif why == "last_card":
            reason = _("penalty for losing to the last-card stop")
        elif why == "fewer_cards":
            reason = _("%(name)s holds fewer cards than the caller") % {"name": payee}
        else:
            reason = _("%(name)s holds more cards than the winner") % {"name": payer}
        rows.append({"payer": payer, "payee": payee, "points": payment["points"], "reason": reason})
    return rows


def _endings(entries: Iterable[Row]) -> dict[str, Any]:
    """How each deal ended, as (deal, condition, player). Rows: deal, seq, condition, player."""
    return {"endings": [[deal, condition, player] for deal, _seq, condition, player in entries]}


class VelniasPages(GamePages):
    slug = "velnias"
    fact_query = FactQuery("entries", ("payload__condition", "payload__player"), _endings, {"payload__type": "end"})
    best_deal_highlight = True
    field_choices = {"condition": ("empty_hand", "last_card", "blocked")}

    def money_rule_text(self) -> str:
        return _("Points x the stake: Velnias points are already who pays whom.")

    def screen(
        self, view: Mapping[str, Any], names: Sequence[str], notation: str, *,
        state: Mapping[str, Any], finished: bool, redraw: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        last = view.get("last")
        return {
            "conditions": [
                {"value": "empty_hand", "label": _("Emptied hand"),
                 "help": _("A player placed their last card and called stop.")},
                {"value": "last_card", "label": _("Last face-down card"),
                 "help": _("A player turned the 13th face-down card, could not place it and called stop.")},
                {"value": "blocked", "label": _("Blocked"),
                 "help": _("Nobody can place any card; the fewest cards in hand win.")},
            ],
            "hand_size": view["hand_size"],
            "payments": payments(last, names) if last else [],
            "headline": headline(last["condition"], last.get("player"), names) if last else None,
        }

    def preview(self, view: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
        last = view.get("last")
        return {"payments": payments(last, names) if last else []}

    def explain(
        self, view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
    ) -> list[str]:
        return [headline(last["condition"], last.get("player"), names)]

    def offline_text(self) -> dict[str, object]:
        """The drawer's sentences (static/js/table/games/velnias.js): the ending's headline, as
        :meth:`explain` says it, and who pays whom."""
        return {
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
            "conditions": {
                "empty_hand": _("emptied hand"), "last_card": _("last face-down card"), "blocked": _("blocked"),
            },
            "end_entry": _("the end of the deal: %(condition)s"),
            "end_entry_who": _("the end of the deal: %(condition)s, %(name)s"),
        }

    def words(self) -> dict[str, str]:
        return {
            **super().words(), "end": _("end-of-deal"), "condition": _("how the deal ended"),
            "player": _("the player who called stop"), "empty_hand": _("“emptied hand”"),
            "last_card": _("“last face-down card”"), "blocked": _("“blocked”"),
        }

    def describe_entry(
        self, payload: Mapping[str, Any], result: Mapping[str, Any] | None, names: Sequence[str], notation: str
    ) -> str:
        labels = {
            "empty_hand": _("emptied hand"), "last_card": _("last face-down card"), "blocked": _("blocked"),
        }
        condition = labels.get(str(payload.get("condition")), str(payload.get("condition")))
        player = payload.get("player")
        if player is None:
            return _("the end of the deal: %(condition)s") % {"condition": condition}
        who = name_of(names, player) if isinstance(player, int) else "?"
        return _("the end of the deal: %(condition)s, %(name)s") % {"condition": condition, "name": who}

    def highlights(self, facts: Mapping[str, Any], players: int) -> list[dict[str, Any] | None]:
        counts = [0] * players
        for _deal, condition, player in facts.get("endings", []):
            if condition == "empty_hand" and isinstance(player, int):
                counts[player] += 1
        return [top_count("most_stops", counts)]

    def describe_highlight(self, highlight: Mapping[str, Any]) -> str | None:
        if highlight["kind"] == "most_stops":
            if highlight.get("tied"):
                return _("Most “Stop!” calls: %(who)s (%(count)s each).") % {
                    "who": and_list(tied_names(highlight)), "count": highlight["count"]}
            return ngettext("Most “Stop!” calls: %(name)s emptied their hand first %(count)s time.",
                            "Most “Stop!” calls: %(name)s emptied their hand first %(count)s times.",
                            highlight["count"]) % highlight
        return None


PAGES = VelniasPages()
