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
from .base import Game, HouseRule, IllegalEntry, InvalidSetup, MoneyRule, Outcome, Seat, Unit, competition_ranking
from .cards import Card, CardError, Notation, format_card, parse_card, parse_rank

GAMES: Mapping[str, Game[Any]] = {
    game.slug: game for game in (elgeta.GAME, velnias.GAME, rukas.GAME, michigan.GAME, cheat.GAME)
}

__all__ = [
    "GAMES", "Card", "CardError", "Game", "HouseRule", "IllegalEntry", "InvalidSetup", "MoneyRule", "Notation",
    "Outcome", "Seat", "Unit",
    "competition_ranking", "format_card", "parse_card", "parse_rank",
]
