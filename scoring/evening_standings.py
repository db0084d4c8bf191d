"""One standings for a club night across tables of different sizes.

Each finished deal gives every player a place score that does not depend on the table's size:
(n - place) / (n - 1) at a table of n (1 for first, 0 for last, shared places sharing). A
player's round score is the mean over the deals of their table in that round (so a table
that played more deals weighs no more), in [0, 1]; the evening's score is the sum of the
round scores. A round sat out counts as the evening states: half a round (an average table)
or nothing.

The tie-break chain, in order: the evening's score; rounds won (the best round score at the
table); deals won; the game's own unit (points or chips) over the evening; fewer byes. Players
equal on all of them share the place (listed by name). Money stays per table, settled on each
session's screen; the evening's total per member is shown beside.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from decimal import Decimal

from django.utils.translation import gettext_lazy as _

from evenings.models import ByeScore, Evening
from referee.models import Member

from .models import DealResult

#: The tie-break chain, written out as the screens show it.
TIE_BREAKS = (
    _("the evening's score"),
    _("rounds won"),
    _("deals won"),
    _("the game's points"),
    _("fewer rounds sat out"),
)


@dataclass
class Row:
    member_id: int
    name: str
    score: float = 0.0
    rounds: dict[int, float | None] = field(default_factory=dict)  # round number -> score; None: a bye
    rounds_won: int = 0
    deals: int = 0
    deals_won: int = 0
    points: int = 0
    money: Decimal = Decimal("0")
    byes: int = 0
    place: int = 0

    @property
    def key(self) -> tuple[float, int, int, int, int]:
        return (-round(self.score, 9), -self.rounds_won, -self.deals_won, -self.points, self.byes)


def place_score(place: int, players: int) -> float:
    """1 for first, 0 for last, evenly between, whatever the table's size."""
    return (players - place) / (players - 1) if players > 1 else 0.0


def evening_standings(evening: Evening) -> list[Row]:
    rounds = list(evening.round_set.filter(started_at__isnull=False).prefetch_related("tables"))
    session_round: dict[int, int] = {}
    table_size: dict[int, int] = {}
    seated_in: dict[int, set[int]] = defaultdict(set)  # round -> members seated
    for played in rounds:
        for table in played.tables.all():
            if table.session_id is not None:
                session_round[table.session_id] = played.number
                table_size[table.session_id] = len(table.seats)
                seated_in[played.number].update(table.seats)
    members = {m.pk: m.name for m in Member.objects.filter(club=evening.club_id)}
    rows: dict[int, Row] = {}

    def row(member_id: int) -> Row:
        if member_id not in rows:
            rows[member_id] = Row(member_id=member_id, name=members.get(member_id, "?"))
        return rows[member_id]

    per_round: dict[tuple[int, int], list[float]] = defaultdict(list)  # (member, round) -> place scores
    for result in DealResult.objects.filter(session_id__in=list(session_round)).only(
        "member_id", "session_id", "placement", "won", "points", "money"
    ):
        number = session_round[result.session_id]
        r = row(result.member_id)
        per_round[(result.member_id, number)].append(place_score(result.placement, table_size[result.session_id]))
        r.deals += 1
        r.deals_won += int(result.won)
        r.points += result.points
        r.money += result.money
    for (member_id, number), scores in per_round.items():
        mean = sum(scores) / len(scores)
        row(member_id).rounds[number] = mean
        row(member_id).score += mean
    for played in rounds:
        for table in played.tables.all():
            scored = [
                score for m in table.seats if m in rows and (score := rows[m].rounds.get(played.number)) is not None
            ]
            if scored:
                best = max(scored)
                for m in table.seats:
                    if m in rows and rows[m].rounds.get(played.number) == best:
                        rows[m].rounds_won += 1
        for member_id in played.byes:
            r = row(member_id)
            r.byes += 1
            r.rounds[played.number] = None
            if evening.bye_score == ByeScore.HALF:
                r.score += 0.5
    ordered = sorted(rows.values(), key=lambda r: (r.key, r.name))
    for index, r in enumerate(ordered):
        r.place = ordered[index - 1].place if index and ordered[index - 1].key == r.key else index + 1
    return ordered
