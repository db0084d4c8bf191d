"""A transfer of the settlement told as a short story that adds up, in the reader's language.

Built from the settlement's JSON-safe figures alone (``nets`` with each seat's money per deal,
any share of the prize cards at close, the rounding, the chips), so the session page, the API
and a summary stored long ago all tell it in whatever language their reader has:

    Jonas is down 1.50 EUR: deal 1 −1.35, deal 2 −0.30; together −1.65, rounded to −1.50 (the
    0.50 coin). Ona is up 3.50 EUR: deal 1 +4.05, deal 2 −0.45; together +3.60, rounded to
    +3.50 (the 0.50 coin). Ona collects 3.50 in all: Jonas 1.50, Petras 1.50, Rūta 0.50.

Every figure named is in the sum that follows it, so a reader can check it with a pencil.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from referee.numbers import chips_text, money_text

#: A seat's story lists this many deals; the rest are summed as one item.
DEALS_NAMED = 6


def _items(net: Mapping[str, Any]) -> str:
    deals = [row for row in net.get("deals") or () if Decimal(row["money"])]
    named, rest = deals[:DEALS_NAMED], deals[DEALS_NAMED:]
    items = [_("deal %(number)s %(money)s") % {"number": row["deal"], "money": money_text(row["money"], signed=True)}
             for row in named]
    if rest:
        items.append(_("%(count)s more deals %(money)s") % {
            "count": len(rest), "money": money_text(sum(Decimal(row["money"]) for row in rest), signed=True)})
    if net.get("close") and Decimal(net["close"]):
        items.append(_("prize card chips shared at close %(money)s") % {
            "money": money_text(net["close"], signed=True)})
    return ", ".join(items) or "0"


def seat_story(net: Mapping[str, Any], currency: str, coin: str | None) -> str:
    """One seat's evening: its net, the deals that made it, and any rounding to the coin."""
    rounded = Decimal(net["rounded"])
    figures = {"name": net["name"], "net": money_text(abs(rounded)), "currency": currency, "items": _items(net)}
    if rounded < 0:
        text = _("%(name)s is down %(net)s %(currency)s: %(items)s") % figures
    elif rounded > 0:
        text = _("%(name)s is up %(net)s %(currency)s: %(items)s") % figures
    else:
        text = _("%(name)s is square: %(items)s") % figures
    if Decimal(net["rounding"]):
        text += _("; together %(exact)s, rounded to %(rounded)s (the %(coin)s coin)") % {
            "exact": money_text(net["exact"], signed=True), "rounded": money_text(rounded, signed=True),
            "coin": money_text(coin or 0)}
    return text + "."


def _shares(seat: int, transfers: Sequence[Mapping[str, Any]], names: Mapping[int, str], side: str) -> list[str]:
    other = "to" if side == "from" else "from"
    return [f"{names[t[other]]} {money_text(t['amount'])}" for t in transfers if t[side] == seat]


def explain_transfer(transfer: Mapping[str, Any], *, nets: Sequence[Mapping[str, Any]],
                     transfers: Sequence[Mapping[str, Any]], currency: str, coin: str | None) -> str:
    """Why ``transfer`` (``from``, ``to``, ``amount``) is paid, as a few sentences."""
    by_seat = {net["seat"]: net for net in nets}
    names = {seat: net["name"] for seat, net in by_seat.items()}
    payer, payee = by_seat[transfer["from"]], by_seat[transfer["to"]]
    parts = [seat_story(payer, currency, coin), seat_story(payee, currency, coin)]
    collects = _shares(payee["seat"], transfers, names, "to")
    if len(collects) > 1:
        parts.append(_("%(name)s collects %(net)s in all: %(shares)s.") % {
            "name": payee["name"], "net": money_text(payee["rounded"]), "shares": ", ".join(collects)})
    pays = _shares(payer["seat"], transfers, names, "from")
    if len(pays) > 1:
        parts.append(_("%(name)s pays %(net)s in all: %(shares)s.") % {
            "name": payer["name"], "net": money_text(abs(Decimal(payer["rounded"]))), "shares": ", ".join(pays)})
    # A game that keeps chips (Mičiganas) lists each seat's chips by reason; others have none.
    if payer.get("chips") is not None:
        parts.append(_("Chips: %(payer)s %(payer_chips)s; %(payee)s %(payee_chips)s.") % {
            "payer": payer["name"], "payee": payee["name"],
            "payer_chips": chip_words(payer.get("chips") or {}), "payee_chips": chip_words(payee.get("chips") or {})})
    return " ".join(parts)


def chip_words(reasons: Mapping[str, int]) -> str:
    labels = {"ante": _("antes"), "prize": _("prizes"), "misplay": _("misplays"), "payout": _("payouts"),
              "split": _("M3 share")}
    parts = [f"{label} {chips_text(reasons[r])}" for r, label in labels.items() if reasons.get(r)]
    return ", ".join(parts) or "0"
