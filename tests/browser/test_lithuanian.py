"""The screens in Lithuanian with cards in Lithuanian notation: a Rūkas trick explained and a
Cheat refusal in the club's own words."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from referee import services

from .conftest import check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_rukas_trick_in_lithuanian(open_page: Any, club_setup: dict[str, Any]) -> None:
    m = club_setup["members"]
    session = services.session_start(club=club_setup["club"], game="rukas", user=club_setup["users"]["scorer"],
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]],
                                     options={"notation": "lt"})
    deal = services.deal_start(session=session, user=club_setup["users"]["scorer"])
    page = open_page(club_setup["users"]["scorer"], language="lt")
    page.goto(f"/deals/{deal.pk}/")
    assert page.get_by_role("heading", name="1 kirtis iš 13 · pirmas atverčia Ona").is_visible()
    pad = page.locator("[data-rank-pad]")
    for rank in ("7", "T", "7", "4"):  # the seed's example f: the sevens cancel, the ace stands
        pad.get_by_role("button", name=rank, exact=True).click()
    page.get_by_role("button", name="Įrašyti kirtį").click()
    page.get_by_text("ima Jonas", exact=True).wait_for()
    assert page.locator("[data-conclusion]").inner_text() == (
        "Kirtį ima Jonas (T): vienvardės kortos 7 (Ona, Rūta) anuliuoja viena kitą; tūzas lieka, nes jo nenukirto "
        "septynakė."
    )
    expect(page.locator("#sync")).to_have_text("Išsaugota.")
    shoot(page, "lt-rukas")
    check_a11y(page)


def test_a_cheat_refusal_in_lithuanian(open_page: Any, club_setup: dict[str, Any]) -> None:
    m = club_setup["members"]
    scorer = club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="cheat", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"]], options={"notation": "lt"})
    deal = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=deal.pk, payload={"type": "place", "player": 0}, user=scorer)
    page = open_page(scorer, language="lt")
    page.goto(f"/deals/{deal.pk}/")
    assert page.locator("[data-turn]").inner_text() == "Jonas"
    page.get_by_text("Atversti kortą (Ona, skelbta T)").click()
    page.locator("#form-challenge").get_by_role("radio", name="Rūta", exact=True).check()
    page.locator("#revealed").fill("Q")
    page.get_by_role("button", name="Įrašyti atvertimą").click()
    error = page.locator('[data-error-for="challenge"]')
    error.wait_for()
    assert error.inner_text() == (
        "„Q“ – angliška rango raidė, bet šioje partijoje kortos rašomos lietuviškai: "
        "V (valetas), D (dama), K (karalius), T (tūzas)."
    )
    shoot(page, "lt-cheat-refused")
    check_a11y(page)
