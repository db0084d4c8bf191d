"""Reads for the pages that are not figures: which member a page is about, whom they can be
compared with, a session's summary row (the figures themselves come from ``scoring.selectors``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.models import Club, Member, Session

from .models import SessionSummary


def club_member(club: Club, pk: int) -> Member | None:
    """A member of this club (any member, active or not: their history stays readable)."""
    return Member.objects.filter(club=club, pk=pk).first()


def other_members(club: Club, member: Member) -> list[Mapping[str, Any]]:
    """Everyone else in the club, by name, for the head-to-head choice."""
    return list(Member.objects.filter(club=club).exclude(pk=member.pk).order_by("name").values("pk", "name"))


def session_summary(session: Session) -> SessionSummary | None:
    """The session's summary row, whatever its state (None until one was asked for)."""
    return SessionSummary.objects.filter(session=session).first()
