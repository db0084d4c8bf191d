"""The club night's API: open an evening, arrivals, the draw, a swap (stale versions refused),
start a round, the standings; exact error messages, and nothing stored by a refusal."""

from __future__ import annotations

from typing import Any

import pytest

from evenings.models import Evening, Round
from referee.models import Member, Session

pytestmark = pytest.mark.django_db


def ids(club_setup: dict[str, Any], *roles: str) -> list[int]:
    return [club_setup["members"][role].pk for role in roles]


EIGHT = ("admin", "scorer", "member", "Petras", "Asta", "Tomas", "Eglė", "Marius")


@pytest.fixture
def scorer(client_for: Any, club_setup: dict[str, Any]) -> Any:
    return client_for(club_setup["users"]["scorer"])


def open_evening(scorer: Any, club_setup: dict[str, Any], **extra: Any) -> dict[str, Any]:
    body = {"game": "velnias", "name": "Penktadienis", "rounds": 2, "members": ids(club_setup, *EIGHT), **extra}
    response = scorer.post("/api/clubs/vilnius/evenings/", body, format="json")
    assert response.status_code == 201, response.json()
    return response.json()


def test_a_club_night_from_opening_to_its_standings(scorer: Any, club_setup: dict[str, Any]) -> None:
    evening = open_evening(scorer, club_setup)
    assert sorted(evening["present"]) == sorted(ids(club_setup, *EIGHT)) and evening["round_list"] == []
    drawn = scorer.post(f"/api/evenings/{evening['id']}/rounds/", {"seed": 7}, format="json").json()
    assert drawn["number"] == 1 and [len(t["seats"]) for t in drawn["tables"]] == [4, 4]
    assert set(drawn["costs"]) == {"apart", "opponents", "position", "strength", "bye"}
    first, second = drawn["tables"][0]["seats"][0], drawn["tables"][1]["seats"][0]
    swapped = scorer.post(f"/api/rounds/{drawn['id']}/swap/",
                          {"first": first, "second": second, "expected_version": drawn["version"]}, format="json")
    assert swapped.status_code == 200
    assert swapped.json()["tables"][0]["seats"][0] == second and swapped.json()["version"] == drawn["version"] + 1
    started = scorer.post(f"/api/rounds/{drawn['id']}/start/", {}, format="json")
    assert started.status_code == 200
    sessions = [t["session"] for t in started.json()["tables"]]
    assert Session.objects.filter(pk__in=sessions).count() == 2
    standings = scorer.get(f"/api/evenings/{evening['id']}/standings/").json()
    assert standings["tie_breaks"][0] == "the evening's score" and standings["rows"] == []


def test_a_retried_swap_is_refused_as_stale_and_changes_nothing(scorer: Any, club_setup: dict[str, Any]) -> None:
    evening = open_evening(scorer, club_setup)
    drawn = scorer.post(f"/api/evenings/{evening['id']}/rounds/", {"seed": 7}, format="json").json()
    body = {"first": drawn["tables"][0]["seats"][0], "second": drawn["tables"][1]["seats"][0],
            "expected_version": drawn["version"]}
    assert scorer.post(f"/api/rounds/{drawn['id']}/swap/", body, format="json").status_code == 200
    before = list(Round.objects.get(pk=drawn["id"]).tables.values_list("seats", flat=True))
    again = scorer.post(f"/api/rounds/{drawn['id']}/swap/", body, format="json")
    assert again.status_code == 409
    assert again.json() == {"error": "The round was changed on another screen; look at it again before changing it.",
                            "code": "stale_round", "version": drawn["version"] + 1}
    assert list(Round.objects.get(pk=drawn["id"]).tables.values_list("seats", flat=True)) == before


def test_a_started_round_is_not_redrawn(scorer: Any, club_setup: dict[str, Any]) -> None:
    evening = open_evening(scorer, club_setup)
    drawn = scorer.post(f"/api/evenings/{evening['id']}/rounds/", {"seed": 7}, format="json").json()
    scorer.post(f"/api/rounds/{drawn['id']}/start/", {}, format="json")
    swap = scorer.post(f"/api/rounds/{drawn['id']}/swap/",
                       {"first": drawn["tables"][0]["seats"][0], "second": drawn["tables"][1]["seats"][0]},
                       format="json")
    assert swap.status_code == 400
    assert swap.json() == {"error": "Round 1 has started; only rounds not yet played change.", "code": "round_started"}
    nxt = scorer.post(f"/api/evenings/{evening['id']}/rounds/", {}, format="json")
    assert nxt.status_code == 201 and nxt.json()["number"] == 2
    start = scorer.post(f"/api/rounds/{nxt.json()['id']}/start/", {}, format="json")
    assert start.json() == {"error": "Round 1 is still playing at table 1, 2; close its sessions first.",
                            "code": "round_playing"}
    assert Session.objects.count() == 2  # round 2 opened nothing


def test_arrivals_and_departures(scorer: Any, club_setup: dict[str, Any]) -> None:
    evening = open_evening(scorer, club_setup, members=ids(club_setup, "admin", "scorer", "member"))
    late = club_setup["members"]["Petras"].pk
    arrived = scorer.post(f"/api/evenings/{evening['id']}/arrivals/", {"member": late}, format="json")
    assert arrived.status_code == 200 and late in arrived.json()["present"]
    left = scorer.post(f"/api/evenings/{evening['id']}/departures/", {"member": late}, format="json")
    assert late not in left.json()["present"]
    again = scorer.post(f"/api/evenings/{evening['id']}/departures/", {"member": late}, format="json")
    assert again.json() == {"error": "Petras is not at this club night.", "code": "refused"}


def test_refusals_say_why_and_store_nothing(scorer: Any, client_for: Any, club_setup: dict[str, Any]) -> None:
    bad_size = scorer.post("/api/clubs/vilnius/evenings/", {"game": "elgeta", "table_size": 6}, format="json")
    assert bad_size.json() == {"error": "Elgeta tables seat 2 to 4 players, not 6.", "code": "refused"}
    outsider = scorer.post("/api/clubs/vilnius/evenings/",
                           {"game": "velnias", "members": [club_setup["members"]["outsider"].pk]}, format="json")
    assert outsider.status_code == 404
    assert outsider.json()["error"] == f"No member {club_setup['members']['outsider'].pk} in this club."
    member = client_for(club_setup["users"]["member"]).post("/api/clubs/vilnius/evenings/", {"game": "velnias"},
                                                            format="json")
    assert member.status_code == 403
    assert Evening.objects.count() == 0
    evening = open_evening(scorer, club_setup, members=ids(club_setup, "admin", "scorer"))
    few = scorer.post(f"/api/evenings/{evening['id']}/rounds/", {}, format="json")
    assert few.json() == {"error": "2 players present; a table needs at least 3.", "code": "draw_impossible"}
    assert Round.objects.count() == 0
    other = client_for(club_setup["users"]["outsider"])
    assert other.get(f"/api/evenings/{evening['id']}/").status_code == 404


def test_a_seat_corrected_on_a_table_of_the_night_moves_the_table_and_the_standings(
        scorer: Any, club_setup: dict[str, Any]) -> None:
    evening = open_evening(scorer, club_setup)
    drawn = scorer.post(f"/api/evenings/{evening['id']}/rounds/", {"seed": 7}, format="json").json()
    started = scorer.post(f"/api/rounds/{drawn['id']}/start/", {}, format="json").json()
    table = started["tables"][0]
    deal = scorer.post(f"/api/sessions/{table['session']}/deals/", {}, format="json").json()
    scorer.post(f"/api/deals/{deal['id']}/entries/",
                {"type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 1, 2, 3]}, format="json")
    winner = table["seats"][0]
    response = scorer.post(f"/api/sessions/{table['session']}/seats/", {"seat": 0, "member": winner}, format="json")
    assert response.json() == {"error": f"{names(club_setup)[winner]} already sits on seat 1.", "code": "refused"}
    stranger = Member.objects.create(club=club_setup["club"], name="Svečias")
    response = scorer.post(f"/api/sessions/{table['session']}/seats/", {"seat": 0, "member": stranger.pk},
                           format="json")
    assert response.status_code == 200 and response.json()["players"][0] == stranger.pk
    assert Round.objects.get(pk=drawn["id"]).tables.get(number=1).seats[0] == stranger.pk
    rows = scorer.get(f"/api/evenings/{evening['id']}/standings/").json()["rows"]
    assert rows[0]["name"] == "Svečias" and rows[0]["score"] == 1.0
    assert winner not in [row["member"] for row in rows]


def names(club_setup: dict[str, Any]) -> dict[int, str]:
    return {m.pk: m.name for m in club_setup["members"].values()}
