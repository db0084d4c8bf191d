"""The club night's answers to what the referee announces: a table's seats follow a seat
corrected on its session (so tonight's meetings and the wall's seating name the right member)."""

from __future__ import annotations

from typing import Any

from referee.models import Session

from .models import RoundTable


def seat_corrected(sender: object, *, session: Session, seat: int, was: int, now: int, **kwargs: Any) -> None:
    table = RoundTable.objects.select_for_update().filter(session=session).first()
    if table is not None and seat < len(table.seats) and table.seats[seat] == was:
        table.seats[seat] = now
        table.save(update_fields=["seats"])
