"""What the pages say: cards in the session's notation, and the referee's conclusions in words.

The engine's ``view()`` carries structured facts (who took a trick and why, who paid whom)
plus a plain English ``text`` with seats as numbers. The pages need the same facts in the
reader's language with the players' names, so every sentence is built here from the
structured fields, through gettext. Nothing here decides anything: the engine did.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

SUIT_SYMBOLS = {"S": "♠", "C": "♣", "D": "♦", "H": "♥"}
RANKS_EN = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
RANKS_LT = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "V", "D", "K", "T"]
_LT_RANK = dict(zip(RANKS_EN, RANKS_LT, strict=True))


def split_card(text: str) -> tuple[str, str | None]:
    """Canonical card text (``QH``, ``10``, ``X``) -> (canonical rank, suit letter or None)."""
    if text and text[-1] in SUIT_SYMBOLS and text != "X":
        return text[:-1], text[-1]
    return text, None


def show_rank(rank: str, notation: str) -> str:
    """A canonical rank as the session writes it: ``Q`` is ``D`` (dama) in Lithuanian notation."""
    if rank == "X":
        return _("joker")
    return _LT_RANK.get(rank, rank) if notation == "lt" else rank


def show_card(text: str | None, notation: str) -> str:
    """A canonical card as plain text in the session's notation, suit as its symbol: ``D♥``."""
    if text is None:
        return "–"
    rank, suit = split_card(text)
    return show_rank(rank, notation) + (SUIT_SYMBOLS[suit] if suit else "")


def card_html(text: str | None, notation: str) -> SafeString:
    """A card face: rank and suit symbol, coloured by suit through CSS (four-colour deck too)."""
    if text is None:
        return format_html('<span class="card card-none">–</span>')
    rank, suit = split_card(text)
    if rank == "X":
        return format_html('<span class="card card-joker">{}</span>', _("joker"))
    if suit is None:
        return format_html('<span class="card">{}</span>', show_rank(rank, notation))
    return format_html(
        '<span class="card suit-{}">{}<span class="suit" aria-hidden="true">{}</span>'
        '<span class="visually-hidden"> {}</span></span>',
        suit.lower(), show_rank(rank, notation), SUIT_SYMBOLS[suit], suit_name(suit),
    )


def suit_name(suit: str) -> str:
    return {"S": _("spades"), "C": _("clubs"), "D": _("diamonds"), "H": _("hearts")}[suit]


def rank_pad(notation: str) -> list[dict[str, str]]:
    """The 13 rank buttons: canonical value (for the engine's other notation trap: the pad
    always sends what the session's notation reads) and the label the table knows."""
    return [{"value": show_rank(rank, notation), "rank": rank, "label": show_rank(rank, notation)} for rank in RANKS_EN]


def name_of(names: Sequence[str], seat: int | None) -> str:
    if seat is None or not 0 <= seat < len(names):
        return "?"
    return names[seat]


def names_list(names: Sequence[str], seats: Sequence[int]) -> str:
    return ", ".join(name_of(names, seat) for seat in seats)


def signed(value: int) -> str:
    """+3 / −3 / 0 with a real minus sign, so columns of points read at a glance."""
    if value > 0:
        return f"+{value}"
    if value < 0:
        return f"−{-value}"
    return "0"


def cards_word(count: int) -> str:
    return ngettext("%(count)s card", "%(count)s cards", count) % {"count": count}


def chips_word(count: int) -> str:
    return ngettext("%(count)s chip", "%(count)s chips", count) % {"count": count}


# -- the referee's last conclusion, per game --------------------------------------------------------


def explain_last(game: str, view: Mapping[str, Any], names: Sequence[str], notation: str) -> list[str]:
    """Sentences saying what the referee concluded from the last entry (empty before any)."""
    last = view.get("last")
    if not last:
        return []
    explain = {
        "velnias": _explain_velnias,
        "rukas": _explain_rukas,
        "michigan": _explain_michigan,
        "cheat": _explain_cheat,
        "elgeta": _explain_elgeta,
    }[game]
    return explain(view, last, names, notation)


def _explain_velnias(
    view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
) -> list[str]:
    return [velnias_headline(last["condition"], last.get("player"), names)]


def velnias_headline(condition: str, player: int | None, names: Sequence[str]) -> str:
    who = name_of(names, player)
    if condition == "empty_hand":
        return _("%(name)s placed their last card and called stop.") % {"name": who}
    if condition == "last_card":
        return _("%(name)s turned the last face-down card, could not place it and called stop.") % {"name": who}
    return _("Nobody could place a card: the fewest cards in hand win.")


def velnias_payments(last: Mapping[str, Any], names: Sequence[str]) -> list[dict[str, Any]]:
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


def _explain_rukas(view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str) -> list[str]:
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
        if view["options"]["void_trick"] == "void":
            sentences.append(
                _("No point; %(name)s reveals first again.") % {"name": name_of(names, view["leader"])}
            )
        elif view.get("finished"):
            sentences.append(_("The pending points are lost: no trick is left to take them."))
        else:
            sentences.append(_("Its point waits for the next taker (%(count)s pending).") % {"count": view["pending"]})
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


def rukas_reveal(last: Mapping[str, Any], names: Sequence[str], notation: str) -> list[dict[str, Any]]:
    """The last trick's cards in reveal order, each with its fate (cancelled, beaten, live, taker)."""
    labels = {
        "cancelled": _("cancelled"), "beaten": _("beaten"), "live": _("in play"), "taker": _("takes"),
    }
    return [
        {"seat": seat, "name": name_of(names, seat), "rank": show_rank(rank, notation), "status": status,
         "status_label": labels.get(status, status)}
        for seat, rank, status in zip(last["reveal_order"], last["cards"], last["status"], strict=False)
    ]


def _explain_michigan(
    view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
) -> list[str]:
    who = name_of(names, last["player"])
    kind = last["type"]
    penalty = chips_word(last.get("penalty_each", 0))
    sentences: list[str] = []
    if kind == "exchange":
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


def _explain_cheat(view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str) -> list[str]:
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
        if view["counts"][last["player"]] == 0:
            sentences.append(
                _("That was %(name)s's last card: it stands unless someone challenges it.") % {"name": who}
            )
    elif kind == "challenge":
        revealed = show_card(last["revealed"], notation)
        taker = name_of(names, last["taker"])
        taken = cards_word(last["taken"])
        if last["truthful"]:
            sentences.append(
                _("%(challenger)s challenged %(name)s, who told the truth (announced %(rank)s, revealed %(card)s): "
                  "%(taker)s takes %(cards)s.")
                % {"challenger": name_of(names, last["challenger"]), "name": who, "rank": rank, "card": revealed,
                   "taker": taker, "cards": taken}
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


def _explain_elgeta(
    view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
) -> list[str]:
    """Elgeta's conclusion: who took the trick (after how many tie-break rounds), who went out,
    and how the deal ended."""
    sentences: list[str] = []
    if last.get("kind") == "finish":
        sentences.append(_("Finished from the forecast."))
    else:
        taker = last.get("taker")
        cards = cards_word(int(last.get("cards", 0)))
        ties = last.get("ties") or []
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
            sentences.append(
                _("%(name)s has no cards left: a beggar, out of the deal.") % {"name": name_of(names, seat)}
            )
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


# -- describing an entry (the undo button, the history) -----------------------------------------------


def describe_entry(
    game: str, payload: Mapping[str, Any], result: Mapping[str, Any] | None, names: Sequence[str], notation: str
) -> str:
    """One short line saying what an entry recorded, for the undo button and the entry list."""
    kind = payload.get("type")
    player = payload.get("player")
    who = name_of(names, player) if isinstance(player, int) else "?"
    if game == "velnias":
        labels = {
            "empty_hand": _("emptied hand"), "last_card": _("last face-down card"), "blocked": _("blocked"),
        }
        condition = labels.get(str(payload.get("condition")), str(payload.get("condition")))
        if payload.get("player") is None:
            return _("the end of the deal: %(condition)s") % {"condition": condition}
        return _("the end of the deal: %(condition)s, %(name)s") % {"condition": condition, "name": who}
    if game == "rukas":
        cards = " ".join(show_rank_input(c, notation) for c in payload.get("cards", []))
        return _("the trick %(cards)s") % {"cards": cards}
    if game == "elgeta":
        if kind == "finish":
            return _("finishing the deal from the forecast")
        rounds = payload.get("rounds", [])
        text = " / ".join(" ".join("–" if c is None else str(c) for c in round_) for round_ in rounds)
        return _("the trick %(cards)s") % {"cards": text}
    if game == "michigan":
        if kind == "exchange":
            return _("%(name)s swapping with the extra hand") % {"name": who}
        if kind == "prize":
            return _("%(name)s taking the prize card %(card)s") % {"name": who, "card": payload.get("card")}
        if kind == "misplay":
            return _("%(name)s's misplay") % {"name": who}
        if kind == "out":
            return _("%(name)s going out") % {"name": who}
        return _("%(name)s playing %(card)s") % {"name": who, "card": payload.get("card")}
    if game == "cheat":
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
    return str(kind)


def show_rank_input(text: object, notation: str) -> str:
    """A rank as it was typed (already in the session's notation); only tidied."""
    return str(text).strip()


# -- Elgeta: the cards the referee already knows ----------------------------------------------------


def _rank_index(text: str) -> int:
    rank, _suit = split_card(text)
    return RANKS_EN.index(rank) if rank in RANKS_EN else -1


def elgeta_sequences(state: Mapping[str, Any], order: Sequence[int]) -> dict[int, list[str] | None]:
    """Each seat's next cards in order, where the referee knows them (strict order): the last
    card of the own pile (if only one is left) and then the captured cards; None while the
    own pile still holds two or more cards in an order nobody knows."""
    strict = bool(state.get("options", {}).get("strict_order", True))
    sequences: dict[int, list[str] | None] = {}
    for seat in order:
        pile = state["piles"][seat]
        if not strict or len(pile["initial"]) > 1:
            sequences[seat] = None
        else:
            sequences[seat] = list(pile["initial"]) + list(pile["captured"])
    return sequences


def elgeta_round_cards(
    sequences: Mapping[int, list[str] | None], counts: Sequence[int], order: Sequence[int], index: int
) -> list[dict[str, Any]]:
    """Round ``index`` of a trick (0: the trick's first cards): per seat in play order, the
    card the referee expects (or None when unknown) and whether the seat has nothing left to add."""
    cells = []
    for seat in order:
        sequence = sequences.get(seat)
        empty = counts[seat] <= index
        card = sequence[index] if sequence is not None and index < len(sequence) else None
        cells.append({"seat": seat, "card": None if empty else card, "empty": empty})
    return cells


def elgeta_determined_trick(
    sequences: Mapping[int, list[str] | None], counts: Sequence[int], order: Sequence[int]
) -> list[list[dict[str, Any]]]:
    """The rounds of the next trick as far as the referee knows them: every round when every
    card is known (the trick plays itself out: one tap confirms it), else the first round with
    the known cards filled in. A tie continues while the highest rank appears twice or more."""
    rounds = []
    for index in range(14):
        cells = elgeta_round_cards(sequences, counts, order, index)
        rounds.append(cells)
        if any(cell["card"] is None and not cell["empty"] for cell in cells):
            break  # an unknown card: the scorer enters it; the referee asks for any tie-break
        ranks = [_rank_index(cell["card"]) for cell in cells if cell["card"] is not None]
        if not ranks or ranks.count(max(ranks)) == 1:
            break
    return rounds
