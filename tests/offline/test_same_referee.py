"""The tablet referees exactly as the server does: the engine under Pyodide (through Node, the
archive built from the source as ``make setup`` builds it) against the engine on the server.

Both ways the tablet's worker starts are held to it: from the memory snapshot ``build_engine``
makes (what a tablet runs), and Python started afresh with the archive imported (its way when
the snapshot cannot be used).

For random whole legal deals of every game the engine ships (the playout simulators of
tests/rules; fresh seeds each run, fixed by ``SAME_REFEREE_SEED=<n>``, and named in a failure):

* the whole deal recorded entry by entry, each entry applied to the snapshot the tablet itself
  answered for the one before (read back by JavaScript, as the screen does): after every entry,
  the server's snapshot, view, outcome and result;
* the whole deal replayed under Pyodide ends in the server's snapshot, view and outcome;
* at sampled points, one entry applied to the server's snapshot gives the server's next one;
* corrupted entries (a card nobody can write, an unknown type, a missing field, an extra
  card, a number out of range, an entry after the end) get the server's answer: the same
  refusal, word for word, as ``refusal_from`` renders it for the session's players, language
  and notation, or, when the change happens to be legal, the same snapshot;
* a deal that cannot start is refused alike.

All requests go to one Node process, so Pyodide loads once.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from django.utils import translation

from referee.rules import GAMES, IllegalEntry
from referee.selectors import with_names
from referee.services import refusal_from
from tests.offline.engine_node import EngineUnderNode, require_node
from tests.rules.test_fuzz_all_games import random_legal_deal

#: Every game the engine ships: those of referee/rules (a test may register another game in
#: this process; the tablet's archive cannot know it).
SLUGS = sorted(slug for slug, game in GAMES.items() if type(game).__module__.startswith("referee.rules."))
#: Fresh deals each run; a failure names the seed to run it again with.
SEED = int(os.environ.get("SAME_REFEREE_SEED") or random.SystemRandom().randrange(10**6))
DEALS_PER_GAME = 6
STEPS_PER_DEAL = 6
NAMES = ["Ona", "Jonas", "Rūta", "Petras", "Eglė", "Tomas", "Aldona", "Vytas", "Daiva", "Karolis"]


def plain(value: Any) -> Any:
    """As JSON carries it (tuples become lists)."""
    return json.loads(json.dumps(value))


def applied(game: Any, state: Any, names: list[str]) -> dict[str, Any]:
    outcome = game.outcome(state)
    view = game.view(state)
    outcome_view = outcome.view() if outcome else None
    result = with_names(plain(view.get("last")), names)  # what the API answers as the entry's result
    return plain({"snapshot": game.to_dict(state), "view": view, "outcome": outcome_view, "result": result})


def server_answer(request: dict[str, Any]) -> dict[str, Any]:
    """What the server does with the same request: its engine, and its refusal rendering."""
    game = GAMES[request["game"]]
    context = request["context"]
    at = None
    try:
        if request["op"] in ("replay", "new_deal"):
            state = game.new_deal(players=request["players"], dealer=request["dealer"], options=request["options"])
            for index, entry in enumerate(request.get("entries", [])):
                at = index
                state = game.apply(state, entry)
            return applied(game, state, context["names"]) if request["op"] == "replay" else plain(
                {"snapshot": game.to_dict(state), "view": game.view(state)}
            )
        return applied(game, game.apply(game.from_dict(request["snapshot"]), request["entry"]), context["names"])
    except IllegalEntry as error:
        session = SimpleNamespace(game=game.slug, notation=context["notation"])
        with translation.override(context["language"]):
            refusal = refusal_from(error, session, names=context["names"])  # type: ignore[arg-type]
        answer: dict[str, Any] = {"refusal": {"error": refusal.message, "code": refusal.code}}
        return answer if at is None else {**answer, "at": at}


def corruptions(entry: Any) -> list[Any]:
    """The legal entry with one thing broken, whatever the game's entry looks like."""
    broken: list[Any] = [{"type": "bogus"}, {**entry, "type": "Trick "} if isinstance(entry, dict) else "junk"]
    if not isinstance(entry, dict):
        return broken
    for key, value in entry.items():
        if key == "type":
            continue
        if isinstance(value, list) and value:
            broken.append({**entry, key: [*value, value[0]]})
            broken.append({**entry, key: ["ZZ" if isinstance(item, str) else 99 for item in value]})
        elif isinstance(value, str):
            broken.append({**entry, key: "ZZ"})
        elif isinstance(value, int) and not isinstance(value, bool):
            broken.append({**entry, key: 99})
        broken.append({k: v for k, v in entry.items() if k != key})
    broken.append({**entry, "x": 1})
    return broken


def server_chain(request: dict[str, Any]) -> list[dict[str, Any]]:
    """The server's answer to each step of a whole deal: the new deal's, then each entry's."""
    game = GAMES[request["game"]]
    state = game.new_deal(players=request["players"], dealer=request["dealer"], options=request["options"])
    steps = [plain({"snapshot": game.to_dict(state), "view": game.view(state)})]
    for entry in request["entries"]:
        state = game.apply(state, entry)
        steps.append(applied(game, state, request["context"]["names"]))
    return steps


def requests_for(slug: str, seed: int) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    game = GAMES[slug]
    kwargs, entries = random_legal_deal(slug, seed)
    options = kwargs["options"]
    context = {
        "names": NAMES[: kwargs["players"]],
        "language": rng.choice(["lt", "en"]),
        "notation": "lt" if options.get("notation") == "lt" else "en",
    }
    start = {"game": slug, "context": context, **kwargs}
    # "op" first: the runner tells a chain by the line's start.
    found = [{"op": "chain", **start, "entries": entries}, {"op": "replay", **start, "entries": entries},
             {"op": "new_deal", **start}]
    states = [game.new_deal(**kwargs)]
    for entry in entries:
        states.append(game.apply(states[-1], entry))
    for step in sorted(rng.sample(range(len(entries)), min(STEPS_PER_DEAL, len(entries)))):
        snapshot = plain(game.to_dict(states[step]))
        for entry in [entries[step], *rng.sample(corruptions(entries[step]), 3)]:
            found.append({"op": "apply", "game": slug, "context": context, "snapshot": snapshot, "entry": entry})
    after_end = plain(game.to_dict(states[-1]))
    found.append({"op": "apply", "game": slug, "context": context, "snapshot": after_end, "entry": entries[-1]})
    found.append({"op": "new_deal", **start, "players": game.max_players + 1})
    found.append({"op": "new_deal", **start, "options": {**options, "notation": "klingon"}})
    return found


@pytest.fixture(scope="module", params=["snapshot", "started"])
def engine(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> EngineUnderNode:
    """The engine as the tablet starts it from the build's snapshot, or with Python started afresh."""
    build_dir = Path(tmp_path_factory.mktemp("engine"))
    return EngineUnderNode(require_node(), build_dir, snapshot=request.param == "snapshot")


def test_the_tablet_engine_answers_every_request_as_the_server_does(engine: EngineUnderNode) -> None:
    seeds = {slug: [SEED + index for index in range(DEALS_PER_GAME)] for slug in SLUGS}
    requests = [request for slug in SLUGS for seed in seeds[slug] for request in requests_for(slug, seed)]
    answers = engine.answers(requests)
    # The engine the tablet runs knows every game the server's engine ships, and no other.
    assert engine.games == SLUGS
    refusals = chains = 0
    for request, answer in zip(requests, answers, strict=True):
        where = f"SAME_REFEREE_SEED={SEED}: {request['game']} {request['op']} {request.get('entry')}"
        if request["op"] == "chain":
            expected_steps = server_chain(request)
            assert len(answer) == len(expected_steps), where
            for step, (got, expected_step) in enumerate(zip(answer, expected_steps, strict=True)):
                assert got == expected_step, f"{where}: after entry {step} of {len(request['entries'])}"
            assert expected_steps[-1]["outcome"] is not None, f"{where}: the deal was not whole"
            chains += 1
            continue
        expected = server_answer(request)
        assert answer == expected, where
        refusals += "refusal" in expected
    assert chains == len(SLUGS) * DEALS_PER_GAME
    # The corruptions did reach the referee's refusals (not only lucky legal mutants), in every game.
    assert refusals >= len(SLUGS) * DEALS_PER_GAME * 3
    refused_games = {r["game"] for r, a in zip(requests, answers, strict=True) if r["op"] == "apply" and "refusal" in a}
    assert refused_games == set(SLUGS)


def test_a_refusal_reads_as_on_the_server_in_lithuanian_with_the_players_names(engine: EngineUnderNode) -> None:
    context = {"names": ["Ona", "Jonas", "Rūta", "Petras", "Eglė"], "language": "lt", "notation": "lt"}
    start = {"game": "rukas", "players": 5, "dealer": 4, "options": {"notation": "lt"}, "context": context}
    seed_trick = {"type": "trick", "cards": ["3", "9", "9", "V", "4"]}
    two_cards = {"type": "trick", "cards": ["3", "9"]}
    answers = engine.answers([{"op": "replay", **start, "entries": [seed_trick]},
                              {"op": "replay", **start, "entries": [seed_trick, two_cards]}])
    assert answers[0]["view"]["last"]["taker"] == 3
    assert answers[0]["snapshot"]["points"] == [0, 0, 0, 1, 0]
    assert answers[1] == server_answer({"op": "replay", **start, "entries": [seed_trick, two_cards]})
    assert answers[1]["at"] == 1
    assert answers[1]["refusal"]["code"] == "illegal_entry"
    assert answers[1]["refusal"]["error"] == "Kortos turi turėti 5 reikšmes, po vieną kiekvienai vietai; dabar – 2."
