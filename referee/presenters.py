"""What the pages say about cards and people, for every game: cards in the session's notation,
players' names, signed points, counted words.

Each game's own sentences (the referee's conclusions, how an entry reads) live with that game
in ``referee.games``; they build on these helpers. Nothing here decides anything: the engine did.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from referee.numbers import points_text
from referee.rules.cards import RANK_TEXT_EN, RANK_TEXT_LT, RANK_VALUES, SUIT_SYMBOLS

#: The canonical ranks, lowest first, as the engine's views write them.
RANKS_EN = [RANK_TEXT_EN[value] for value in RANK_VALUES]
_LT_RANK = {RANK_TEXT_EN[value]: RANK_TEXT_LT[value] for value in RANK_VALUES}

__all__ = [
    "RANKS_EN", "SUIT_SYMBOLS", "card_html", "cards_word", "chips_word", "name_of", "names_list", "rank_pad",
    "show_card", "show_rank", "signed", "split_card", "suit_name",
]


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
    return points_text(value)


def cards_word(count: int) -> str:
    return ngettext("%(count)s card", "%(count)s cards", count) % {"count": count}


def chips_word(count: int) -> str:
    return ngettext("%(count)s chip", "%(count)s chips", count) % {"count": count}
