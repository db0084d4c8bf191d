"""Recording: ``POST /api/deals/{id}/entries/``, ``GET /api/deals/{id}/`` and the entry list.

Velnias (one ``end`` entry), Rūkas (13 ``trick`` entries) and Cheat (turns) are recorded
through the API exactly as a tablet would, with idempotency keys and ``expected_seq``.
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from referee.models import Deal, Entry
from scoring.models import DealResult
from tests.api.conftest import ANY_CODE

from .conftest import FOUR

pytestmark = pytest.mark.django_db

#: The seed's last-card example: A (player) 3, B 2, C 6, D 1 -> A +27, B -9, C -10, D -8.
LAST_CARD = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}

#: A two-player Rūkas deal worked out by hand (seat 0 = Ona, seat 1 = Jonas, Jonas deals,
#: so Ona reveals first). Each row: cards in reveal order, who takes it (None: void).
RUKAS_DEAL = [
    (["2", "3"], 0),  # 3 is highest, the 2 just below it takes
    (["3", "2"], 1),
    (["4", "4"], None),  # same ranks cancel: void, Jonas reveals first again
    (["A", "7"], 0),  # the 7 beats the ace revealed before it, and takes
    (["A", "K"], 0),
    (["K", "7"], 0),
    (["5", "6"], 0),
    (["6", "5"], 1),
    (["8", "8"], None),
    (["9", "10"], 1),
    (["10", "9"], 0),
    (["J", "Q"], 0),
    (["Q", "J"], 1),
]


@pytest.fixture
def velnias_deal(start_session: Any, start_deal: Any) -> Deal:
    return start_deal(start_session("velnias", FOUR, stake=Decimal("0.10")))


def post(client: Any, deal: Deal, body: Any) -> Any:
    return client.post(f"/api/deals/{deal.pk}/entries/", body, format="json")


# -- happy paths -----------------------------------------------------------------------------


def test_velnias_end_finishes_the_deal_and_writes_results(
    scorer_client: Any, velnias_deal: Deal, counts: Any, club_setup: dict[str, Any]
) -> None:
    before = counts()
    response = post(scorer_client, velnias_deal, LAST_CARD)
    assert response.status_code == 201
    body = response.json()
    assert body["replayed"] is False
    assert {k: body["entry"][k] for k in ("seq", "payload", "author", "idempotency_key", "active")} == {
        "seq": 1, "payload": LAST_CARD, "author": "scorer", "idempotency_key": None, "active": True,
    }
    assert body["entry"]["result"]["points"] == [27, -9, -10, -8]
    deal = body["deal"]
    assert (deal["seq"], deal["status"], deal["finished"]) == (1, "finished", True)
    assert deal["state"]["outcome"] == {"points": [27, -9, -10, -8], "placements": [1, 3, 4, 2], "winners": [0]}
    after = counts()
    assert (after["Entry"], after["DealResult"]) == (before["Entry"] + 1, before["DealResult"] + 4)
    results = DealResult.objects.filter(deal=velnias_deal).order_by("seat")
    assert [(r.member.name, r.points, r.placement, r.won) for r in results] == [
        ("Ona", 27, 1, True), ("Jonas", -9, 3, False), ("Rūta", -10, 4, False), ("Petras", -8, 2, False),
    ]
    velnias_deal.refresh_from_db()
    assert (velnias_deal.seq, velnias_deal.status) == (1, "finished")
    assert velnias_deal.finished_at is not None


def test_velnias_blocked_seed_example(
    club_setup: dict[str, Any], scorer_client: Any, start_session: Any, start_deal: Any
) -> None:
    deal = start_deal(start_session("velnias", ["Ona", "Jonas", "Rūta", "Petras", "Asta"]))
    entry = {"type": "end", "condition": "blocked", "player": None, "hand_counts": [1, 1, 3, 2, 3]}
    response = post(scorer_client, deal, entry)
    assert response.status_code == 201
    assert response.json()["deal"]["state"]["outcome"]["points"] == [5, 5, -4, -2, -4]
    assert list(DealResult.objects.filter(deal=deal).order_by("seat").values_list("points", flat=True)) == [
        5, 5, -4, -2, -4,
    ]


def test_rukas_deal_of_thirteen_tricks(scorer_client: Any, rukas_deal: Deal, client_for: Any,
                                       club_setup: dict[str, Any]) -> None:
    tricks = [0, 0]
    for number, (cards, taker) in enumerate(RUKAS_DEAL, start=1):
        response = post(scorer_client, rukas_deal, {"type": "trick", "cards": cards, "expected_seq": number - 1})
        assert response.status_code == 201, response.json()
        body = response.json()
        assert body["entry"]["seq"] == number
        assert body["entry"]["result"]["taker"] == taker
        if taker is not None:
            tricks[taker] += 1
        state = body["deal"]["state"]
        assert state["tricks"] == tricks
        assert state["tricks_played"] == number
    assert tricks == [7, 4]
    # What a phone watching the table reads (a plain member may read).
    view = client_for(club_setup["users"]["member"]).get(f"/api/deals/{rukas_deal.pk}/")
    assert view.status_code == 200
    deal = view.json()
    assert (deal["seq"], deal["status"], deal["players"]) == (13, "finished", ["Ona", "Jonas"])
    assert deal["state"]["turn"] is None
    assert deal["state"]["void_tricks"] == 2
    assert deal["state"]["outcome"] == {"points": [7, 4], "placements": [1, 2], "winners": [0]}
    assert list(DealResult.objects.filter(deal=rukas_deal).order_by("seat").values_list("points", "placement")) == [
        (7, 1), (4, 2),
    ]


def test_deal_view_for_the_tablet_says_whose_turn_and_what_was_played(
    scorer_client: Any, rukas_deal: Deal
) -> None:
    initial = scorer_client.get(f"/api/deals/{rukas_deal.pk}/").json()
    assert initial == {
        "id": rukas_deal.pk, "session": rukas_deal.session_id, "game": "rukas", "number": 1, "dealer": 1, "seq": 0,
        "status": "running", "finished": False, "players": ["Ona", "Jonas"], "notation": "en",
        "state": initial["state"],
    }
    assert (initial["state"]["turn"], initial["state"]["tricks_left"], initial["state"]["last"]) == (0, 13, None)
    post(scorer_client, rukas_deal, {"type": "trick", "cards": ["3", "2"]})
    after = scorer_client.get(f"/api/deals/{rukas_deal.pk}/").json()
    assert after["seq"] == 1
    assert after["state"]["turn"] == 1  # Jonas took it with the 2 and reveals first
    assert after["state"]["played"] == [["3"], ["2"]]
    assert after["state"]["tricks_left"] == 12


def test_cheat_refuses_a_place_out_of_turn_naming_the_players(
    scorer_client: Any, start_session: Any, start_deal: Any, counts: Any
) -> None:
    deal = start_deal(start_session("cheat", ["Ona", "Jonas", "Rūta"]))
    view = scorer_client.get(f"/api/deals/{deal.pk}/").json()["state"]
    assert (view["turn"], view["announce"], view["counts"], view["pile"]) == (0, "A", [17, 17, 17], 1)
    before = counts()
    response = post(scorer_client, deal, {"type": "place", "player": 1})
    assert response.status_code == 400
    assert response.json() == {
        "code": ANY_CODE, "error": "It is Ona's turn to place a card and announce A, not Jonas's."
    }
    assert counts() == before
    assert post(scorer_client, deal, {"type": "place", "player": 0}).status_code == 201
    challenged = post(scorer_client, deal, {"type": "challenge", "challenger": 1, "revealed": "5H"})
    assert challenged.status_code == 201
    state = challenged.json()["deal"]["state"]
    assert (state["counts"], state["pile"], state["turn"]) == ([18, 17, 17], 0, 0)


def test_entries_list_shows_active_entries_and_all_with_all(scorer_client: Any, rukas_deal: Deal) -> None:
    for cards, _taker in RUKAS_DEAL[:3]:
        post(scorer_client, rukas_deal, {"type": "trick", "cards": cards})
    scorer_client.post(f"/api/deals/{rukas_deal.pk}/undo/", {}, format="json")
    active = scorer_client.get(f"/api/deals/{rukas_deal.pk}/entries/")
    assert active.status_code == 200
    assert [(e["seq"], e["payload"]["cards"], e["active"]) for e in active.json()] == [
        (1, ["2", "3"], True), (2, ["3", "2"], True),
    ]
    everything = scorer_client.get(f"/api/deals/{rukas_deal.pk}/entries/?all=1").json()
    assert [(e["seq"], e["active"]) for e in everything] == [(1, True), (2, True), (3, False)]


def test_cards_are_read_in_the_sessions_notation(
    scorer_client: Any, start_session: Any, start_deal: Any
) -> None:
    deal = start_deal(start_session("rukas", ["Ona", "Jonas", "Rūta", "Petras", "Asta"], options={"notation": "lt"}))
    # Seed example a): 3 9 9 V 4 -> the jack (valetas) of the fourth seat takes.
    response = post(scorer_client, deal, {"type": "trick", "cards": ["3", "9", "9", "V", "4"]})
    assert response.status_code == 201
    assert response.json()["entry"]["result"]["taker"] == 3
    assert response.json()["deal"]["state"]["turn"] == 3


# -- refusals: 400, the exact message, nothing stored ----------------------------------------


VELNIAS_REFUSALS = [
    ({"type": "end", "condition": "last_card", "player": 0, "hand_counts": [9, 2, 6, 1]},
     "Ona holds 9 cards, but a hand in a 4-player deal has only 8."),
    ({"type": "end", "condition": "empty_hand", "player": 1, "hand_counts": [3, 2, 6, 1]},
     "Jonas placed their last card and called stop, so they hold 0 cards, not 2."),
    ({"type": "end", "condition": "blocked", "player": 2, "hand_counts": [3, 2, 6, 1]},
     "Nobody calls stop in a blocked deal, so player must be null, not 2."),
    ({"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6]},
     "The cards left in each hand must list 4 values, one per seat; it lists 3."),
    ({"type": "end", "condition": "won", "player": 0, "hand_counts": [3, 2, 6, 1]},
     "How the deal ended must be one of “emptied hand”, “last face-down card”, “blocked”, not 'won'."),
    ({"type": "end", "condition": "last_card", "player": 7, "hand_counts": [3, 2, 6, 1]},
     "The player who called stop must be a seat from 0 to 3, not 7."),
    ({"type": "end", "condition": "last_card", "player": 0},
     "The end-of-deal entry needs the cards left in each hand."),
    ({**LAST_CARD, "colour": "red"}, "The end entry does not take colour."),
    ({"type": "trick", "cards": ["2", "3", "4", "5"]}, "Unknown entry type 'trick'; this game records end."),
    ({"condition": "blocked"}, "Unknown entry type None; this game records end."),
    ({"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, "two", 6, 1]},
     "The hand count of Jonas must be a whole number, not 'two'."),
]


@pytest.mark.parametrize(("entry", "message"), VELNIAS_REFUSALS)
def test_velnias_refusals_store_nothing(
    scorer_client: Any, velnias_deal: Deal, counts: Any, entry: dict[str, Any], message: str
) -> None:
    before = counts()
    state_before = velnias_deal.state
    response = post(scorer_client, velnias_deal, entry)
    assert response.status_code == 400
    assert response.json() == {"code": ANY_CODE, "error": message}
    assert counts() == before
    velnias_deal.refresh_from_db()
    assert (velnias_deal.seq, velnias_deal.status, velnias_deal.state) == (0, "running", state_before)


RUKAS_REFUSALS = [
    ({"type": "trick", "cards": ["2", "4"]},
     "Ona has already played their 2 this deal; they still hold 3, 4, 5, 6, 7, 8, 9, 10, J, Q, K, A."),
    ({"type": "trick", "cards": ["5"]}, "The cards must list 2 values, one per seat; it lists 1."),
    ({"type": "trick", "cards": ["Z", "6"]}, "'Z' is not a rank; ranks are 2-10, J Q K A (T = ten)."),
    ({"type": "trick", "cards": [5, "6"]}, "A card must be written as text, not 5."),
    ({"type": "trick", "cards": "5 6"}, "The cards must be a list."),
    ({"type": "trick"}, "The trick entry needs the cards."),
]


@pytest.mark.parametrize(("entry", "message"), RUKAS_REFUSALS)
def test_rukas_refusals_store_nothing(
    scorer_client: Any, rukas_deal: Deal, counts: Any, entry: dict[str, Any], message: str
) -> None:
    assert post(scorer_client, rukas_deal, {"type": "trick", "cards": ["2", "3"]}).status_code == 201
    rukas_deal.refresh_from_db()
    before, state_before = counts(), rukas_deal.state
    response = post(scorer_client, rukas_deal, entry)
    assert response.status_code == 400
    assert response.json() == {"code": ANY_CODE, "error": message}
    assert counts() == before
    rukas_deal.refresh_from_db()
    assert (rukas_deal.seq, rukas_deal.state) == (1, state_before)


def test_nothing_more_is_recorded_in_a_finished_deal(scorer_client: Any, velnias_deal: Deal, counts: Any) -> None:
    post(scorer_client, velnias_deal, LAST_CARD)
    before = counts()
    response = post(scorer_client, velnias_deal, {**LAST_CARD, "player": 1})
    assert response.status_code == 400
    assert response.json() == {"code": ANY_CODE, "error": "This deal has ended; nothing more can be recorded in it."}
    assert counts() == before


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({**LAST_CARD, "idempotency_key": "k" * 81}, "idempotency_key must be text of 1 to 80 characters."),
        ({**LAST_CARD, "idempotency_key": ""}, "idempotency_key must be text of 1 to 80 characters."),
        ({**LAST_CARD, "idempotency_key": 17}, "idempotency_key must be text of 1 to 80 characters."),
        ({**LAST_CARD, "expected_seq": -1}, "expected_seq must be a whole number of 0 or more."),
        ({**LAST_CARD, "expected_seq": "0"}, "expected_seq must be a whole number of 0 or more."),
        ({**LAST_CARD, "expected_seq": True}, "expected_seq must be a whole number of 0 or more."),
        ({**LAST_CARD, "expected_seq": 0.5}, "expected_seq must be a whole number of 0 or more."),
        ([LAST_CARD], "The entry must be a JSON object with a “type”."),
    ],
)
def test_transport_fields_are_checked(
    scorer_client: Any, velnias_deal: Deal, counts: Any, body: Any, message: str
) -> None:
    before = counts()
    response = post(scorer_client, velnias_deal, body)
    assert response.status_code == 400
    assert response.json() == {"code": "invalid", "error": message}
    assert counts() == before


def test_a_body_that_is_not_json_is_refused(scorer_client: Any, velnias_deal: Deal, counts: Any) -> None:
    before = counts()
    response = scorer_client.post(
        f"/api/deals/{velnias_deal.pk}/entries/", data="{type: end", content_type="application/json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "code": "malformed_json",
        "error": "The request body is not valid JSON: JSON parse error - "
                 "Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"
    }
    assert counts() == before


def test_an_unknown_deal_is_not_found(scorer_client: Any, counts: Any, club_setup: dict[str, Any]) -> None:
    before = counts()
    response = scorer_client.post("/api/deals/999999/entries/", LAST_CARD, format="json")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "error": "Not found."}
    assert counts() == before


# -- retries: idempotency keys -----------------------------------------------------------------


def test_the_same_key_again_returns_the_original_stored_once(
    scorer_client: Any, rukas_deal: Deal, counts: Any
) -> None:
    body = {"type": "trick", "cards": ["2", "3"], "idempotency_key": "tablet-1:0001"}
    first = post(scorer_client, rukas_deal, body)
    assert first.status_code == 201
    after_first = counts()
    retry = post(scorer_client, rukas_deal, body)
    assert retry.status_code == 200
    assert retry.json()["replayed"] is True
    assert retry.json()["entry"] == first.json()["entry"]
    assert retry.json()["deal"]["seq"] == 1
    assert counts() == after_first
    assert list(Entry.objects.filter(deal=rukas_deal).values_list("seq", "idempotency_key")) == [
        (1, "tablet-1:0001"),
    ]


def test_a_retry_after_later_entries_still_returns_the_original(scorer_client: Any, rukas_deal: Deal) -> None:
    first = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["2", "3"], "idempotency_key": "a"})
    post(scorer_client, rukas_deal, {"type": "trick", "cards": ["3", "2"], "idempotency_key": "b"})
    late = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["2", "3"], "idempotency_key": "a"})
    assert late.status_code == 200
    assert late.json()["entry"] == first.json()["entry"]
    assert late.json()["deal"]["seq"] == 2
    assert Entry.objects.filter(deal=rukas_deal).count() == 2


def test_a_retry_of_the_entry_that_finished_the_deal(scorer_client: Any, velnias_deal: Deal, counts: Any) -> None:
    body = {**LAST_CARD, "idempotency_key": "end-1"}
    assert post(scorer_client, velnias_deal, body).status_code == 201
    before = counts()
    retry = post(scorer_client, velnias_deal, body)
    assert retry.status_code == 200
    assert retry.json()["deal"]["status"] == "finished"
    assert counts() == before


def test_a_retry_ignores_a_now_stale_expected_seq(scorer_client: Any, rukas_deal: Deal) -> None:
    body = {"type": "trick", "cards": ["2", "3"], "idempotency_key": "a", "expected_seq": 0}
    assert post(scorer_client, rukas_deal, body).status_code == 201
    retry = post(scorer_client, rukas_deal, body)
    assert retry.status_code == 200
    assert retry.json()["entry"]["seq"] == 1


def test_a_key_reused_for_a_different_entry_is_a_conflict(
    scorer_client: Any, rukas_deal: Deal, counts: Any
) -> None:
    post(scorer_client, rukas_deal, {"type": "trick", "cards": ["2", "3"], "idempotency_key": "a"})
    before = counts()
    response = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["3", "2"], "idempotency_key": "a"})
    assert response.status_code == 409
    assert response.json() == {
        "code": ANY_CODE,
        "error": "This idempotency key was already used for a different entry; create a new key.", "seq": 1,
    }
    assert counts() == before


def test_keys_belong_to_their_deal(scorer_client: Any, start_session: Any, start_deal: Any) -> None:
    one = start_deal(start_session("rukas", ["Ona", "Jonas"]))
    two = start_deal(start_session("rukas", ["Ona", "Jonas"]))
    body = {"type": "trick", "cards": ["2", "3"], "idempotency_key": "same"}
    assert post(scorer_client, one, body).status_code == 201
    assert post(scorer_client, two, body).status_code == 201


def test_a_refused_entry_does_not_use_up_its_key(scorer_client: Any, rukas_deal: Deal) -> None:
    refused = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["2"], "idempotency_key": "k"})
    assert refused.status_code == 400
    fixed = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["2", "3"], "idempotency_key": "k"})
    assert fixed.status_code == 201


# -- two tablets: expected_seq ---------------------------------------------------------------


def test_a_stale_expected_seq_is_a_conflict_with_the_current_seq(
    scorer_client: Any, rukas_deal: Deal, counts: Any
) -> None:
    assert post(scorer_client, rukas_deal, {"type": "trick", "cards": ["2", "3"], "expected_seq": 0}).status_code == 201
    before = counts()
    response = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["3", "2"], "expected_seq": 0})
    assert response.status_code == 409
    assert response.json() == {
        "code": ANY_CODE,
        "error": "Another device recorded first: this deal is now at entry 1. Reload and try again.", "seq": 1,
    }
    assert counts() == before
    ahead = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["3", "2"], "expected_seq": 5})
    assert ahead.status_code == 409
    assert ahead.json()["seq"] == 1
    current = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["3", "2"], "expected_seq": 1})
    assert current.status_code == 201
    assert current.json()["deal"]["seq"] == 2


def test_the_answer_to_an_entry_shows_the_deal_as_a_reload_would(
    scorer_client: Any, start_session: Any, start_deal: Any
) -> None:
    """The entry's answer reuses the view computed while refereeing; it must equal a fresh read."""
    deal = start_deal(start_session("cheat", ["Ona", "Jonas", "Rūta"]))
    for body in ({"type": "place", "player": 0}, {"type": "place", "player": 1},
                 {"type": "challenge", "challenger": 2, "revealed": "2C"}):
        answer = post(scorer_client, deal, body).json()["deal"]
        assert answer == scorer_client.get(f"/api/deals/{deal.pk}/").json()
    assert answer["state"]["counts"] == [16, 16, 20]  # Jonas told the truth: Rūta takes the pile of 3


def test_the_entry_in_an_answer_is_the_entry_as_listed(scorer_client: Any, rukas_deal: Deal) -> None:
    """The hot path writes the entry's JSON by hand (serializers.entry_data); it must stay what
    EntrySerializer gives for the same row."""
    first = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["2", "3"], "idempotency_key": "a"}).json()
    retry = post(scorer_client, rukas_deal, {"type": "trick", "cards": ["2", "3"], "idempotency_key": "a"}).json()
    listed = scorer_client.get(f"/api/deals/{rukas_deal.pk}/entries/").json()
    assert first["entry"] == retry["entry"] == listed[0]
    assert set(listed[0]) == {"seq", "payload", "result", "author", "created_at", "idempotency_key", "active"}


def test_the_answer_names_the_players_in_seat_order(
    scorer_client: Any, start_session: Any, start_deal: Any
) -> None:
    """Seats need not follow the members' order: Petras sits at seat 0 here, Ona at seat 3."""
    deal = start_deal(start_session("velnias", ["Petras", "Rūta", "Jonas", "Ona"]))
    body = {**LAST_CARD, "idempotency_key": "k"}
    for expected_status in (201, 200):
        response = post(scorer_client, deal, body)
        assert response.status_code == expected_status
        answer = response.json()["deal"]
        assert answer["players"] == ["Petras", "Rūta", "Jonas", "Ona"]
        assert answer["state"]["last"]["text"].startswith("Petras turned the last face-down card")
        assert response.json()["entry"]["result"]["text"] == answer["state"]["last"]["text"]


def test_an_entrys_result_speaks_of_the_players_by_name(scorer_client: Any, velnias_deal: Deal) -> None:
    """As the pages do: "Ona: +27", never "Seat 0: +27", in the answer and in the entry list."""
    stored = post(scorer_client, velnias_deal, LAST_CARD).json()["entry"]["result"]["text"]
    listed = scorer_client.get(f"/api/deals/{velnias_deal.pk}/entries/").json()[0]["result"]["text"]
    assert stored == listed
    assert stored.startswith("Ona turned the last face-down card")
    assert re.search(r"\bOna:? \+27\b", stored) and re.search(r"\bJonas:? -9\b", stored), stored
    assert "Seat" not in stored and "seat" not in stored


def test_a_retry_after_the_session_closed_still_returns_the_original(
    scorer_client: Any, velnias_deal: Deal, club_setup: dict[str, Any], counts: Any
) -> None:
    from referee import services

    body = {**LAST_CARD, "idempotency_key": "end-1"}
    first = post(scorer_client, velnias_deal, body)
    assert first.status_code == 201
    services.session_close(session=velnias_deal.session, user=club_setup["users"]["scorer"])
    before = counts()
    retry = post(scorer_client, velnias_deal, body)
    assert retry.status_code == 200
    assert retry.json()["replayed"] is True
    assert retry.json()["entry"] == first.json()["entry"]
    assert counts() == before
    fresh = post(scorer_client, velnias_deal, {**LAST_CARD, "idempotency_key": "end-2"})
    assert fresh.status_code == 400
    assert fresh.json() == {
        "code": ANY_CODE, "error": "This session is closed; reopen it to record or correct anything."
    }


def test_a_broker_that_is_down_does_not_fail_a_stored_finishing_entry(
    scorer_client: Any, velnias_deal: Deal, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The rating step is asked for after the entry's commit: when the broker cannot take the
    task, the entry is stored and answered 201, and its deal's rating events stay queued for
    the next request (the next finished deal, or the leaderboard's read)."""
    from celery import current_app

    from scoring import background
    from scoring.models import RatingEvent

    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = False
    monkeypatch.setattr(background, "_scheduled", {})

    def broker_down(sender: object, **kwargs: Any) -> None:
        raise ConnectionError("broker down")

    # The task's receiver replaced by a broker that refuses: nothing reaches a worker.
    monkeypatch.setattr(background.ratings_due, "receivers", [])
    monkeypatch.setattr(background.ratings_due, "sender_receivers_cache", {})
    background.ratings_due.connect(broker_down, weak=False)
    try:
        with django_capture_on_commit_callbacks(execute=True) as callbacks:
            response = post(scorer_client, velnias_deal, LAST_CARD)
    finally:
        current_app.conf.task_always_eager = eager
    assert response.status_code == 201, response.json()
    assert callbacks, "the rating step was asked for after the commit"
    assert Deal.objects.get(pk=velnias_deal.pk).status == "finished"
    assert RatingEvent.objects.filter(deal_id=velnias_deal.pk).count() == 2
