"""The referee on the tablet in real Chromium: a page loads the engine worker (Pyodide and the
archive served by the project itself), applies the seed Rūkas trick "3 9 9 V 4" and gets
the server's verdict; a refused trick reads as the server's refusal, in Lithuanian with the
players' names. A tablet holding an engine older than the server's loads the server's before
its next verdict (offline, it referees with the one it has)."""

from __future__ import annotations

import json
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee import offline_engine, services
from referee.models import Deal
from referee.rules import GAMES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED_TRICK = {"type": "trick", "cards": ["3", "9", "9", "V", "4"]}
NAMES = ["Ona", "Jonas", "Rūta", "Petras", "Asta"]

#: Runs in the page: the bridge module, one worker, the requests in order; every answer back.
ASK = """async ({requests, context}) => {
  const { createEngine } = await import("/static/js/offline/engine.js");
  const engine = createEngine({ context });
  const version = await engine.ready();
  const answers = [];
  for (const [method, ...args] of requests) answers.push(await engine[method](...args));
  engine.terminate();
  return { version, answers };
}"""


def test_the_worker_gives_the_servers_verdict_on_the_seed_trick(
    open_page: Any, club_setup: dict[str, Any], api: Any, built_engine: dict[str, Any]
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(
        club=club_setup["club"], game="rukas", user=scorer,
        players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]], options={"notation": "lt"},
    )
    deal = services.deal_start(session=session, user=scorer, dealer=4)
    before = dict(deal.state)

    page = open_page(scorer, language="lt")
    page.goto("/")
    context = {"names": NAMES, "language": "lt", "notation": "lt"}
    two_cards = {"type": "trick", "cards": ["3", "9"]}
    found = page.evaluate(ASK, {"requests": [["apply", before, SEED_TRICK], ["apply", before, two_cards]],
                                "context": context})
    assert page.js_errors == []
    assert found["version"] == built_engine["version"] == offline_engine.version()
    verdict, refused = found["answers"]

    client = api(scorer)
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "lt"
    refused_by_server = client.post(f"/api/deals/{deal.pk}/entries/", two_cards, format="json")
    stored = client.post(f"/api/deals/{deal.pk}/entries/", SEED_TRICK, format="json")
    assert (refused_by_server.status_code, stored.status_code) == (400, 201)
    assert refused == {"refusal": refused_by_server.json()}
    assert refused["refusal"] == {
        "error": "Kortos turi turėti 5 reikšmes, po vieną kiekvienai vietai; dabar – 2.", "code": "illegal_entry",
    }
    # The same snapshot the server stored, the same conclusion it answered: Petras (seat 3)
    # takes with the jack, the two nines cancel.
    assert verdict["snapshot"] == json.loads(json.dumps(Deal.objects.get(pk=deal.pk).state))
    assert verdict["view"]["last"]["taker"] == 3
    assert verdict["result"] == stored.json()["entry"]["result"]
    assert verdict["result"]["text"].startswith("Petras takes the trick with the jack")
    assert verdict["outcome"] is None


#: Runs in the page: an engine on the test's own manifest, loaded, and one verdict.
START = """async ({manifestURL, snapshot, entry}) => {
  const { createEngine } = await import("/static/js/offline/engine.js");
  window.engine = createEngine({ manifestURL, context: { names: ["Ona", "Jonas", "Rūta", "Petras", "Asta"],
                                                        language: "en", notation: "lt" } });
  const version = await window.engine.ready();
  const verdict = await window.engine.apply(snapshot, entry);
  return { version, taker: verdict.view.last.taker, snapshot: window.engine.timings.snapshot };
}"""

#: Runs in the page: the next verdict, and which engine gave it.
VERDICT = """async ({snapshot, entry}) => {
  const verdict = await window.engine.apply(snapshot, entry);
  return { version: window.engine.version, taker: verdict.view.last.taker };
}"""


@pytest.fixture
def engine_dir(built_engine: dict[str, Any]) -> Iterator[Path]:
    """A manifest directory of this test's own under static/offline/ (served like the real one;
    the real engine, which other tests load, is never touched)."""
    directory = offline_engine.OUTPUT / f"test-{uuid.uuid4().hex[:8]}"
    directory.mkdir()
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def test_a_tablet_holding_an_older_engine_loads_the_servers_before_its_next_verdict(
    open_page: Any, engine_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rukas = GAMES["rukas"]
    snapshot = rukas.to_dict(rukas.new_deal(players=5, dealer=4, options={"notation": "lt"}))
    ask = {"snapshot": snapshot, "entry": SEED_TRICK}
    old = _build_reusing_snapshot(engine_dir)
    page = open_page()
    page.goto("/login/")
    fetched: list[str] = []
    page.context.on("request", lambda request: fetched.append(request.url))
    url = f"/static/offline/{engine_dir.name}/engine.json"
    started = page.evaluate(START, {"manifestURL": url, **ask})
    assert started == {"version": old["version"], "taker": 3, "snapshot": True}

    # A deploy while the tablet is offline: the server now referees with another engine (the
    # same source under a new version, as a rebuilt archive would be) and serves its manifest.
    new_version = "0ff1ce0ff1ce0ff1"
    assert new_version != old["version"]
    monkeypatch.setattr(offline_engine, "version", lambda: new_version)
    page.context.set_offline(True)
    new = _build_reusing_snapshot(engine_dir)
    assert new["version"] == new_version
    assert not (engine_dir / old["archive"]).exists()  # only the new engine is served now
    # Offline, the tablet referees with the engine it has.
    assert page.evaluate(VERDICT, ask) == {"version": old["version"], "taker": 3}

    # Back online: the bridge asks the server, which names the new engine, and the very next
    # verdict comes from it: its manifest and snapshot were fetched first.
    fetched.clear()
    page.context.set_offline(False)
    page.wait_for_function("navigator.onLine")  # the browser's 'online' event has been sent
    assert page.evaluate(VERDICT, ask) == {"version": new_version, "taker": 3}, "\n".join(fetched)
    assert any(path.endswith("/api/engine/") for path in fetched), fetched
    assert any(path.endswith(f"/{engine_dir.name}/{new['snapshot']}") for path in fetched), fetched
    assert page.evaluate("window.engine.version") == new_version
    assert page.js_errors == []


def _build_reusing_snapshot(directory: Path) -> dict[str, Any]:
    """Build the engine into ``directory``; its memory snapshot is the real build's (the same
    source), copied under the version's name so as not to make it again."""
    real = json.loads((offline_engine.OUTPUT / "engine.json").read_text())
    name = offline_engine.snapshot_name(offline_engine.version(), real["pyodide"])
    if real.get("snapshot") and not (directory / name).exists():
        shutil.copyfile(offline_engine.OUTPUT / real["snapshot"], directory / name)
    return offline_engine.build(directory)


def test_a_snapshot_that_fails_its_check_is_not_used_and_python_starts_instead(
    open_page: Any, engine_dir: Path
) -> None:
    manifest = _build_reusing_snapshot(engine_dir)
    assert manifest["snapshot"]
    # The snapshot on the server is not the one the manifest vouches for (a partial upload, a
    # proxy's page): the worker must not restore it, and still referees.
    manifest["sha256"]["snapshot"] = "0" * 64
    (engine_dir / "engine.json").write_text(json.dumps(manifest))
    rukas = GAMES["rukas"]
    snapshot = rukas.to_dict(rukas.new_deal(players=5, dealer=4, options={"notation": "lt"}))
    page = open_page()
    page.goto("/login/")
    url = f"/static/offline/{engine_dir.name}/engine.json"
    started = page.evaluate(START, {"manifestURL": url, "snapshot": snapshot, "entry": SEED_TRICK})
    assert started == {"version": manifest["version"], "taker": 3, "snapshot": False}
