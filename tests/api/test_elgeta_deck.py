"""Elgeta E5 through the API: a session of the 36-card deck ("Galima imti bet kokią kaladę be
džokerių"), its deals dealt from that deck, and a card outside it refused with nothing stored."""

from __future__ import annotations

from typing import Any

import pytest

from tests.api.conftest import row_counts

pytestmark = pytest.mark.django_db


def members(club_setup: dict[str, Any], names: list[str]) -> list[int]:
    by_name = {m.name: m for m in club_setup["members"].values()}
    return [by_name[name].pk for name in names]


def test_a_36_card_deal_refuses_a_five_and_stores_nothing(scorer_client: Any, club_setup: dict[str, Any]) -> None:
    response = scorer_client.post("/api/sessions/", {
        "club": "vilnius", "game": "elgeta", "players": members(club_setup, ["Ona", "Jonas", "Rūta", "Petras"]),
        "options": {"deck": 36, "suits": ["S", "D", "H", "C"]},
    }, format="json")
    assert response.status_code == 201, response.json()
    session = response.json()
    assert session["options"]["deck"] == 36
    deal = scorer_client.post(f"/api/sessions/{session['id']}/deals/", {}, format="json").json()
    assert deal["state"]["counts"] == [9, 9, 9, 9]
    assert deal["state"]["options"]["deck"] == 36
    first = (deal["dealer"] + 1) % 4
    # The seat after the dealer leads; a 5 of its suit is not in the 36-card deck.
    letter = "SDHC"[first]
    rest = [f"{rank}{'SDHC'[(first + step) % 4]}" for step, rank in ((1, "10"), (2, "8"), (3, "A"))]
    before = row_counts()
    refused = scorer_client.post(f"/api/deals/{deal['id']}/entries/",
                                 {"type": "trick", "rounds": [["5" + letter, *rest]]}, format="json")
    assert refused.status_code == 400
    assert refused.json()["error"] == (
        f"The 5{letter} is not in this deal: the 36-card deck has only the ranks 6 to A."
    )
    assert row_counts() == before
    again = scorer_client.get(f"/api/deals/{deal['id']}/").json()
    assert (again["seq"], again["state"]["counts"]) == (0, [9, 9, 9, 9])
    taken = scorer_client.post(f"/api/deals/{deal['id']}/entries/",
                               {"type": "trick", "rounds": [["6" + letter, *rest]]}, format="json")
    assert taken.status_code == 201
    assert taken.json()["deal"]["state"]["counts"][(first + 3) % 4] == 12


def test_an_invalid_deck_is_refused_naming_the_valid_ones(scorer_client: Any, club_setup: dict[str, Any]) -> None:
    before = row_counts()
    response = scorer_client.post("/api/sessions/", {
        "club": "vilnius", "game": "elgeta", "players": members(club_setup, ["Ona", "Jonas"]), "options": {"deck": 40},
    }, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "Option deck must be 52, 36 or 32 (cards in the deck), not 40."
    assert row_counts() == before


def test_a_session_without_a_deck_is_of_the_full_deck(scorer_client: Any, club_setup: dict[str, Any]) -> None:
    response = scorer_client.post("/api/sessions/", {
        "club": "vilnius", "game": "elgeta", "players": members(club_setup, ["Ona", "Jonas"]),
    }, format="json")
    assert response.status_code == 201
    assert response.json()["options"]["deck"] == 52
