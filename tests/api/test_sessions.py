"""Sessions, deals and closing: ``/api/sessions/``, ``/api/sessions/{id}/deals/``,
``/api/sessions/{id}/close/`` and ``/reopen/``, ``DELETE /api/deals/{id}/``."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from referee import services
from referee.models import Deal, Seat, Session
from tests.api.conftest import ANY_CODE

from .conftest import FOUR

pytestmark = pytest.mark.django_db

END_4 = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}


def ids(club_setup: dict[str, Any], *names: str) -> list[int]:
    by_name = {m.name: m.pk for m in club_setup["members"].values()}
    return [by_name[n] for n in names]


# -- starting a session --------------------------------------------------------------------


def test_scorer_starts_a_session_with_seats_in_order(club_setup: dict[str, Any], client_for: Any, counts: Any) -> None:
    before = counts()
    players = ids(club_setup, "Petras", "Ona", "Jonas", "Rūta")
    response = client_for(club_setup["users"]["scorer"]).post(
        "/api/sessions/",
        {"club": "vilnius", "game": "velnias", "players": players, "stake": "0.50", "options": {"notation": "lt"}},
        format="json",
    )
    assert response.status_code == 201
    body = response.json()
    session = Session.objects.get(pk=body["id"])
    assert body == {
        "id": session.pk, "club": "vilnius", "game": "velnias", "players": players,
        "seats": [{"seat": i, "member": pk, "name": name}
                  for i, (pk, name) in enumerate(zip(players, ["Petras", "Ona", "Jonas", "Rūta"]))],
        "options": {"notation": "lt"}, "stake": "0.50", "currency": "EUR", "coin": None, "notation": "lt",
        "plan": None, "plan_status": None,
        "status": "open", "created_at": body["created_at"], "closed_at": None, "deals": [],
    }
    assert session.created_by == club_setup["users"]["scorer"]
    assert session.stake == Decimal("0.50")
    after = counts()
    assert (after["Session"], after["Seat"]) == (before["Session"] + 1, before["Seat"] + 4)


def test_session_options_are_stored_with_their_defaults(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["scorer"]).post(
        "/api/sessions/",
        {"club": "vilnius", "game": "rukas", "players": ids(club_setup, "Ona", "Jonas"),
         "options": {"void_trick": "carry"}, "coin": "0.05"},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["options"] == {"seven_after_ace": "seven_takes", "void_trick": "carry", "notation": "en"}
    assert response.json()["coin"] == "0.05"
    assert response.json()["stake"] == "0.00"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"game": "poker"}, 'game: "poker" is not a valid choice.'),
        ({"players": [1]}, "players: Ensure this field has at least 2 elements."),
        ({"players": list(range(1, 10))}, "players: Ensure this field has no more than 8 elements."),
        ({"players": ["Ona", "Jonas", "Rūta"]}, "players: 0: A valid integer is required."),
        ({"stake": "-1"}, "stake: Ensure this value is greater than or equal to 0."),
        ({"stake": "lots"}, "stake: A valid number is required."),
        ({"coin": "0"}, "coin: Ensure this value is greater than or equal to 0.01."),
        ({"options": ["lt"]}, 'options: Expected a dictionary of items but got type "list".'),
        ({"club": None}, "club: This field may not be null."),
        ({"options": {"colour": "red"}},
         "Unknown option colour for Pašėlęs Velnias; the valid options are notation."),
        ({"options": {"notation": "fr"}}, "Option notation must be \"en\" or \"lt\", not 'fr'."),
    ],
)
def test_start_refuses_bad_input_and_stores_nothing(
    club_setup: dict[str, Any], client_for: Any, counts: Any, body: dict[str, Any], message: str
) -> None:
    before = counts()
    request = {"club": "vilnius", "game": "velnias", "players": ids(club_setup, *FOUR), **body}
    response = client_for(club_setup["users"]["scorer"]).post("/api/sessions/", request, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == message
    assert counts() == before


def test_start_refuses_a_player_count_the_game_does_not_allow(
    club_setup: dict[str, Any], client_for: Any, counts: Any
) -> None:
    before = counts()
    response = client_for(club_setup["users"]["scorer"]).post(
        "/api/sessions/", {"club": "vilnius", "game": "velnias", "players": ids(club_setup, "Ona", "Jonas")},
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {"code": ANY_CODE, "error": "Pašėlęs Velnias is played by 3 to 8 players, not 2."}
    assert counts() == before


def test_start_refuses_a_member_seated_twice(club_setup: dict[str, Any], client_for: Any, counts: Any) -> None:
    before = counts()
    response = client_for(club_setup["users"]["scorer"]).post(
        "/api/sessions/", {"club": "vilnius", "game": "velnias", "players": ids(club_setup, "Ona", "Jonas", "Ona")},
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {"code": ANY_CODE, "error": "A member can take only one seat."}
    assert counts() == before


def test_start_refuses_a_member_of_another_club(club_setup: dict[str, Any], client_for: Any, counts: Any) -> None:
    before = counts()
    darius = club_setup["members"]["outsider"].pk
    response = client_for(club_setup["users"]["scorer"]).post(
        "/api/sessions/",
        {"club": "vilnius", "game": "velnias", "players": [*ids(club_setup, "Ona", "Jonas"), darius, 99999]},
        format="json",
    )
    assert response.status_code == 400
    assert response.json() == {"code": "refused", "error": f"Member {darius}, 99999 is not a member of this club."}
    assert counts() == before


def test_start_in_a_club_of_someone_else_is_not_found(club_setup: dict[str, Any], client_for: Any, counts: Any) -> None:
    before = counts()
    response = client_for(club_setup["users"]["scorer"]).post(
        "/api/sessions/", {"club": "kaunas", "game": "velnias", "players": [club_setup["members"]["outsider"].pk] * 3},
        format="json",
    )
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "error": "Not found."}
    assert counts() == before


def test_a_plain_member_cannot_start_a_session(club_setup: dict[str, Any], client_for: Any, counts: Any) -> None:
    before = counts()
    response = client_for(club_setup["users"]["member"]).post(
        "/api/sessions/", {"club": "vilnius", "game": "velnias", "players": ids(club_setup, *FOUR)}, format="json"
    )
    assert response.status_code == 403
    assert response.json() == {
        "code": "forbidden", "error": "Only the club's scorers and admins can record or change play."
    }
    assert counts() == before


# -- reading sessions ----------------------------------------------------------------------


def test_list_shows_the_users_clubs_sessions_newest_first(
    club_setup: dict[str, Any], client_for: Any, start_session: Any, make_user: Any
) -> None:
    first = start_session("velnias", FOUR)
    second = start_session("rukas", ["Ona", "Jonas"])
    darius = club_setup["members"]["outsider"]
    other_players = [darius]
    for name in ("Vytas", "Gintė"):
        other_players.append(club_setup["other"].members.create(name=name))
    services.session_start(club=club_setup["other"], game="velnias", players=other_players,
                           user=club_setup["users"]["outsider"])
    response = client_for(club_setup["users"]["member"]).get("/api/sessions/")
    assert response.status_code == 200
    assert [s["id"] for s in response.json()] == [second.pk, first.pk]
    assert response.json()[1]["players"] == ids(club_setup, *FOUR)
    filtered = client_for(club_setup["users"]["member"]).get("/api/sessions/?club=vilnius")
    assert [s["id"] for s in filtered.json()] == [second.pk, first.pk]
    assert client_for(club_setup["users"]["member"]).get("/api/sessions/?club=kaunas").json() == []


def test_list_queries_do_not_grow_with_the_number_of_sessions(
    club_setup: dict[str, Any], client_for: Any, start_session: Any, django_assert_max_num_queries: Any
) -> None:
    for _ in range(2):
        start_session("velnias", FOUR)
    client = client_for(club_setup["users"]["member"])
    with django_assert_max_num_queries(6) as few:
        assert len(client.get("/api/sessions/").json()) == 2
    for _ in range(10):
        start_session("rukas", ["Ona", "Jonas", "Rūta"])
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert len(client.get("/api/sessions/").json()) == 12


def test_detail_lists_the_deals(
    club_setup: dict[str, Any], client_for: Any, start_session: Any, start_deal: Any
) -> None:
    session = start_session("velnias", FOUR)
    deal = start_deal(session)
    response = client_for(club_setup["users"]["member"]).get(f"/api/sessions/{session.pk}/")
    assert response.status_code == 200
    assert response.json()["deals"] == [
        {"id": deal.pk, "number": 1, "dealer": 3, "seq": 0, "status": "running",
         "created_at": response.json()["deals"][0]["created_at"], "finished_at": None},
    ]


def test_detail_of_another_clubs_session_is_not_found(
    club_setup: dict[str, Any], client_for: Any, start_session: Any
) -> None:
    session = start_session("velnias", FOUR)
    for path in (f"/api/sessions/{session.pk}/", f"/api/sessions/{session.pk}/deals/", "/api/sessions/999999/"):
        response = client_for(club_setup["users"]["outsider"]).get(path)
        assert response.status_code == 404, path
        assert response.json() == {"code": "not_found", "error": "Not found."}


# -- deals -----------------------------------------------------------------------------------


def test_first_deal_is_dealt_by_the_last_seat(club_setup: dict[str, Any], client_for: Any, start_session: Any,
                                              counts: Any) -> None:
    session = start_session("velnias", FOUR)
    before = counts()
    response = client_for(club_setup["users"]["scorer"]).post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert response.status_code == 201
    body = response.json()
    deal = Deal.objects.get(pk=body["id"])
    assert {k: body[k] for k in ("session", "game", "number", "dealer", "seq", "status", "finished", "players",
                                 "notation")} == {
        "session": session.pk, "game": "velnias", "number": 1, "dealer": 3, "seq": 0, "status": "running",
        "finished": False, "players": FOUR, "notation": "en",
    }
    assert body["state"]["first_player"] == 0
    assert body["state"]["hand_size"] == 8
    assert body["state"]["outcome"] is None
    assert deal.number == 1
    assert counts()["Deal"] == before["Deal"] + 1


def test_the_dealer_rotates_clockwise(club_setup: dict[str, Any], client_for: Any, start_session: Any) -> None:
    session = start_session("velnias", FOUR)
    client = client_for(club_setup["users"]["scorer"])
    dealers = []
    for _ in range(5):
        deal = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json").json()
        dealers.append(deal["dealer"])
        assert client.post(f"/api/deals/{deal['id']}/entries/", END_4, format="json").status_code == 201
    assert dealers == [3, 0, 1, 2, 3]
    listed = client.get(f"/api/sessions/{session.pk}/deals/").json()
    assert [(d["number"], d["dealer"], d["status"]) for d in listed] == [
        (1, 3, "finished"), (2, 0, "finished"), (3, 1, "finished"), (4, 2, "finished"), (5, 3, "finished"),
    ]


def test_a_chosen_dealer_overrides_the_rotation(club_setup: dict[str, Any], client_for: Any,
                                                start_session: Any) -> None:
    session = start_session("velnias", FOUR)
    client = client_for(club_setup["users"]["scorer"])
    response = client.post(f"/api/sessions/{session.pk}/deals/", {"dealer": 1}, format="json")
    assert response.status_code == 201
    assert (response.json()["dealer"], response.json()["state"]["first_player"]) == (1, 2)
    client.post(f"/api/deals/{response.json()['id']}/entries/", END_4, format="json")
    # Rotation continues from the chosen dealer.
    assert client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json").json()["dealer"] == 2


def test_the_loser_of_a_cheat_deal_deals_next(club_setup: dict[str, Any], client_for: Any,
                                              start_session: Any) -> None:
    session = start_session("cheat", ["Ona", "Jonas"])
    client = client_for(club_setup["users"]["scorer"])
    deal = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json").json()
    assert deal["dealer"] == 1
    # 26 cards each: Ona (first player) places her 26th card as the 51st card; Jonas lets it stand.
    for n in range(51):
        response = client.post(f"/api/deals/{deal['id']}/entries/", {"type": "place", "player": n % 2}, format="json")
        assert response.status_code == 201, response.json()
    final = client.post(f"/api/deals/{deal['id']}/entries/", {"type": "stands"}, format="json").json()["deal"]
    assert final["status"] == "finished"
    assert final["state"]["loser"] == 1
    assert final["state"]["outcome"]["points"] == [0, -1]
    following = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json").json()
    assert following["dealer"] == 1


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"dealer": 4}, "The dealer must be a seat from 0 to 3."),
        ({"dealer": -1}, "dealer: Ensure this value is greater than or equal to 0."),
        ({"dealer": "Ona"}, "dealer: A valid integer is required."),
    ],
)
def test_deal_start_refuses_a_bad_dealer(club_setup: dict[str, Any], client_for: Any, start_session: Any,
                                         counts: Any, body: dict[str, Any], message: str) -> None:
    session = start_session("velnias", FOUR)
    before = counts()
    response = client_for(club_setup["users"]["scorer"]).post(f"/api/sessions/{session.pk}/deals/", body,
                                                              format="json")
    assert response.status_code == 400
    assert response.json()["error"] == message
    assert counts() == before


def test_only_one_deal_runs_at_a_time(club_setup: dict[str, Any], client_for: Any, start_session: Any,
                                      start_deal: Any, counts: Any) -> None:
    session = start_session("velnias", FOUR)
    start_deal(session)
    before = counts()
    response = client_for(club_setup["users"]["scorer"]).post(f"/api/sessions/{session.pk}/deals/", {},
                                                              format="json")
    assert response.status_code == 400
    assert response.json() == {
        "code": ANY_CODE, "error": "Deal 1 is still running; finish it before starting the next."
    }
    assert counts() == before


def test_a_member_cannot_start_a_deal(club_setup: dict[str, Any], client_for: Any, start_session: Any,
                                      counts: Any) -> None:
    session = start_session("velnias", FOUR)
    before = counts()
    response = client_for(club_setup["users"]["member"]).post(f"/api/sessions/{session.pk}/deals/", {},
                                                              format="json")
    assert response.status_code == 403
    assert response.json() == {
        "code": "forbidden", "error": "Only the club's scorers and admins can record or change play."
    }
    assert counts() == before


def test_an_empty_deal_can_be_discarded(club_setup: dict[str, Any], client_for: Any, start_session: Any,
                                        start_deal: Any) -> None:
    session = start_session("velnias", FOUR)
    deal = start_deal(session)
    response = client_for(club_setup["users"]["scorer"]).delete(f"/api/deals/{deal.pk}/")
    assert response.status_code == 204
    assert not Deal.objects.filter(pk=deal.pk).exists()


def test_a_deal_with_entries_cannot_be_discarded(club_setup: dict[str, Any], client_for: Any, start_session: Any,
                                                 start_deal: Any, counts: Any) -> None:
    session = start_session("rukas", ["Ona", "Jonas"])
    deal = start_deal(session)
    client = client_for(club_setup["users"]["scorer"])
    client.post(f"/api/deals/{deal.pk}/entries/", {"type": "trick", "cards": ["2", "3"]}, format="json")
    before = counts()
    response = client.delete(f"/api/deals/{deal.pk}/")
    assert response.status_code == 400
    assert response.json() == {
        "code": ANY_CODE, "error": "Only a deal with nothing recorded can be discarded; undo its entries first."
    }
    assert counts() == before


# -- closing and reopening -------------------------------------------------------------------


def test_close_and_reopen(club_setup: dict[str, Any], client_for: Any, start_session: Any, start_deal: Any) -> None:
    session = start_session("velnias", FOUR)
    deal = start_deal(session)
    client = client_for(club_setup["users"]["scorer"])
    client.post(f"/api/deals/{deal.pk}/entries/", END_4, format="json")
    response = client.post(f"/api/sessions/{session.pk}/close/")
    assert response.status_code == 200
    assert response.json()["status"] == "closed"
    assert response.json()["closed_at"] is not None
    session.refresh_from_db()
    assert session.status == "closed"
    reopened = client.post(f"/api/sessions/{session.pk}/reopen/")
    assert reopened.status_code == 200
    assert (reopened.json()["status"], reopened.json()["closed_at"]) == ("open", None)


def test_close_refuses_while_a_deal_runs(club_setup: dict[str, Any], client_for: Any, start_session: Any,
                                         start_deal: Any) -> None:
    session = start_session("velnias", FOUR)
    start_deal(session)
    response = client_for(club_setup["users"]["scorer"]).post(f"/api/sessions/{session.pk}/close/")
    assert response.status_code == 400
    assert response.json() == {
        "code": ANY_CODE,
        "error": "Deal 1 is still running: finish it, or undo its entries and discard it, before closing."
    }
    session.refresh_from_db()
    assert (session.status, session.closed_at) == ("open", None)


def test_a_closed_session_refuses_everything_that_records(
    club_setup: dict[str, Any], client_for: Any, start_session: Any, start_deal: Any, counts: Any
) -> None:
    vel = start_session("velnias", ["Ona", "Jonas", "Rūta"])
    vel_deal = start_deal(vel)
    client = client_for(club_setup["users"]["scorer"])
    client.post(f"/api/deals/{vel_deal.pk}/entries/", {"type": "end", "condition": "blocked", "player": None,
                                                       "hand_counts": [1, 2, 3]}, format="json")
    assert client.post(f"/api/sessions/{vel.pk}/close/").status_code == 200
    before = counts()
    closed = "This session is closed; reopen it to record or correct anything."
    attempts = [
        client.post(f"/api/sessions/{vel.pk}/deals/", {}, format="json"),
        client.post(f"/api/deals/{vel_deal.pk}/undo/", {}, format="json"),
        client.post(f"/api/deals/{vel_deal.pk}/entries/",
                    {"type": "end", "condition": "blocked", "player": None, "hand_counts": [1, 2, 3]}, format="json"),
        client.put(f"/api/deals/{vel_deal.pk}/entries/1/",
                   {"type": "end", "condition": "blocked", "player": None, "hand_counts": [2, 2, 3]}, format="json"),
        client.post(f"/api/sessions/{vel.pk}/close/"),
    ]
    for response in attempts:
        assert response.status_code == 400
        assert response.json() == {"code": ANY_CODE, "error": closed}
    assert counts() == before
    again = client.post(f"/api/sessions/{vel.pk}/reopen/")
    assert again.status_code == 200
    twice = client.post(f"/api/sessions/{vel.pk}/reopen/")
    assert (twice.status_code, twice.json()) == (400, {"code": ANY_CODE, "error": "This session is already open."})


def test_a_member_cannot_close(club_setup: dict[str, Any], client_for: Any, start_session: Any) -> None:
    session = start_session("velnias", FOUR)
    response = client_for(club_setup["users"]["member"]).post(f"/api/sessions/{session.pk}/close/")
    assert response.status_code == 403
    assert response.json() == {
        "code": "forbidden", "error": "Only the club's scorers and admins can record or change play."
    }
    session.refresh_from_db()
    assert session.status == "open"


def test_seats_are_stored_in_the_given_order(club_setup: dict[str, Any], start_session: Any) -> None:
    session = start_session("velnias", ["Rūta", "Ona", "Jonas"])
    assert [(s.number, s.member.name) for s in Seat.objects.filter(session=session).order_by("number")] == [
        (0, "Rūta"), (1, "Ona"), (2, "Jonas"),
    ]
