"""The one way the engine tests check a refusal: the message, and nothing changed."""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee.rules import Game, IllegalEntry


def refusal(game: Game[Any], state: Any, entry: object) -> str:
    """Apply an entry that must be refused; return its message and check the state is untouched."""
    before = json.dumps(game.to_dict(state), sort_keys=True)
    with pytest.raises(IllegalEntry) as caught:
        game.apply(state, entry)
    assert json.dumps(game.to_dict(state), sort_keys=True) == before
    return str(caught.value)
