"""A session's standings: per-deal rows with running totals in the game's unit, places and
money (two queries for the seats and the results, one or two for what the close settles)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _

from referee.models import Session
from referee.rules import GAMES, competition_ranking

from .figures import SeatRow, close_settlement, money_text, players, seats_of, unit_of
from .models import DealResult


def standings(session: Session, seats: list[SeatRow] | None = None) -> dict[str, Any]:
    """Per-deal rows with running totals in the game's unit, the totals, places and money
    (``seats``: the session's, when the caller has read them already)."""
    seats = seats_of(session) if seats is None else seats
    n = len(seats)
    game = session.game
    unit = GAMES[game].unit
    rows: dict[int, dict[str, Any]] = {}
    # Plain rows, not model instances: a 200-deal session of eight has 1,600 results, and
    # building a result and its deal for each cost most of a summary's build.
    results = DealResult.objects.filter(session=session).order_by("deal__number", "seat").values_list(
        "deal_id", "deal__number", "deal__dealer", "seat", "points", "placement", "money")
    for deal_id, number, dealer, seat, points, placement, money_won in results:
        row = rows.setdefault(deal_id, {
            "deal": number, "id": deal_id, "dealer": dealer,
            "values": [0] * n, "placements": [0] * n, "money": [Decimal(0)] * n,
        })
        row["values"][seat] = unit.of(points)
        row["placements"][seat] = placement
        row["money"][seat] = money_won
    running = [0] * n
    money = [Decimal(0)] * n
    deals = []
    for row in rows.values():
        running = [a + b for a, b in zip(running, row["values"])]
        money = [a + b for a, b in zip(money, row["money"])]
        deals.append({**row, "running": running, "money": [money_text(m) for m in row["money"]]})
    split_moves, provisional = close_settlement(session)
    split = None
    if split_moves:
        values = [0] * n
        for move in split_moves:
            assert move.target_seat is not None
            values[move.target_seat] += move.chips
        running = [a + b for a, b in zip(running, values)]
        money = [a + v * session.stake for a, v in zip(money, values)]
        split = {"values": values, "running": running, "provisional": provisional,
                 "text": _("Chips left on the prize cards shared at close (M3)")}
    places = competition_ranking(running, higher_is_better=unit.higher_is_better) if n else ()
    key, label = unit_of(game)
    return {
        "session": session.pk,
        "game": game,
        "status": session.status,
        "unit": key,
        "unit_label": label,
        "stake": money_text(session.stake),
        "currency": session.currency,
        "players": players(seats),
        "deals": deals,
        "m3": split,
        "totals": [
            {"seat": s.number, "member": s.member, "name": s.name, "total": running[s.number],
             "place": places[s.number], "money": money_text(money[s.number])}
            for s in seats
        ],
    }
