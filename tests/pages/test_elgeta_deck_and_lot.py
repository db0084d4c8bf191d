"""Elgeta's deck (E5) and suits by lot on the pages: the start form offers the deck and a draw of
the suits ("galima tai nustatyti ir burtų keliu"), stored like a choice; the recording screen's
pad offers only the deck's ranks ("Galima imti bet kokią kaladę be džokerių")."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.models import Session

pytestmark = pytest.mark.django_db

NEW = "/clubs/vilnius/sessions/new/"


def fields(club_setup: dict[str, Any], seats: list[str], **extra: str) -> dict[str, str]:
    members = club_setup["members"]
    data = {"game": "elgeta", "notation": "en", "stake": "0", "coin": "", "opt_elgeta_deck": "52",
            "opt_elgeta_suits": "", "opt_elgeta_all_aces": "1", "opt_elgeta_strict_order": "1"}
    for seat, key in enumerate(seats, start=1):
        data[f"play_{members[key].pk}"] = "1"
        data[f"seat_{members[key].pk}"] = str(seat)
    data.update(extra)
    return data


def suits_field(html: str) -> str:
    found = re.search(r'<input type="text" id="opt_elgeta_suits" name="opt_elgeta_suits" value="([^"]*)"', html)
    assert found, "the suits field is on the page"
    return found.group(1)


def drawn_rows(html: str) -> list[str]:
    block = html.split("data-lot>", 1)[1].split("</ul>", 1)[0]
    return [re.sub(r"<[^>]+>", "", row).split()[0] for row in block.split("<li>")[1:]]


def test_the_start_form_offers_the_deck_and_the_draw(page: Any, club_setup: dict) -> None:
    html = page(club_setup["users"]["scorer"]).get(NEW + "?game=elgeta").content.decode()
    for deck in ("52", "36", "32"):
        assert f'name="opt_elgeta_deck" value="{deck}"' in html
    assert 'name="opt_elgeta_deck" value="52" checked' in html
    assert "36 cards: 6–A" in html and "32 cards: 7–A" in html
    assert 'name="draw" value="opt_elgeta_suits"' in html
    assert "Draw suits by lot" in html


@pytest.mark.parametrize(("seats", "possible"), [
    (["admin", "scorer", "member", "Petras"], None),
    (["admin", "scorer", "member"], None),
    (["admin", "scorer"], {"HD SC", "SC HD"}),
])
def test_a_draw_shows_the_suits_seat_by_seat_and_starts_nothing(
    page: Any, club_setup: dict, seats: list[str], possible: set[str] | None,
) -> None:
    client = page(club_setup["users"]["scorer"])
    response = client.post(NEW, fields(club_setup, seats, draw="opt_elgeta_suits", stake="0,50"))
    html = response.content.decode()
    assert response.status_code == 200
    drawn = suits_field(html).split()
    if possible is not None:
        assert " ".join(drawn) in possible
    else:
        assert len(drawn) == len(seats) and len(set(drawn)) == len(seats) and set(drawn) <= set("SCDH")
    names = [club_setup["members"][key].name for key in seats]
    assert drawn_rows(html) == names  # seat by seat, in seat order
    assert 'value="0,50"' in html  # the rest of the form comes back as typed
    assert Session.objects.count() == 0


def test_the_drawn_suits_are_stored_like_a_choice(page: Any, club_setup: dict) -> None:
    client = page(club_setup["users"]["scorer"])
    seats = ["admin", "scorer", "member", "Petras"]
    html = client.post(NEW, fields(club_setup, seats, draw="opt_elgeta_suits")).content.decode()
    drawn = suits_field(html)
    response = client.post(NEW, fields(club_setup, seats, opt_elgeta_suits=drawn, opt_elgeta_deck="36"))
    assert response.status_code == 302
    session = Session.objects.get()
    assert session.options["suits"] == drawn.split()
    assert session.options["deck"] == 36


def test_draws_reach_both_deals_of_two_players(page: Any, club_setup: dict) -> None:
    """The draw is random, not fixed: over 40 draws both deals of the suits come up (each has
    probability 1/2, so missing one is a 1 in 2^39 chance)."""
    client = page(club_setup["users"]["scorer"])
    seen = {
        suits_field(client.post(NEW, fields(club_setup, ["admin", "scorer"], draw="opt_elgeta_suits")).content.decode())
        for _ in range(40)
    }
    assert seen == {"HD SC", "SC HD"}


def test_a_draw_without_the_players_is_refused_beside_the_field(page: Any, club_setup: dict) -> None:
    client = page(club_setup["users"]["scorer"])
    response = client.post(NEW, fields(club_setup, ["admin"], draw="opt_elgeta_suits", opt_elgeta_suits="S C"))
    html = response.content.decode()
    assert response.status_code == 400
    assert "Seat the players first: the draw is for the 2 to 4 players at the table; 1 chosen." in html
    assert suits_field(html) == "S C"  # what was typed stays
    assert "data-lot>" not in html
    assert Session.objects.count() == 0


def test_a_draw_for_another_game_asks_for_the_game_first(page: Any, club_setup: dict) -> None:
    client = page(club_setup["users"]["scorer"])
    data = fields(club_setup, ["admin", "scorer", "member"], draw="opt_elgeta_suits", game="velnias")
    html = client.post(NEW, data).content.decode()
    assert "Choose Elgeta as the game first." in html
    assert Session.objects.count() == 0


def test_a_deck_value_the_form_does_not_offer_is_refused(page: Any, club_setup: dict) -> None:
    client = page(club_setup["users"]["scorer"])
    response = client.post(NEW, fields(club_setup, ["admin", "scorer"], opt_elgeta_deck="40"))
    assert response.status_code == 400
    assert "Choose one of the options." in response.content.decode()
    assert Session.objects.count() == 0


@pytest.mark.parametrize(("deck", "ranks"), [
    (36, ["6", "7", "8", "9", "10", "J", "Q", "K", "A"]),
    (32, ["7", "8", "9", "10", "J", "Q", "K", "A"]),
    (52, ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]),
])
def test_the_pad_offers_only_the_decks_ranks(page: Any, club_setup: dict, start: Any, deck: int,
                                              ranks: list[str]) -> None:
    deal = start("elgeta", ["admin", "scorer"], deck=deck)
    html = page(club_setup["users"]["scorer"]).get(f"/deals/{deal.pk}/").content.decode()
    pads = re.findall(r'<div class="pad js-only[^"]*" data-rank-pad.*?</div>', html, re.S)
    assert pads, "the pad is on the screen"
    for pad in pads:  # the screen's, and the offline template's for the next deal
        assert re.findall(r'data-rank="([^"]+)"', pad) == ranks
    note = f"A {deck}-card deck: ranks {ranks[0]} to A."
    assert (note in html) is (deck != 52)
    assert "data-deck>" in html if deck != 52 else "data-deck>" not in html


def test_the_correction_screen_suggests_only_the_decks_cards(page: Any, club_setup: dict, start: Any) -> None:
    """The correction screen's suggestions are the deal's pad: a 32-card deal offers 7 to A."""
    from .conftest import record

    deal = start("elgeta", ["admin", "scorer", "member", "Petras"], suits=["S", "D", "H", "C"], deck=32)
    record(deal, club_setup["users"]["scorer"], {"type": "trick", "rounds": [["QS", "10D", "8H", "AC"]]})
    html = page(club_setup["users"]["scorer"]).get(f"/deals/{deal.pk}/entries/1/correct/").content.decode()
    block = re.search(r'<datalist id="card-hints">(.*?)</datalist>', html, re.S)
    assert block is not None
    cards = re.findall(r'<option value="([^"]*)">', block.group(1))
    assert len(cards) == 32 and len(set(cards)) == 32
    assert {card[:-1] for card in cards} == {"7", "8", "9", "10", "J", "Q", "K", "A"}
