"""The tablet's engine knows the session's plan: the Web Worker's ``plan`` request answers the
standing the server's deal screen shows (``scoring.plans.deal_plan`` folds the same deals through
the same pure module), and what the next deal started offline goes on from."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee import tablet_engine
from referee.rules import GAMES
from referee.rules.plan import Plan, progress, standing
from tests.offline.engine_node import EngineUnderNode, require_node

DEALS = [[-1, 0, 0], [0, -1, 0]]


def request(points: list[int] | None, running: int | None = None, played_on_after: int | None = None) -> dict:
    before = progress(DEALS, Plan("target", 2), GAMES["cheat"].unit, 3)
    return {"op": "plan", "game": "cheat", "plan": {"target": 2}, "before": before.view(), "points": points,
            "running": running, "played_on_after": played_on_after}


def test_a_finished_deal_advances_the_standing_as_the_server_folds_it() -> None:
    """Cheat's target counts losses on the tablet too: Ona's second loss reaches it."""
    answer = tablet_engine.answer(request([-1, 0, 0]))
    whole = progress([*DEALS, [-1, 0, 0]], Plan("target", 2), GAMES["cheat"].unit, 3)
    assert answer["after"] == whole.view()
    assert answer["standing"] == standing(Plan("target", 2), whole).view()
    assert (answer["standing"]["reached"], answer["standing"]["close_first"]) == (True, True)
    assert answer["standing"]["phrases"] == [{"key": "target_reached", "count": 2, "numbers": {}, "seats": [0],
                                              "goal": 2}]


def test_a_running_deal_and_the_choice_to_play_on() -> None:
    running = tablet_engine.answer(request(None, running=3))["standing"]
    assert (running["reached"], running["deal"], running["needs"], running["leaders"]) == (False, 3, 1, [0, 1])
    chosen = tablet_engine.answer(request([-1, 0, 0], played_on_after=3))["standing"]
    assert (chosen["played_on"], chosen["close_first"]) == (True, False)


def test_a_bad_plan_request_is_a_failure_not_a_crash() -> None:
    assert "failure" in tablet_engine.answer({**request(None), "plan": {"deals": 0}})


@pytest.mark.slow
def test_the_plan_under_pyodide(tmp_path: Path) -> None:
    """The same answer from the engine the tablet runs (Pyodide, through Node)."""
    engine = EngineUnderNode(require_node(), tmp_path)
    asked = [request([-1, 0, 0]), request(None, running=3)]
    assert engine.answers(asked) == [tablet_engine.answer(r) for r in asked]
