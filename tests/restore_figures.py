"""The figures a restored backup must read back identical, one named reader each: the restore
drill (tests/test_backup_drill.py) compares them by name with the source club's.

``FIGURES`` is the list to extend: a new kind of record (the audit chain, say) adds one
``("name", reader)`` pair, where ``reader(club)`` returns what people read of it; the drill
then compares it too. Readers use the selectors (what the pages and the API show) and return
JSON-safe data; the drill runs them here and, against the restored database, in a subprocess
(``python -c``), so they import Django models only inside the function.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from datetime import date
from typing import Any


def _sessions(club: Any) -> list[Any]:
    return list(club.sessions.order_by("pk"))


def standings(club: Any) -> Any:
    from scoring import selectors

    return {s.pk: selectors.standings(s) for s in _sessions(club)}


def ledger(club: Any) -> Any:
    from scoring import selectors

    return {s.pk: selectors.ledger(s) for s in _sessions(club)}


def settlement(club: Any) -> Any:
    from scoring import selectors

    return {s.pk: selectors.settlement(s) for s in _sessions(club)}


def debts(club: Any) -> Any:
    from scoring.settlement.debts import debts_view

    return debts_view(club, payments_shown=10_000)


def leaderboard(club: Any) -> Any:
    from scoring import selectors

    out = {}
    for game in [None, *sorted({s.game for s in _sessions(club)})]:
        for period in ("all", "year", "month"):
            out[f"{game or 'all'}/{period}"] = selectors.leaderboard(club, game=game, period=period, min_deals=1)
        out[f"{game or 'all'}/custom"] = selectors.leaderboard(club, game=game, period="custom",
                                                              start=date(2000, 1, 1), end=date(2100, 1, 1),
                                                              min_deals=1)
    return out


def ratings(club: Any) -> Any:
    from scoring.models import Rating

    return sorted(Rating.objects.filter(club=club).values_list("game", "member_id", "mu", "sigma", "deals"))


def rating_history(club: Any) -> Any:
    from scoring.models import RatingPoint

    return list(RatingPoint.objects.filter(stream__club=club).order_by("stream__game", "seq", "member_id")
                .values_list("stream__game", "seq", "deal_id", "member_id", "mu", "sigma"))


def summaries(club: Any) -> Any:
    from scoring.models import SessionSummary
    from scoring.summaries.services import summary_status

    out = {}
    for session in _sessions(club):
        summary = SessionSummary.objects.filter(session=session).first()
        out[session.pk] = None if summary is None else {
            key: value for key, value in summary_status(summary, session).items()
            if key not in ("requested_at", "started_at", "finished_at")
        } | {"html": summary.html, "csv": summary.csv, "svg": summary.chart_svg}
    return out


def audit(club: Any) -> Any:
    """Every session's audit page: each entry, undo, correction and seat change, who and when."""
    from referee import selectors

    return {s.pk: selectors.session_audit(s) for s in _sessions(club)}


def deals(club: Any) -> Any:
    from referee import selectors
    from referee.models import Deal

    return [selectors.deal_view(deal) for deal in Deal.objects.filter(session__club=club)
            .select_related("session").order_by("pk")]


def members(club: Any) -> Any:
    from scoring import selectors

    people = list(club.members.order_by("pk"))
    return {
        "members": [[m.pk, m.name, m.role, m.active, m.user.get_username() if m.user else None, m.created_at]
                    for m in people],
        "histories": {m.pk: selectors.member_history(m) for m in people},
        "head_to_head": [selectors.head_to_head(club, a, b) for a in people[:3] for b in people[:3] if a != b],
    }


def seasons(club: Any) -> Any:
    from scoring import seasons as season_tables
    from scoring.models import Season

    return [{"season": [s.pk, s.name, s.game, s.start, s.end, s.closed_at, s.frozen],
             "table": season_tables.table_json(season_tables.season_table(s))}
            for s in Season.objects.filter(club=club).order_by("pk")]


def club_nights(club: Any) -> Any:
    from evenings.models import Evening, RoundTable
    from scoring.evening_standings import evening_standings

    return [{"evening": [e.pk, e.name, e.day, e.status, e.game],
             "tables": list(RoundTable.objects.filter(round__evening=e).order_by("round__number", "number")
                            .values_list("round__number", "number", "seats", "session_id")),
             "standings": evening_standings(e)}
            for e in Evening.objects.filter(club=club).order_by("pk")]


def audit_chain(club: Any) -> Any:
    """The chain as a treasurer checks it: the verdict, the head to note, every record."""
    from referee.chain_seal import verify_club
    from referee.models import ChainRecord

    verdict = verify_club(club.pk)
    return {"verdict": _plain(verdict),
            "records": list(ChainRecord.objects.filter(club=club).order_by("seq")
                            .values_list("seq", "kind", "content", "prev_hash", "hash"))}


#: (name, reader): what the drill compares, in this order.
FIGURES: list[tuple[str, Callable[[Any], Any]]] = [
    ("standings", standings),
    ("ledger", ledger),
    ("settlement", settlement),
    ("debts", debts),
    ("leaderboard", leaderboard),
    ("ratings", ratings),
    ("rating_history", rating_history),
    ("summaries", summaries),
    ("audit", audit),
    ("deals", deals),
    ("members", members),
    ("seasons", seasons),
    ("club_nights", club_nights),
    ("audit_chain", audit_chain),
]


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return _plain(dataclasses.asdict(value))
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


def read_figures(slug: str) -> dict[str, Any]:
    """Every figure of the club, by name, through JSON as the API would send it."""
    from referee.models import Club

    club = Club.objects.get(slug=slug)
    return {name: json.loads(json.dumps(_plain(reader(club)), default=str, sort_keys=True))
            for name, reader in FIGURES}
