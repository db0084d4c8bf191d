"""A game is one room: every game of the engine has its pages, found by slug, and they cover
what the engine declares (each house rule named and explained, each choice labelled)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.utils import translation

from referee.games import PAGES
from referee.rules import GAMES


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    with translation.override("en"):
        yield


def test_every_game_of_the_engine_has_its_pages_and_no_page_lacks_a_game() -> None:
    assert list(PAGES) == list(GAMES)
    assert all(PAGES[slug].slug == slug for slug in PAGES)


@pytest.mark.parametrize("slug", list(GAMES))
def test_every_house_rule_is_named_explained_and_every_choice_labelled(slug: str) -> None:
    texts = PAGES[slug].rule_texts()
    assert set(texts) == {rule.key for rule in GAMES[slug].house_rules}
    for rule in GAMES[slug].house_rules:
        assert texts[rule.key].label and texts[rule.key].help
        assert set(texts[rule.key].choices) == set(rule.choices)


def test_the_unit_is_the_engines_in_the_readers_language() -> None:
    assert {slug: pages.unit_label() for slug, pages in PAGES.items()} == {
        "elgeta": "deals won", "velnias": "points", "rukas": "tricks", "michigan": "chips", "cheat": "losses",
    }
    with translation.override("lt"):
        assert PAGES["rukas"].unit_label() == "kirčiai"


def test_each_game_names_its_own_partial() -> None:
    assert PAGES["michigan"].template == "referee/games/michigan.html"
    assert PAGES["cheat"].name == "Apgaudinėjimas"


def test_a_game_writes_its_own_entry_fields_in_the_audit() -> None:
    names = ["Ona", "Jonas", "Rūta"]
    assert PAGES["michigan"].audit_line({"type": "out", "player": 1, "hand_counts": [0, 3, 5]}, names) == (
        "out · player: Jonas · hand_counts: Ona 0, Jonas 3, Rūta 5"
    )
    assert PAGES["elgeta"].audit_line({"type": "trick", "rounds": [["AS", "AH"], ["2C", None]]}, names) == (
        "trick · rounds: AS AH | 2C –"
    )
    assert PAGES["cheat"].audit_line({"type": "challenge", "challenger": 2, "revealed": "X"}, names) == (
        "challenge · challenger: Rūta · revealed: X"
    )


def test_the_chip_movement_rows_escape_the_players_names() -> None:
    """The Mičiganas screen builds its movement rows in Python: every cell is escaped."""
    view = GAMES["michigan"].view(GAMES["michigan"].new_deal(players=3, dealer=0))
    names = ["<b>Ona</b>", "Jonas & Co", "Rūta"]
    rows = str(PAGES["michigan"].screen(view, names, "en", state={}, finished=False)["movement_rows"])
    assert "<b>" not in rows and "&lt;b&gt;Ona&lt;/b&gt;" in rows and "Jonas &amp; Co" in rows
    assert rows.count("<tr>") == len(view["movements"]) and '<td class="num">' in rows
