"""Template filters for the table's pages: card faces, ranks, signed points."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django import template
from django.utils.safestring import SafeString
from django.utils.translation import get_language

from referee import presenters
from referee.numbers import chips_text, money_text, number_text, points_text

register = template.Library()


@register.filter
def card(text: str | None, notation: str = "en") -> SafeString:
    """``{{ "QH"|card:notation }}`` -> a coloured card face (``D♥`` in Lithuanian notation)."""
    return presenters.card_html(text, notation)


@register.filter
def rank(text: str, notation: str = "en") -> str:
    return presenters.show_rank(text, notation)


@register.filter
def signed(value: Any) -> str:
    """Points with "+" on gains and a real minus sign; a figure with decimals keeps them."""
    return points_text(value)


@register.filter
def points(value: Any) -> str:
    """``{{ row.points|points }}``: a result in points, always signed ("+2", "−3")."""
    return points_text(value)


@register.filter
def chips(value: Any) -> str:
    """``{{ row.chips|chips }}``: chips won or lost, signed ("+5", "−2")."""
    return chips_text(value)


@register.filter
def at(sequence: Any, index: Any) -> Any:
    """``{{ list|at:i }}``: an item by index (None when out of range)."""
    try:
        return sequence[int(index)]
    except (IndexError, KeyError, TypeError, ValueError):
        return None


@register.filter
def sign_class(value: Any) -> str:
    try:
        number = Decimal(str(value))  # money too: 0.40 is a gain, not zero
    except (InvalidOperation, TypeError, ValueError):
        return ""
    return "pos" if number > 0 else "neg" if number < 0 else "zero"


@register.filter
def cardtext(text: str | None, notation: str = "en") -> str:
    """A card as the session's notation reads it, suit as a symbol (``T♠``): what input fields send."""
    return presenters.show_card(text, notation)


# One formatter for every figure on a page (referee.numbers), in the reader's language.


@register.filter
def money(value: Any, coin: Any = None) -> str:
    """``{{ row.money|money }}``: "−1,20" in Lithuanian, "−1.20" in English, never "−0.00";
    ``{{ amount|money:coin }}`` rounds to the coin first."""
    return money_text(value, coin=coin)


@register.filter
def signed_money(value: Any) -> str:
    """Money with "+" on gains: a net or a per-deal result."""
    return money_text(value, signed=True)


@register.filter
def decimal(value: Any, places: Any = 1) -> str:
    """``{{ rating|decimal:1 }}``: a rating or an average with ``places`` decimals."""
    try:
        return number_text(value, int(places))
    except (TypeError, ValueError):
        return str(value)


@register.filter
def percent(value: Any) -> str:
    """A chance (0-1) as a whole percentage: "74 %" in Lithuanian, "74%" in English."""
    try:
        share = Decimal(str(value)) * 100
    except (InvalidOperation, TypeError, ValueError):
        return str(value)
    return number_text(share, 0) + ("\u00a0%" if get_language() == "lt" else "%")
