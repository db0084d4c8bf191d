"""The Elgeta drawer (static/js/table/games/elgeta.js) says and fills in what the server does:
for random whole legal deals (two to four players, both notations, English and Lithuanian, the
cards typed every way the referee reads them), after every entry its verdict sentences are the
server's explain() word for word, its entry line is describe_entry(), its forecast is the
screen's, and its trick form's rounds (the cards the referee knows, the cards a seat may turn)
are trick_rows()'; and for every tie, the tie-break round it adds is the one refusal_hint() adds.
Node runs the drawer with the words offline_text() gives it, as the tablet does."""

from __future__ import annotations

import random
from typing import Any

import pytest
from django.utils import translation

from bench.elgeta_play import shuffled_piles, tricks
from referee.games import PAGES
from referee.games.elgeta import _forecast, trick_rows
from referee.rules import GAMES, IllegalEntry
from referee.rules.cards import RANK_TEXT_LT, SUIT_NAMES_LT, SUIT_SYMBOLS, card_from_text
from tests.offline import drawer_node
from tests.offline.drawer_node import NAMES as ALL_NAMES
from tests.offline.drawer_node import plain
from tests.rules.test_fuzz_all_games import random_legal_deal
from web.pages.table_offline_text import table_offline_text

NAMES = ALL_NAMES[:4]
GAME, PAGES_ELGETA = GAMES["elgeta"], PAGES["elgeta"]


def run_drawer(request: dict[str, Any]) -> list[Any]:
    return drawer_node.run_drawer(request, "run_elgeta_drawer.mjs", timeout=300)


def typed_lt(card: str | None, rng: random.Random) -> str | None:
    """A canonical card as a Lithuanian scorer may type it: symbol after or before, the suit's
    word (whole, its first three letters, glued, either side, any case, with or without diacritics)."""
    if card is None:
        return None
    parsed = card_from_text(card)
    rank, suit = RANK_TEXT_LT[parsed.rank], str(parsed.suit)
    word = SUIT_NAMES_LT[suit]
    plain = word.replace("ž", "z").replace("ū", "u").replace("š", "s")
    return rng.choice([rank + SUIT_SYMBOLS[suit], SUIT_SYMBOLS[suit] + rank, f"{rank} {word}", f"{word.upper()} {rank}",
                       rank + plain[:3], f"{rank.lower()} {plain}"])


def lt_deal(seed: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A whole deal in Lithuanian notation, its cards typed in every way the referee reads."""
    rng = random.Random(seed)
    players = 2 + seed % 3
    suits = {2: ["HD", "SC"], 3: ["S", "C", "D"], 4: ["S", "C", "D", "H"]}[players]
    dealer = rng.randrange(players)
    kwargs = {"players": players, "dealer": dealer, "options": {"suits": suits, "notation": "lt"}}
    state = GAME.new_deal(**kwargs)
    entries = []
    for entry in tricks(players, dealer, shuffled_piles(players, rng, suits)):
        typed = {"type": "trick", "rounds": [[typed_lt(card, rng) for card in cards] for cards in entry["rounds"]]}
        state = GAME.apply(state, typed)
        entries.append(typed)
        if GAME.view(state)["finished"] or len(entries) >= 400:
            break
    return kwargs, entries


@pytest.mark.parametrize("language", ["en", "lt"])
@pytest.mark.parametrize("seed", range(4))
def test_the_drawer_says_and_fills_in_what_the_server_does(language: str, seed: int) -> None:
    kwargs, entries = lt_deal(seed) if seed % 2 else random_legal_deal("elgeta", seed + (language == "lt"))
    names = NAMES[: kwargs["players"]]
    notation = kwargs["options"].get("notation", "en")
    state = GAME.new_deal(**kwargs)
    cases: list[dict[str, Any]] = []
    expected: list[Any] = []
    ties = 0
    with translation.override(language):
        for entry in entries:
            before, before_view = plain(GAME.to_dict(state)), plain(GAME.view(state))
            # Each tie the trick went through: the referee asks for the next round.
            for number in range(1, len(entry.get("rounds", []))):
                partial = {"type": "trick", "rounds": entry["rounds"][:number]}
                with pytest.raises(IllegalEntry) as tie:
                    GAME.apply(state, partial)
                assert tie.value.params.get("next") == number + 1
                cases.append({"hint": {"view": before_view, "snapshot": before, "number": number + 1,
                                       "payload": partial}})
                expected.append(PAGES_ELGETA.refusal_hint(before, notation, tie.value.params, partial))
                ties += 1
            state = GAME.apply(state, entry)
            view, snapshot = plain(GAME.view(state)), plain(GAME.to_dict(state))
            forecast = list(_forecast(view["forecast"], names))
            cases.append({"view": view, "snapshot": snapshot, "payload": entry})
            expected.append({
                "sentences": PAGES_ELGETA.explain_last(view, names, notation),
                "describe": PAGES_ELGETA.describe_entry(entry, None, names, notation),
                "forecast": forecast,
                "rows": None if view["finished"] else trick_rows(snapshot, view, names, notation),
            })
        text = table_offline_text(PAGES_ELGETA)
    assert ties, "the deal had a tie-break"
    answers = run_drawer({"language": language, "notation": notation, "text": text, "names": names, "cases": cases})
    for number, (answer, wanted) in enumerate(zip(answers, expected, strict=True), start=1):
        case = cases[number - 1]
        assert answer == wanted, f"case {number} of {len(cases)}: {case.get('payload') or case['hint']['payload']}"


def test_a_finish_from_the_forecast_reads_as_on_the_server() -> None:
    """A deal played until it is determined, then finished: the finish's sentences and line."""
    piles = shuffled_piles(2, random.Random(7))
    cases, expected = [], []
    for language in ("en", "lt"):
        played = tricks(2, 1, piles)
        state = GAME.new_deal(players=2, dealer=1, options={})
        while GAME.view(state)["forecast"] is None or not GAME.view(state)["forecast"]["settled"]:
            state = GAME.apply(state, next(played))
        state = GAME.apply(state, {"type": "finish"})
        view = plain(GAME.view(state))
        with translation.override(language):
            expected.append({"sentences": PAGES_ELGETA.explain_last(view, NAMES[:2], "en"),
                             "describe": PAGES_ELGETA.describe_entry({"type": "finish"}, None, NAMES[:2], "en"),
                             "forecast": [None, False], "rows": None})
            text = table_offline_text(PAGES_ELGETA)
        snapshot = plain(GAME.to_dict(state))
        cases.append({"language": language, "notation": "en", "text": text, "names": NAMES[:2],
                      "cases": [{"view": view, "snapshot": snapshot, "payload": {"type": "finish"}}]})
    for request, wanted in zip(cases, expected, strict=True):
        assert run_drawer(request) == [wanted]
    assert expected[0]["sentences"][0] == "Finished from the forecast."
