"""One way to write each kind of figure for a reader: points, chips and money.

The API keeps machine-readable text ("-1.20"); a page or a sentence shows the same figure in the
reader's language ("−1,20" in Lithuanian, "−1.20" in English) through these functions, so that no
page mixes "12,6" with "3.25" or "2" with "+2". A real minus sign, as the points columns use, and
never a "−0.00": a figure that rounds to nothing has no sign.

One function per kind, used by every page, template (web/templatetags/table.py) and sentence:

- :func:`points_text`: a result in points, always with its sign ("+2", "−3", "0");
- :func:`chips_text`: a count of chips, signed when it is a result;
- :func:`money_text`: an amount in cents (two decimals), optionally with "+" on gains, rounded
  to a coin when one is given, with the currency when one is given.

A CSV file is read by a spreadsheet in whatever language its reader has set, so inside
:func:`plain_figures` every figure is written the locale-independent way: a decimal point and a
plain hyphen-minus, whatever the active language.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from decimal import ROUND_HALF_UP, Decimal, InvalidOperation
from typing import Any

from django.utils import formats

MINUS = "\u2212"

#: Inside :func:`plain_figures`: a decimal point and "-", for files a spreadsheet reads.
_PLAIN: ContextVar[bool] = ContextVar("plain_figures", default=False)


@contextmanager
def plain_figures() -> Iterator[None]:
    """Figures written for a file (CSV) rather than a reader: "-1.20" in every language."""
    token = _PLAIN.set(True)
    try:
        yield
    finally:
        _PLAIN.reset(token)


def number_text(value: Any, places: int = 0, *, signed: bool = False) -> str:
    """``value`` with ``places`` decimals in the active language; ``signed`` adds "+" to gains.

    Text that is not a number (a dash for "none") comes back as it is.
    """
    try:
        figure = Decimal(str(value)).quantize(Decimal(1).scaleb(-places))
    except (InvalidOperation, ValueError):
        return str(value)
    if figure == 0:
        figure = abs(figure)
    plain = _PLAIN.get()
    digits = f"{abs(figure):f}"
    if places and not plain:
        whole, fraction = digits.split(".")
        digits = whole + str(formats.get_format("DECIMAL_SEPARATOR")) + fraction
    minus = "-" if plain else MINUS
    sign = minus if figure < 0 else "+" if signed and figure > 0 else ""
    return sign + digits


def points_text(value: Any) -> str:
    """A result in points: "+2", "−3", "0"; a figure with decimals (an average) keeps them."""
    try:
        figure = Decimal(str(value))
        places = max(0, -int(figure.as_tuple().exponent))
    except (InvalidOperation, TypeError, ValueError):
        return str(value)
    if figure == figure.to_integral_value():
        places = 0
    return number_text(figure, places, signed=True)


def chips_text(value: Any, *, signed: bool = True) -> str:
    """Chips, always whole: "+5" as a result, "5" as a count (``signed=False``)."""
    return number_text(value, 0, signed=signed)


def to_coin(value: Any, coin: Any) -> Decimal:
    """``value`` rounded to a whole number of ``coin`` (half a coin up); exact without a coin."""
    amount = Decimal(str(value))
    if coin in (None, ""):
        return amount
    step = Decimal(str(coin))
    if step <= 0:
        return amount
    return (amount / step).quantize(Decimal(1), rounding=ROUND_HALF_UP) * step


def money_text(value: Any, *, signed: bool = False, coin: Any = None, currency: str = "") -> str:
    """An amount of money: always two decimals (cents), rounded to ``coin`` when one is given,
    followed by ``currency`` when one is given ("−1,20 EUR")."""
    try:
        amount = to_coin(value, coin)
    except (InvalidOperation, TypeError, ValueError):
        return str(value)
    text = number_text(amount, 2, signed=signed)
    return f"{text}\u00a0{currency}" if currency else text
