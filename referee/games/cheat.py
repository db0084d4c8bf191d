"""Apgaudinėjimas to the pages: whose turn and which rank, what a challenge revealed, and the
session's sharpest challenger."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from referee.presenters import cards_word, name_of, show_card, show_rank, suit_name
from referee.rules.cards import SUITS

from .base import FactQuery, GamePages, Row, RuleText, and_list, plural_forms, tied_names, with_tied


def _challenges(entries: Iterable[Row]) -> dict[str, Any]:
    """Every challenge as (deal, challenger, placer, whether it caught a lie).

    Rows (challenges only): deal, seq, and the conclusion's challenger, placer and truthful.
    """
    return {
        "challenges": [
            [deal, challenger, placer, truthful is False] for deal, _seq, challenger, placer, truthful in entries
        ]
    }


class CheatPages(GamePages):
    slug = "cheat"
    card_fields = {"revealed": "rank"}
    fact_query = FactQuery(
        "entries", ("result__challenger", "result__player", "result__truthful"), _challenges,
        {"payload__type": "challenge"},
    )
    # A deal has one loser and no winner to count a run of.
    streak_highlight = False

    def session_rules(self) -> list[tuple[str, str]]:
        return [(_("Who deals"), _("the loser of a deal (the cheat) deals the next"))]

    def rule_texts(self) -> Mapping[str, RuleText]:
        return {
            "jokers": RuleText(
                _("C1 jokers"),
                _("Jokers in the deck (0, 2 or 4); a joker stands for any card when revealed."),
                {0: "0", 2: "2", 4: "4"},
            ),
        }

    def screen(
        self, view: Mapping[str, Any], names: Sequence[str], notation: str, *,
        state: Mapping[str, Any], finished: bool, redraw: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        turn = view.get("turn")
        out_order = {seat: index + 1 for index, seat in enumerate(view["out"])}
        return {
            "turn_name": names[turn] if turn is not None else None,
            "announce": show_rank(view["announce"], notation),
            "announce_canonical": view["announce"],
            "seats_state": [
                {"seat": seat, "name": name, "count": view["counts"][seat], "out": out_order.get(seat),
                 "turn": seat == turn, "pending": seat == view.get("pending_last"),
                 "loser": seat == view.get("loser")}
                for seat, name in enumerate(names)
            ],
            "challengers": [{"seat": seat, "name": names[seat]} for seat in view["challengers"]],
            "last_placer_name": names[view["last_placer"]] if view.get("last_placer") is not None else None,
            "last_announced": (
                show_rank(view["last_announced"], notation) if view.get("last_announced") else None
            ),
            "pending_name": names[view["pending_last"]] if view.get("pending_last") is not None else None,
            "jokers": view["jokers"],
        }

    def explain(
        self, view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
    ) -> list[str]:
        who = name_of(names, last["player"])
        rank = show_rank(last["announced"], notation)
        kind = last["type"]
        sentences: list[str] = []
        if kind == "place":
            for seat in last.get("went_out", []):
                sentences.append(
                    _("Nobody challenged %(name)s's last card: %(name)s is out.") % {"name": name_of(names, seat)}
                )
            sentences.append(_("%(name)s placed a card and announced %(rank)s.") % {"name": who, "rank": rank})
            counts = view.get("counts")  # none in the audit, which reads the conclusion alone
            if counts is not None and counts[last["player"]] == 0:
                sentences.append(
                    _("That was %(name)s's last card: it stands unless someone challenges it.") % {"name": who}
                )
        elif kind == "challenge":
            revealed = show_card(last["revealed"], notation)
            taker = name_of(names, last["taker"])
            taken = cards_word(last["taken"])
            if last["truthful"]:
                sentences.append(
                    _("%(challenger)s challenged %(name)s, who told the truth (announced %(rank)s, revealed "
                      "%(card)s): %(taker)s takes %(cards)s.")
                    % {"challenger": name_of(names, last["challenger"]), "name": who, "rank": rank,
                       "card": revealed, "taker": taker, "cards": taken}
                )
            else:
                sentences.append(
                    _("%(name)s lied (announced %(rank)s, revealed %(card)s) and takes %(cards)s.")
                    % {"name": who, "rank": rank, "card": revealed, "cards": taken}
                )
            if last.get("went_out"):
                sentences.append(_("That was %(name)s's last card: %(name)s is out.") % {"name": who})
            if view.get("turn") is not None:
                sentences.append(
                    _("%(name)s starts again, announcing %(rank)s.") % {"name": taker, "rank": show_rank("A", notation)}
                )
        else:
            sentences.append(_("Nobody challenged %(name)s's last card: %(name)s is out.") % {"name": who})
        if last.get("loser") is not None:
            sentences.append(
                _("%(name)s is left holding cards: the apgavikas, who loses the deal.")
                % {"name": name_of(names, last["loser"])}
            )
        return sentences

    def offline_text(self) -> dict[str, object]:
        """The drawer's sentences (static/js/table/games/cheat.js): a verdict as :meth:`explain`
        says it, an entry's line as :meth:`describe_entry` writes it, and the turn, the counts and
        the forms as templates/referee/games/cheat.html shows them (the same msgids)."""
        return {
            # The verdict (explain).
            "stood_out": _("Nobody challenged %(name)s's last card: %(name)s is out."),
            "placed": _("%(name)s placed a card and announced %(rank)s."),
            "last_card": _("That was %(name)s's last card: it stands unless someone challenges it."),
            "truthful": _("%(challenger)s challenged %(name)s, who told the truth (announced %(rank)s, revealed "
                          "%(card)s): %(taker)s takes %(cards)s."),
            "lied": _("%(name)s lied (announced %(rank)s, revealed %(card)s) and takes %(cards)s."),
            "went_out": _("That was %(name)s's last card: %(name)s is out."),
            "starts_again": _("%(name)s starts again, announcing %(rank)s."),
            "loser": _("%(name)s is left holding cards: the apgavikas, who loses the deal."),
            "cards_word": plural_forms("%(count)s card", "%(count)s cards"),
            # An entry's line (describe_entry).
            "place_entry": _("%(name)s's card (announced %(rank)s)"),
            "place_entry_bare": _("%(name)s's card"),
            "challenge_entry": _("%(name)s's challenge (revealed %(card)s)"),
            "stands_entry": _("letting the last card stand"),
            # The screen (cheat.html, _rank_pad.html, _suit_pad.html).
            "whose_turn": _("Whose turn"),
            "announces": _("announces"),
            "answers": _("challenges %(name)s's last card or lets it stand"),
            "placed_button": _("%(name)s placed a card (%(rank)s)"),
            "pending_notice": _("%(name)s's last card is on the pile: it stands when the next card is placed, "
                                "unless someone challenges it."),
            "cards_in_hand": _("Cards in hand"),
            "pile": _("Pile"),
            "cards": _("cards"),
            "apgavikas": _("apgavikas"),
            "out_n": _("out, %(n)s."),
            "pending_sub": _("last card on the pile"),
            "stands_button": _("Nobody challenges: %(name)s is out"),
            "challenge_summary": _("Challenge %(name)s's card (announced %(rank)s)"),
            "who_challenged": _("Who challenged?"),
            "which_card": _("Which card was revealed? (the rank is enough; add the suit if you see it)"),
            "record_challenge": _("Record the challenge"),
            "joker": _("joker"),
            "ranks": _("Ranks"),
            "suits": _("Suits"),
            "suit_names": {suit: suit_name(suit) for suit in SUITS},
        }

    def words(self) -> dict[str, str]:
        return {
            **super().words(), "place": _("placed-card"), "challenge": _("challenge"), "stands": _("stands"),
            "challenger": _("who challenged"), "revealed": _("the revealed card"),
        }

    def describe_entry(
        self, payload: Mapping[str, Any], result: Mapping[str, Any] | None, names: Sequence[str], notation: str
    ) -> str:
        kind = payload.get("type")
        player = payload.get("player")
        who = name_of(names, player) if isinstance(player, int) else "?"
        if kind == "place":
            announced = (result or {}).get("announced")
            if announced:
                return _("%(name)s's card (announced %(rank)s)") % {"name": who, "rank": show_rank(announced, notation)}
            return _("%(name)s's card") % {"name": who}
        if kind == "challenge":
            return _("%(name)s's challenge (revealed %(card)s)") % {
                "name": name_of(names, payload.get("challenger")), "card": payload.get("revealed"),
            }
        return _("letting the last card stand")

    def highlights(self, facts: Mapping[str, Any], players: int) -> list[dict[str, Any] | None]:
        caught, made = [0] * players, [0] * players
        for _deal, challenger, _placer, lie in facts.get("challenges", []):
            made[challenger] += 1
            caught[challenger] += 1 if lie else 0
        if not any(caught):
            return [None]
        # Most lies caught; among equals, the better record (fewer challenges); then the lower seat.
        seat = min(range(players), key=lambda s: (-caught[s], made[s], s))
        # Tied: as many lies caught in as many challenges.
        tied = [{"seat": s} for s in range(players) if (caught[s], made[s]) == (caught[seat], made[seat])]
        return [with_tied({"kind": "best_challenger", "seat": seat, "caught": caught[seat],
                           "challenges": made[seat]}, tied)]

    def describe_highlight(self, highlight: Mapping[str, Any]) -> str | None:
        if highlight["kind"] == "best_challenger" and highlight.get("tied"):
            return ngettext("Sharpest challengers: %(who)s (%(caught)s lie caught in %(challenges)s challenges each).",
                            "Sharpest challengers: %(who)s (%(caught)s lies caught in %(challenges)s challenges each).",
                            highlight["caught"]) % {"who": and_list(tied_names(highlight)), **highlight}
        if highlight["kind"] == "best_challenger":
            return ngettext("Sharpest challenger: %(name)s caught %(caught)s lie in %(challenges)s challenges.",
                            "Sharpest challenger: %(name)s caught %(caught)s lies in %(challenges)s challenges.",
                            highlight["caught"]) % highlight
        return None


PAGES = CheatPages()
