"""Who owes whom in a session: the ledger of every movement, and the settlement (the fewest
transfers, each explained, with any rounding to the club's coin shown).

How money flows follows the game's facts, never its name: a game that keeps chips
(``scoring.chips``) lists its chip movements between seats and prize cards; a game paid
pair by pair (``MoneyRule.PAIR_DIFFERENCE``) has every pair settle the difference of their
points; any other game pays as its engine's view of the deal says (Velnias' payments).
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from django.db import connection
from django.utils.translation import gettext as _

from referee.games import PAGES
from referee.models import Deal, DealStatus, Session, SessionStatus
from referee.rules import GAMES, Game, MoneyRule
from scoring.figures import SeatRow, close_settlement, money_text, players, seats_of
from scoring.ledger import chips
from scoring.models import ChipMovement, DealResult
from scoring.settlement.settlement import fewest_transfers, round_to_coin
from scoring.settlement.story import explain_transfer


def deal_flows(rules: Game[Any], deal: Deal, points: list[int]) -> list[tuple[int, int, int]]:
    """(payer seat, payee seat, stakes) of one finished deal of a game without chips."""
    if rules.money_rule is MoneyRule.PAIR_DIFFERENCE:
        n = len(points)
        return [
            (j, i, points[i] - points[j]) for i in range(n) for j in range(n) if points[i] > points[j]
        ]
    last = rules.view(rules.from_dict(deal.state)).get("last") or {}
    return [(p["from"], p["to"], p["points"]) for p in last.get("payments", []) if p["points"]]


def _end(seat: int | None, prize: str, names: list[str]) -> tuple[int | str, str]:
    if seat is not None:
        return seat, names[seat]
    return prize, _("prize card %(card)s") % {"card": prize}


def ledger(session: Session) -> dict[str, Any]:
    """Every movement of the session, the nets per seat and the zero-sum check.

    With chips (Mičiganas): chips between seats and prize cards (antes, prizes, misplays,
    payouts, the M3 split), including the running deal's movements so far. Otherwise: the
    stakes each pair settles per deal (Velnias: its payments; the others: the difference of
    points).
    """
    seats = seats_of(session)
    names = [s.name for s in seats]
    n = len(seats)
    game = session.game
    rules = GAMES[game]
    keeps_chips = chips.keeps_chips(rules)
    movements: list[dict[str, Any]] = []
    prize_cards: dict[str, int] = {}

    def add(deal: int | None, src: int | None, src_prize: str, dst: int | None, dst_prize: str, count: int,
            reason: str, final: bool) -> None:
        frm, frm_name = _end(src, src_prize, names)
        to, to_name = _end(dst, dst_prize, names)
        movements.append({"deal": deal, "from": frm, "from_name": frm_name, "to": to, "to_name": to_name,
                          "chips": count, "reason": reason, "final": final})
        for card, sign in ((src_prize, -1), (dst_prize, 1)):
            if card:
                prize_cards[card] = prize_cards.get(card, 0) + sign * count

    if keeps_chips:
        for prize in chips.prize_cards(rules, session.options):
            prize_cards[prize] = 0
        stored = session.chip_movements.select_related("deal").order_by("deal__number", "order")
        closing = []
        for m in stored:
            if m.deal is None:
                closing.append(m)
                continue
            add(m.deal.number, m.source_seat, m.source_prize, m.target_seat, m.target_prize, m.chips, m.reason, True)
        running = session.deals.filter(status=DealStatus.RUNNING).first()
        if running is not None:
            for move in rules.chip_movements(rules.from_dict(running.state)):
                add(running.number, *chips.ends(move), move["chips"], move["reason"], False)
        for m in closing:
            add(None, m.source_seat, m.source_prize, m.target_seat, m.target_prize, m.chips, m.reason, True)
    else:
        points_of: dict[int, list[int]] = {}
        deals: dict[int, Deal] = {}
        for r in DealResult.objects.filter(session=session).select_related("deal").order_by("deal__number", "seat"):
            points_of.setdefault(r.deal_id, [0] * n)[r.seat] = r.points
            deals[r.deal_id] = r.deal
        for deal_id, points in points_of.items():
            deal = deals[deal_id]
            for payer, payee, stakes in deal_flows(rules, deal, points):
                add(deal.number, payer, "", payee, "", stakes, "deal", True)
    nets = [0] * n
    for line in movements:
        if isinstance(line["from"], int):
            nets[line["from"]] -= line["chips"]
        if isinstance(line["to"], int):
            nets[line["to"]] += line["chips"]
    players_net = sum(nets)
    on_cards = sum(prize_cards.values())
    unit = "chips" if keeps_chips else "stakes"
    return {
        "session": session.pk,
        "game": game,
        "unit": unit,
        "stake": money_text(session.stake),
        "currency": session.currency,
        "players": players(seats),
        "movements": movements,
        "nets": [
            {"seat": s.number, "member": s.member, "name": s.name, unit: nets[s.number],
             "money": money_text(nets[s.number] * session.stake)}
            for s in seats
        ],
        "on_prize_cards": prize_cards,
        "zero_sum_check": {"players_net": players_net, "on_prize_cards": on_cards,
                           "total": players_net + on_cards, "ok": players_net + on_cards == 0},
    }


#: Each seat's chips by reason over the session's deals (given out negative, taken positive),
#: the reasons of a seat in the order they first moved its chips (deal, then order in the deal:
#: the order the settlement's story lists them in). Summed by the database: a 200-deal session
#: of eight has about 10,000 movements, and reading them as rows cost most of its summary's
#: build. ``order`` fits in 31 bits (a PositiveIntegerField), so ``number * 2**31 +
#: order`` orders movements by deal, then order.
CHIPS_BY_REASON_SQL = (
    "SELECT seat, reason, SUM(delta) FROM ("
    ' SELECT m.source_seat AS seat, m.reason AS reason, -m.chips AS delta, d.number * 2147483648 + m."order" AS at'
    f" FROM {ChipMovement._meta.db_table} m JOIN {Deal._meta.db_table} d ON d.id = m.deal_id"
    " WHERE m.session_id = %s AND m.source_seat IS NOT NULL"
    " UNION ALL"
    ' SELECT m.target_seat, m.reason, m.chips, d.number * 2147483648 + m."order"'
    f" FROM {ChipMovement._meta.db_table} m JOIN {Deal._meta.db_table} d ON d.id = m.deal_id"
    " WHERE m.session_id = %s AND m.target_seat IS NOT NULL"
    ") AS moves GROUP BY seat, reason ORDER BY seat, MIN(at)"
)


def _chips_by_reason(session_id: int) -> list[tuple[int, str, int]]:
    with connection.cursor() as cursor:
        cursor.execute(CHIPS_BY_REASON_SQL, [session_id, session_id])
        return [(seat, reason, int(count)) for seat, reason, count in cursor.fetchall()]


def settlement(session: Session, seats: list[SeatRow] | None = None) -> dict[str, Any]:
    """The fewest transfers that settle the session, each explained, with any rounding shown
    (``seats``: the session's, when the caller has read them already)."""
    seats = seats_of(session) if seats is None else seats
    n = len(seats)
    stake = session.stake
    game = session.game
    rules = GAMES[game]
    keeps_chips = chips.keeps_chips(rules)
    per_deal: dict[int, list[tuple[int, Decimal]]] = defaultdict(list)  # seat -> (deal number, money)
    nets = [Decimal(0)] * n
    # Plain rows, not model instances (as the standings read them).
    results = DealResult.objects.filter(session=session).order_by("deal__number", "seat").values_list(
        "deal__number", "seat", "money")
    for number, seat, money_won in results:
        nets[seat] += money_won
        if money_won:
            per_deal[seat].append((number, money_won))
    reasons: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    close = [Decimal(0)] * n  # each seat's share of the prize cards' chips at close (M3), in money
    blocked = None
    if keeps_chips:
        for seat, reason, count in _chips_by_reason(session.pk):
            reasons[seat][reason] += count
        split_moves, _provisional = close_settlement(session)
        for move in split_moves:
            assert move.target_seat is not None
            nets[move.target_seat] += move.chips * stake
            close[move.target_seat] += move.chips * stake
            reasons[move.target_seat][move.reason] += move.chips
        if session.deals.filter(status=DealStatus.RUNNING).exists():
            blocked = _("Deal in progress: the settlement counts finished deals only.")
    exact = [(s.number, nets[s.number]) for s in seats]
    rounded = round_to_coin(exact, session.coin)
    transfers = fewest_transfers([(r.key, r.rounded) for r in rounded])
    names = [s.name for s in seats]

    def story(seat: int) -> dict[str, Any]:
        return {
            "deals": [{"deal": number, "money": money_text(m)} for number, m in per_deal[seat]],
            "close": money_text(close[seat]),
            "chips": ({reason: count for reason, count in reasons[seat].items() if count}
                      if keeps_chips else None),
        }

    net_rows = [
        {"seat": s.number, "member": s.member, "name": s.name, "exact": money_text(r.exact),
         "rounded": money_text(r.rounded), "rounding": money_text(r.adjustment), **story(s.number)}
        for s, r in zip(seats, rounded)
    ]
    transfer_rows = [{"from": t.payer, "from_name": names[t.payer], "to": t.payee, "to_name": names[t.payee],
                      "amount": money_text(t.amount)} for t in transfers]
    coin = None if session.coin is None else money_text(session.coin)
    for row in transfer_rows:
        row["explanation"] = explain_transfer(row, nets=net_rows, transfers=transfer_rows,
                                              currency=session.currency, coin=coin)

    return {
        "session": session.pk,
        "game": game,
        "status": session.status,
        "provisional": session.status != SessionStatus.CLOSED,
        "note": blocked,
        "stake": money_text(stake),
        "currency": session.currency,
        "coin": coin,
        "money_rule": PAGES[game].money_rule_text(),
        "nets": net_rows,
        "rounding_total": money_text(sum((r.adjustment for r in rounded), Decimal(0))),
        "transfers": transfer_rows,
    }

