"""Mičiganas to the pages: the prize cards and their chips, the chip ledger, what each play
meant, and the session's biggest prize pot and most misplays."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from django.utils.html import escape
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from referee.presenters import SUIT_SYMBOLS, cards_word, chips_word, name_of, show_card, suit_name

from .base import FactQuery, GamePages, Row, RuleText, and_list, plural_forms, tied_names, top_count, with_tied

#: How many of a deal's latest chip movements the recording screen lists.
MOVEMENTS_SHOWN = 40


def _prizes_and_misplays(deals: Iterable[Row]) -> dict[str, Any]:
    """Prize cards played and misplays per deal. Rows: deal, its prizes played, its misplays."""
    prizes, misplays = [], []
    for number, played, counts in deals:
        for prize in played or []:
            prizes.append([number, prize["player"], prize["card"], prize["chips"], bool(prize["taken"])])
        for seat, count in enumerate(counts or []):
            if count:
                misplays.append([number, seat, count])
    return {"prizes": prizes, "misplays": misplays}


class MichiganPages(GamePages):
    slug = "michigan"
    card_fields = {"card": "card"}
    fact_query = FactQuery("deals", ("state__prizes_played", "state__misplays"), _prizes_and_misplays)
    best_deal_highlight = True

    def money_rule_text(self) -> str:
        return _("Net chips x the chip value; the chips left on the prize cards are shared at close (M3).")

    def movement_reason(self, reason: str) -> str:
        words = {"ante": _("ante"), "prize": _("prize"), "misplay": _("misplay"), "payout": _("payout")}
        return words.get(reason) or super().movement_reason(reason)

    def session_rules(self) -> list[tuple[str, str]]:
        return [*super().session_rules(), (
            _("M3 chips left on the prize cards at close"),
            _("shared equally; the chips left over go one each from the seat after the last dealer"),
        )]

    def rule_texts(self) -> Mapping[str, RuleText]:
        return {
            "prizes": RuleText(_("Prize cards"), _("An ace, a king, a queen and a jack of four different suits.")),
            "ante": RuleText(_("M1 ante per prize card"), _("Chips each player puts on every prize card.")),
            "dealer_ante": RuleText(_("M1 the dealer's ante"), _("The dealer puts this many instead.")),
            "misplay_penalty": RuleText(
                _("M2 misplay penalty"),
                _("Chips a player who plays wrongly pays to every other player; they take no more prizes "
                  "that deal."),
            ),
            "live": RuleText(
                _("Live mode: record every card"),
                _("Off: record prizes, misplays and who went out. On: record every card played; the referee "
                  "works out the rest."),
            ),
        }

    def screen(
        self, view: Mapping[str, Any], names: Sequence[str], notation: str, *,
        state: Mapping[str, Any], finished: bool, redraw: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        played = {p["card"]: p for p in view["prizes_played"]}
        before = view["pot_before"]
        prizes = []
        for card in view["prizes"]:
            taken = played.get(card)
            prizes.append({
                "card": card, "chips": view["pot"][card], "carried": before.get(card, 0),
                "played_by": names[taken["player"]] if taken else None,
                "taken": bool(taken and taken["taken"]), "taken_chips": taken["chips"] if taken else 0,
            })

        def end(value: int | str) -> str:
            # A movement's end is a seat, or a prize card (its canonical text).
            return names[value] if isinstance(value, int) else show_card(value, notation)

        reasons = {"ante": _("ante"), "prize": _("prize"), "misplay": _("misplay"), "payout": _("payout")}
        every = view.get("movements", [])
        # A long deal's ledger is for the session page; the table shows the latest movements.
        movements = [
            {"from": end(move["from"]), "to": end(move["to"]), "chips": move["chips"],
             "reason": reasons.get(move["reason"], move["reason"])}
            for move in every[-MOVEMENTS_SHOWN:]
        ]
        total = view.get("movements_total", len(every))
        sequence = view.get("sequence")
        return {
            "prizes": prizes,
            "movements": movements,
            # The rows built here: 40 rows of four cells took 1.1 ms through the template engine
            # and 0.5 ms through format_html_join (0.24 ms so).
            "movement_rows": mark_safe("".join(  # noqa: S308 - every value escaped
                f'<tr><td>{escape(m["from"])}</td><td>{escape(m["to"])}</td>'
                f'<td class="num">{escape(m["chips"])}</td><td>{escape(m["reason"])}</td></tr>'
                for m in movements
            )),
            "movements_total": total,
            "pot_total": sum(view["pot"].values()),
            "net": view["net"],
            "hand_sizes": view["hand_sizes"],
            "sequence_card": sequence["card"] if sequence else None,
            "sequence_next": sequence["next"] if sequence else None,
            "starter": view.get("starter"),
            "live": view["live"],
            "misplayed": view["misplayed"],
            "cards_left": view.get("cards_left"),
        }

    def kept_view(self, view: Mapping[str, Any]) -> dict[str, Any]:
        """The screens list the latest movements and count them all: a 500-entry deal's whole
        ledger (1,500 movements) cost 0.7 ms to take out of the cache at every screen's GET."""
        every = view.get("movements", [])
        return {**view, "movements": every[-MOVEMENTS_SHOWN:], "movements_total": len(every)}

    def explain(
        self, view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
    ) -> list[str]:
        who = name_of(names, last["player"])
        kind = last["type"]
        penalty = chips_word(last.get("penalty_each", 0))
        sentences: list[str] = []
        if kind == "exchange" and "hand_sizes" not in view:  # the audit: the conclusion alone
            sentences.append(_("%(name)s swapped their hand for the extra hand.") % {"name": who})
        elif kind == "exchange":
            sentences.append(
                _("%(name)s swapped their hand for the extra hand and now holds %(cards)s.")
                % {"name": who, "cards": cards_word(view["hand_sizes"][last["player"]])}
            )
        elif kind == "misplay":
            sentences.append(
                _("%(name)s misplayed: they pay %(chips)s to each other player and take no more prizes this deal.")
                % {"name": who, "chips": penalty}
            )
        elif kind == "play":
            sentences.extend(self._explain_play(last, who, penalty, notation))
        prize = last.get("prize")
        if prize:
            card = show_card(prize["card"], notation)
            if prize["taken"]:
                sentences.append(
                    _("%(name)s takes %(chips)s from the prize card %(card)s.")
                    % {"name": who, "chips": chips_word(prize["chips"]), "card": card}
                )
            else:
                sentences.append(
                    _("%(name)s has misplayed this deal, so %(card)s counts as played and its %(chips)s stay on it.")
                    % {"name": who, "card": card, "chips": chips_word(prize["chips"])}
                )
        if last.get("out"):
            left = view.get("cards_left") or []
            sentences.append(
                _("%(name)s went out: the others pay 1 chip per card left, %(chips)s in all. The deal is over.")
                % {"name": who, "chips": chips_word(sum(left))}
            )
        return sentences

    @staticmethod
    def _explain_play(last: Mapping[str, Any], who: str, penalty: str, notation: str) -> list[str]:
        """A card played in live mode: whether it started, stopped, continued or broke the sequence."""
        sentences = []
        card = show_card(last["card"], notation)
        if last.get("flagged"):
            sentences.append(
                _("%(name)s plays %(card)s, so their earlier start with %(flagged)s was not their lowest card: "
                  "they pay %(chips)s to each other player.")
                % {"name": who, "card": card, "flagged": show_card(last["flagged"], notation), "chips": penalty}
            )
        else:
            sentences.append(_("%(name)s plays %(card)s.") % {"name": who, "card": card})
        play = last.get("play")
        if play == "start":
            sentences.append(_("It starts the first sequence."))
        elif play == "stop":
            sentences.append(_("Stop: %(name)s starts a new sequence.") % {"name": who})
        elif play == "continue":
            sentences.append(_("It continues the sequence."))
        elif play == "misplay":
            sentences.append(
                _("It does not continue the sequence: a misplay. %(name)s pays %(chips)s to each other player.")
                % {"name": who, "chips": penalty}
            )
        return sentences

    def offline_text(self) -> dict[str, object]:
        """The drawer's sentences (static/js/table/games/michigan.js): what :meth:`explain` and
        :meth:`describe_entry` say, and the words of the game's partial (michigan.html), with
        their ``%(name)s`` left for the browser."""
        return {
            # explain(): the verdict of an entry.
            "chips": plural_forms("%(count)s chip", "%(count)s chips"),
            "cards": plural_forms("%(count)s card", "%(count)s cards"),
            "swapped": _("%(name)s swapped their hand for the extra hand and now holds %(cards)s."),
            "misplayed": _(
                "%(name)s misplayed: they pay %(chips)s to each other player and take no more prizes this deal."),
            "flagged": _("%(name)s plays %(card)s, so their earlier start with %(flagged)s was not their lowest card: "
                         "they pay %(chips)s to each other player."),
            "plays": _("%(name)s plays %(card)s."),
            "play": {
                "start": _("It starts the first sequence."),
                "stop": _("Stop: %(name)s starts a new sequence."),
                "continue": _("It continues the sequence."),
                "misplay": _(
                    "It does not continue the sequence: a misplay. %(name)s pays %(chips)s to each other player."),
            },
            "prize_taken": _("%(name)s takes %(chips)s from the prize card %(card)s."),
            "prize_stays": _(
                "%(name)s has misplayed this deal, so %(card)s counts as played and its %(chips)s stay on it."),
            "went_out": _(
                "%(name)s went out: the others pay 1 chip per card left, %(chips)s in all. The deal is over."),
            # describe_entry(): an entry's line in the list.
            "entry": {
                "exchange": _("%(name)s swapping with the extra hand"),
                "prize": _("%(name)s taking the prize card %(card)s"),
                "misplay": _("%(name)s's misplay"),
                "out": _("%(name)s going out"),
                "play": _("%(name)s playing %(card)s"),
            },
            # The partial's words (templates/referee/games/michigan.html).
            "on_board": plural_forms("%(n)s chip on the board", "%(n)s chips on the board"),
            "prize_label": _("%(card)s: %(chips)s chips"),
            "took": _("%(name)s took %(n)s"),
            "played_by": _("played by %(name)s: chips stay"),
            "carried_in": _("%(n)s carried in"),
            "chips_word": _("chips"),
            "sequence": _("Sequence"),
            "next": _("next"),
            "starts_new": _("%(name)s starts a new sequence"),
            "swap": {
                "title": _("Swap with the extra hand"),
                "help": _("At most one player, before play begins; the extra hand has %(n)s cards."),
                "who": _("Who swapped?"),
                "record": _("Record the swap"),
            },
            "no_prizes": _("misplayed: no prizes"),
            "cards_left": plural_forms("%(n)s card left", "%(n)s cards left"),
            "cards_dealt": plural_forms("%(n)s card dealt", "%(n)s cards dealt"),
            "latest": _("The latest %(n)s of %(total)s; the session's ledger lists them all."),
            "reasons": {"ante": _("ante"), "prize": _("prize"), "misplay": _("misplay"), "payout": _("payout")},
            "suits": {suit: suit_name(suit) for suit in SUIT_SYMBOLS},
            # How many of the latest chip movements the screen lists (as screen() does).
            "movements_shown": MOVEMENTS_SHOWN,
        }

    def words(self) -> dict[str, str]:
        return {
            **super().words(), "prize": _("prize-card"), "misplay": _("misplay"), "out": _("going-out"),
            "exchange": _("swap"), "play": _("played-card"),
        }

    def describe_entry(
        self, payload: Mapping[str, Any], result: Mapping[str, Any] | None, names: Sequence[str], notation: str
    ) -> str:
        kind = payload.get("type")
        player = payload.get("player")
        who = name_of(names, player) if isinstance(player, int) else "?"
        if kind == "exchange":
            return _("%(name)s swapping with the extra hand") % {"name": who}
        if kind == "prize":
            return _("%(name)s taking the prize card %(card)s") % {"name": who, "card": payload.get("card")}
        if kind == "misplay":
            return _("%(name)s's misplay") % {"name": who}
        if kind == "out":
            return _("%(name)s going out") % {"name": who}
        return _("%(name)s playing %(card)s") % {"name": who, "card": payload.get("card")}

    def audit_value(self, key: str, value: Any, names: Sequence[str]) -> str | None:
        if key == "hand_counts" and isinstance(value, list) and len(value) == len(names):
            return ", ".join(f"{name} {count}" for name, count in zip(names, value))
        return None

    def highlights(self, facts: Mapping[str, Any], players: int) -> list[dict[str, Any] | None]:
        return [_biggest_prize(facts.get("prizes", [])), _most_misplays(facts.get("misplays", []), players)]

    def describe_highlight(self, highlight: Mapping[str, Any]) -> str | None:
        kind = highlight["kind"]
        if kind == "biggest_prize" and highlight.get("tied"):
            return _("Biggest prize pot: %(chips)s chips, taken by %(who)s.") % {
                "chips": highlight["chips"], "who": and_list([
                    _("%(name)s (the prize card %(card)s in deal %(deal)s)") % {"name": name, **t}
                    for name, t in zip(tied_names(highlight), highlight["tied"])])}
        if kind == "biggest_prize":
            return _("Biggest prize pot: %(name)s took %(chips)s chips on the prize card %(card)s "
                     "in deal %(deal)s.") % highlight
        if kind == "most_misplays" and highlight.get("tied"):
            return _("Most misplays: %(who)s (%(count)s each).") % {
                "who": and_list(tied_names(highlight)), "count": highlight["count"]}
        if kind == "most_misplays":
            return ngettext("Most misplays: %(name)s, %(count)s in the session.",
                            "Most misplays: %(name)s, %(count)s in the session.", highlight["count"]) % highlight
        return None


def _biggest_prize(prizes: Sequence[Sequence[Any]]) -> dict[str, Any] | None:
    taken = [p for p in prizes if p[4] and p[3] > 0]
    if not taken:
        return None
    deal, seat, card, chips, _taken = max(taken, key=lambda p: (p[3], -p[0]))
    return with_tied({"kind": "biggest_prize", "deal": deal, "seat": seat, "card": card, "chips": chips},
                     [{"seat": p[1], "deal": p[0], "card": p[2]}
                      for p in sorted(taken, key=lambda p: p[0]) if p[3] == chips])


def _most_misplays(misplays: Sequence[Sequence[int]], players: int) -> dict[str, Any] | None:
    counts = [0] * players
    for _deal, seat, count in misplays:
        counts[seat] += count
    return top_count("most_misplays", counts)


PAGES = MichiganPages()
