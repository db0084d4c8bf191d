"""Template filters for the table's pages: card faces, ranks, signed points."""

from __future__ import annotations

from typing import Any

from django import template
from django.utils.safestring import SafeString

from referee import presenters

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
    try:
        return presenters.signed(int(value))
    except (TypeError, ValueError):
        return str(value)


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
        number = int(value)
    except (TypeError, ValueError):
        return ""
    return "pos" if number > 0 else "neg" if number < 0 else "zero"


@register.filter
def cardtext(text: str | None, notation: str = "en") -> str:
    """A card as the session's notation reads it, suit as a symbol (``T♠``): what input fields send."""
    return presenters.show_card(text, notation)
