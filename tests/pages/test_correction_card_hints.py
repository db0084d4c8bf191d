"""The correction screen's card fields offer what the recording screen's pads offer: the
session's ranks (Rūkas: a rank names the card) or every card in the session's notation
(Elgeta: rank and suit), as suggestions while typing, and a line naming them. Velnias has no
card field, so no hint. What is typed is still what the referee judges."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.models import Entry

from .conftest import record

pytestmark = pytest.mark.django_db


def options(html: str, datalist: str) -> list[str]:
    match = re.search(rf'<datalist id="{datalist}">(.*?)</datalist>', html, re.S)
    assert match is not None, f"no {datalist}"
    return re.findall(r'<option value="([^"]*)">', match.group(1))


def test_rukas_cards_suggest_the_sessions_ranks(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("rukas", ["admin", "scorer", "member", "Petras", "Asta"], notation="lt")
    record(deal, club_setup["users"]["scorer"], {"type": "trick", "cards": ["3", "9", "9", "V", "4"]})
    html = page(club_setup["users"]["scorer"]).get(f"/deals/{deal.pk}/entries/1/correct/").content.decode()
    assert options(html, "rank-hints") == ["2", "3", "4", "5", "6", "7", "8", "9", "10", "V", "D", "K", "T"]
    assert 'id="card-hints"' not in html
    inputs = re.findall(r'<input type="text" name="f:cards:strs" value="([^"]*)"[^>]*list="rank-hints"', html)
    assert inputs == ["3", "9", "9", "V", "4"]
    assert "Ranks: <strong>2 3 4 5 6 7 8 9 10 V D K T</strong>" in html


def test_elgeta_rounds_suggest_every_card_and_name_the_suits(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("elgeta", ["admin", "scorer", "member", "Petras"], suits=["S", "D", "H", "C"])
    record(deal, club_setup["users"]["scorer"],
           {"type": "trick", "rounds": [["J♠", "A♦", "A♥", "4♣"], ["6♠", "7♦", "9♥", "Q♣"]]})
    html = page(club_setup["users"]["scorer"]).get(f"/deals/{deal.pk}/entries/1/correct/").content.decode()
    cards = options(html, "card-hints")
    assert len(cards) == 52 and len(set(cards)) == 52
    assert {"A♠", "10♥", "2♣", "Q♦"} <= set(cards)
    rounds = re.findall(r'name="f:rounds:round:(\d)" value="([^"]*)"[^>]*list="card-hints"', html)
    assert rounds == [("0", "J♠"), ("0", "A♦"), ("0", "A♥"), ("0", "4♣"),
                      ("1", "6♠"), ("1", "7♦"), ("1", "9♥"), ("1", "Q♣")]
    # Each card under the player who turned it (the referee's play order), not a position number.
    labels = re.findall(r'<label class="correct-item"><span>([^<]*)</span>\s*<input type="text" name="f:rounds', html)
    assert labels == ["Ona", "Jonas", "Rūta", "Petras"] * 2
    suits = re.findall(r'<span class="sym-(\w)" title="([^"]*)">(.)</span>', html)
    assert [(letter, symbol) for letter, _name, symbol in suits] == [("s", "♠"), ("c", "♣"), ("d", "♦"), ("h", "♥")]
    assert all(name for _letter, name, _symbol in suits)  # each suit named for a screen reader


def test_a_typed_card_is_still_judged_by_the_referee(page: Any, start: Any, club_setup: dict) -> None:
    """A suggestion is only that: a card outside the list is posted as typed and refused."""
    deal = start("rukas", ["admin", "scorer", "member", "Petras", "Asta"], notation="lt")
    record(deal, club_setup["users"]["scorer"], {"type": "trick", "cards": ["3", "9", "9", "V", "4"]})
    client = page(club_setup["users"]["scorer"])
    response = client.post(f"/deals/{deal.pk}/entries/1/correct/",
                           {"f:cards:strs": ["3", "9", "9", "Q", "4"], "action": "preview"})
    assert response.status_code == 400
    html = response.content.decode()
    assert "English rank letter" in html
    assert re.findall(r'name="f:cards:strs" value="([^"]*)"', html) == ["3", "9", "9", "Q", "4"]
    assert Entry.objects.get(deal=deal).payload["cards"] == ["3", "9", "9", "V", "4"]


def test_velnias_has_no_card_field_and_no_hint(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    record(deal, club_setup["users"]["scorer"],
           {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]})
    html = page(club_setup["users"]["scorer"]).get(f"/deals/{deal.pk}/entries/1/correct/").content.decode()
    assert "<datalist" not in html and "card-hint" not in html
