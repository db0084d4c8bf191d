"""A session's plan through the API (RULES.md, common conventions, "How long a session runs"):
set at the start, changed by the scorer (kept in the audit log), refused when malformed with
nothing stored, never a reason to refuse a deal; playing on is its own step."""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import PlanChange, Session

from .conftest import FOUR

pytestmark = pytest.mark.django_db

END_4 = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}


def ids(club_setup: dict[str, Any], *names: str) -> list[int]:
    by_name = {m.name: m.pk for m in club_setup["members"].values()}
    return [by_name[n] for n in names]


def play_deal(client: Any, session: Session) -> dict[str, Any]:
    deal = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert deal.status_code == 201, deal.json()
    answer = client.post(f"/api/deals/{deal.json()['id']}/entries/", END_4, format="json")
    assert answer.status_code == 201, answer.json()
    return answer.json()


def test_a_session_starts_with_a_plan(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["scorer"]).post(
        "/api/sessions/",
        {"club": "vilnius", "game": "velnias", "players": ids(club_setup, *FOUR), "plan": {"deals": 10}},
        format="json",
    )
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["plan"] == {"deals": 10}
    assert body["plan_status"] == {
        "plan": {"deals": 10}, "deals_played": 0, "deal": None, "reached": False, "reached_after": None,
        "exceeded": False, "deals_past": 0, "leaders": [], "needs": None, "played_on": False, "close_first": False,
        "headline": "Plan: 10 deals", "text": "0 of 10 deals played",
    }
    assert Session.objects.get(pk=body["id"]).plan == {"deals": 10}


def test_a_session_without_a_plan_is_open_ended(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["scorer"]).post(
        "/api/sessions/", {"club": "vilnius", "game": "velnias", "players": ids(club_setup, *FOUR)}, format="json")
    assert (response.json()["plan"], response.json()["plan_status"]) == (None, None)


@pytest.mark.parametrize(("plan", "error"), [
    ({"deals": 0}, "The plan's deals must be at least 1, not 0."),
    ({"target": "50"}, "The plan's target must be a whole number, not '50'."),
    ({"deals": 5, "target": 50}, "A plan names exactly one of \"deals\" or \"target\"; "
                                    "this one names 'deals', 'target'."),
    ({}, "A plan names exactly one of \"deals\" or \"target\"; this one names nothing."),
    ("ten", "A plan must be {\"deals\": N} or {\"target\": T}, or none; not 'ten'."),
])
def test_a_bad_plan_at_the_start_is_refused_and_nothing_stored(
    club_setup: dict[str, Any], client_for: Any, counts: Any, plan: Any, error: str,
) -> None:
    before = counts()
    response = client_for(club_setup["users"]["scorer"]).post(
        "/api/sessions/", {"club": "vilnius", "game": "velnias", "players": ids(club_setup, *FOUR), "plan": plan},
        format="json")
    assert response.status_code == 400
    assert response.json() == {"error": error, "code": "invalid_plan"}
    assert counts() == before


def test_the_scorer_changes_the_plan_and_the_audit_keeps_who(
    club_setup: dict[str, Any], client_for: Any, start_session: Any,
) -> None:
    session = start_session("velnias", FOUR, plan={"deals": 10})
    scorer = club_setup["users"]["scorer"]
    response = client_for(scorer).patch(f"/api/sessions/{session.pk}/", {"plan": {"target": 20}}, format="json")
    assert response.status_code == 200, response.json()
    assert response.json()["plan"] == {"target": 20}
    assert response.json()["plan_status"]["headline"] == "Target: 20 points"
    change = PlanChange.objects.get(session=session)
    assert (change.kind, change.was, change.now, change.author, change.deals) == (
        "set", {"deals": 10}, {"target": 20}, scorer, 0)
    response = client_for(scorer).patch(f"/api/sessions/{session.pk}/", {"plan": None}, format="json")
    assert (response.json()["plan"], response.json()["plan_status"]) == (None, None)
    assert PlanChange.objects.filter(session=session).count() == 2


def test_a_patch_without_a_plan_leaves_it(club_setup: dict[str, Any], client_for: Any, start_session: Any) -> None:
    session = start_session("velnias", FOUR, plan={"deals": 10})
    response = client_for(club_setup["users"]["scorer"]).patch(f"/api/sessions/{session.pk}/", {}, format="json")
    assert (response.status_code, response.json()["plan"]) == (200, {"deals": 10})
    assert not PlanChange.objects.exists()


def test_a_bad_change_is_refused_and_the_plan_stays(
    club_setup: dict[str, Any], client_for: Any, start_session: Any,
) -> None:
    session = start_session("velnias", FOUR, plan={"deals": 10})
    response = client_for(club_setup["users"]["scorer"]).patch(
        f"/api/sessions/{session.pk}/", {"plan": {"deals": -1}}, format="json")
    assert response.status_code == 400
    assert response.json() == {"error": "The plan's deals must be at least 1, not -1.", "code": "invalid_plan"}
    session.refresh_from_db()
    assert session.plan == {"deals": 10}
    assert not PlanChange.objects.exists()


def test_a_plain_member_cannot_change_the_plan(
    club_setup: dict[str, Any], client_for: Any, start_session: Any,
) -> None:
    session = start_session("velnias", FOUR, plan={"deals": 10})
    response = client_for(club_setup["users"]["member"]).patch(
        f"/api/sessions/{session.pk}/", {"plan": {"deals": 3}}, format="json")
    assert response.status_code == 403
    session.refresh_from_db()
    assert session.plan == {"deals": 10}


def test_playing_past_the_plan_is_accepted_and_shown_exceeded(
    club_setup: dict[str, Any], client_for: Any, start_session: Any,
) -> None:
    session = start_session("velnias", FOUR, plan={"deals": 2})
    client = client_for(club_setup["users"]["scorer"])
    play_deal(client, session)
    status = client.get(f"/api/sessions/{session.pk}/").json()["plan_status"]
    assert (status["text"], status["reached"]) == ("1 of 2 deals played", False)
    play_deal(client, session)
    status = client.get(f"/api/sessions/{session.pk}/").json()["plan_status"]
    assert (status["reached"], status["close_first"], status["exceeded"]) == (True, True, False)
    assert status["text"] == "All 2 planned deals are played"
    # The referee never refuses a deal past the plan (a tablet offline may have started one).
    third = client.post(f"/api/sessions/{session.pk}/deals/", {}, format="json")
    assert third.status_code == 201
    status = client.get(f"/api/sessions/{session.pk}/").json()["plan_status"]
    assert (status["exceeded"], status["deals_past"], status["close_first"], status["deal"]) == (True, 1, False, 3)
    assert status["text"] == "Plan exceeded by 1 deal"


def test_play_on_is_a_deliberate_step_kept_in_the_audit(
    club_setup: dict[str, Any], client_for: Any, start_session: Any,
) -> None:
    session = start_session("velnias", FOUR, plan={"deals": 1})
    scorer = club_setup["users"]["scorer"]
    client = client_for(scorer)
    early = client.post(f"/api/sessions/{session.pk}/play-on/", format="json")
    assert early.status_code == 400
    assert early.json() == {"error": "This session's plan is not reached yet: there is nothing to play on past.",
                            "code": "plan_not_reached"}
    assert not PlanChange.objects.exists()
    play_deal(client, session)
    response = client.post(f"/api/sessions/{session.pk}/play-on/", format="json")
    assert response.status_code == 200
    status = response.json()["plan_status"]
    assert (status["reached"], status["played_on"], status["close_first"]) == (True, True, False)
    change = PlanChange.objects.get(session=session)
    assert (change.kind, change.author, change.deals) == ("play_on", scorer, 1)


def test_a_target_names_the_leader(club_setup: dict[str, Any], client_for: Any, start_session: Any) -> None:
    session = start_session("velnias", FOUR, plan={"target": 1000})
    client = client_for(club_setup["users"]["scorer"])
    play_deal(client, session)
    points = client.get(f"/api/sessions/{session.pk}/standings/").json()["deals"][0]["values"]
    best = max(points)
    status = client.get(f"/api/sessions/{session.pk}/").json()["plan_status"]
    leaders = [FOUR[seat] for seat, p in enumerate(points) if p == best]
    assert status["leaders"] == [{"seat": FOUR.index(n), "name": n} for n in leaders]
    assert status["needs"] == 1000 - best
    assert status["text"] == f"{leaders[0]} needs {1000 - best} more"
