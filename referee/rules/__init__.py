"""The referee's rules engine: pure Python, no Django.

``GAMES[slug]`` is the one interface for all five games (see ``base.Game``)::

    from referee.rules import GAMES, IllegalEntry
    game = GAMES["rukas"]
    state = game.new_deal(players=5, dealer=4, options={"notation": "lt"})
    state = game.apply(state, {"type": "trick", "cards": ["3", "9", "9", "V", "4"]})
    game.outcome(state)        # None while the deal runs
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from . import cheat, elgeta, michigan, rukas, velnias
from .base import ChipMovementView, Game, GameView, HouseRule, MoneyRule, Outcome, Unit, ViewHeader, competition_ranking
from .cards import Card, CardError, Notation, format_card, parse_card, parse_rank
from .errors import IllegalEntry, InvalidSetup, Seat

_REGISTRY: dict[str, Game[Any]] = {
    game.slug: game for game in (elgeta.GAME, velnias.GAME, rukas.GAME, michigan.GAME, cheat.GAME)
}
#: Every game by slug; read-only here: a game from outside this package comes in by ``register``.
GAMES: Mapping[str, Game[Any]] = _REGISTRY


def register(game: Game[Any]) -> None:
    """Add a game beyond the five (a plug-in, or a test's own game) as ``GAMES[game.slug]``."""
    if game.slug in _REGISTRY:
        raise ValueError(f"a game {game.slug!r} is already registered")
    _REGISTRY[game.slug] = game


def unregister(slug: str) -> None:
    """Remove a game that ``register`` added."""
    del _REGISTRY[slug]

__all__ = [
    "GAMES", "Card", "CardError", "ChipMovementView", "Game", "GameView", "HouseRule", "IllegalEntry", "InvalidSetup",
    "MoneyRule", "Notation", "Outcome", "Seat", "Unit", "ViewHeader",
    "competition_ranking", "format_card", "parse_card", "parse_rank", "register", "unregister",
]
