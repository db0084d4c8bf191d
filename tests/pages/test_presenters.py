"""What the screens say: the referee's conclusions in words, with the players' names, in the
reader's language and the session's card notation (every sentence from the engine's facts)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.utils import translation

from referee.games import describe_entry, explain_last
from referee.games.velnias import payments as velnias_payments
from referee.presenters import card_html, show_card
from referee.rules import GAMES

NAMES = ["A", "B", "C", "D", "E"]


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    with translation.override("en"):
        yield


def conclude(game: str, players: int, entries: list[dict[str, Any]], notation: str = "en", **options: Any) -> list[str]:
    rules = GAMES[game]
    state = rules.new_deal(players=players, dealer=players - 1, options={"notation": notation, **options})
    for entry in entries:
        state = rules.apply(state, entry)
    return explain_last(game, rules.view(state), NAMES[:players], notation)


@pytest.mark.parametrize(("cards", "said"), [
    ("3 9 9 V 4", "D takes the trick with V: the cards 9 of B, C cancel each other; V is the highest card in play; "
                  "no 10 is in play to take from V."),
    ("5 K D 6 V", "E takes the trick with V: K is the highest card in play; D of C, one rank lower, takes from K; "
                  "V of E, one rank lower, takes from D; no 10 is in play to take from V."),
    ("7 9 T 5 T", "B takes the trick with 9: the cards T of C, E cancel each other; 9 is the highest card in play; "
                  "no 8 is in play to take from 9."),
    ("K 7 6 K K", "C takes the trick with 6: the cards K of A, D, E cancel each other; 7 is the highest card in play; "
                  "6 of C, one rank lower, takes from 7; no 5 is in play to take from 6."),
    ("2 T 7 7 4", "E takes the trick with 4: the 7 of C beat the ace of B; the cards 7 of C, D cancel each other; "
                  "4 is the highest card in play; no 3 is in play to take from 4."),
    ("7 T 7 4", "B takes the trick with T: the cards 7 of A, C cancel each other; the ace stands, since no 7 beat it."),
    ("5 7 7 T", "D takes the trick with T: the cards 7 of B, C cancel each other; the ace stands, since no 7 beat it."),
])
def test_rukas_seed_tricks_are_explained(cards: str, said: str) -> None:
    ranks = cards.split()
    assert conclude("rukas", len(ranks), [{"type": "trick", "cards": ranks}], "lt") == [said]


def test_a_void_rukas_trick_says_where_its_point_goes() -> None:
    entry = {"type": "trick", "cards": ["9", "9", "4", "4"]}
    assert conclude("rukas", 4, [entry], void_trick="void") == [
        "Nobody takes the trick: the cards 9 of A, B cancel each other; the cards 4 of C, D cancel each other; "
        "no card is left in play.",
        "No point; A reveals first again.",
    ]
    assert conclude("rukas", 4, [entry], void_trick="carry")[1] == "Its point waits for the next taker (1 pending)."


def test_lithuanian_words_and_notation() -> None:
    with translation.override("lt"):
        assert conclude("rukas", 5, [{"type": "trick", "cards": ["3", "9", "9", "V", "4"]}], "lt") == [
            "Kirtį ima D (V): vienvardės kortos 9 (B, C) anuliuoja viena kitą; V – aukščiausia likusi korta; "
            "nėra kortos 10, kuri kirstų V."
        ]
    assert show_card("QH", "lt") == "D♥" and show_card("QH", "en") == "Q♥" and show_card("10S", "lt") == "10♠"
    assert str(card_html("AD", "lt")) == (
        '<span class="card suit-d">T<span class="suit" aria-hidden="true">♦</span>'
        '<span class="visually-hidden"> diamonds</span></span>'
    )


def test_cheat_conclusions() -> None:
    place = [{"type": "place", "player": 0}, {"type": "place", "player": 1}]
    assert conclude("cheat", 3, place) == ["B placed a card and announced 2."]
    lie = conclude("cheat", 3, [*place, {"type": "challenge", "challenger": 2, "revealed": "9"}])
    assert lie == ["B lied (announced 2, revealed 9) and takes 3 cards.", "B starts again, announcing A."]
    truth = conclude("cheat", 3, [*place, {"type": "challenge", "challenger": 2, "revealed": "2♥"}], "lt")
    assert truth == [
        "C challenged B, who told the truth (announced 2, revealed 2♥): C takes 3 cards.",
        "C starts again, announcing T.",
    ]


def test_michigan_conclusions() -> None:
    prize = {"type": "prize", "card": "AS", "player": 1}
    assert conclude("michigan", 4, [prize]) == ["B takes 5 chips from the prize card A♠."]
    assert conclude("michigan", 4, [{"type": "misplay", "player": 2}, {**prize, "player": 2, "card": "T♠"}], "lt") == [
        "C has misplayed this deal, so T♠ counts as played and its 5 chips stay on it."
    ]
    out = {"type": "out", "player": 3, "hand_counts": [2, 1, 4, 0]}
    assert conclude("michigan", 4, [out]) == [
        "D went out: the others pay 1 chip per card left, 7 chips in all. The deal is over."
    ]


def test_velnias_payments_say_why() -> None:
    rules = GAMES["velnias"]
    state = rules.apply(rules.new_deal(players=4, dealer=3), {
        "type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]})
    rows = velnias_payments(rules.view(state)["last"], NAMES)
    assert [(r["payer"], r["payee"], r["points"], r["reason"]) for r in rows] == [
        ("B", "A", 10, "penalty for losing to the last-card stop"),
        ("A", "B", 1, "B holds fewer cards than the caller"),
        ("C", "A", 10, "penalty for losing to the last-card stop"),
        ("D", "A", 10, "penalty for losing to the last-card stop"),
        ("A", "D", 2, "D holds fewer cards than the caller"),
    ]


def test_what_the_undo_button_says() -> None:
    assert describe_entry("rukas", {"type": "trick", "cards": ["3", "9"]}, None, NAMES, "lt") == "the trick 3 9"
    assert describe_entry("cheat", {"type": "place", "player": 1}, {"announced": "Q"}, NAMES, "lt") == (
        "B's card (announced D)")
    assert describe_entry("velnias", {"type": "end", "condition": "blocked", "player": None}, None, NAMES, "en") == (
        "the end of the deal: blocked")
    assert describe_entry("michigan", {"type": "prize", "card": "T♠", "player": 2}, None, NAMES, "lt") == (
        "C taking the prize card T♠")
    assert describe_entry("elgeta", {"type": "trick", "rounds": [["A♦", "A♥"], ["6♠", None]]}, None, NAMES, "en") == (
        "the trick A♦ A♥ / 6♠ –")
