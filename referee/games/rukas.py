"""Rūkas to the pages: the trick form in reveal order, why a card took the trick (or nobody
did), and the lowest card that took a trick in the session."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from referee.presenters import RANKS_EN, name_of, names_list, show_rank
from referee.rules.cards import RANK_TEXT_EN

from .base import FactQuery, GamePages, Row, RuleText, and_list, plural_forms, tied_names, with_tied

#: A rank's text -> its value, to find the lowest card that took a trick.
RANK_ORDER = {text: value for value, text in RANK_TEXT_EN.items()}


def reveal(last: Mapping[str, Any], names: Sequence[str], notation: str) -> list[dict[str, Any]]:
    """The last trick's cards in reveal order, each with its fate (cancelled, beaten, live, taker)."""
    labels = {
        "cancelled": _("cancelled"), "beaten": _("beaten"), "live": _("in play"), "taker": _("takes"),
    }
    return [
        {"seat": seat, "name": name_of(names, seat), "rank": show_rank(rank, notation), "status": status,
         "status_label": labels.get(status, status)}
        for seat, rank, status in zip(last["reveal_order"], last["cards"], last["status"], strict=False)
    ]


def _taken(entries: Iterable[Row]) -> dict[str, Any]:
    """Every taken trick as (deal, trick, taker, rank the trick was taken with).

    Rows: deal, trick (seq), and from the referee's conclusion the taker, the cards in
    reveal order and the seats in reveal order.
    """
    taken = []
    for deal, seq, taker, cards, order in entries:
        if isinstance(taker, int) and isinstance(cards, list) and isinstance(order, list) and taker in order:
            taken.append([deal, seq, taker, cards[order.index(taker)]])
    return {"taken": taken}


class RukasPages(GamePages):
    slug = "rukas"
    card_fields = {"cards": "rank"}
    fact_query = FactQuery("entries", ("result__taker", "result__cards", "result__reveal_order"), _taken)
    best_deal_highlight = True

    def rule_texts(self) -> Mapping[str, RuleText]:
        return {
            "seven_after_ace": RuleText(
                _("R1 a 7 that beat an ace"),
                _("Seven takes: the 7 that beat an ace takes the trick (unless a live card one lower takes "
                  "from it). Next highest: the beaten ace just leaves; the 7 is an ordinary card."),
                {"seven_takes": _("the 7 takes"), "next_highest": _("the next highest takes")},
            ),
            "void_trick": RuleText(
                _("R2 a trick nobody takes"),
                _("Void: nobody gets its point and the same player reveals first again. Carry: the next "
                  "trick's taker also gets this point (points still pending after the 13th trick are lost)."),
                {"void": _("void (no point)"), "carry": _("carried to the next taker")},
            ),
        }

    def screen(
        self, view: Mapping[str, Any], names: Sequence[str], notation: str, *,
        state: Mapping[str, Any], finished: bool, redraw: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        players = view["players"]
        leader = view["leader"]
        order = [(leader + step) % players for step in range(players)]
        played = view["played"]
        slots = [
            {
                "seat": seat, "name": names[seat], "position": position,
                "played": " ".join(show_rank(rank, notation) for rank in played[seat]),
                "left": 13 - len(played[seat]),
            }
            for position, seat in enumerate(order)
        ]
        last = view.get("last")
        return {
            "slots": slots,
            "reveal": reveal(last, names, notation) if last else [],
            "last_taker": None if not last or last.get("taker") is None else names[last["taker"]],
            "trick_number": view["tricks_played"] + 1,
            "tricks": view["tricks"],
        }

    def explain(
        self, view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
    ) -> list[str]:
        order = last["reveal_order"]
        cards = last["cards"]
        rank_of = {seat: cards[i] for i, seat in enumerate(order)}

        def rank(seat: int) -> str:
            return show_rank(rank_of[seat], notation)

        reason = last["reason"]
        reasons: list[str] = []
        beaten = reason.get("beaten")
        if beaten:
            reasons.append(
                _("the 7 of %(by)s beat the ace of %(ace)s")
                % {"by": name_of(names, beaten["by"]), "ace": name_of(names, beaten["ace"])}
            )
        for group in reason.get("cancelled", []):
            reasons.append(
                _("the cards %(rank)s of %(names)s cancel each other")
                % {"rank": show_rank(group["rank"], notation), "names": names_list(names, group["seats"])}
            )
        taker = last.get("taker")
        if taker is None:
            reasons.append(_("no card is left in play"))
            sentences = [_("Nobody takes the trick: %(reasons)s.") % {"reasons": "; ".join(reasons)}]
            if "options" not in view:  # the audit: the conclusion alone, without the deal after it
                return sentences
            if view["options"]["void_trick"] == "void":
                sentences.append(
                    _("No point; %(name)s reveals first again.") % {"name": name_of(names, view["leader"])}
                )
            elif view.get("finished"):
                sentences.append(_("The pending points are lost: no trick is left to take them."))
            else:
                sentences.append(
                    _("Its point waits for the next taker (%(count)s pending).") % {"count": view["pending"]}
                )
            return sentences
        chain = reason.get("chain", [])
        basis = reason.get("basis")
        if basis == "ace":
            reasons.append(_("the ace stands, since no 7 beat it"))
        elif basis == "seven_beat_ace" and chain:
            reasons.append(_("the 7 that beat the ace would take the trick"))
        elif chain:
            reasons.append(_("%(rank)s is the highest card in play") % {"rank": rank(chain[0])})
        for higher, lower in zip(chain, chain[1:], strict=False):
            reasons.append(
                _("%(lower)s of %(name)s, one rank lower, takes from %(higher)s")
                % {"lower": rank(lower), "name": name_of(names, lower), "higher": rank(higher)}
            )
        low = RANKS_EN.index(rank_of[taker]) if rank_of[taker] in RANKS_EN else 0
        if basis != "ace" and low > 0:
            # Why the chain stops here: nothing one rank lower is live (an ace is never taken from).
            reasons.append(
                _("no %(below)s is in play to take from %(rank)s")
                % {"below": show_rank(RANKS_EN[low - 1], notation), "rank": rank(taker)}
            )
        sentences = [
            _("%(name)s takes the trick with %(rank)s: %(reasons)s.")
            % {"name": name_of(names, taker), "rank": rank(taker), "reasons": "; ".join(reasons)}
        ]
        if last.get("carried"):
            sentences.append(
                ngettext(
                    "%(name)s also collects %(count)s carried point.",
                    "%(name)s also collects %(count)s carried points.",
                    last["carried"],
                )
                % {"name": name_of(names, taker), "count": last["carried"]}
            )
        return sentences

    def offline_text(self) -> dict[str, object]:
        """The drawer's sentences (static/js/table/games/rukas.js): a trick's verdict and the next
        trick's form, in the same words as :meth:`explain` and the screen."""
        return {
            # A trick's verdict and the next trick's form (the same words as the server's screen).
            "trick_n": _("Trick %(n)s"),
            "takes": _("%(name)s takes"),
            "nobody_takes": _("nobody takes"),
            "trick_of_13": _("Trick %(n)s of 13"),
            "reveals_first": _("%(name)s reveals first"),
            "reveals_first_short": _("reveals first"),
            "status": {"cancelled": _("cancelled"), "beaten": _("beaten"), "live": _("in play"), "taker": _("takes")},
            "pending": plural_forms("%(n)s point waits for the next taker.", "%(n)s points wait for the next taker."),
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
            "carried": plural_forms("%(name)s also collects %(count)s carried point.",
                                "%(name)s also collects %(count)s carried points."),
            "trick_entry": _("the trick %(cards)s"),
        }

    def words(self) -> dict[str, str]:
        return {**super().words(), "trick": _("trick")}

    def running_points(self, view: Mapping[str, Any]) -> list[int] | None:
        return [int(points) for points in view["tricks"]]

    def describe_entry(
        self, payload: Mapping[str, Any], result: Mapping[str, Any] | None, names: Sequence[str], notation: str
    ) -> str:
        # The ranks as they were typed (already in the session's notation); only tidied.
        cards = " ".join(str(card).strip() for card in payload.get("cards", []))
        return _("the trick %(cards)s") % {"cards": cards}

    def highlights(self, facts: Mapping[str, Any], players: int) -> list[dict[str, Any] | None]:
        taken = facts.get("taken", [])
        if not taken:
            return [None]
        deal, trick, seat, rank = min(taken, key=lambda t: (RANK_ORDER[t[3]], t[0], t[1]))
        tied = [{"seat": t[2], "deal": t[0], "trick": t[1]}
                for t in sorted(taken, key=lambda t: (t[0], t[1])) if RANK_ORDER[t[3]] == RANK_ORDER[rank]]
        return [with_tied({"kind": "lowest_taker", "deal": deal, "trick": trick, "seat": seat, "rank": rank}, tied)]

    def describe_highlight(self, highlight: Mapping[str, Any]) -> str | None:
        if highlight["kind"] == "lowest_taker" and highlight.get("tied"):
            return _("Lowest card to take a trick: a %(rank)s, by %(who)s.") % {
                "rank": highlight["rank"], "who": and_list([
                    _("%(name)s (trick %(trick)s of deal %(deal)s)") % {"name": name, **t}
                    for name, t in zip(tied_names(highlight), highlight["tied"])])}
        if highlight["kind"] == "lowest_taker":
            return _("Lowest card to take a trick: %(name)s took trick %(trick)s of deal %(deal)s "
                     "with a %(rank)s.") % highlight
        return None


PAGES = RukasPages()
