"""The Mičiganas drawer (static/js/table/games/michigan.js) says what the server says: for
random whole legal deals (manual and live mode, both notations, English and Lithuanian), after
every entry its verdict sentences are the server's explain() word for word, and its entry line
is the server's describe_entry(). Node runs the drawer on the engine's views with the words
offline_text() gives it, as the tablet does (tests/offline/drawer_node.py, run_drawer.mjs)."""

from __future__ import annotations

import pytest

from tests.offline.drawer_node import assert_drawer_says_what_the_server_says
from tests.rules.test_fuzz_all_games import random_legal_deal


@pytest.mark.parametrize("language", ["en", "lt"])
@pytest.mark.parametrize("seed", range(6))
def test_the_drawer_says_what_the_server_says(language: str, seed: int) -> None:
    kwargs, entries = random_legal_deal("michigan", seed * 2 + (language == "lt"))
    if seed == 0:
        # One deal of each kind for sure: a manual deal with a swap, a taken prize, a misplay
        # and then a prize that stays on its card.
        kwargs = {"players": 4, "dealer": 3, "options": {"notation": "lt"}}
        entries = [{"type": "exchange", "player": 0}, {"type": "prize", "card": "T♠", "player": 1},
                   {"type": "misplay", "player": 2}, {"type": "prize", "card": "K♣", "player": 2},
                   {"type": "out", "player": 3, "hand_counts": [2, 1, 5, 0]}]
    kinds = {entry["type"] for entry in entries}
    assert kinds & {"out", "play"}, kinds  # a whole deal, to its end
    assert_drawer_says_what_the_server_says("michigan", kwargs, entries, language)
