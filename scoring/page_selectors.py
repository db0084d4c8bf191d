"""Reads for the pages that are not figures: which member a page is about, whom they can be
compared with, a session's summary row (the figures themselves come from ``scoring.selectors``),
and what the recording screen reads beside its deal's snapshot (it reads the results, so it
lives here, above the referee)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import Sum

from referee.models import Club, Deal, Member, Session
from referee.selectors import deal_version

from .models import DealResult, SessionSummary


def club_member(club: Club, pk: int) -> Member | None:
    """A member of this club (any member, active or not: their history stays readable)."""
    return Member.objects.filter(club=club, pk=pk).first()


def other_members(club: Club, member: Member) -> list[Mapping[str, Any]]:
    """Everyone else in the club, by name, for the head-to-head choice."""
    return list(Member.objects.filter(club=club).exclude(pk=member.pk).order_by("name").values("pk", "name"))


def session_summary(session: Session) -> SessionSummary | None:
    """The session's summary row, whatever its state (None until one was asked for)."""
    return SessionSummary.objects.filter(session=session).first()


@dataclass(frozen=True)
class ScreenFigures:
    """What the recording screen reads about a deal besides its snapshot, in one statement."""

    #: ``deal_version``'s token.
    version: str
    #: The session has a deal after this one (a finished deal can no longer be undone).
    later_deal: bool
    #: Each seat's total over the session's finished deals (``running_totals``).
    totals: list[int]


#: Whether a later deal exists (``has_later_deal``) and the seats' totals (``running_totals``)
#: in one statement: the recording screen asked two queries for them. Rows: (-1, later deals),
#: then (seat, total) per seat with a result. tests/test_screen_reads.py holds it to the models.
SCREEN_SQL = (
    "SELECT -1, COUNT(*) FROM referee_deal d WHERE d.session_id = %s AND d.number > %s"
    " UNION ALL SELECT r.seat, SUM(r.points) FROM scoring_dealresult r WHERE r.session_id = %s GROUP BY r.seat"
)


def screen_figures(deal: Deal, players: int) -> ScreenFigures:
    """``deal_version``, ``has_later_deal`` and ``running_totals`` of the deal, read at once."""
    with connection.cursor() as cursor:
        cursor.execute(SCREEN_SQL, [deal.session_id, deal.number, deal.session_id])
        rows = cursor.fetchall()
    later = 0
    totals = [0] * players
    for key, value in rows:
        if key == -1:
            later = value
        elif 0 <= key < players:
            totals[key] = int(value or 0)
    return ScreenFigures(version=deal_version(deal), later_deal=later > 0, totals=totals)


def running_totals(session: Session, players: int) -> list[int]:
    """Each seat's total over the session's finished deals, in the game's unit (one query)."""
    totals = [0] * players
    rows = DealResult.objects.filter(session=session).values("seat").annotate(total=Sum("points"))
    for row in rows:
        if 0 <= row["seat"] < len(totals):
            totals[row["seat"]] = row["total"] or 0
    return totals
