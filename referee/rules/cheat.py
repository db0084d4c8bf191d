"""Cheat: placeholder until the game module lands (see RULES.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from .base import Game, Outcome


class Cheat(Game[Any]):
    slug = "cheat"
    name = "Cheat"
    name_lt = "Cheat"
    min_players = 2
    max_players = 8
    option_defaults: ClassVar[Mapping[str, object]] = {}

    def new_deal(self, *, players: int, dealer: int, options: Mapping[str, Any] | None = None) -> Any:
        raise NotImplementedError

    def apply(self, state: Any, entry: object) -> Any:
        raise NotImplementedError

    def outcome(self, state: Any) -> Outcome | None:
        raise NotImplementedError

    def to_dict(self, state: Any) -> dict[str, Any]:
        raise NotImplementedError

    def from_dict(self, data: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def view(self, state: Any) -> dict[str, Any]:
        raise NotImplementedError

    def seats(self, state: Any) -> tuple[int, int]:
        raise NotImplementedError


GAME = Cheat()
