"""The shared harness of the drawer tests (tests/offline/test_<game>_drawer.py): the server's
verdicts for a whole deal, entry after entry, and the tablet's drawer run under Node on the same
views with the words offline_text() gives it, as the tablet does (run_drawer.mjs, or a game's own
runner when its drawer has more to check)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from django.utils import translation

from referee.games import PAGES
from referee.rules import GAMES
from tests.conftest import need
from web.pages.table_offline_text import table_offline_text

ROOT = Path(__file__).resolve().parents[2]
NAMES = ["Ona", "Jonas", "Rūta", "Petras", "Eglė", "Tomas", "Aldona", "Vytas"]


def plain(value: Any) -> Any:
    """The value as the tablet receives it: through JSON."""
    return json.loads(json.dumps(value))


def run_drawer(request: dict[str, Any], runner: str = "run_drawer.mjs", timeout: int = 120) -> list[Any]:
    """The runner's answers, one per case of ``request``; skips (locally) or fails (CI) without Node."""
    node = shutil.which("node")
    need(node is not None, "needs Node.js (apt-get install nodejs npm) to run the tablet's drawer")
    assert node is not None
    done = subprocess.run(
        [node, "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", str(Path(__file__).with_name(runner))],
        input=json.dumps(request), cwd=ROOT, capture_output=True, text=True, timeout=timeout, check=False,
    )
    assert done.returncode == 0, done.stderr
    answers: list[Any] = json.loads(done.stdout)
    return answers


def server_verdicts(
    slug: str, kwargs: dict[str, Any], entries: list[dict[str, Any]], language: str
) -> dict[str, Any]:
    """The request for run_drawer.mjs (a case per entry: the view after it and its payload) and,
    per entry, what the server says: ``{"sentences": explain_last, "describe": describe_entry}``."""
    game, pages = GAMES[slug], PAGES[slug]
    names = NAMES[: kwargs["players"]]
    notation = kwargs["options"].get("notation", "en")
    state = game.new_deal(**kwargs)
    cases, expected = [], []
    with translation.override(language):
        for entry in entries:
            state = game.apply(state, entry)
            view = plain(game.view(state))
            cases.append({"view": view, "payload": entry})
            expected.append({"sentences": pages.explain_last(view, names, notation),
                             "describe": pages.describe_entry(entry, None, names, notation)})
        text = table_offline_text(pages)
    request = {"game": slug, "language": language, "notation": notation, "text": text, "names": names,
               "cases": cases}
    return {"request": request, "expected": expected}


Deal = tuple[dict[str, Any], list[dict[str, Any]]]


def assert_drawer_says_what_the_server_says(slug: str, kwargs: dict[str, Any], entries: list[dict[str, Any]],
                                            language: str) -> list[dict[str, Any]]:
    """Runs the drawer on every entry of the deal and compares; returns the server's verdicts."""
    return assert_deals(slug, [(kwargs, entries)], language)[0]


def assert_deals(slug: str, deals: list[Deal], language: str) -> list[list[dict[str, Any]]]:
    """As :func:`assert_drawer_says_what_the_server_says` for many deals, one Node run for all
    the deals with the same players and notation (the request's names and notation)."""
    verdicts = [server_verdicts(slug, kwargs, entries, language) for kwargs, entries in deals]
    groups: dict[tuple[int, str], list[int]] = {}
    for number, (kwargs, _entries) in enumerate(deals):
        groups.setdefault((kwargs["players"], kwargs["options"].get("notation", "en")), []).append(number)
    for numbers in groups.values():
        request = dict(verdicts[numbers[0]]["request"])
        request["cases"] = [case for number in numbers for case in verdicts[number]["request"]["cases"]]
        answers = iter(run_drawer(request))
        for number in numbers:
            kwargs, entries = deals[number]
            for step, wanted in enumerate(verdicts[number]["expected"], start=1):
                answer = next(answers)
                assert answer == wanted, f"{slug} {kwargs}, entry {step} of {len(entries)}: {entries[step - 1]}"
        assert next(answers, None) is None, "the drawer answered more cases than were asked"
    return [verdict["expected"] for verdict in verdicts]
