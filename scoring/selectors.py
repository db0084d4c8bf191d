"""Reads for the session and club pages and the API: standings, ledger, settlement, leaderboards.

Every function returns a JSON-safe dict (decimals as strings, dates as ISO text) and runs a
fixed number of queries whatever the size of the session or the club's history:

* a session's standings, ledger and settlement read its results and chip movements once;
* a leaderboard never reads the results: all time is one ``MemberTotal`` row per member and
  game; a period sums the ``MemberMonth`` rows of its whole months, and the ``MemberDay``
  rows of a partial month at either edge (custom periods), so its cost does not grow with
  the club's history.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from decimal import Decimal
from typing import Any

from django.db.models import Count, Exists, F, IntegerField, Max, Q, QuerySet, Sum
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext as _

from referee.errors import Refusal
from referee.models import Club, Deal, DealStatus, Member, Session, SessionStatus
from referee.rules import GAMES, competition_ranking

from . import ratings
from .models import (
    OVERALL,
    ChipMovement,
    DealResult,
    MemberDay,
    MemberMonth,
    MemberTotal,
    Rating,
    RatingStream,
    Reason,
)
from .results import PAIRWISE_GAMES, m3_movements
from .settlement import fewest_transfers, round_to_coin

DEFAULT_MIN_DEALS = 10
#: A deal's snapshot and options are large and not needed to sum results (a 200-deal session
#: would decode every snapshot twice for the summary).
_DEAL_BODY = ("deal__state", "deal__options")
PERIODS = ("all", "year", "month", "custom")


def _unit(game: str) -> tuple[str, str]:
    """(key, label) of the game's session unit (RULES.md's table)."""
    return {
        "elgeta": ("deals_won", _("deals won")),
        "velnias": ("points", _("points")),
        "rukas": ("points", _("tricks (points)")),
        "michigan": ("chips", _("chips")),
        "cheat": ("losses", _("losses")),
    }[game]


def _value(game: str, points: int) -> int:
    """A deal's result in the session unit: Elgeta's winner has 1 point, Cheat's loser -1 (one loss)."""
    return -points if game == "cheat" else points


def _money(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01'))}"


@dataclass(frozen=True)
class _Seat:
    number: int
    member: int
    name: str


def _seats(session: Session) -> list[_Seat]:
    return [
        _Seat(seat.number, seat.member_id, seat.member.name)
        for seat in session.seats.select_related("member").order_by("number")
    ]


def _players(seats: list[_Seat]) -> list[dict[str, Any]]:
    return [{"seat": s.number, "member": s.member, "name": s.name} for s in seats]


def _splits(session: Session, seats: list[_Seat]) -> tuple[list[ChipMovement], bool]:
    """The M3 split of a Mičiganas session: stored once closed, else what closing now would give."""
    if session.game != "michigan":
        return [], False
    if session.status == SessionStatus.CLOSED:
        moves = list(session.chip_movements.filter(deal__isnull=True, reason=Reason.SPLIT).order_by("order"))
        return moves, False
    # Open (even with a deal running): what M3 would give over the chips left after the last finished deal.
    return m3_movements(session, timezone.now()), True


# -- standings ---------------------------------------------------------------------------------


def standings(session: Session) -> dict[str, Any]:
    """Per-deal rows with running totals in the game's unit, the totals, places and money."""
    seats = _seats(session)
    n = len(seats)
    game = session.game
    unit, label = _unit(game)
    rows: dict[int, dict[str, Any]] = {}
    results = DealResult.objects.filter(session=session).select_related("deal").defer(*_DEAL_BODY)
    for r in results.order_by("deal__number", "seat"):
        row = rows.setdefault(r.deal_id, {
            "deal": r.deal.number, "id": r.deal_id, "dealer": r.deal.dealer,
            "values": [0] * n, "placements": [0] * n, "money": [Decimal(0)] * n,
        })
        row["values"][r.seat] = _value(game, r.points)
        row["placements"][r.seat] = r.placement
        row["money"][r.seat] = r.money
    running = [0] * n
    money = [Decimal(0)] * n
    deals = []
    for row in rows.values():
        running = [a + b for a, b in zip(running, row["values"])]
        money = [a + b for a, b in zip(money, row["money"])]
        deals.append({**row, "running": running, "money": [_money(m) for m in row["money"]]})
    split_moves, provisional = _splits(session, seats)
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
    # Fewer losses is better in Apgaudinėjimas; more is better everywhere else.
    places = competition_ranking(running, higher_is_better=game != "cheat") if n else ()
    return {
        "session": session.pk,
        "game": game,
        "status": session.status,
        "unit": unit,
        "unit_label": label,
        "stake": _money(session.stake),
        "currency": session.currency,
        "players": _players(seats),
        "deals": deals,
        "m3": split,
        "totals": [
            {"seat": s.number, "member": s.member, "name": s.name, "total": running[s.number],
             "place": places[s.number], "money": _money(money[s.number])}
            for s in seats
        ],
    }


# -- ledger ------------------------------------------------------------------------------------


def _end(seat: int | None, prize: str, names: list[str]) -> tuple[int | str, str]:
    if seat is not None:
        return seat, names[seat]
    return prize, _("prize card %(card)s") % {"card": prize}


def _deal_flows(game: str, deal: Deal, points: list[int]) -> list[tuple[int, int, int]]:
    """(payer seat, payee seat, stakes) of one finished deal of a game other than Mičiganas."""
    if game in PAIRWISE_GAMES:
        n = len(points)
        return [
            (j, i, points[i] - points[j]) for i in range(n) for j in range(n) if points[i] > points[j]
        ]
    rules = GAMES[game]
    last = rules.view(rules.from_dict(deal.state)).get("last") or {}
    return [(p["from"], p["to"], p["points"]) for p in last.get("payments", []) if p["points"]]


def ledger(session: Session) -> dict[str, Any]:
    """Every movement of the session, the nets per seat and the zero-sum check.

    Mičiganas: chips between seats and prize cards (antes, prizes, misplays, payouts, the M3
    split), including the running deal's movements so far. Other games: the stakes each
    pair settles per deal (Velnias: its payments; the others: the difference of points).
    """
    seats = _seats(session)
    names = [s.name for s in seats]
    n = len(seats)
    game = session.game
    movements: list[dict[str, Any]] = []
    prize_cards: dict[str, int] = {}

    def add(deal: int | None, src: int | None, src_prize: str, dst: int | None, dst_prize: str, chips: int,
            reason: str, final: bool) -> None:
        frm, frm_name = _end(src, src_prize, names)
        to, to_name = _end(dst, dst_prize, names)
        movements.append({"deal": deal, "from": frm, "from_name": frm_name, "to": to, "to_name": to_name,
                          "chips": chips, "reason": reason, "final": final})
        for card, sign in ((src_prize, -1), (dst_prize, 1)):
            if card:
                prize_cards[card] = prize_cards.get(card, 0) + sign * chips

    if game == "michigan":
        rules = GAMES["michigan"]
        for prize in session.options.get("prizes") or rules.option_defaults["prizes"]:  # type: ignore[union-attr]
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
            for move in rules.view(rules.from_dict(running.state))["movements"]:
                src, dst = move["from"], move["to"]
                add(running.number, src if isinstance(src, int) else None, src if isinstance(src, str) else "",
                    dst if isinstance(dst, int) else None, dst if isinstance(dst, str) else "",
                    move["chips"], move["reason"], False)
        for m in closing:
            add(None, m.source_seat, m.source_prize, m.target_seat, m.target_prize, m.chips, m.reason, True)
    else:
        results: dict[int, list[int]] = {}
        deals: dict[int, Deal] = {}
        for r in DealResult.objects.filter(session=session).select_related("deal").order_by("deal__number", "seat"):
            results.setdefault(r.deal_id, [0] * n)[r.seat] = r.points
            deals[r.deal_id] = r.deal
        for deal_id, points in results.items():
            deal = deals[deal_id]
            for payer, payee, stakes in _deal_flows(game, deal, points):
                add(deal.number, payer, "", payee, "", stakes, "deal", True)
    nets = [0] * n
    for move in movements:
        if isinstance(move["from"], int):
            nets[move["from"]] -= move["chips"]
        if isinstance(move["to"], int):
            nets[move["to"]] += move["chips"]
    players_net = sum(nets)
    on_cards = sum(prize_cards.values())
    unit = "chips" if game == "michigan" else "stakes"
    return {
        "session": session.pk,
        "game": game,
        "unit": unit,
        "stake": _money(session.stake),
        "currency": session.currency,
        "players": _players(seats),
        "movements": movements,
        "nets": [
            {"seat": s.number, "member": s.member, "name": s.name, unit: nets[s.number],
             "money": _money(nets[s.number] * session.stake)}
            for s in seats
        ],
        "on_prize_cards": prize_cards,
        "zero_sum_check": {"players_net": players_net, "on_prize_cards": on_cards,
                           "total": players_net + on_cards, "ok": players_net + on_cards == 0},
    }


# -- settlement --------------------------------------------------------------------------------


def settlement(session: Session) -> dict[str, Any]:
    """The fewest transfers that settle the session, each explained, with any rounding shown."""
    seats = _seats(session)
    n = len(seats)
    stake = session.stake
    game = session.game
    per_deal: dict[int, list[tuple[int, Decimal]]] = defaultdict(list)  # seat -> (deal number, money)
    nets = [Decimal(0)] * n
    results = DealResult.objects.filter(session=session).select_related("deal").defer(*_DEAL_BODY)
    for r in results.order_by("deal__number", "seat"):
        nets[r.seat] += r.money
        if r.money:
            per_deal[r.seat].append((r.deal.number, r.money))
    reasons: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    blocked = None
    if game == "michigan":
        for m in session.chip_movements.filter(deal__isnull=False):
            if m.source_seat is not None:
                reasons[m.source_seat][m.reason] -= m.chips
            if m.target_seat is not None:
                reasons[m.target_seat][m.reason] += m.chips
        split_moves, _provisional = _splits(session, seats)
        for move in split_moves:
            assert move.target_seat is not None
            nets[move.target_seat] += move.chips * stake
            reasons[move.target_seat][Reason.SPLIT] += move.chips
        if session.deals.filter(status=DealStatus.RUNNING).exists():
            blocked = _("Deal in progress: the settlement counts finished deals only.")
    exact = [(s.number, nets[s.number]) for s in seats]
    rounded = round_to_coin(exact, session.coin)
    transfers = fewest_transfers([(r.key, r.rounded) for r in rounded])
    names = [s.name for s in seats]

    def story(seat: int) -> dict[str, Any]:
        return {
            "deals": [{"deal": number, "money": _money(m)} for number, m in per_deal[seat]],
            "chips": ({reason: chips for reason, chips in reasons[seat].items() if chips}
                      if game == "michigan" else None),
        }

    def explain(payer: int, payee: int, amount: Decimal) -> str:
        lost = ", ".join(f"{d}: {_money(m)}" for d, m in per_deal[payer] if m < 0) or "-"
        won = ", ".join(f"{d}: +{_money(m)}" for d, m in per_deal[payee] if m > 0) or "-"
        text = _(
            "%(payer)s pays %(payee)s %(amount)s %(currency)s. %(payer)s is down %(payer_net)s over the evening "
            "(deals lost: %(lost)s); %(payee)s is up %(payee_net)s (deals won: %(won)s)."
        ) % {
            "payer": names[payer], "payee": names[payee], "amount": _money(amount), "currency": session.currency,
            "payer_net": _money(-rounded[payer].rounded), "payee_net": _money(rounded[payee].rounded),
            "lost": lost, "won": won,
        }
        for seat in (payer, payee):
            if rounded[seat].adjustment:
                text += " " + _("%(name)s's exact net %(exact)s was rounded to %(rounded)s (the %(coin)s coin).") % {
                    "name": names[seat], "exact": _money(rounded[seat].exact),
                    "rounded": _money(rounded[seat].rounded), "coin": _money(session.coin or Decimal(0)),
                }
        if game == "michigan":
            text += " " + _("Chips: %(payer)s %(payer_chips)s; %(payee)s %(payee_chips)s.") % {
                "payer": names[payer], "payee": names[payee],
                "payer_chips": _chip_words(reasons[payer]), "payee_chips": _chip_words(reasons[payee]),
            }
        return text

    return {
        "session": session.pk,
        "game": game,
        "status": session.status,
        "provisional": session.status != SessionStatus.CLOSED,
        "note": blocked,
        "stake": _money(stake),
        "currency": session.currency,
        "coin": None if session.coin is None else _money(session.coin),
        "money_rule": _money_rule(game),
        "nets": [
            {"seat": s.number, "member": s.member, "name": s.name, "exact": _money(r.exact),
             "rounded": _money(r.rounded), "rounding": _money(r.adjustment), **story(s.number)}
            for s, r in zip(seats, rounded)
        ],
        "rounding_total": _money(sum((r.adjustment for r in rounded), Decimal(0))),
        "transfers": [
            {"from": t.payer, "from_name": names[t.payer], "to": t.payee, "to_name": names[t.payee],
             "amount": _money(t.amount), "explanation": explain(t.payer, t.payee, t.amount)}
            for t in transfers
        ],
    }


def _chip_words(reasons: Mapping[str, int]) -> str:
    labels = {"ante": _("antes"), "prize": _("prizes"), "misplay": _("misplays"), "payout": _("payouts"),
              "split": _("M3 share")}
    parts = [f"{label} {reasons[r]:+d}" for r, label in labels.items() if reasons.get(r)]
    return ", ".join(parts) or "0"


def _money_rule(game: str) -> str:
    if game == "velnias":
        return _("Points x the stake: Velnias points are already who pays whom.")
    if game == "michigan":
        return _("Net chips x the chip value; the chips left on the prize cards are shared at close (M3).")
    return _("Every pair of players settles the difference of their points x the stake.")


# -- leaderboards ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Period:
    name: str
    start: date | None  # inclusive
    end: date | None  # inclusive


def period_of(name: str, start: date | None = None, end: date | None = None, today: date | None = None) -> Period:
    today = today or timezone.localdate()
    if name == "all":
        return Period(name, None, None)
    if name == "year":
        return Period(name, date(today.year, 1, 1), date(today.year, 12, 31))
    if name == "month":
        nxt = date(today.year + (today.month == 12), today.month % 12 + 1, 1)
        return Period(name, date(today.year, today.month, 1), nxt - timedelta(days=1))
    if name == "custom":
        if start is None or end is None:
            raise Refusal(_("A custom period needs both start and end dates (YYYY-MM-DD)."))
        if start > end:
            raise Refusal(_("The period's start (%(start)s) is after its end (%(end)s).") % {
                "start": start.isoformat(), "end": end.isoformat()})
        return Period(name, start, end)
    raise Refusal(_("Unknown period “%(period)s”; choose one of %(periods)s.") % {
        "period": name, "periods": ", ".join(PERIODS)})


def _month_start(day: date) -> date:
    return date(day.year, day.month, 1)


def _next_month(day: date) -> date:
    return date(day.year + (day.month == 12), day.month % 12 + 1, 1)


@dataclass
class _Totals:
    name: str = ""
    deals: int = 0
    wins: int = 0
    points: int = 0
    money: Decimal = Decimal(0)

    def add(self, deals: int, wins: int, points: int, money: Decimal) -> None:
        self.deals += deals
        self.wins += wins
        self.points += points
        self.money += money


def _period_totals(club: Club, game: str | None, period: Period,
                   members: Iterable[int] | None = None) -> dict[tuple[int, str], _Totals]:
    """(member, game) -> totals over the period, from the aggregates only: all time from the
    all-time rows; otherwise whole months from the month rows and the days of a partial month
    at either edge from the day rows (results and M3 shares alike)."""
    totals: dict[tuple[int, str], _Totals] = defaultdict(_Totals)
    sources: list[QuerySet[Any]] = []
    if period.start is None or period.end is None:
        sources.append(MemberTotal.objects.filter(club=club))
    else:
        first_whole = period.start if period.start.day == 1 else _next_month(period.start)
        after = period.end + timedelta(days=1)
        end_whole = _month_start(after)  # the first month not wholly inside the period
        if first_whole < end_whole:
            sources.append(MemberMonth.objects.filter(club=club, month__gte=first_whole, month__lt=end_whole))
            edges = Q(day__gte=period.start, day__lt=first_whole) | Q(day__gte=end_whole, day__lt=after)
        else:
            edges = Q(day__gte=period.start, day__lt=after)
        sources.append(MemberDay.objects.filter(edges, club=club))
    for rows in sources:
        if game is not None:
            rows = rows.filter(game=game)
        if members is not None:
            rows = rows.filter(member__in=list(members))
        for row in rows.values("member_id", "member__name", "game").annotate(
            d=Sum("deals"), w=Sum("wins"), p=Sum("points"), m=Sum("money")
        ):
            total = totals[(row["member_id"], row["game"])]
            total.name = row["member__name"]
            total.add(row["d"], row["w"], row["p"], row["m"])
    return totals


def leaderboard(
    club: Club,
    game: str | None = None,
    period: str = "all",
    start: date | None = None,
    end: date | None = None,
    min_deals: int = DEFAULT_MIN_DEALS,
    include_money: bool = True,
) -> dict[str, Any]:
    """Deals, wins, win rate, points (one game), money and rating per member, ranked by rating.

    Members with fewer than ``min_deals`` deals in the period are listed as unranked. The
    rating is the member's current one (all time); the period chooses the totals.
    """
    if game is not None and game not in GAMES:
        raise Refusal(
            _("Unknown game “%(game)s”; choose one of %(games)s.") % {"game": game, "games": ", ".join(GAMES)}
        )
    if min_deals < 0:
        raise Refusal(_("min_deals must be 0 or more."))
    chosen = period_of(period, start, end)
    totals = _period_totals(club, game, chosen)
    per_member: dict[int, _Totals] = defaultdict(_Totals)
    for (member, _game), t in totals.items():
        per_member[member].name = t.name
        per_member[member].add(t.deals, t.wins, t.points, t.money)
    key = game or OVERALL
    # One query for the ratings and whether they are being recomputed (an uncorrelated EXISTS,
    # evaluated once); only a club without ratings asks the stream itself.
    stale_stream = RatingStream.objects.filter(club=club, game=key, stale=True)
    rating_rows = {
        r.member_id: r
        for r in Rating.objects.filter(club=club, game=key, member_id__in=list(per_member)).annotate(
            stream_stale=Exists(stale_stream)
        )
    }
    stale = next(iter(rating_rows.values())).stream_stale if rating_rows else stale_stream.exists()
    if stale:
        ratings.request_recompute_if_stale(club.pk, [key])
    rows = []
    for member, t in per_member.items():
        if t.deals == 0 and t.points == 0 and t.money == 0:
            continue
        rating = rating_rows.get(member)
        mu, sigma = (rating.mu, rating.sigma) if rating else (ratings.MODEL.mu, ratings.MODEL.sigma)
        rows.append({
            "member": member, "name": t.name, "deals": t.deals, "wins": t.wins,
            "win_rate": round(t.wins / t.deals, 4) if t.deals else None,
            "points": t.points if game is not None else None,
            # In the game's unit (the board's "unit"): deals won, points, chips, or losses.
            "total": _value(game, t.points) if game is not None else None,
            "money": _money(t.money) if include_money else None,
            "rating": {"mu": round(mu, 3), "sigma": round(sigma, 3), "ordinal": round(ratings.ordinal(mu, sigma), 3),
                       "deals": rating.deals if rating else 0},
        })
    rows.sort(key=lambda row: (-row["rating"]["ordinal"], -row["deals"], row["name"]))
    ranked = [row for row in rows if row["deals"] >= min_deals]
    unranked = [row for row in rows if row["deals"] < min_deals]
    ordinals = [row["rating"]["ordinal"] for row in ranked]
    for row, place in zip(ranked, competition_ranking(ordinals)):
        row["rank"] = place
    for row in unranked:
        row["rank"] = None
    unit = _unit(game) if game else ("deals", _("deals"))
    return {
        "club": club.slug,
        "game": game,
        "period": {"name": chosen.name, "start": _iso(chosen.start), "end": _iso(chosen.end)},
        "min_deals": min_deals,
        "unit": unit[0],
        "unit_label": unit[1],
        "currency": club.currency,
        "ratings_stale": stale,
        "ranked": ranked,
        "unranked": unranked,
    }


def _iso(day: date | None) -> str | None:
    return None if day is None else day.isoformat()


# -- head to head and history ------------------------------------------------------------------


def head_to_head(club: Club, a: Member, b: Member) -> dict[str, Any]:
    """The deals two members played together: who placed higher how often, and the money between them.

    ``net_money`` is from ``a``'s side (positive: ``b`` paid ``a`` overall), counting only
    what passed between the two of them: the difference of points in Elgeta, Rūkas and
    Apgaudinėjimas, Velnias's payments between them, and Mičiganas's misplay penalties and
    payouts between them (antes and prizes go through the prize cards, not between players).
    """
    if a.club_id != club.pk or b.club_id != club.pk:
        raise Refusal(_("Both players must be members of this club."))
    if a.pk == b.pk:
        raise Refusal(_("Choose two different members."))
    together = DealResult.objects.filter(member=b).values("deal_id")
    mine = {
        r.deal_id: r for r in DealResult.objects.filter(member=a, deal_id__in=together).select_related("session")
    }
    theirs = {r.deal_id: r for r in DealResult.objects.filter(member=b, deal_id__in=list(mine))}
    by_game: dict[str, dict[str, Any]] = {}
    velnias_deals: list[int] = []
    michigan_deals: list[int] = []
    for deal_id, ra in mine.items():
        rb = theirs[deal_id]
        g = by_game.setdefault(ra.game, {"deals": 0, "a_higher": 0, "b_higher": 0, "same": 0, "net": Decimal(0)})
        g["deals"] += 1
        g["a_higher" if ra.placement < rb.placement else "b_higher" if rb.placement < ra.placement else "same"] += 1
        if ra.game in PAIRWISE_GAMES:
            g["net"] += (ra.points - rb.points) * ra.session.stake
        elif ra.game == "velnias":
            velnias_deals.append(deal_id)
        else:
            michigan_deals.append(deal_id)
    if velnias_deals:
        for deal in Deal.objects.filter(pk__in=velnias_deals).select_related("session"):
            sa, sb = mine[deal.pk].seat, theirs[deal.pk].seat
            for payer, payee, stakes in _deal_flows("velnias", deal, []):
                sign = 1 if (payer, payee) == (sb, sa) else -1 if (payer, payee) == (sa, sb) else 0
                by_game["velnias"]["net"] += sign * stakes * deal.session.stake
    if michigan_deals:
        for m in ChipMovement.objects.filter(deal_id__in=michigan_deals, source_seat__isnull=False,
                                             target_seat__isnull=False).select_related("session"):
            sa, sb = mine[m.deal_id].seat, theirs[m.deal_id].seat
            pair = (m.source_seat, m.target_seat)
            sign = 1 if pair == (sb, sa) else -1 if pair == (sa, sb) else 0
            by_game["michigan"]["net"] += sign * m.chips * m.session.stake
    games = {
        slug: {**{k: v for k, v in g.items() if k != "net"}, "net_money": _money(g["net"])}
        for slug, g in sorted(by_game.items())
    }
    return {
        "club": club.slug,
        "currency": club.currency,
        "a": {"member": a.pk, "name": a.name},
        "b": {"member": b.pk, "name": b.name},
        "deals_together": sum(g["deals"] for g in games.values()),
        "a_placed_higher": sum(g["a_higher"] for g in games.values()),
        "b_placed_higher": sum(g["b_higher"] for g in games.values()),
        "same_place": sum(g["same"] for g in games.values()),
        "net_money": _money(sum((Decimal(g["net_money"]) for g in games.values()), Decimal(0))),
        "games": games,
    }


def member_history(member: Member, sessions_limit: int = 100) -> dict[str, Any]:
    """A member's totals and ratings per game, month by month, and their latest sessions."""
    club = member.club
    totals = _period_totals(club, None, Period("all", None, None), members=[member.pk])
    rating_rows = {r.game: r for r in Rating.objects.filter(club=club, member=member)}
    games = {}
    for (_m, game), t in sorted(totals.items(), key=lambda item: item[0][1]):
        r = rating_rows.get(game)
        games[game] = {
            "deals": t.deals, "wins": t.wins, "win_rate": round(t.wins / t.deals, 4) if t.deals else None,
            "points": t.points, "unit": _unit(game)[0], "total": _value(game, t.points), "money": _money(t.money),
            "rating": None if r is None else {"mu": round(r.mu, 3), "sigma": round(r.sigma, 3),
                                              "ordinal": round(ratings.ordinal(r.mu, r.sigma), 3), "deals": r.deals},
        }
    overall = rating_rows.get(OVERALL)
    months = [
        {"month": row.month.isoformat()[:7], "game": row.game, "deals": row.deals, "wins": row.wins,
         "points": row.points, "money": _money(row.money)}
        for row in MemberMonth.objects.filter(club=club, member=member).order_by("-month", "game")
    ]
    rows = list(DealResult.objects.filter(member=member).values("session_id", "game").annotate(
        d=Count("id"), w=Sum(Cast("won", IntegerField())), p=Sum("points"), m=Sum("money"), last=Max("finished_at"),
    ).order_by("-last")[:sessions_limit])
    # A Mičiganas evening also counts the member's M3 share of the prize cards.
    shares: dict[int, tuple[int, Decimal]] = {}
    for move in ChipMovement.objects.filter(
        session_id__in=[row["session_id"] for row in rows if row["game"] == "michigan"], reason=Reason.SPLIT,
        session__seats__member=member, target_seat=F("session__seats__number"),
    ).select_related("session"):
        chips, money = shares.get(move.session_id, (0, Decimal(0)))
        shares[move.session_id] = (chips + move.chips, money + move.chips * move.session.stake)
    sessions = []
    for row in rows:
        chips, money = shares.get(row["session_id"], (0, Decimal(0)))
        sessions.append({
            "session": row["session_id"], "game": row["game"],
            "date": timezone.localtime(row["last"]).date().isoformat(), "deals": row["d"], "wins": row["w"],
            "points": row["p"] + chips, "total": _value(row["game"], row["p"] + chips),
            "money": _money(row["m"] + money),
        })
    return {
        "member": member.pk,
        "name": member.name,
        "club": club.slug,
        "currency": club.currency,
        "games": games,
        "rating": None if overall is None else {
            "mu": round(overall.mu, 3), "sigma": round(overall.sigma, 3),
            "ordinal": round(ratings.ordinal(overall.mu, overall.sigma), 3), "deals": overall.deals},
        "months": months,
        "sessions": sessions,
    }
