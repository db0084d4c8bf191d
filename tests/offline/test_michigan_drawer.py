"""The Mičiganas drawer (static/js/table/games/michigan.js) says what the server says: for
random whole legal deals (manual and live mode, both notations, English and Lithuanian), after
every entry its verdict sentences are the server's explain() word for word, and its entry line
is the server's describe_entry(). Node runs the drawer on the engine's views with the words
offline_text() gives it, as the tablet does (tests/offline/run_drawer.mjs)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from django.utils import translation

from referee.games import PAGES
from referee.pages.table_offline_text import table_offline_text
from referee.rules import GAMES
from tests.conftest import need
from tests.rules.test_fuzz_all_games import random_legal_deal

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Ona", "Jonas", "Rūta", "Petras", "Eglė", "Tomas", "Aldona", "Vytas"]


def run_drawer(request: dict[str, Any]) -> list[dict[str, Any]]:
    node = shutil.which("node")
    need(node is not None, "needs Node.js (apt-get install nodejs npm) to run the tablet's drawer")
    assert node is not None
    done = subprocess.run(
        [node, "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", str(Path(__file__).with_name("run_drawer.mjs"))],
        input=json.dumps(request), cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    answers: list[dict[str, Any]] = json.loads(done.stdout)
    return answers


@pytest.mark.parametrize("language", ["en", "lt"])
@pytest.mark.parametrize("seed", range(6))
def test_the_drawer_says_what_the_server_says(language: str, seed: int) -> None:
    game, pages = GAMES["michigan"], PAGES["michigan"]
    kwargs, entries = random_legal_deal("michigan", seed * 2 + (language == "lt"))
    if seed == 0:
        # One deal of each kind for sure: a manual deal with a swap, a taken prize, a misplay
        # and then a prize that stays on its card.
        kwargs = {"players": 4, "dealer": 3, "options": {"notation": "lt"}}
        entries = [{"type": "exchange", "player": 0}, {"type": "prize", "card": "T♠", "player": 1},
                   {"type": "misplay", "player": 2}, {"type": "prize", "card": "K♣", "player": 2},
                   {"type": "out", "player": 3, "hand_counts": [2, 1, 5, 0]}]
    names = NAMES[:kwargs["players"]]
    notation = kwargs["options"].get("notation", "en")
    state = game.new_deal(**kwargs)
    cases, expected = [], []
    with translation.override(language):
        for entry in entries:
            state = game.apply(state, entry)
            view = json.loads(json.dumps(game.view(state)))
            cases.append({"view": view, "payload": entry})
            expected.append({"sentences": pages.explain_last(view, names, notation),
                             "describe": pages.describe_entry(entry, None, names, notation)})
        text = table_offline_text(pages)
    kinds = {entry["type"] for entry in entries}
    assert kinds & {"out", "play"}, kinds  # a whole deal, to its end
    answers = run_drawer({"game": "michigan", "language": language, "notation": notation,
                          "text": text, "names": names, "cases": cases})
    for number, (answer, wanted) in enumerate(zip(answers, expected, strict=True), start=1):
        assert answer == wanted, f"entry {number}: {entries[number - 1]}"
