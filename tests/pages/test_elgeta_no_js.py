"""Elgeta's trick form without JavaScript: a refused trick comes back exactly as typed, every
round of it, and only the rounds the scorer has on the form (an empty tie-break round only
when they asked for one)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.models import Entry

pytestmark = pytest.mark.django_db

#: Four players, one suit each: Ona spades, Jonas diamonds, Rūta hearts, Petras clubs.
SUITS = ["S", "D", "H", "C"]
TIE = ["J♠", "A♦", "A♥", "4♣"]  # two aces: the referee asks for a tie-break round


def trick_form(*rounds: list[str], action: str = "entry") -> dict[str, Any]:
    form: dict[str, Any] = {"form": "trick", "action": action, "idempotency_key": "k", "expected_seq": "0",
                            "f:type:str": "trick"}
    for index, cards in enumerate(rounds):
        form[f"f:rounds:round:{index}"] = cards
    return form


def rounds_on_screen(html: str) -> dict[int, list[str]]:
    """Each round's card fields as the form shows them, in play order (the screen itself, not a
    <template> the offline path keeps for a fresh deal)."""
    screen = html.split("<template", 1)[0]
    shown: dict[int, list[str]] = {}
    for index, value in re.findall(r'name="f:rounds:round:(\d+)" value="([^"]*)"', screen):
        shown.setdefault(int(index), []).append(value)
    return shown


def error_of(html: str) -> str:
    match = re.search(r'data-error-for="trick">([^<]*)<', html)
    assert match is not None
    return match.group(1)


def test_a_refused_tie_break_comes_back_with_every_typed_round_and_no_extra_one(
    page: Any, start: Any, club_setup: dict
) -> None:
    deal = start("elgeta", ["admin", "scorer", "member", "Petras"], suits=SUITS)
    client = page(club_setup["users"]["scorer"])
    # Q♠ is not in Petras's pile (he holds clubs): the referee refuses the second round.
    typed = trick_form(TIE, ["6♠", "7♦", "9♥", "Q♠"])
    response = client.post(f"/deals/{deal.pk}/", typed)
    assert response.status_code == 400
    html = response.content.decode()
    assert error_of(html) == "The QS is not in Petras&#x27;s pile."
    assert rounds_on_screen(html) == {0: TIE, 1: ["6♠", "7♦", "9♥", "Q♠"]}
    assert "Round 3: tie-break" not in html
    assert Entry.objects.filter(deal=deal).count() == 0


def test_a_trick_refused_for_a_missing_tie_break_round_comes_back_as_typed(
    page: Any, start: Any, club_setup: dict
) -> None:
    """The referee asks for round 2; the form holds round 1 as typed and no empty round the
    scorer did not ask for (the "Add a tie-break round" button adds it)."""
    deal = start("elgeta", ["admin", "scorer", "member", "Petras"], suits=SUITS)
    client = page(club_setup["users"]["scorer"])
    response = client.post(f"/deals/{deal.pk}/", trick_form(TIE))
    assert response.status_code == 400
    html = response.content.decode()
    assert error_of(html) == (
        "Round 1 is a tie (AD, AH), so every player still in adds one more card: round 2 is missing.")
    assert rounds_on_screen(html) == {0: TIE}
    assert 'name="action" value="more_rounds"' in html
    # Asked for, the tie-break round appears (empty: nobody's next card is known yet).
    again = client.post(f"/deals/{deal.pk}/", trick_form(TIE, action="more_rounds")).content.decode()
    assert rounds_on_screen(again) == {0: TIE, 1: ["", "", "", ""]}


def test_an_empty_cell_and_an_asked_for_round_stay_as_they_were_typed(
    page: Any, start: Any, club_setup: dict
) -> None:
    """A cell left empty stays empty (never filled with a guess) and an empty round the scorer
    added stays on the form after the refusal, so nothing the scorer did is undone."""
    deal = start("elgeta", ["admin", "scorer", "member", "Petras"], suits=SUITS)
    client = page(club_setup["users"]["scorer"])
    response = client.post(f"/deals/{deal.pk}/", trick_form(TIE, ["6♠", "", "9♥", "Q♣"], ["", "", "", ""]))
    assert response.status_code == 400
    html = response.content.decode()
    assert error_of(html).startswith("Jonas still has cards, so they add one in round 2")
    assert rounds_on_screen(html) == {0: TIE, 1: ["6♠", "", "9♥", "Q♣"], 2: ["", "", "", ""]}
    assert Entry.objects.filter(deal=deal).count() == 0


def test_asking_for_more_rounds_twice_keeps_what_was_typed_and_adds_one_each_time(
    page: Any, start: Any, club_setup: dict
) -> None:
    deal = start("elgeta", ["admin", "scorer", "member", "Petras"], suits=SUITS)
    client = page(club_setup["users"]["scorer"])
    second = ["K♠", "K♦", "9♥", "Q♣"]  # a tie again: a third round is needed
    html = client.post(f"/deals/{deal.pk}/", trick_form(TIE, second, action="more_rounds")).content.decode()
    assert rounds_on_screen(html) == {0: TIE, 1: second, 2: ["", "", "", ""]}
    assert "Round 3: tie-break" in html
    third = ["2♠", "3♦", "5♥", "6♣"]
    assert client.post(f"/deals/{deal.pk}/", trick_form(TIE, second, third)).status_code == 302
    assert Entry.objects.get(deal=deal).payload["rounds"] == [TIE, second, third]
