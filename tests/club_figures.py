"""Everything a club's people read, as one JSON-safe dict: the yardstick of export/import.

Run in the test process and, against another database, in a subprocess (``python -c``),
so it only uses the selectors (what the API and pages show) and plain JSON.
"""

from __future__ import annotations

import json
from datetime import date
from typing import Any


def figures(slug: str) -> dict[str, Any]:
    from referee import selectors as referee_selectors
    from referee.models import Club, Deal, Entry, Member
    from scoring import selectors
    from scoring.models import SessionSummary
    from scoring.summaries.services import summary_status

    club = Club.objects.get(slug=slug)
    members = list(Member.objects.filter(club=club).order_by("pk"))
    sessions = list(club.sessions.order_by("pk"))
    out: dict[str, Any] = {
        "club": [club.pk, club.slug, club.name, club.public_leaderboard, club.currency, club.created_at],
        "members": [[m.pk, m.name, m.role, m.active, m.user.get_username() if m.user else None, m.created_at]
                    for m in members],
        "sessions": {},
        "leaderboards": {},
        "histories": {m.pk: selectors.member_history(m) for m in members},
        "head_to_head": selectors.head_to_head(club, members[0], members[1]),
        "entries": list(Entry.objects.filter(deal__session__club=club).order_by("pk").values_list(
            "pk", "deal_id", "seq", "payload", "result", "author__username", "created_at", "idempotency_key",
            "active")),
    }
    for session in sessions:
        summary = SessionSummary.objects.filter(session=session).first()
        out["sessions"][session.pk] = {
            "standings": selectors.standings(session),
            "ledger": selectors.ledger(session),
            "settlement": selectors.settlement(session),
            "audit": referee_selectors.session_audit(session),
            "deals": [referee_selectors.deal_view(deal) for deal in Deal.objects.filter(session=session)
                      .select_related("session").order_by("number")],
            "summary": None if summary is None else {
                key: value for key, value in summary_status(summary, session).items()
                if key not in ("requested_at", "started_at", "finished_at")
            } | {"html": summary.html, "csv": summary.csv, "svg": summary.chart_svg},
        }
    games = [None, *sorted({s.game for s in sessions})]
    for game in games:
        for period in ("all", "year", "month"):
            out["leaderboards"][f"{game or 'all'}/{period}"] = selectors.leaderboard(club, game=game, period=period,
                                                                                    min_deals=1)
        out["leaderboards"][f"{game or 'all'}/custom"] = selectors.leaderboard(
            club, game=game, period="custom", start=date(2000, 1, 1), end=date(2100, 1, 1), min_deals=1)
    # Through JSON, as the API would send it: Decimals, dates and keys become text alike.
    return dict(json.loads(json.dumps(out, default=str, sort_keys=True)))
