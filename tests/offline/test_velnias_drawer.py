"""The Pašėlęs Velnias drawer (static/js/table/games/velnias.js) says what the server says: for
random whole deals of every player count (3 to 8), both notations, English and Lithuanian, and
every way a deal ends (emptied hand, last face-down card, blocked), after the deal's end entry its
headline is the server's explain() word for word and its entry line is describe_entry(). Node
runs the drawer on the engine's views with the words offline_text() gives it, as the tablet does
(tests/offline/drawer_node.py, run_drawer.mjs)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from tests.offline.drawer_node import assert_deals
from tests.rules.playout_velnias import random_deal

CONDITIONS = {"empty_hand", "last_card", "blocked"}


def deals(players: int, language: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Random whole deals, both notations, until each way of ending has come up at least once."""
    rng = random.Random(f"velnias {players} {language}")
    found: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    seen: set[str] = set()
    for number in range(2000):
        kwargs, entries = random_deal(rng, players, {"notation": ("en", "lt")[number % 2]})
        condition = entries[-1]["condition"]
        if condition not in seen or len(found) < 6:
            found.append((kwargs, entries))
            seen.add(condition)
        if seen == CONDITIONS and len(found) >= 6:
            return found
    raise AssertionError(f"no random {players}-player deal ended {sorted(CONDITIONS - seen)}")


@pytest.mark.parametrize("language", ["en", "lt"])
@pytest.mark.parametrize("players", range(3, 9))
def test_the_drawer_says_what_the_server_says(players: int, language: str) -> None:
    played = deals(players, language)
    assert all(entries[-1]["type"] == "end" for _kwargs, entries in played)  # whole deals, to their end
    for verdicts in assert_deals("velnias", played, language):
        assert verdicts[-1]["sentences"], "the end has a headline"
