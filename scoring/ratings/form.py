"""Form, today's chance, rival and nemesis: what a member's page says beside the numbers.

* **Form**: how the member's last deals went against what the ratings expected. Plackett-Luce
  moves a player's mu up exactly by how much better than expected they placed (and down for
  worse), so the change of mu over the last ``FORM_DEALS`` rated deals is that measure, in the
  rating's own unit; the trend is those deals' mu, drawn small.
* **Today's chance** of one member finishing ahead of another: openskill's ``predict_win`` on
  their current ratings in the game.
* **Rival and nemesis**, among members who played at least ``MIN_TOGETHER`` deals with the
  member: the rival is the one whose record against them is closest to even (most deals
  together breaking a tie); the nemesis the one who placed above them most often, as a share
  of their deals together (only when that share is over half).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from referee.models import Member
from scoring.models import DealResult, Rating

from .history import Point
from .rating import MODEL

FORM_DEALS = 10
MIN_TOGETHER = 10


@dataclass(frozen=True)
class Form:
    change: float  # mu now minus mu before the last deals
    deals: int
    trend: list[float]  # mu after each of those deals


def form(points: list[Point]) -> Form | None:
    if len(points) < 2:
        return None
    last = points[-FORM_DEALS:]
    before = points[-FORM_DEALS - 1].mu if len(points) > FORM_DEALS else 25.0  # a newcomer's mu
    return Form(change=round(last[-1].mu - before, 2), deals=len(last), trend=[p.mu for p in last])


def chance(*, club_id: int, game: str, a: int, b: int) -> float | None:
    """The chance that ``a`` finishes ahead of ``b`` today (None: either has no rating yet)."""
    ratings = {m: (mu, sigma) for m, mu, sigma in Rating.objects.filter(
        club_id=club_id, game=game, member_id__in=[a, b]).values_list("member_id", "mu", "sigma")}
    if a not in ratings or b not in ratings:
        return None
    win = MODEL.predict_win([[MODEL.rating(*ratings[a])], [MODEL.rating(*ratings[b])]])
    return round(float(win[0]), 3)


@dataclass(frozen=True)
class Opponent:
    member: int
    name: str
    deals: int
    above: int  # deals where the opponent placed higher
    below: int  # deals where the member placed higher


def opponents(member: Member) -> list[Opponent]:
    """Everyone the member played with, and how their deals together went (one read)."""
    mine = dict(DealResult.objects.filter(member=member).values_list("deal_id", "placement"))
    record: dict[int, list[int]] = defaultdict(lambda: [0, 0, 0])
    for deal, other, placement in DealResult.objects.filter(deal_id__in=list(mine)).exclude(
            member=member).values_list("deal_id", "member_id", "placement"):
        row = record[other]
        row[0] += 1
        if placement < mine[deal]:
            row[1] += 1
        elif placement > mine[deal]:
            row[2] += 1
    names = dict(Member.objects.filter(pk__in=list(record)).values_list("pk", "name"))
    return [Opponent(m, names.get(m, "?"), *row) for m, row in record.items()]


def rival_and_nemesis(member: Member) -> tuple[Opponent | None, Opponent | None]:
    regulars = [o for o in opponents(member) if o.deals >= MIN_TOGETHER]
    if not regulars:
        return None, None
    rival = min(regulars, key=lambda o: (abs(o.above - o.below) / o.deals, -o.deals, o.name))
    nemesis = max(regulars, key=lambda o: (o.above / o.deals, o.deals, o.name))
    return rival, (nemesis if nemesis.above * 2 > nemesis.deals else None)
