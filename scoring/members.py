"""A member's story in the club: their history (totals, ratings, months, latest sessions) and
how they fared against one other member (head to head)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.db.models import Count, F, IntegerField, Max, Sum
from django.db.models.functions import Cast
from django.utils import timezone
from django.utils.translation import gettext as _

from referee.errors import Refusal
from referee.models import Club, Deal, Member
from referee.rules import GAMES, MoneyRule
from scoring.ledger import chips
from scoring.ledger.ledger import deal_flows

from .figures import money_text
from .leaderboard import Period, period_totals, rating_text
from .models import OVERALL, ChipMovement, DealResult, MemberMonth, Rating


def _between(pair: tuple[int | None, int | None], a: int, b: int) -> int:
    """+1 if the movement went from ``b`` to ``a``, -1 if from ``a`` to ``b``, else 0."""
    return 1 if pair == (b, a) else -1 if pair == (a, b) else 0


def head_to_head(club: Club, a: Member, b: Member) -> dict[str, Any]:
    """The deals two members played together: who placed higher how often, and the money between them.

    ``net_money`` is from ``a``'s side (positive: ``b`` paid ``a`` overall), counting only
    what passed between the two of them: the difference of points in the games paid pair by
    pair (Elgeta, Rūkas, Apgaudinėjimas), the engine's payments between them in the other
    games without chips (Velnias), and the chips that went from one to the other in a game
    with chips (Mičiganas' misplay penalties and payouts; antes and prizes go through the
    prize cards, not between players).
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
    paid_deals: list[int] = []
    chip_deals: list[int] = []
    for deal_id, ra in mine.items():
        rb = theirs[deal_id]
        g = by_game.setdefault(ra.game, {"deals": 0, "a_higher": 0, "b_higher": 0, "same": 0, "net": Decimal(0)})
        g["deals"] += 1
        g["a_higher" if ra.placement < rb.placement else "b_higher" if rb.placement < ra.placement else "same"] += 1
        rules = GAMES[ra.game]
        if chips.keeps_chips(rules):
            chip_deals.append(deal_id)
        elif rules.money_rule is MoneyRule.PAIR_DIFFERENCE:
            g["net"] += (ra.points - rb.points) * ra.session.stake
        else:
            paid_deals.append(deal_id)
    if paid_deals:
        for deal in Deal.objects.filter(pk__in=paid_deals).select_related("session"):
            sa, sb = mine[deal.pk].seat, theirs[deal.pk].seat
            for payer, payee, stakes in deal_flows(GAMES[deal.session.game], deal, []):
                by_game[deal.session.game]["net"] += _between((payer, payee), sa, sb) * stakes * deal.session.stake
    if chip_deals:
        for m in ChipMovement.objects.filter(deal_id__in=chip_deals, source_seat__isnull=False,
                                             target_seat__isnull=False).select_related("session"):
            assert m.deal_id is not None  # only deals' movements were asked for
            sa, sb = mine[m.deal_id].seat, theirs[m.deal_id].seat
            sign = _between((m.source_seat, m.target_seat), sa, sb)
            by_game[m.session.game]["net"] += sign * m.chips * m.session.stake
    games = {
        slug: {**{k: v for k, v in g.items() if k != "net"}, "net_money": money_text(g["net"])}
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
        "net_money": money_text(sum((Decimal(g["net_money"]) for g in games.values()), Decimal(0))),
        "games": games,
    }


def member_history(member: Member, sessions_limit: int = 100) -> dict[str, Any]:
    """A member's totals and ratings per game, month by month, and their latest sessions."""
    club = member.club
    totals = period_totals(club, None, Period("all", None, None), members=[member.pk])
    rating_rows = {r.game: r for r in Rating.objects.filter(club=club, member=member)}
    games = {}
    for (_m, game), t in sorted(totals.items(), key=lambda item: item[0][1]):
        r = rating_rows.get(game)
        unit = GAMES[game].unit
        games[game] = {
            "deals": t.deals, "wins": t.wins, "win_rate": round(t.wins / t.deals, 4) if t.deals else None,
            "points": t.points, "unit": unit.key, "total": unit.of(t.points), "money": money_text(t.money),
            "rating": None if r is None else rating_text(r.mu, r.sigma, r.deals),
        }
    overall = rating_rows.get(OVERALL)
    months = [
        {"month": row.month.isoformat()[:7], "game": row.game, "deals": row.deals, "wins": row.wins,
         "points": row.points, "money": money_text(row.money)}
        for row in MemberMonth.objects.filter(club=club, member=member).order_by("-month", "game")
    ]
    rows = list(DealResult.objects.filter(member=member).values("session_id", "game").annotate(
        d=Count("id"), w=Sum(Cast("won", IntegerField())), p=Sum("points"), m=Sum("money"), last=Max("finished_at"),
    ).order_by("-last")[:sessions_limit])
    # An evening of a game with chips also counts the member's share of what its close settled (M3).
    shares: dict[int, tuple[int, Decimal]] = {}
    for move in ChipMovement.objects.filter(
        session_id__in=[row["session_id"] for row in rows if chips.keeps_chips(GAMES[row["game"]])],
        deal__isnull=True, session__seats__member=member, target_seat=F("session__seats__number"),
    ).select_related("session"):
        count, money = shares.get(move.session_id, (0, Decimal(0)))
        shares[move.session_id] = (count + move.chips, money + move.chips * move.session.stake)
    sessions = []
    for row in rows:
        count, money = shares.get(row["session_id"], (0, Decimal(0)))
        sessions.append({
            "session": row["session_id"], "game": row["game"],
            "date": timezone.localtime(row["last"]).date().isoformat(), "deals": row["d"], "wins": row["w"],
            "points": row["p"] + count, "total": GAMES[row["game"]].unit.of(row["p"] + count),
            "money": money_text(row["m"] + money),
        })
    return {
        "member": member.pk,
        "name": member.name,
        "club": club.slug,
        "currency": club.currency,
        "games": games,
        "rating": None if overall is None else rating_text(overall.mu, overall.sigma, overall.deals),
        "months": months,
        "sessions": sessions,
    }
