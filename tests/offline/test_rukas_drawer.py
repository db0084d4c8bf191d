"""The Rūkas drawer (static/js/table/games/rukas.js) says what the server says: for random whole
deals of every player count (2 to 8), both notations, both house rules that change the verdict
(R1 seven_after_ace, R2 void_trick: a trick nobody takes is void or carried), English and
Lithuanian, after every trick its verdict sentences are the server's explain() word for word and
its entry line is describe_entry(). Node runs the drawer on the engine's views with the words
offline_text() gives it, as the tablet does (tests/offline/drawer_node.py, run_drawer.mjs)."""

from __future__ import annotations

import itertools
import random
from typing import Any

import pytest

from referee.rules import GAMES
from referee.rules.cards import RANK_TEXT_EN, RANK_TEXT_LT
from tests.offline.drawer_node import assert_deals, server_verdicts
from tests.rules.playout_rukas import random_deal

#: Every combination of the options that change the sentences, for each player count.
OPTIONS = [
    {"notation": notation, "void_trick": void_trick, "seven_after_ace": seven}
    for notation, void_trick, seven in itertools.product(("en", "lt"), ("void", "carry"),
                                                          ("seven_takes", "next_highest"))
]


def deals(players: int, language: str) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """A whole random deal under each combination of options, the cards sometimes padded with
    spaces as a scorer may type them (the entry line tidies them)."""
    rng = random.Random(f"rukas {players} {language}")
    found = []
    for options in OPTIONS:
        kwargs, entries = random_deal(rng, players, dict(options))
        for entry in entries:
            entry["cards"] = [rng.choice(["", " "]) + card + rng.choice(["", "  "]) for card in entry["cards"]]
        found.append((kwargs, entries))
    return found


@pytest.mark.parametrize("language", ["en", "lt"])
@pytest.mark.parametrize("players", range(2, 9))
def test_the_drawer_says_what_the_server_says(players: int, language: str) -> None:
    played = deals(players, language)
    assert all(len(entries) == 13 for _kwargs, entries in played)  # whole deals
    verdicts = assert_deals("rukas", played, language)
    assert sum(map(len, verdicts)) == 13 * len(OPTIONS)


#: The words of each kind of sentence (in English), each of which some deal must say.
KINDS = {
    "beaten": "beat the ace of", "cancel": "cancel each other", "chain": "one rank lower",
    "nobody": "no card is left in play", "highest": "is the highest card in play",
    "stops": "is in play to take from", "ace": "the ace stands",
}
KINDS_BY_RULE = {
    ("void_trick", "void"): {"void": "reveals first again."},
    ("void_trick", "carry"): {"carried": "carried point.", "carried_many": "carried points.",
                              "lost": "The pending points are lost", "waits": "pending)."},
    ("seven_after_ace", "seven_takes"): {"seven": "the 7 that beat the ace would take the trick"},
}


def covering_deals(options: dict[str, str]) -> list[tuple[dict[str, Any], list[dict[str, Any]]]]:
    """Random whole deals (two to four players) under the options, enough of them that every
    kind of sentence the options allow is said at least once (chosen by the server's words)."""
    wanted = dict(KINDS)
    for rule, choice in options.items():
        wanted.update(KINDS_BY_RULE.get((rule, choice), {}))
    rng = random.Random(f"rukas kinds {sorted(options.items())}")
    chosen: list[tuple[dict[str, Any], list[dict[str, Any]]]] = []
    for _attempt in range(3000):
        if not wanted:
            return chosen
        kwargs, entries = random_deal(rng, rng.choice([2, 2, 3, 4]), dict(options))
        said = " ".join(" ".join(verdict["sentences"]) for verdict in
                        server_verdicts("rukas", kwargs, entries, "en")["expected"])
        news = [kind for kind, words in wanted.items() if words in said]
        if news:
            chosen.append((kwargs, entries))
            for kind in news:
                del wanted[kind]
    raise AssertionError(f"no random deal said {sorted(wanted)}")


@pytest.mark.parametrize("language", ["en", "lt"])
@pytest.mark.parametrize("options", OPTIONS[:4], ids=lambda options: "-".join(options.values()))
def test_every_kind_of_verdict_reads_as_on_the_server(options: dict[str, str], language: str) -> None:
    """Every sentence the drawer can say, said at least once and compared (English-notation deals;
    the random deals above hold both notations)."""
    assert_deals("rukas", covering_deals(options), language)


@pytest.mark.parametrize("language", ["en", "lt"])
@pytest.mark.parametrize("notation", ["en", "lt"])
def test_ten_carried_points_read_as_on_the_server(notation: str, language: str) -> None:
    """Ten void tricks in a row carried to one taker (10 picks the plural category "other", the
    random deals mostly 1), then two takers and a last trick whose point is lost."""
    texts = RANK_TEXT_LT if notation == "lt" else RANK_TEXT_EN
    game = GAMES["rukas"]
    kwargs: dict[str, Any] = {"players": 2, "dealer": 1, "options": {"notation": notation, "void_trick": "carry"}}
    by_seat = [(rank, rank) for rank in range(2, 12)] + [(12, 13), (13, 12), (14, 14)]
    state, entries = game.new_deal(**kwargs), []
    for ranks in by_seat:
        view: Any = game.view(state)
        leader = view["leader"]
        entry = {"type": "trick", "cards": [texts[ranks[(leader + step) % 2]] for step in range(2)]}
        state = game.apply(state, entry)
        entries.append(entry)
    verdicts = assert_deals("rukas", [(kwargs, entries)], language)[0]
    assert game.view(state)["finished"] is True
    assert len(verdicts[10]["sentences"]) == 2  # the take and its ten carried points
