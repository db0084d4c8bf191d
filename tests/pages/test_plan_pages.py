"""The plan on the pages: set on the start form, changed from the session page (the audit page
says who), shown on the session page and the deal screen; once reached, closing is the main
action and playing on is one deliberate step."""

from __future__ import annotations

from typing import Any

import pytest

from referee import services
from referee.models import PlanChange, Session

from .conftest import record
from .test_session_pages import SEED_END, session_form

pytestmark = pytest.mark.django_db

FOUR = ["admin", "scorer", "member", "Petras"]


def started(club_setup: dict[str, Any], plan: dict[str, int] | None) -> Session:
    return services.session_start(
        club=club_setup["club"], game="velnias", players=[club_setup["members"][n] for n in FOUR],
        user=club_setup["users"]["scorer"], plan=plan,
    )


def play(session: Session, user: Any) -> Any:
    deal = services.deal_start(session=session, user=user)
    record(deal, user, SEED_END)
    return deal


def test_the_start_form_stores_the_plan(page: Any, club_setup: dict) -> None:
    form = session_form(club_setup, "velnias", {"admin": "1", "scorer": "2", "member": "3", "Petras": "4"},
                        plan_kind="deals", plan_count="10")
    response = page(club_setup["users"]["scorer"]).post("/clubs/vilnius/sessions/new/", form)
    assert response.status_code == 302
    assert Session.objects.get().plan == {"deals": 10}


@pytest.mark.parametrize(("kind", "count", "message"), [
    ("deals", "", "Give the number of deals as a whole number from 1, e.g. 10."),
    ("target", "0", "Give the target as a whole number from 1, e.g. 50."),
    ("rounds", "3", "Choose how long the session runs: open-ended, a number of deals or a target."),
    ("deals", "1000000", "The plan&#x27;s deals can be at most 100000, not 1000000."),
])
def test_the_start_form_refuses_a_bad_plan_and_starts_nothing(
    page: Any, club_setup: dict, kind: str, count: str, message: str,
) -> None:
    form = session_form(club_setup, "velnias", {"admin": "1", "scorer": "2", "member": "3", "Petras": "4"},
                        plan_kind=kind, plan_count=count)
    response = page(club_setup["users"]["scorer"]).post("/clubs/vilnius/sessions/new/", form)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Session.objects.exists()


def test_the_scorer_changes_the_plan_on_the_session_page(page: Any, club_setup: dict) -> None:
    session = started(club_setup, None)
    client = page(club_setup["users"]["scorer"])
    response = client.post(f"/sessions/{session.pk}/plan/", {"plan_kind": "target", "plan_count": "30"})
    assert response.status_code == 302
    session.refresh_from_db()
    assert session.plan == {"target": 30}
    html = client.get(f"/sessions/{session.pk}/").content.decode()
    assert "Target: 30 points" in html
    audit = client.get(f"/sessions/{session.pk}/audit/").content.decode()
    assert "scorer · the plan changed from “open-ended” to “Target: 30 points” after 0 finished deals" in audit
    refused = client.post(f"/sessions/{session.pk}/plan/", {"plan_kind": "deals", "plan_count": "-2"})
    assert refused.status_code == 400
    assert "Give the number of deals as a whole number from 1, e.g. 10." in refused.content.decode()
    session.refresh_from_db()
    assert session.plan == {"target": 30}
    assert PlanChange.objects.count() == 1


def test_a_member_cannot_change_the_plan(page: Any, club_setup: dict) -> None:
    session = started(club_setup, {"deals": 5})
    response = page(club_setup["users"]["member"]).post(f"/sessions/{session.pk}/plan/",
                                                       {"plan_kind": "deals", "plan_count": "2"})
    assert response.status_code == 403
    session.refresh_from_db()
    assert session.plan == {"deals": 5}


def test_the_deal_screen_says_where_the_session_stands(page: Any, club_setup: dict) -> None:
    scorer = club_setup["users"]["scorer"]
    session = started(club_setup, {"deals": 2})
    client = page(scorer)
    first = services.deal_start(session=session, user=scorer)
    assert "Deal 1 of 2" in client.get(f"/deals/{first.pk}/").content.decode()
    record(first, scorer, SEED_END)
    html = client.get(f"/deals/{first.pk}/").content.decode()
    assert "1 of 2 deals played" in html
    assert 'data-plan-reached hidden' in html and 'id="form-next">' in html


def test_at_the_plan_closing_comes_first_and_playing_on_is_a_step(page: Any, club_setup: dict) -> None:
    scorer = club_setup["users"]["scorer"]
    session = started(club_setup, {"deals": 1})
    client = page(scorer)
    deal = play(session, scorer)
    html = client.get(f"/deals/{deal.pk}/").content.decode()
    assert "All 1 planned deals are played" not in html and "The planned deal is played" in html
    assert "The plan is reached: close the session and settle up, or play on." in html
    assert 'id="form-next" hidden' in html
    assert "Play on past the plan" in html
    session_html = client.get(f"/sessions/{session.pk}/").content.decode()
    assert "Play on past the plan" in session_html
    response = client.post(f"/sessions/{session.pk}/play-on/", {"deal": str(deal.pk)})
    assert response.status_code == 302 and response["Location"] == f"/deals/{deal.pk}/"
    html = client.get(f"/deals/{deal.pk}/").content.decode()
    assert 'id="form-next">' in html and "data-plan-reached hidden" in html
    assert PlanChange.objects.get().kind == "play_on"
    second = services.deal_start(session=session, user=scorer)
    html = client.get(f"/deals/{second.pk}/").content.decode()
    assert "Plan exceeded by 1 deal" in html and ">exceeded<" in html


def test_lithuanian_standing(page: Any, club_setup: dict) -> None:
    scorer = club_setup["users"]["scorer"]
    session = started(club_setup, {"deals": 10})
    deal = services.deal_start(session=session, user=scorer)
    html = page(scorer, "lt").get(f"/deals/{deal.pk}/").content.decode()
    assert "Padalijimas 1 iš 10" in html
    assert "Planas: 10 padalijimų" in html
