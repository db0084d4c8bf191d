"""Each game's view has exactly the keys its TypedDict declares (the types cannot drift from the JSON).

Over random legal deals of every game, at every step: the top-level keys of ``view`` are the
game's view TypedDict's keys, and ``last`` (when there is one) has the keys of one of the
TypedDicts its annotation allows.
"""

from __future__ import annotations

import typing
from typing import Any

import pytest

from referee.rules import GAMES, GameView, cheat, elgeta, michigan, rukas, velnias

from .test_fuzz_all_games import random_legal_deal

VIEWS: dict[str, Any] = {
    "cheat": cheat.CheatView,
    "elgeta": elgeta.ElgetaView,
    "michigan": michigan.MichiganView,
    "rukas": rukas.RukasView,
    "velnias": velnias.VelniasView,
}


def typed_dicts(annotation: Any) -> list[Any]:
    """The TypedDicts an annotation allows (``A | B | None`` -> [A, B])."""
    return [arg for arg in typing.get_args(annotation) or (annotation,) if typing.is_typeddict(arg)]


@pytest.mark.parametrize("slug", sorted(VIEWS))
def test_views_have_exactly_the_declared_keys(slug: str) -> None:
    game = GAMES[slug]
    view_type = VIEWS[slug]
    assert issubclass(view_type, dict) and set(GameView.__required_keys__) <= view_type.__required_keys__
    # ``last`` is GameView's type parameter: read it from the class's GameView[...] base.
    (header,) = [base for base in view_type.__orig_bases__ if typing.get_origin(base) is GameView]
    last_types = typed_dicts(typing.get_args(header)[0])
    assert last_types
    for seed in range(12):
        kwargs, entries = random_legal_deal(slug, seed)
        state = game.new_deal(**kwargs)
        for entry in [None, *entries[:200]]:
            if entry is not None:
                state = game.apply(state, entry)
            view = game.view(state)
            assert set(view) == set(view_type.__required_keys__)
            if view["last"] is not None:
                assert set(view["last"]) in [set(kind.__required_keys__) for kind in last_types]
