"""Elgeta to the pages: the trick form with the cards the referee already knows, the forecast,
tie-break rounds, and the session's longest tie-break.

Under strict order (E4) the referee knows each seat's next cards once its own pile is down to
one: the trick form comes filled in, and a determined trick is confirmed with one tap.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from referee.presenters import (
    RANKS_EN,
    cards_word,
    name_of,
    names_list,
    rank_pad,
    show_card,
    show_rank,
    split_card,
)
from referee.rules import CardError, format_card, parse_card
from referee.rules.cards import parse_notation
from referee.rules.elgeta import DECKS, DEFAULT_DECK, ElgetaView

from .base import FactQuery, GamePages, Row, RuleText, and_list, plural_forms, tied_names, with_tied


def _tie_breaks(entries: Iterable[Row]) -> dict[str, Any]:
    """Every trick that needed a tie-break, as (deal, trick, tie-break rounds, cards, taker).

    Rows (tricks with a second round only): deal, trick (seq), the rounds as entered, and
    the taker from the referee's conclusion (None if it names none).
    """
    ties = []
    for deal, seq, rounds, taker in entries:
        if not isinstance(rounds, list) or len(rounds) < 2:
            continue
        cards = sum(1 for round_ in rounds for card in round_ if card is not None)
        ties.append([deal, seq, len(rounds) - 1, cards, taker if isinstance(taker, int) else None])
    return {"tie_breaks": ties}


class ElgetaPages(GamePages):
    slug = "elgeta"
    #: Without JavaScript the scorer asks for one more tie-break round: nothing is written.
    redraw_actions = ("more_rounds",)
    card_fields = {"rounds": "card"}
    fact_query = FactQuery(
        "entries", ("payload__rounds", "result__taker"), _tie_breaks,
        {"payload__type": "trick", "payload__rounds__1__isnull": False},
    )

    def rule_texts(self) -> Mapping[str, RuleText]:
        return {
            "deck": RuleText(
                _("E5 deck"),
                _("Any deck without jokers: 52 cards (2 to ace), 36 (6 to ace) or 32 (7 to ace). Each seat "
                  "holds every card of its suit(s) in the deck; a card outside it is refused."),
                {deck: _("%(cards)s cards: %(lowest)s–A") % {"cards": deck, "lowest": lowest}
                 for deck, lowest in DECKS.items()},
            ),
            "suits": RuleText(
                _("Suits per seat"),
                _("Which suit(s) each seat holds, seat by seat, e.g. “S C D H”, or “HD SC” for two players. "
                  "Empty: the default for the number of players (4: S C D H; 3: S C D; 2: HD SC)."),
            ),
            "all_aces": RuleText(
                _("E2 all aces end the deal"),
                _("When one player holds every ace still in play after a trick, they win at once "
                  "(the others are ranked by cards held). Off: play on."),
            ),
            "strict_order": RuleText(
                _("E4 strict order of captured cards"),
                _("Captured cards go under the taker's pile in the order they were played, so the referee "
                  "knows every next card and can forecast the end. Off: it only checks that a player "
                  "holds the card, and offers no forecast."),
            ),
        }

    # -- the recording screen ------------------------------------------------------------------

    def screen(
        self, view: Mapping[str, Any], names: Sequence[str], notation: str, *,
        state: Mapping[str, Any], finished: bool, redraw: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        forecast_text, can_finish = _forecast(view.get("forecast"), names)
        counts = view["counts"]
        seats_in = set(view["in"])
        context: dict[str, Any] = {
            # E5: the pad offers only the deck's ranks (a short deck has no twos to fives).
            "rank_pad": self.rank_pad(view.get("options", {}), notation),
            "deck_note": deck_note(view),
            "forecast_text": forecast_text,
            "can_finish": can_finish,
            "trick_number": view["tricks"] + 1,
            "leader_name": names[view["leader"]],
            "piles": [
                {"seat": seat, "name": name, "count": counts[seat], "out": seat not in seats_in,
                 "leads": seat == view["leader"] and not view["finished"]}
                for seat, name in enumerate(names)
            ],
        }
        if not finished:
            # A trick typed and refused (or redrawn) comes back round for round as typed; a
            # refused finish or undo carries no rounds, so the trick form shows what is known.
            typed = redraw.get("rounds") if redraw is not None else None
            entered = [list(r) if isinstance(r, list) else [] for r in typed] if isinstance(typed, list) else []
            context["rounds"] = trick_rows(state, view, names, notation, entered=entered or None)
        return context

    def rank_pad(self, options: Mapping[str, Any], notation: str) -> list[dict[str, str]]:
        """E5: only the deck's ranks, lowest first: 2..A, 6..A or 7..A. A deal recorded before E5
        has no deck in its options: it was of the full deck."""
        deck = options.get("deck", DEFAULT_DECK)
        lowest = RANKS_EN.index(str(DECKS.get(deck, DECKS[DEFAULT_DECK])))
        return [button for button in rank_pad(notation) if RANKS_EN.index(button["rank"]) >= lowest]

    def redraw_form(self, action: str, typed: Mapping[str, Any]) -> dict[str, Any]:
        """One more tie-break round, empty (the cards the referee knows fill it in)."""
        form = dict(typed)
        if action == "more_rounds":
            rounds = form.get("rounds")
            form["rounds"] = [*(rounds if isinstance(rounds, list) else [[]]), []]
        return form

    def refusal_hint(
        self, state: Mapping[str, Any], notation: str, params: Mapping[str, Any], payload: Mapping[str, Any]
    ) -> dict[str, Any]:
        """The referee asks for tie-break round ``params["next"]`` (1-based): say so, with what it
        knows of that round, so the screen adds the round filled in: each seat's card when known,
        else the cards it may still turn (its own pile minus what it turned earlier in this trick)."""
        number = params.get("next")
        if not isinstance(number, int):
            return {}
        view = cast("ElgetaView", self.rules.view(self.rules.from_dict(state)))
        order = _play_order(view)
        cells = round_cards(sequences(state, order), view["counts"], order, number - 1)
        turned: dict[int, set[str]] = {seat: set() for seat in order}
        reading = parse_notation(notation)
        for cards in payload.get("rounds") or []:
            for seat, text in zip(order, cards if isinstance(cards, list) else [], strict=False):
                if isinstance(text, str):
                    with contextlib.suppress(CardError):  # the referee's refusal names bad cards
                        turned[seat].add(format_card(parse_card(text, reading)))
        possible = []
        for cell in cells:
            own = state["piles"][cell["seat"]]["initial"]
            left = [card for card in own if card not in turned[cell["seat"]]] if cell["card"] is None else []
            possible.append(" ".join(show_card(card, notation) for card in left))
        return {
            "next_round": number - 1,
            "prefill": [show_card(cell["card"], notation) if cell["card"] else "" for cell in cells],
            "empty": [cell["empty"] for cell in cells],
            "possible": possible,
        }

    # -- words -------------------------------------------------------------------------------------

    def explain(
        self, view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
    ) -> list[str]:
        """Who took the trick (after how many tie-break rounds), who went out, how the deal ended."""
        sentences: list[str] = []
        if last.get("kind") == "finish":
            sentences.append(_("Finished from the forecast."))
        else:
            sentences.extend(_explain_trick(last, names, notation))
        outcome = view.get("outcome")
        ending = last.get("ending")
        if outcome and ending:
            winners = names_list(names, outcome.get("winners") or [])
            firsts = [seat for seat, place in enumerate(outcome["placements"]) if place == 1]
            if ending == "last_player":
                sentences.append(_("%(name)s holds every card and wins the deal.") % {"name": winners})
            elif ending == "all_aces":
                sentences.append(_("%(name)s holds every ace and wins the deal.") % {"name": winners})
            elif ending == "no_cards":
                sentences.append(_("The deal is a draw between %(names)s.") % {"names": names_list(names, firsts)})
            else:
                sentences.append(
                    _("The deal repeats for ever: a draw between %(names)s.") % {"names": names_list(names, firsts)}
                )
        return sentences

    def offline_text(self) -> dict[str, object]:
        """The drawer's sentences (static/js/table/games/elgeta.js): a trick's or a finish's
        verdict as :meth:`explain` says it, an entry's line as :meth:`describe_entry`, the
        forecast as :func:`_forecast`, and the trick form, the piles and the preview as
        elgeta.html and preview.html show them (the same msgids, so the same Lithuanian)."""
        return {
            # explain(): the trick, who went out, how the deal ended.
            "finished_from_forecast": _("Finished from the forecast."),
            "no_taker": _("Nobody could add a card to the tie-break: the trick has no taker."),
            "takes_after": plural_forms("%(name)s takes %(cards)s after %(count)s tie-break round.",
                                        "%(name)s takes %(cards)s after %(count)s tie-break rounds."),
            "takes_with": _("%(name)s takes %(cards)s with %(card)s."),
            "cards_word": plural_forms("%(count)s card", "%(count)s cards"),
            "beggar": _("%(name)s has no cards left: a beggar, out of the deal."),
            "ending": {
                "last_player": _("%(name)s holds every card and wins the deal."),
                "all_aces": _("%(name)s holds every ace and wins the deal."),
                "no_cards": _("The deal is a draw between %(names)s."),
                "cycle": _("The deal repeats for ever: a draw between %(names)s."),
            },
            # describe_entry()
            "finish_entry": _("finishing the deal from the forecast"),
            "trick_entry": _("the trick %(cards)s"),
            # _forecast()
            "forecast_cycle": plural_forms(
                "This deal never ends: it repeats every %(length)s trick, so it can be closed as a draw.",
                "This deal never ends: it repeats every %(length)s tricks, so it can be closed as a draw."),
            "forecast_wins": plural_forms("%(name)s wins in %(count)s trick.", "%(name)s wins in %(count)s tricks."),
            "forecast_draw": plural_forms(
                "The deal ends in a draw in %(count)s trick: nobody will have a card to add.",
                "The deal ends in a draw in %(count)s tricks: nobody will have a card to add."),
            "forecast_open": plural_forms(
                "The rest of the deal is determined; it neither ends nor repeats within the next %(count)s trick.",
                "The rest of the deal is determined; it neither ends nor repeats within the next %(count)s tricks."),
            # elgeta.html: the forecast, the trick form, the piles.
            "forecast": _("Forecast"),
            "finish_button": _("Finish the deal from the forecast"),
            "trick_n": _("Trick %(n)s"),
            "leads_name": _("%(name)s leads"),
            "round_first": _("Round 1: the cards turned"),
            "round_tie": _("Round %(n)s: tie-break"),
            "no_card": _("no card to add"),
            "not_in_pile": _("not in their pile"),
            "piles_after": plural_forms("Cards in each pile after %(n)s trick",
                                        "Cards in each pile after %(n)s tricks"),
            "pile_out": _("beggar: out"),
            "pile_leads": _("leads"),
            "pile_cards": _("cards"),
            # preview.html
            "if_you_confirm": _("If you confirm"),
        }

    def words(self) -> dict[str, str]:
        return {**super().words(), "trick": _("trick"), "finish": _("finish"), "rounds": _("the cards turned")}

    def describe_entry(
        self, payload: Mapping[str, Any], result: Mapping[str, Any] | None, names: Sequence[str], notation: str
    ) -> str:
        if payload.get("type") == "finish":
            return _("finishing the deal from the forecast")
        rounds = payload.get("rounds", [])
        text = " / ".join(" ".join("–" if c is None else str(c) for c in round_) for round_ in rounds)
        return _("the trick %(cards)s") % {"cards": text}

    def audit_value(self, key: str, value: Any, names: Sequence[str]) -> str | None:
        if key == "rounds" and isinstance(value, list):
            return " | ".join(" ".join("–" if card is None else str(card) for card in round_)
                              if isinstance(round_, list) else str(round_) for round_ in value)
        return None

    # -- the summary -----------------------------------------------------------------------------

    def highlights(self, facts: Mapping[str, Any], players: int) -> list[dict[str, Any] | None]:
        ties = facts.get("tie_breaks", [])
        if not ties:
            return [None]
        deal, trick, rounds, cards, taker = max(ties, key=lambda t: (t[2], -t[0], -t[1]))
        tied = [{"seat": t[4], "deal": t[0], "trick": t[1], "cards": t[3]}
                for t in sorted(ties, key=lambda t: (t[0], t[1])) if t[2] == rounds]
        return [with_tied({"kind": "longest_tie_break", "deal": deal, "trick": trick, "rounds": rounds,
                           "cards": cards, "seat": taker}, tied)]

    def describe_highlight(self, highlight: Mapping[str, Any]) -> str | None:
        if highlight["kind"] != "longest_tie_break":
            return None
        if highlight.get("tied"):
            # A taker may be unknown (None): that trick is named without one.
            tricks = [
                _("trick %(trick)s of deal %(deal)s (%(name)s took all %(cards)s cards)") % {"name": name, **t}
                if isinstance(t.get("seat"), int) else _("trick %(trick)s of deal %(deal)s") % t
                for name, t in zip(tied_names(highlight), highlight["tied"])]
            return ngettext("Longest tie-break: %(rounds)s tie-break round, in %(which)s.",
                            "Longest tie-break: %(rounds)s tie-break rounds, in %(which)s.",
                            highlight["rounds"]) % {"rounds": highlight["rounds"], "which": and_list(tricks)}
        text = ngettext(
            "Longest tie-break: trick %(trick)s of deal %(deal)s needed %(rounds)s tie-break round",
            "Longest tie-break: trick %(trick)s of deal %(deal)s needed %(rounds)s tie-break rounds",
            highlight["rounds"]) % highlight
        if highlight["name"]:
            return text + "; " + _("%(name)s took all %(cards)s cards.") % highlight
        return text + "."


PAGES = ElgetaPages()


def deck_note(view: Mapping[str, Any]) -> str | None:
    """A short deck said beside the trick form (the full deck goes without saying)."""
    deck = view.get("options", {}).get("deck", DEFAULT_DECK)
    if deck == DEFAULT_DECK or deck not in DECKS:
        return None
    return _("A %(cards)s-card deck: ranks %(lowest)s to A.") % {"cards": deck, "lowest": DECKS[deck]}



def _forecast(forecast: Mapping[str, Any] | None, names: Sequence[str]) -> tuple[str | None, bool]:
    """The forecast in words, and whether the deal may be finished from it."""
    if not forecast:
        return None, False
    count = forecast["tricks"]
    if forecast["cycle"]:
        length = forecast["cycle"]["length"]
        return ngettext(
            "This deal never ends: it repeats every %(length)s trick, so it can be closed as a draw.",
            "This deal never ends: it repeats every %(length)s tricks, so it can be closed as a draw.",
            length,
        ) % {"length": length}, True
    if forecast["ending"] in ("last_player", "all_aces") and forecast["winner"] is not None:
        return ngettext(
            "%(name)s wins in %(count)s trick.", "%(name)s wins in %(count)s tricks.", count
        ) % {"name": names[forecast["winner"]], "count": count}, True
    if forecast["ending"] == "no_cards":
        return ngettext(
            "The deal ends in a draw in %(count)s trick: nobody will have a card to add.",
            "The deal ends in a draw in %(count)s tricks: nobody will have a card to add.",
            count,
        ) % {"count": count}, True
    return ngettext(
        "The rest of the deal is determined; it neither ends nor repeats within the next %(count)s trick.",
        "The rest of the deal is determined; it neither ends nor repeats within the next %(count)s tricks.",
        count,
    ) % {"count": count}, False


def _explain_trick(last: Mapping[str, Any], names: Sequence[str], notation: str) -> list[str]:
    taker = last.get("taker")
    cards = cards_word(int(last.get("cards", 0)))
    ties = last.get("ties") or []
    sentences = []
    if taker is None:
        sentences.append(_("Nobody could add a card to the tie-break: the trick has no taker."))
    elif ties:
        sentences.append(
            ngettext(
                "%(name)s takes %(cards)s after %(count)s tie-break round.",
                "%(name)s takes %(cards)s after %(count)s tie-break rounds.",
                len(ties),
            )
            % {"name": name_of(names, taker), "cards": cards, "count": len(ties)}
        )
    else:
        order = list(last.get("order") or [])
        rounds = last.get("rounds") or [[]]
        card = rounds[-1][order.index(taker)] if taker in order and order.index(taker) < len(rounds[-1]) else None
        sentences.append(
            _("%(name)s takes %(cards)s with %(card)s.")
            % {"name": name_of(names, taker), "cards": cards, "card": show_card(card, notation)}
        )
    for seat in last.get("out") or []:
        sentences.append(_("%(name)s has no cards left: a beggar, out of the deal.") % {"name": name_of(names, seat)})
    return sentences


# -- the cards the referee already knows ------------------------------------------------------------


def _play_order(view: Mapping[str, Any]) -> list[int]:
    """The seats still in, from the trick's leader round the table."""
    leader, players, seats_in = view["leader"], view["players"], set(view["in"])
    return [seat for seat in ((leader + step) % players for step in range(players)) if seat in seats_in]


def trick_rows(
    state: Mapping[str, Any], view: Mapping[str, Any], names: Sequence[str], notation: str,
    entered: list[list[Any]] | None = None,
) -> list[dict[str, Any]]:
    """The trick form's rounds: the cards the referee knows filled in (all of them, tie-breaks
    included, once the deal is determined), or the rounds the scorer has on the form (typed, or
    an empty round they asked for, where a card the referee knows fills an untyped cell)."""
    order = _play_order(view)
    known = sequences(state, order)
    if entered is None:
        rounds = determined_trick(known, view["counts"], order)
    else:
        rounds = [round_cards(known, view["counts"], order, index) for index in range(len(entered))]
    expected = view["expected"]
    rows = []
    for index, cells in enumerate(rounds):
        slots = []
        for position, cell in enumerate(cells):
            seat = cell["seat"]
            possible = (expected[seat] or {}).get("possible") or []
            if entered is not None and index < len(entered) and position < len(entered[index]):
                value = entered[index][position] or ""
            else:
                value = show_card(cell["card"], notation) if cell["card"] else ""
            slots.append({
                "seat": seat, "name": names[seat], "value": value, "empty": cell["empty"],
                "possible": " ".join(show_card(card, notation) for card in possible) if index == 0 else "",
                "allowed": " ".join(sorted({show_rank(split_card(card)[0], notation)
                                            for card in possible})) if index == 0 and possible else "",
            })
        rows.append({"index": index, "slots": slots})
    return rows


def _rank_index(text: str) -> int:
    rank, _suit = split_card(text)
    return RANKS_EN.index(rank) if rank in RANKS_EN else -1


def sequences(state: Mapping[str, Any], order: Sequence[int]) -> dict[int, list[str] | None]:
    """Each seat's next cards in order, where the referee knows them (strict order): the last
    card of the own pile (if only one is left) and then the captured cards; None while the
    own pile still holds two or more cards in an order nobody knows."""
    strict = bool(state.get("options", {}).get("strict_order", True))
    known: dict[int, list[str] | None] = {}
    for seat in order:
        pile = state["piles"][seat]
        if not strict or len(pile["initial"]) > 1:
            known[seat] = None
        else:
            known[seat] = list(pile["initial"]) + list(pile["captured"])
    return known


def round_cards(
    known: Mapping[int, list[str] | None], counts: Sequence[int], order: Sequence[int], index: int
) -> list[dict[str, Any]]:
    """Round ``index`` of a trick (0: the trick's first cards): per seat in play order, the
    card the referee expects (or None when unknown) and whether the seat has nothing left to add."""
    cells = []
    for seat in order:
        sequence = known.get(seat)
        empty = counts[seat] <= index
        card = sequence[index] if sequence is not None and index < len(sequence) else None
        cells.append({"seat": seat, "card": None if empty else card, "empty": empty})
    return cells


def determined_trick(
    known: Mapping[int, list[str] | None], counts: Sequence[int], order: Sequence[int]
) -> list[list[dict[str, Any]]]:
    """The rounds of the next trick as far as the referee knows them: every round when every
    card is known (the trick plays itself out: one tap confirms it), else the first round with
    the known cards filled in. A tie continues while the highest rank appears twice or more."""
    rounds = []
    for index in range(14):
        cells = round_cards(known, counts, order, index)
        rounds.append(cells)
        if any(cell["card"] is None and not cell["empty"] for cell in cells):
            break  # an unknown card: the scorer enters it; the referee asks for any tie-break
        ranks = [_rank_index(cell["card"]) for cell in cells if cell["card"] is not None]
        if not ranks or ranks.count(max(ranks)) == 1:
            break
    return rounds
