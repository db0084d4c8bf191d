"""Playing whole deals through the referee's services, for the scoring tests."""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from django.test import TestCase

from referee import services
from referee.models import Deal, Member, Session
from scoring.models import AGGREGATES


def start(
    setup: dict[str, Any], game: str, names: Sequence[str], *, stake: str = "0", coin: str | None = None,
    options: dict[str, Any] | None = None,
) -> Session:
    members: list[Member] = [setup["members"][name] for name in names]
    return services.session_start(
        club=setup["club"], game=game, players=members, user=setup["users"]["scorer"], options=options or {},
        stake=Decimal(stake), coin=None if coin is None else Decimal(coin),
    )


def play(setup: dict[str, Any], session: Session, entries: Sequence[dict[str, Any]], dealer: int | None = None) -> Deal:
    """Start the next deal and record the entries; returns the deal as stored."""
    user = setup["users"]["scorer"]
    deal = services.deal_start(session=session, user=user, dealer=dealer)
    for entry in entries:
        # As in production, what the entry queued for after commit (the rating step) runs once it is stored.
        with TestCase.captureOnCommitCallbacks(execute=True):
            services.entry_add(deal_id=deal.pk, payload=entry, user=user)
    deal.refresh_from_db()
    return deal


def velnias_end(condition: str, player: int | None, counts: Sequence[int]) -> dict[str, Any]:
    return {"type": "end", "condition": condition, "player": player, "hand_counts": list(counts)}


def undo(setup: dict[str, Any], deal: Deal) -> Deal:
    with TestCase.captureOnCommitCallbacks(execute=True):
        return services.entry_undo(deal_id=deal.pk, user=setup["users"]["scorer"])


def close(setup: dict[str, Any], session: Session) -> Session:
    return services.session_close(session=session, user=setup["users"]["scorer"])


def reopen(setup: dict[str, Any], session: Session) -> Session:
    return services.session_reopen(session=session, user=setup["users"]["scorer"])


def aggregates() -> list[list[tuple[Any, ...]]]:
    """Every row of the day, month and all-time aggregate tables (to compare before and after)."""
    return [
        sorted(model.objects.values_list(*[f.attname for f in model._meta.fields if f.name != "id"]))
        for model, _bucket in AGGREGATES
    ]
