"""Elgeta and Mičiganas through the API: the seed's Elgeta tricks, a refusal that names the
expected card, Michigan's chips carried from one deal to the next, zero-sum with the pot."""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import Deal
from scoring.models import DealResult
from tests.api.conftest import ANY_CODE

pytestmark = pytest.mark.django_db

SEATS = ["Ona", "Jonas", "Rūta", "Petras"]  # A B C D of the seed
SUITS = {"suits": ["S", "D", "H", "C"]}


def post(client: Any, deal: Any, body: Any) -> Any:
    return client.post(f"/api/deals/{deal.pk}/entries/", body, format="json")


@pytest.mark.parametrize(
    ("rounds", "counts", "text"),
    [
        ([["QS", "10D", "4H", "AC"]], [12, 12, 12, 16], "Petras takes 4 cards with the AC."),
        ([["9S", "9D", "5H", "QC"]], [12, 12, 12, 16], "Petras takes 4 cards with the QC."),
        ([["JS", "AD", "AH", "4C"], ["6S", "7D", "9H", "QC"]], [11, 11, 11, 19],
         "Petras takes 8 cards after a tie of aces."),
    ],
)
def test_elgeta_seed_tricks(
    scorer_client: Any, start_session: Any, start_deal: Any, rounds: list[list[str]], counts: list[int], text: str
) -> None:
    deal = start_deal(start_session("elgeta", SEATS, options=SUITS))
    assert deal.dealer == 3  # so A (Ona) leads, as in the seed
    response = post(scorer_client, deal, {"type": "trick", "rounds": rounds})
    assert response.status_code == 201, response.json()
    state = response.json()["deal"]["state"]
    assert (state["counts"], state["turn"]) == (counts, 3)
    assert state["last"]["text"] == text


@pytest.mark.parametrize(
    ("rounds", "message"),
    [
        ([["QS", "10D", "4H", "KC"]],
         "Petras cannot turn the QS yet: captured cards come up only after their own pile, "
         "which still holds 12 cards."),
        ([["2C", "10S", "4D"]],
         "Round 1 has no card from Rūta: it needs one per player still in, in play order Petras, Ona, Jonas, Rūta."),
        ([["2C", "AS", "4D", "4H"]], "Rūta has already turned the 4H."),
    ],
)
def test_elgeta_refusals_store_nothing(
    scorer_client: Any, start_session: Any, start_deal: Any, counts: Any, rounds: list[list[str]], message: str
) -> None:
    deal = start_deal(start_session("elgeta", SEATS, options=SUITS))
    assert post(scorer_client, deal, {"type": "trick", "rounds": [["QS", "10D", "4H", "AC"]]}).status_code == 201
    deal.refresh_from_db()
    before, state = counts(), deal.state
    response = post(scorer_client, deal, {"type": "trick", "rounds": rounds})
    assert response.status_code == 400
    assert response.json() == {"code": ANY_CODE, "error": message}
    assert counts() == before
    deal.refresh_from_db()
    assert (deal.seq, deal.state) == (1, state)


def test_michigan_chips_carry_to_the_next_deal(
    scorer_client: Any, start_session: Any, counts: Any
) -> None:
    session = start_session("michigan", ["Ona", "Jonas", "Rūta"])
    first = scorer_client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json").json()
    assert first["state"]["pot"] == {"AS": 4, "KC": 4, "QD": 4, "JH": 4}  # 1 + 1 + the dealer's 2 on each
    deal = Deal.objects.get(pk=first["id"])
    assert post(scorer_client, deal, {"type": "prize", "card": "AS", "player": 0}).status_code == 201
    out = post(scorer_client, deal, {"type": "out", "player": 1, "hand_counts": [3, 0, 5]})
    assert out.status_code == 201
    finished = out.json()["deal"]["state"]
    assert finished["outcome"]["points"] == [-3, 4, -13]
    assert finished["pot"] == {"AS": 0, "KC": 4, "QD": 4, "JH": 4}
    # Zero-sum with the prize cards: nothing was carried in, the seats lost 12 chips between them
    # and the three prizes nobody took hold those 12.
    assert sum(finished["outcome"]["points"]) == -12
    assert sum(finished["pot"].values()) == 12
    results = list(DealResult.objects.filter(deal=deal).order_by("seat").values_list("points", flat=True))
    assert results == [-3, 4, -13]
    following = scorer_client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json").json()
    assert following["dealer"] == 0
    # The carried chips plus this deal's antes (the new dealer, Ona, puts 2 on each).
    assert following["state"]["pot"] == {"AS": 4, "KC": 8, "QD": 8, "JH": 8}


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ({"type": "prize", "card": "2S", "player": 0}, "2S is not a prize card; the prize cards are AS, KC, QD, JH."),
        ({"type": "out", "player": 1, "hand_counts": [3, 1, 5]},
         "Jonas went out, so they hold 0 cards, not 1."),
        ({"type": "prize", "card": "AS", "player": 5}, "The player must be a seat from 0 to 2, not 5."),
    ],
)
def test_michigan_refusals_store_nothing(
    scorer_client: Any, start_session: Any, start_deal: Any, counts: Any, entry: dict[str, Any], message: str
) -> None:
    deal = start_deal(start_session("michigan", ["Ona", "Jonas", "Rūta"]))
    before = counts()
    response = post(scorer_client, deal, entry)
    assert response.status_code == 400
    assert response.json() == {"code": ANY_CODE, "error": message}
    assert counts() == before
