"""One way to write a number for a reader: points, money and ratings alike.

The API keeps machine-readable text ("-1.20"); a page or a sentence shows the same figure in the
reader's language ("−1,20" in Lithuanian, "−1.20" in English) through :func:`number_text`, so
that no page mixes "12,6" with "3.25". A real minus sign, as the points columns use, and never a
"−0.00": a figure that rounds to nothing has no sign.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.utils import formats

MINUS = "\u2212"


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
    digits = f"{abs(figure):f}"
    if places:
        whole, fraction = digits.split(".")
        digits = whole + str(formats.get_format("DECIMAL_SEPARATOR")) + fraction
    sign = MINUS if figure < 0 else "+" if signed and figure > 0 else ""
    return sign + digits


def money_text(value: Any, *, signed: bool = False) -> str:
    """An amount of money: always two decimals (cents)."""
    return number_text(value, 2, signed=signed)
