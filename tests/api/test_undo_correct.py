"""Undo (``POST /api/deals/{id}/undo/``), corrections (``PUT /api/deals/{id}/entries/{seq}/``)
and the audit trail (``GET /api/sessions/{id}/audit/``): nothing is deleted, every change
says who made it, and the deal's state is rebuilt from the log."""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import ChangeKind, Deal, DealChange, Entry
from referee.rules import GAMES
from scoring.models import DealResult
from tests.api.conftest import ANY_CODE

from .conftest import FOUR
from .test_entries import LAST_CARD, RUKAS_DEAL

pytestmark = pytest.mark.django_db


def record(client: Any, deal: Deal, tricks: list[tuple[list[str], int | None]]) -> None:
    for cards, _taker in tricks:
        response = client.post(f"/api/deals/{deal.pk}/entries/", {"type": "trick", "cards": cards}, format="json")
        assert response.status_code == 201, response.json()


def engine_state_after(tricks: list[tuple[list[str], int | None]]) -> dict[str, Any]:
    """The snapshot the engine gives for these tricks from a fresh deal (Jonas deals)."""
    game = GAMES["rukas"]
    state = game.new_deal(players=2, dealer=1)
    for cards, _taker in tricks:
        state = game.apply(state, {"type": "trick", "cards": cards})
    return game.to_dict(state)


# -- undo ------------------------------------------------------------------------------------


def test_undo_removes_the_last_entry_and_keeps_it_in_the_log(
    scorer_client: Any, rukas_deal: Deal, club_setup: dict[str, Any], counts: Any
) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:3])
    before = counts()
    response = scorer_client.post(f"/api/deals/{rukas_deal.pk}/undo/", {"expected_seq": 3}, format="json")
    assert response.status_code == 200
    deal = response.json()["deal"]
    assert deal["seq"] == 2
    assert deal["state"]["tricks"] == [1, 1]
    assert deal["state"]["turn"] == 1
    rukas_deal.refresh_from_db()
    assert rukas_deal.state == engine_state_after(RUKAS_DEAL[:2])
    after = counts()
    assert after["Entry"] == before["Entry"]  # kept, only deactivated
    assert after["DealChange"] == before["DealChange"] + 1
    undone = Entry.objects.get(deal=rukas_deal, seq=3)
    assert (undone.active, undone.payload["cards"]) == (False, ["4", "4"])
    change = DealChange.objects.get(deal=rukas_deal)
    assert (change.kind, change.replaced, change.replacement, change.author) == (
        ChangeKind.UNDO, undone, None, club_setup["users"]["scorer"],
    )


def test_recording_again_after_an_undo_reuses_the_seq(scorer_client: Any, rukas_deal: Deal) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:3])
    scorer_client.post(f"/api/deals/{rukas_deal.pk}/undo/", {}, format="json")
    response = scorer_client.post(
        f"/api/deals/{rukas_deal.pk}/entries/", {"type": "trick", "cards": ["5", "6"], "expected_seq": 2},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["entry"]["seq"] == 3
    assert list(Entry.objects.filter(deal=rukas_deal, seq=3).order_by("id").values_list("active", flat=True)) == [
        False, True,
    ]
    # The undone entry's cards were never played: Jonas (who took trick 2) reveals first.
    assert response.json()["deal"]["state"]["played"] == [["2", "3", "6"], ["2", "3", "5"]]


def test_undo_of_the_entry_that_finished_the_deal_reopens_it(
    scorer_client: Any, start_session: Any, start_deal: Any
) -> None:
    deal = start_deal(start_session("velnias", FOUR))
    scorer_client.post(f"/api/deals/{deal.pk}/entries/", LAST_CARD, format="json")
    assert DealResult.objects.filter(deal=deal).count() == 4
    response = scorer_client.post(f"/api/deals/{deal.pk}/undo/", {}, format="json")
    assert response.status_code == 200
    assert (response.json()["deal"]["status"], response.json()["deal"]["state"]["outcome"]) == ("running", None)
    deal.refresh_from_db()
    assert (deal.status, deal.finished_at, deal.seq) == ("running", None, 0)
    assert DealResult.objects.filter(deal=deal).count() == 0
    # ... and the corrected ending finishes it again with the new figures.
    again = scorer_client.post(f"/api/deals/{deal.pk}/entries/", {**LAST_CARD, "hand_counts": [1, 2, 6, 1]},
                               format="json")
    assert again.status_code == 201
    assert list(DealResult.objects.filter(deal=deal).order_by("seat").values_list("points", flat=True)) == [
        30, -10, -10, -10,
    ]


def test_undo_with_a_stale_seq_is_a_conflict(scorer_client: Any, rukas_deal: Deal, counts: Any) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:2])
    before = counts()
    response = scorer_client.post(f"/api/deals/{rukas_deal.pk}/undo/", {"expected_seq": 1}, format="json")
    assert response.status_code == 409
    assert response.json() == {
        "code": ANY_CODE,
        "error": "Another device recorded first: this deal is now at entry 2. Reload and try again.", "seq": 2,
    }
    assert counts() == before


def test_undo_in_an_empty_deal_is_refused(scorer_client: Any, rukas_deal: Deal, counts: Any) -> None:
    before = counts()
    response = scorer_client.post(f"/api/deals/{rukas_deal.pk}/undo/", {}, format="json")
    assert response.status_code == 400
    assert response.json() == {"code": ANY_CODE, "error": "There is nothing to undo in this deal."}
    assert counts() == before


def test_undo_is_refused_once_a_later_deal_started(
    scorer_client: Any, start_session: Any, start_deal: Any, counts: Any
) -> None:
    session = start_session("velnias", FOUR)
    first = start_deal(session)
    scorer_client.post(f"/api/deals/{first.pk}/entries/", LAST_CARD, format="json")
    start_deal(session)
    before = counts()
    response = scorer_client.post(f"/api/deals/{first.pk}/undo/", {}, format="json")
    assert response.status_code == 400
    assert response.json() == {
        "code": ANY_CODE,
        "error": "A later deal has started; correct this deal's entries instead of undoing them."
    }
    assert counts() == before


def test_undo_refuses_a_bad_expected_seq(scorer_client: Any, rukas_deal: Deal) -> None:
    response = scorer_client.post(f"/api/deals/{rukas_deal.pk}/undo/", {"expected_seq": -2}, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == "expected_seq: Ensure this value is greater than or equal to 0."


# -- corrections -----------------------------------------------------------------------------


def test_correcting_an_early_trick_replays_the_deal(
    scorer_client: Any, rukas_deal: Deal, club_setup: dict[str, Any], counts: Any
) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:4])
    before = counts()
    # Trick 3 was really Jonas's 5 against Ona's 4: the 4 takes (one below the 5), so Ona now leads
    # trick 4 and its A and 7 change hands: Jonas's 7 beats her ace.
    response = scorer_client.put(
        f"/api/deals/{rukas_deal.pk}/entries/3/", {"type": "trick", "cards": ["5", "4"]}, format="json"
    )
    assert response.status_code == 200
    deal = response.json()["deal"]
    assert deal["seq"] == 4
    assert deal["state"]["tricks"] == [2, 2]
    corrected = [*RUKAS_DEAL[:2], (["5", "4"], 1), RUKAS_DEAL[3]]
    rukas_deal.refresh_from_db()
    assert rukas_deal.state == engine_state_after(corrected)
    after = counts()
    assert (after["Entry"], after["DealChange"]) == (before["Entry"] + 1, before["DealChange"] + 1)
    versions = list(Entry.objects.filter(deal=rukas_deal, seq=3).order_by("id"))
    assert [(e.payload["cards"], e.active) for e in versions] == [(["4", "4"], False), (["5", "4"], True)]
    assert versions[1].result["taker"] == 0
    change = DealChange.objects.get(deal=rukas_deal)
    assert (change.kind, change.replaced, change.replacement, change.author) == (
        ChangeKind.CORRECTION, versions[0], versions[1], club_setup["users"]["scorer"],
    )


def test_a_correction_that_makes_a_later_entry_illegal_is_refused(
    scorer_client: Any, rukas_deal: Deal, counts: Any
) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:2])
    rukas_deal.refresh_from_db()
    before, state = counts(), rukas_deal.state
    # Had Ona played her 3 against Jonas's 4 first, she would take it, lead trick 2, and its 3 would be
    # her second 3.
    response = scorer_client.put(
        f"/api/deals/{rukas_deal.pk}/entries/1/", {"type": "trick", "cards": ["3", "4"]}, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "code": ANY_CODE,
        "error": "This correction is refused: Ona has already played their 3 this deal; "
                 "they still hold 2, 4, 5, 6, 7, 8, 9, 10, J, Q, K, A."
    }
    assert counts() == before
    rukas_deal.refresh_from_db()
    assert rukas_deal.state == state


def test_a_correction_of_a_missing_entry_is_not_found(scorer_client: Any, rukas_deal: Deal, counts: Any) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:1])
    before = counts()
    response = scorer_client.put(
        f"/api/deals/{rukas_deal.pk}/entries/9/", {"type": "trick", "cards": ["5", "4"]}, format="json"
    )
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "error": "This deal has no entry 9."}
    assert counts() == before


def test_correcting_a_finished_deal_rewrites_its_results(
    scorer_client: Any, start_session: Any, start_deal: Any
) -> None:
    session = start_session("velnias", FOUR)
    first = start_deal(session)
    scorer_client.post(f"/api/deals/{first.pk}/entries/", LAST_CARD, format="json")
    start_deal(session)  # a later deal does not stop a correction
    response = scorer_client.put(
        f"/api/deals/{first.pk}/entries/1/",
        {"type": "end", "condition": "empty_hand", "player": 2, "hand_counts": [3, 2, 0, 1]}, format="json",
    )
    assert response.status_code == 200
    assert response.json()["deal"]["state"]["outcome"]["points"] == [-3, -2, 6, -1]
    assert list(DealResult.objects.filter(deal=first).order_by("seat").values_list("points", "placement")) == [
        (-3, 4), (-2, 3), (6, 1), (-1, 2),
    ]


def test_a_member_can_neither_undo_nor_correct(
    club_setup: dict[str, Any], client_for: Any, scorer_client: Any, rukas_deal: Deal, counts: Any
) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:1])
    before = counts()
    member = client_for(club_setup["users"]["member"])
    for response in (
        member.post(f"/api/deals/{rukas_deal.pk}/undo/", {}, format="json"),
        member.put(f"/api/deals/{rukas_deal.pk}/entries/1/", {"type": "trick", "cards": ["5", "4"]}, format="json"),
    ):
        assert response.status_code == 403
        assert response.json() == {
            "code": "forbidden", "error": "Only the club's scorers and admins can record or change play."
        }
    assert counts() == before


# -- audit -----------------------------------------------------------------------------------


def test_the_audit_lists_every_entry_and_change_with_who(
    scorer_client: Any, rukas_deal: Deal, client_for: Any, club_setup: dict[str, Any]
) -> None:
    record(scorer_client, rukas_deal, RUKAS_DEAL[:3])
    scorer_client.post(f"/api/deals/{rukas_deal.pk}/undo/", {}, format="json")
    admin = client_for(club_setup["users"]["admin"])
    corrected = admin.put(f"/api/deals/{rukas_deal.pk}/entries/1/", {"type": "trick", "cards": ["A", "K"]},
                          format="json")
    assert corrected.status_code == 200
    response = client_for(club_setup["users"]["member"]).get(f"/api/sessions/{rukas_deal.session_id}/audit/")
    assert response.status_code == 200
    body = response.json()
    assert [(e["deal"], e["seq"], e["payload"]["cards"], e["active"], e["author"]) for e in body["entries"]] == [
        (1, 1, ["2", "3"], False, "scorer"),
        (1, 2, ["3", "2"], True, "scorer"),
        (1, 3, ["4", "4"], False, "scorer"),
        (1, 1, ["A", "K"], True, "admin"),
    ]
    assert [(c["kind"], c["seq"], c["replaced"]["cards"], c["replacement"], c["author"]) for c in body["changes"]] == [
        ("undo", 3, ["4", "4"], None, "scorer"),
        ("correction", 1, ["2", "3"], {"type": "trick", "cards": ["A", "K"]}, "admin"),
    ]


def test_a_refused_correction_names_cards_in_the_sessions_notation(
    scorer_client: Any, start_session: Any, start_deal: Any
) -> None:
    """An LT session writes the jack as V and the ace as T, in refusals of corrections too."""
    deal = start_deal(start_session("rukas", ["Ona", "Jonas"], options={"notation": "lt"}))
    record(scorer_client, deal, RUKAS_DEAL[:2])
    refused_entry = scorer_client.post(f"/api/deals/{deal.pk}/entries/", {"type": "trick", "cards": ["3", "2"]},
                                       format="json")
    refused_correction = scorer_client.put(f"/api/deals/{deal.pk}/entries/1/", {"type": "trick", "cards": ["3", "4"]},
                                           format="json")
    assert refused_entry.json() == {
        "code": ANY_CODE,
        "error": "Jonas has already played their 3 this deal; they still hold 4, 5, 6, 7, 8, 9, 10, V, D, K, T."
    }
    assert refused_correction.json() == {
        "code": ANY_CODE,
        "error": "This correction is refused: Ona has already played their 3 this deal; "
                 "they still hold 2, 4, 5, 6, 7, 8, 9, 10, V, D, K, T."
    }
