"""What the draw is told about an evening: who is present, who met whom (this evening and in
the club's recent sessions), who had which seat, who sat out, which pairs stay apart.

Strengths come from above (scoring keeps the ratings): the caller passes them in.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping
from datetime import timedelta
from itertools import combinations
from typing import Any

from django.utils import timezone

from referee.models import Seat
from referee.rules import GAMES

from .draw import Facts, pair
from .models import Evening, KeptApart, Round

#: An earlier meeting at this evening's tables counts 1; one at the club's recent sessions less
#: (people meet new faces tonight first, then over the month).
TONIGHT = 1.0
RECENTLY = 0.5
RECENT_DAYS = 30


def present(evening: Evening) -> list[int]:
    """The members present now (arrived, not left), by id."""
    return sorted(evening.players.filter(left_at__isnull=True).values_list("member_id", flat=True))


def played_rounds(evening: Evening) -> list[Round]:
    return list(evening.round_set.filter(started_at__isnull=False).prefetch_related("tables").order_by("number"))


def gather(
    evening: Evening, *, seed: int, strengths: Mapping[int, float], fixed: Mapping[int, tuple[int, int]]
) -> tuple[Facts, dict[str, list[list[int]]]]:
    """The draw's facts, and the meetings behind them split as a person reads them (pairs who met
    tonight, and at the club's sessions of the last month), for the screen's explanation."""
    players = present(evening)
    rules_low, rules_high = _range(evening)
    tonight: Counter[tuple[int, int]] = Counter()
    positions: dict[int, list[int]] = {}
    byes: Counter[int] = Counter()
    tonight_sessions = []
    for played in played_rounds(evening):
        byes.update(played.byes)
        for table in played.tables.all():
            tonight_sessions.append(table.session_id)
            tonight.update(pair(a, b) for a, b in combinations(table.seats, 2))
            for seat, member in enumerate(table.seats[:2]):
                positions.setdefault(member, [0, 0])[seat] += 1
    recently = _recent_meetings(evening, set(players), exclude=tonight_sessions)
    met: dict[tuple[int, int], float] = defaultdict(float)
    for key, times in tonight.items():
        met[key] += TONIGHT * times
    for key, times in recently.items():
        met[key] += RECENTLY * times
    apart = frozenset(
        (first, second)
        for first, second in KeptApart.objects.filter(
            club=evening.club, first__in=players, second__in=players
        ).values_list("first_id", "second_id")
    )
    facts = Facts(
        players=tuple(players),
        low=rules_low,
        high=rules_high,
        preferred=evening.table_size,
        seed=seed,
        met=dict(met),
        positions={member: (a, b) for member, (a, b) in positions.items()},
        strength={member: float(strengths.get(member, 0.0)) for member in players},
        apart=apart,
        byes=dict(byes),
        fixed=dict(fixed),
    )
    split = {
        "tonight": [[a, b, n] for (a, b), n in sorted(tonight.items())],
        "recently": [[a, b, n] for (a, b), n in sorted(recently.items())],
    }
    return facts, split


def _range(evening: Evening) -> tuple[int, int]:
    rules = GAMES[evening.game]
    return rules.min_players, rules.max_players


def _recent_meetings(evening: Evening, players: set[int], *, exclude: list[int | None]) -> Counter[tuple[int, int]]:
    """Pairs of tonight's players who sat at one session of the club in the last month."""
    since = timezone.now() - timedelta(days=RECENT_DAYS)
    tables: dict[int, list[int]] = {}
    for session_id, member_id in (
        Seat.objects.filter(session__club=evening.club, session__created_at__gte=since, member_id__in=players)
        .exclude(session_id__in=[s for s in exclude if s is not None])
        .values_list("session_id", "member_id")
    ):
        tables.setdefault(session_id, []).append(member_id)
    counted: Counter[tuple[int, int]] = Counter()
    for members in tables.values():
        counted.update(pair(a, b) for a, b in combinations(sorted(members), 2))
    return counted


def to_json(facts: Facts) -> dict[str, Any]:
    """The facts as stored with a round (JSON keys are strings)."""
    return {
        "players": list(facts.players),
        "low": facts.low,
        "high": facts.high,
        "preferred": facts.preferred,
        "seed": facts.seed,
        "met": [[a, b, times] for (a, b), times in sorted(facts.met.items())],
        "positions": {str(member): list(counts) for member, counts in facts.positions.items()},
        "strength": {str(member): value for member, value in facts.strength.items()},
        "apart": sorted([list(p) for p in facts.apart]),
        "byes": {str(m): n for m, n in facts.byes.items()},
        "fixed": {str(m): list(seat) for m, seat in facts.fixed.items()},
    }


def from_json(data: Mapping[str, Any]) -> Facts:
    return Facts(
        players=tuple(data["players"]),
        low=data["low"],
        high=data["high"],
        preferred=data["preferred"],
        seed=data["seed"],
        met={(a, b): times for a, b, times in data["met"]},
        positions={int(m): (c[0], c[1]) for m, c in data["positions"].items()},
        strength={int(m): v for m, v in data["strength"].items()},
        apart=frozenset((a, b) for a, b in data["apart"]),
        byes={int(m): n for m, n in data["byes"].items()},
        fixed={int(m): (s[0], s[1]) for m, s in data["fixed"].items()},
    )
