"""Elgeta's deck on the tablet (E5): a deal the tablet starts from the deal before takes its
options from that deal's snapshot (static/js/table/offline-deal.js), so a session of the 36-card
deck goes on with it offline, and a card outside it is refused there as the server refuses it."""

from __future__ import annotations

import json
from typing import Any

from referee import tablet_engine
from referee.rules import GAMES


def ask(request: dict[str, Any]) -> dict[str, Any]:
    return json.loads(tablet_engine.handle(json.dumps(request)))  # as the worker carries it


def test_the_next_deal_on_the_tablet_keeps_the_36_card_deck() -> None:
    game = GAMES["elgeta"]
    before = game.to_dict(game.new_deal(players=4, dealer=3, options={"deck": 36, "suits": ["S", "D", "H", "C"]}))
    assert before["options"]["deck"] == 36
    # offline-deal.js: { game, players, dealer, options: state.snapshot.options }
    answer = ask({"op": "new_deal", "game": "elgeta", "players": 4, "dealer": 0, "options": before["options"]})
    assert answer["view"]["counts"] == [9, 9, 9, 9]
    assert answer["view"]["options"]["deck"] == 36
    refused = ask({"op": "apply", "snapshot": answer["snapshot"],
                   "entry": {"type": "trick", "rounds": [["5D", "10H", "8C", "AS"]]},
                   "context": {"language": "en", "names": ["Ona", "Jonas", "Rūta", "Petras"]}})
    assert refused["refusal"]["error"] == "The 5D is not in this deal: the 36-card deck has only the ranks 6 to A."
