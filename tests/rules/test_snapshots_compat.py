"""Snapshots stored in the database stay readable: ``from_dict`` of what ``to_dict`` wrote.

Each literal below was written by ``to_dict`` (at commit c720551, before the engine's
errors module, the shared snapshot header and the typed views) for a deal part-way
through, and is kept verbatim. It must load, give the same picture as a state reached by
the same entries today, and be written back unchanged.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee.rules import GAMES

STORED: dict[str, dict[str, Any]] = {
    "michigan": (
        {
            "game": "michigan",
            "version": 1,
            "players": 3,
            "dealer": 2,
            "options": {
                "notation": "en",
                "prizes": ["AS", "KC", "QD", "JH"],
                "ante": 1,
                "dealer_ante": 2,
                "misplay_penalty": 1,
                "live": False,
                "pot": [2, 0, 1, 0],
            },
            "pot": [6, 0, 5, 4],
            "net": [1, -3, -10],
            "hand_sizes": [13, 13, 13],
            "extra_size": 13,
            "misplays": [0, 0, 1],
            "movements": [
                {"from": 2, "to": 0, "chips": 1, "reason": "misplay"},
                {"from": 2, "to": 1, "chips": 1, "reason": "misplay"},
                {"from": "KC", "to": 0, "chips": 4, "reason": "prize"},
            ],
            "prizes_played": [
                {"card": "AS", "player": 2, "chips": 6, "taken": False},
                {"card": "KC", "player": 0, "chips": 4, "taken": True},
            ],
            "exchanged": 1,
            "begun": True,
            "out_player": None,
            "hand_counts": None,
            "played": [],
            "played_count": [],
            "sequence": None,
            "starter": 0,
            "pending_starts": [],
            "last": {
                "kind": "prize",
                "player": 0,
                "card": "KC",
                "play": None,
                "flagged": None,
                "prize": {"card": "KC", "player": 0, "chips": 4, "taken": True},
                "penalties": 0,
            },
        }
    ),
    "michigan_live": (
        {
            "game": "michigan",
            "version": 1,
            "players": 3,
            "dealer": 0,
            "options": {
                "notation": "lt",
                "prizes": ["AS", "KC", "QD", "JH"],
                "ante": 1,
                "dealer_ante": 2,
                "misplay_penalty": 1,
                "live": True,
                "pot": [0, 0, 0, 0],
            },
            "pot": [4, 4, 4, 4],
            "net": [-10, -3, -3],
            "hand_sizes": [13, 13, 13],
            "extra_size": 13,
            "misplays": [1, 0, 0],
            "movements": [
                {"from": 0, "to": 1, "chips": 1, "reason": "misplay"},
                {"from": 0, "to": 2, "chips": 1, "reason": "misplay"},
            ],
            "prizes_played": [],
            "exchanged": None,
            "begun": True,
            "out_player": None,
            "hand_counts": None,
            "played": ["2S", "3S", "KS"],
            "played_count": [1, 1, 1],
            "sequence": "3S",
            "starter": 2,
            "pending_starts": [[0, 0, 0, 0], [2, 0, 0, 0], [0, 0, 0, 0]],
            "last": {
                "kind": "play",
                "player": 0,
                "card": "KS",
                "play": "misplay",
                "flagged": None,
                "prize": None,
                "penalties": 1,
            },
        }
    ),
    "velnias_running": (
        {"game": "velnias", "version": 1, "players": 3, "dealer": 1, "options": {"notation": "en"}, "ending": None}
    ),
    "velnias": (
        {
            "game": "velnias",
            "version": 1,
            "players": 3,
            "dealer": 1,
            "options": {"notation": "en"},
            "ending": {"condition": "last_card", "player": 0, "hand_counts": [3, 1, 5]},
        }
    ),
    "rukas": (
        {
            "game": "rukas",
            "version": 1,
            "players": 3,
            "dealer": 2,
            "options": {"seven_after_ace": "seven_takes", "void_trick": "carry", "notation": "en"},
            "leader": 0,
            "tricks_played": 2,
            "points": [1, 0, 1],
            "played": [["5", "A"], ["2", "5"], ["7", "9"]],
            "pending": 0,
            "void_tricks": 0,
            "lost": 0,
            "last": {"leader": 2, "cards": ["7", "A", "2"], "awarded": 1},
        }
    ),
    "cheat": (
        {
            "game": "cheat",
            "version": 1,
            "players": 3,
            "dealer": 2,
            "options": {"jokers": 2, "notation": "en"},
            "counts": [17, 17, 19],
            "pile": 1,
            "turn": 0,
            "announce": "2",
            "placed": {"player": 2, "rank": "A"},
            "out": [],
            "loser": None,
            "seen": [{"card": "2S", "seats": [2]}],
            "last": {
                "kind": "place",
                "player": 2,
                "rank": "A",
                "challenger": None,
                "revealed": None,
                "taker": None,
                "taken": 0,
                "went_out": [],
            },
        }
    ),
    "elgeta": (
        {
            "game": "elgeta",
            "version": 1,
            "players": 2,
            "dealer": 1,
            "options": {"suits": ["HD", "SC"], "all_aces": True, "strict_order": True, "notation": "en"},
            "piles": [
                {
                    "initial": [
                        "2D",
                        "2H",
                        "3D",
                        "3H",
                        "4D",
                        "4H",
                        "5H",
                        "6D",
                        "6H",
                        "7D",
                        "7H",
                        "8D",
                        "8H",
                        "9D",
                        "9H",
                        "10D",
                        "10H",
                        "JD",
                        "JH",
                        "QD",
                        "KD",
                        "KH",
                        "AD",
                    ],
                    "captured": ["AH", "KS", "5D", "5C", "QH", "2S"],
                },
                {
                    "initial": [
                        "2C",
                        "3S",
                        "3C",
                        "4S",
                        "4C",
                        "5S",
                        "6S",
                        "6C",
                        "7S",
                        "7C",
                        "8S",
                        "8C",
                        "9S",
                        "9C",
                        "10S",
                        "10C",
                        "JS",
                        "JC",
                        "QS",
                        "QC",
                        "KC",
                        "AS",
                        "AC",
                    ],
                    "captured": [],
                },
            ],
            "leader": 0,
            "tricks": 2,
            "out_at": [None, None],
            "table": [],
            "last": {"order": [0, 1], "rounds": [["5D", "5C"], ["QH", "2S"]], "taker": 0, "out": []},
            "result": None,
            "projection": None,
        }
    ),
}


#: Options a game gained after the literal above was written: an old snapshot reads as their
#: default (Elgeta's E5 deck: every deal before it was of the full 52 cards) and is written
#: back with it, everything else unchanged.
OPTIONS_ADDED_SINCE: dict[str, dict[str, Any]] = {"elgeta": {"deck": 52}}


@pytest.mark.parametrize("name", sorted(STORED))
def test_a_stored_snapshot_loads_and_is_written_back_unchanged(name: str) -> None:
    data = STORED[name]
    game = GAMES[data["game"]]
    state = game.from_dict(data)
    added = OPTIONS_ADDED_SINCE.get(name, {})
    assert game.to_dict(state) == {**data, "options": {**data["options"], **added}}
    assert game.from_dict(json.loads(json.dumps(game.to_dict(state)))) == state
    json.dumps(game.view(state))
