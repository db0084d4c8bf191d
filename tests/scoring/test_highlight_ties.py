"""A game's own highlight names everyone tied for it, in English and in Lithuanian.

Each game's highlights are built from the facts its ``FactQuery`` gathers (rows as the summary
stores them) and worded by ``scoring.summary.describe``, as the summary's reader gets them.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import translation

from referee.games import PAGES
from referee.games.base import and_list
from scoring.summaries import summary as build

NAMES = ["Ona", "Jonas", "Rūta"]


def highlight(game: str, facts: dict[str, Any]) -> dict[str, Any]:
    found = [h for h in PAGES[game].highlights(facts, len(NAMES)) if h is not None]
    assert len(found) >= 1
    return found[0]


def words(h: dict[str, Any], language: str) -> str:
    with translation.override(language):
        return build.describe(h, NAMES)


TIES = [
    pytest.param(
        "velnias", {"endings": [[1, "empty_hand", 0], [2, "empty_hand", 2], [3, "blocked", None],
                                [4, "empty_hand", 2], [5, "empty_hand", 0], [6, "last_card", 1]]},
        {"kind": "most_stops", "seat": 0, "count": 2, "tied": [{"seat": 0}, {"seat": 2}]},
        "Most “Stop!” calls: Ona and Rūta (2 each).",
        "Daugiausia „Stop!“: Ona ir Rūta (po 2).", id="velnias-most-stops"),
    pytest.param(
        "michigan", {"prizes": [], "misplays": [[1, 0, 1], [2, 1, 1], [2, 2, 1]]},
        {"kind": "most_misplays", "seat": 0, "count": 1, "tied": [{"seat": 0}, {"seat": 1}, {"seat": 2}]},
        "Most misplays: Ona, Jonas and Rūta (1 each).",
        "Daugiausia klaidų: Ona, Jonas ir Rūta (po 1).", id="michigan-most-misplays"),
    pytest.param(
        "michigan", {"prizes": [[1, 1, "AH", 6, True], [2, 0, "KS", 3, True], [3, 2, "QD", 6, True],
                                [3, 0, "JC", 9, False]], "misplays": []},
        {"kind": "biggest_prize", "deal": 1, "seat": 1, "card": "AH", "chips": 6,
         "tied": [{"seat": 1, "deal": 1, "card": "AH"}, {"seat": 2, "deal": 3, "card": "QD"}]},
        "Biggest prize pot: 6 chips, taken by Jonas (the prize card AH in deal 1) and "
        "Rūta (the prize card QD in deal 3).",
        "Didžiausias prizas (žetonų: 6): paėmė Jonas (prizinė korta AH, 1 padalijimas) ir "
        "Rūta (prizinė korta QD, 3 padalijimas).", id="michigan-biggest-prize"),
    pytest.param(
        "cheat", {"challenges": [[1, 2, 0, True], [1, 1, 0, True], [2, 2, 1, False], [2, 1, 2, False],
                                 [3, 0, 1, False]]},
        {"kind": "best_challenger", "seat": 1, "caught": 1, "challenges": 2,
         "tied": [{"seat": 1}, {"seat": 2}]},
        "Sharpest challengers: Jonas and Rūta (1 lie caught in 2 challenges each).",
        "Įžvalgiausi tikrintojai: Jonas ir Rūta (kiekvienas pagavo melą 1 kartą iš 2 atvertimų).",
        id="cheat-best-challenger"),
    pytest.param(
        "rukas", {"taken": [[1, 1, 0, "5"], [1, 2, 1, "9"], [2, 4, 2, "5"], [2, 5, 0, "5"]]},
        {"kind": "lowest_taker", "deal": 1, "trick": 1, "seat": 0, "rank": "5",
         "tied": [{"seat": 0, "deal": 1, "trick": 1}, {"seat": 2, "deal": 2, "trick": 4},
                  {"seat": 0, "deal": 2, "trick": 5}]},
        "Lowest card to take a trick: a 5, by Ona (trick 1 of deal 1), Rūta (trick 4 of deal 2) and "
        "Ona (trick 5 of deal 2).",
        "Žemiausia kirtį paėmusi korta: 5, su ja kirtį paėmė Ona (1 padalijimo 1 kirtis), "
        "Rūta (2 padalijimo 4 kirtis) ir Ona (2 padalijimo 5 kirtis).", id="rukas-lowest-taker"),
    pytest.param(
        "elgeta", {"tie_breaks": [[1, 3, 2, 8, 1], [2, 1, 1, 4, 0], [3, 2, 2, 6, None]]},
        {"kind": "longest_tie_break", "deal": 1, "trick": 3, "rounds": 2, "cards": 8, "seat": 1,
         "tied": [{"seat": 1, "deal": 1, "trick": 3, "cards": 8}, {"seat": None, "deal": 3, "trick": 2, "cards": 6}]},
        "Longest tie-break: 2 tie-break rounds, in trick 3 of deal 1 (Jonas took all 8 cards) and "
        "trick 2 of deal 3.",
        "Ilgiausios lygiosios: 2 papildomi ratai, 1 padalijimo 3 kirtis (Jonas paėmė visas kortas: 8) ir "
        "3 padalijimo 2 kirtis.", id="elgeta-longest-tie-break"),
]


@pytest.mark.parametrize(("game", "facts", "expected", "english", "lithuanian"), TIES)
def test_a_tie_in_a_games_own_highlight_names_everyone_tied(
    game: str, facts: dict[str, Any], expected: dict[str, Any], english: str, lithuanian: str
) -> None:
    found = highlight(game, facts)
    assert found == expected
    assert words(found, "en") == english
    assert words(found, "lt") == lithuanian


@pytest.mark.parametrize(("game", "facts", "english"), [
    ("velnias", {"endings": [[1, "empty_hand", 0], [2, "empty_hand", 0], [3, "empty_hand", 2]]},
     "Most “Stop!” calls: Ona emptied their hand first 2 times."),
    ("michigan", {"prizes": [], "misplays": [[1, 2, 2], [2, 1, 1]]}, "Most misplays: Rūta, 2 in the session."),
    # As many lies caught, but Rūta needed fewer challenges: she alone is the sharpest.
    ("cheat", {"challenges": [[1, 1, 0, True], [1, 1, 0, False], [2, 2, 0, True]]},
     "Sharpest challenger: Rūta caught 1 lie in 1 challenges."),
    ("rukas", {"taken": [[1, 1, 0, "5"], [1, 2, 1, "4"]]},
     "Lowest card to take a trick: Jonas took trick 2 of deal 1 with a 4."),
    ("elgeta", {"tie_breaks": [[1, 3, 2, 8, 1], [2, 1, 3, 4, 0]]},
     "Longest tie-break: trick 1 of deal 2 needed 3 tie-break rounds; Ona took all 4 cards."),
])
def test_a_highlight_nobody_shares_reads_and_is_stored_as_before(
    game: str, facts: dict[str, Any], english: str
) -> None:
    found = highlight(game, facts)
    assert "tied" not in found
    assert words(found, "en") == english


def test_two_names_read_as_a_pair_and_more_as_a_list_in_both_languages() -> None:
    with translation.override("en"):
        assert [and_list(NAMES[:n]) for n in (1, 2, 3)] == ["Ona", "Ona and Jonas", "Ona, Jonas and Rūta"]
    with translation.override("lt"):
        assert [and_list(NAMES[:n]) for n in (1, 2, 3)] == ["Ona", "Ona ir Jonas", "Ona, Jonas ir Rūta"]
