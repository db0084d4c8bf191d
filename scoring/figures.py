"""What the session figures (standings, ledger, settlement) share: the seats, money as text,
the game's unit in the reader's language, and what the session's close settles."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext

from referee.models import Session, SessionStatus
from referee.rules import GAMES
from scoring import results
from scoring.ledger import chips

from .models import ChipMovement


def money_text(value: Decimal) -> str:
    return f"{value.quantize(Decimal('0.01'))}"


def unit_of(game: str) -> tuple[str, str]:
    """(key, label) of the game's session unit, the label in the reader's language."""
    unit = GAMES[game].unit
    return unit.key, gettext(unit.label)


@dataclass(frozen=True)
class SeatRow:
    number: int
    member: int
    name: str


def seats_of(session: Session) -> list[SeatRow]:
    return [
        SeatRow(seat.number, seat.member_id, seat.member.name)
        for seat in session.seats.select_related("member").order_by("number")
    ]


def players(seats: list[SeatRow]) -> list[dict[str, Any]]:
    return [{"seat": s.number, "member": s.member, "name": s.name} for s in seats]


def close_settlement(session: Session) -> tuple[list[ChipMovement], bool]:
    """What the session's close settles (Mičiganas M3): stored once closed, else what closing
    now would give (``True``: provisional). Nothing for a game without chips."""
    if not chips.keeps_chips(GAMES[session.game]):
        return [], False
    if session.status == SessionStatus.CLOSED:
        moves = list(session.chip_movements.filter(deal__isnull=True).order_by("order"))
        return moves, False
    # Open (even with a deal running): over the chips left after the last finished deal.
    return results.close_movements(session, timezone.now()), True
