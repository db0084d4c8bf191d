"""Hooks the referee calls inside its transactions, and the scoring writes behind them."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from referee.models import Deal, Session
from referee.rules import GAMES

from .models import DealResult


def deal_finished(*, deal: Deal, state: Any) -> None:
    """Write one result row per seat for a deal that just finished (same transaction)."""
    outcome = GAMES[deal.session.game].outcome(state)
    assert outcome is not None
    seats = list(deal.session.seats.order_by("number"))
    DealResult.objects.filter(deal=deal).delete()
    DealResult.objects.bulk_create(
        DealResult(
            deal=deal, session=deal.session, member=seat.member, seat=seat.number,
            points=outcome.points[seat.number], placement=outcome.placements[seat.number],
            won=seat.number in outcome.winners, finished_at=deal.finished_at or timezone.now(),
        )
        for seat in seats
    )


def deal_reopened(*, deal: Deal) -> None:
    """A finished deal became unfinished (undo or correction): its results go."""
    DealResult.objects.filter(deal=deal).delete()


def session_closed(*, session: Session) -> None:
    """Settle what is settled at close (Michigan's M3) and enqueue the summary."""


def session_reopened(*, session: Session) -> None:
    """Undo what closing settled; the summary is rebuilt at the next close."""
