"""A deal started on the tablet takes what the finished deal hands on (the rules' carry_over),
as the server's deal start does: referee/tablet_engine.py's new_deal with ``previous``."""

from __future__ import annotations

import json
from typing import Any

from referee import tablet_engine
from referee.rules import GAMES


def ask(request: dict[str, Any]) -> dict[str, Any]:
    return json.loads(tablet_engine.handle(json.dumps(request)))  # as the worker carries it


def test_the_chips_left_on_the_prize_cards_go_into_the_next_deal_started_on_the_tablet() -> None:
    game = GAMES["michigan"]
    state = game.new_deal(players=4, dealer=3, options={})
    state = game.apply(state, {"type": "prize", "card": "AS", "player": 1})
    state = game.apply(state, {"type": "out", "player": 2, "hand_counts": [3, 2, 0, 1]})
    previous = game.to_dict(state)
    assert game.pot_after(state) == {"AS": 0, "KC": 5, "QD": 5, "JH": 5}

    answer = ask({"op": "new_deal", "game": "michigan", "players": 4, "dealer": 0,
                  "options": previous["options"], "previous": previous})
    server = game.new_deal(players=4, dealer=0, options=game.carry_over(state))
    assert answer["snapshot"] == json.loads(json.dumps(game.to_dict(server)))
    assert answer["view"]["pot_before"] == {"AS": 0, "KC": 5, "QD": 5, "JH": 5}
    # Without the finished deal the chips would be lost: the snapshot's options alone do not carry them.
    assert ask({"op": "new_deal", "game": "michigan", "players": 4, "dealer": 0,
                "options": {}})["view"]["pot_before"] == {"AS": 0, "KC": 0, "QD": 0, "JH": 0}


def test_a_game_that_hands_nothing_on_starts_the_same_with_or_without_the_previous_deal() -> None:
    game = GAMES["velnias"]
    state = game.apply(game.new_deal(players=4, dealer=0, options={}),
                       {"type": "end", "condition": "blocked", "player": None, "hand_counts": [1, 2, 3, 4]})
    previous = game.to_dict(state)
    request = {"op": "new_deal", "game": "velnias", "players": 4, "dealer": 1, "options": previous["options"]}
    assert ask({**request, "previous": previous}) == ask(request)
