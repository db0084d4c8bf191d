"""What scoring reads of a game's chips, without naming the game.

A game keeps a chip ledger iff it reports chip movements, i.e. its engine class overrides
``Game.chip_movements`` (Mičiganas today): only then are movements stored per deal, settled
at the session's close (``Game.close_movements``) and shown in chips rather than stakes.
The prize cards a ledger starts from are the session's house rule of kind ``prizes``.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from referee.models import Deal, Session
from referee.rules import Game
from scoring.models import ChipMovement


def keeps_chips(rules: Game[Any]) -> bool:
    """Whether the game's deals move chips between seats and prize cards."""
    return type(rules).chip_movements is not Game.chip_movements


def prize_cards(rules: Game[Any], options: Mapping[str, Any]) -> list[str]:
    """The session's prize cards, in prize order (empty for a game without them)."""
    for rule in rules.house_rules:
        if rule.kind == "prizes":
            cards: Any = options.get(rule.key) or rules.option_defaults[rule.key]
            return list(cards)
    return []


def ends(move: Mapping[str, Any]) -> tuple[int | None, str, int | None, str]:
    """(source seat, source prize card, target seat, target prize card) of an engine movement
    ``{"from", "to", "chips", "reason"}``, where a seat is a number and a prize card its text."""
    source, target = move["from"], move["to"]
    return (
        source if isinstance(source, int) else None, source if isinstance(source, str) else "",
        target if isinstance(target, int) else None, target if isinstance(target, str) else "",
    )


def movement(session: Session, deal: Deal | None, order: int, move: Mapping[str, Any], at: datetime) -> ChipMovement:
    """An engine movement as a ledger row, not saved."""
    source_seat, source_prize, target_seat, target_prize = ends(move)
    return ChipMovement(
        session=session, deal=deal, order=order, chips=move["chips"], reason=move["reason"], at=at,
        source_seat=source_seat, source_prize=source_prize, target_seat=target_seat, target_prize=target_prize,
    )
