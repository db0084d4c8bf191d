"""The referee on the tablet in real Chromium: a page loads the engine worker (Pyodide and the
archive served by the project itself), applies the seed Rūkas trick "3 9 9 V 4" and gets
the server's verdict; a refused trick reads as the server's refusal, in Lithuanian with the
players' names."""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee import offline_engine, services
from referee.models import Deal
from tests.conftest import need

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


@pytest.fixture
def built_engine() -> dict[str, Any]:
    need((offline_engine.PYODIDE / "pyodide.mjs").is_file(), "needs node_modules/pyodide: run `make setup` (npm ci)")
    return offline_engine.build()


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
