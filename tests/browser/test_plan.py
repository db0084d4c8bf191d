"""A session's plan on the tablet's deal screen, in real Chromium (RULES.md, common conventions,
"How long a session runs"): where the session stands, then, once reached, closing and settling
as the big button and the next deal only after the deliberate "Play on"; after it the plan shows
as exceeded. Offline too: the tablet's engine knows the plan, so a deal finished on the device
reaches it there, and a deal started there shows it exceeded."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from referee import services
from referee.models import PlanChange
from referee.rules import GAMES

from .conftest import PHONE, TABLET, check_a11y, shoot
from .offline_steps import open_ready
from .test_offline_cheat import cheat_plan, record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

VELNIAS_END = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}


def test_at_the_plan_close_comes_first_and_play_on_shows_it_exceeded(
    open_page: Any, club_setup: dict[str, Any],
) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=scorer, plan={"deals": 2},
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    for _ in range(2):
        deal = services.deal_start(session=session, user=scorer)
        services.entry_add(deal_id=deal.pk, payload=VELNIAS_END, user=scorer)
    page = open_page(scorer)
    page.goto(f"/deals/{deal.pk}/")
    status = page.locator("[data-plan-status]")
    expect(status.locator("[data-plan-text]")).to_have_text("All 2 planned deals are played")
    expect(status.locator("[data-plan-headline]")).to_have_text("Plan: 2 deals")
    expect(status.locator("[data-plan-badge]")).to_have_text("reached")
    close = page.get_by_role("link", name="Close the session and settle up")
    expect(close).to_have_count(1)
    expect(close).to_be_visible()
    assert "primary" in (close.get_attribute("class") or "")
    expect(page.get_by_role("button", name="Start deal 3")).to_be_hidden()
    shoot(page, "plan-reached")
    check_a11y(page)

    page.goto(f"/sessions/{session.pk}/")
    expect(page.locator("[data-plan-text]")).to_have_text("All 2 planned deals are played")
    expect(page.get_by_role("link", name="Close the session and settle up")).to_be_visible()
    expect(page.get_by_role("link", name="Start deal 3")).to_have_count(0)
    shoot(page, "plan-session-reached")
    check_a11y(page)
    page.goto(f"/deals/{deal.pk}/")

    page.get_by_role("button", name="Play on past the plan").click()
    page.get_by_role("button", name="Start deal 3").wait_for()
    assert PlanChange.objects.get(session=session).kind == "play_on"
    page.get_by_role("button", name="Start deal 3").click()
    page.wait_for_url(f"**/deals/{deal.pk + 1}/")
    expect(page.locator("[data-plan-text]")).to_have_text("Plan exceeded by 1 deal")
    expect(page.locator("[data-plan-badge]")).to_have_text("exceeded")
    shoot(page, "plan-exceeded")
    check_a11y(page)
    assert page.js_errors == []


def test_a_target_in_lithuanian_on_the_phone(open_page: Any, club_setup: dict[str, Any]) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=scorer, plan={"target": 50},
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=deal.pk, payload=VELNIAS_END, user=scorer)
    second = services.deal_start(session=session, user=scorer)
    page = open_page(scorer, language="lt", size=PHONE)
    page.goto(f"/deals/{second.pk}/")
    expect(page.locator("[data-plan-headline]")).to_have_text("Tikslas: 50 taškų")
    expect(page.locator("[data-plan-text]")).to_contain_text("iki tikslo trūksta")
    shoot(page, "plan-target-lt")
    assert page.js_errors == []


def test_offline_the_tablet_reaches_the_plan_and_plays_on(
    open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any],
) -> None:
    """Cheat with a target of 1 loss: the deal's last entry recorded offline ends the session's
    plan on the device; Play on, then the next deal started offline shows the plan exceeded."""
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    names = ["Ona", "Jonas"]
    session = services.session_start(club=club_setup["club"], game="cheat", user=scorer, plan={"target": 1},
                                     players=[m["admin"], m["scorer"]])
    deal = services.deal_start(session=session, user=scorer)
    entries = cheat_plan(2, deal.dealer, session.options, challenges={}, stands=set())
    for entry in entries[:-1]:
        services.entry_add(deal_id=deal.pk, payload=entry, user=scorer)
    page = open_ready(open_page, scorer, f"/deals/{deal.pk}/", size=TABLET)
    expect(page.locator("[data-plan-text]")).to_have_text("Ona and Jonas need 1 more")
    page.context.set_offline(True)
    record(page, entries[-1], len(entries), names, "en")
    loser = GAMES["cheat"].view(replayed(entries, deal.dealer, session.options))["loser"]
    status = page.locator("[data-plan-status]")
    expect(status.locator("[data-plan-text]")).to_have_text(f"{names[loser]} reached 1 loss")
    expect(status.locator("[data-plan-headline]")).to_have_text("Target: 1 loss")
    expect(status.locator("[data-plan-note]")).to_be_visible()
    expect(page.get_by_role("link", name="Close the session and settle up")).to_be_visible()
    expect(page.get_by_role("button", name="Start deal 2")).to_be_hidden()
    shoot(page, "plan-offline-reached")
    kept = page.evaluate(f"JSON.parse(localStorage.getItem('kortos.device.{deal.pk}'))")
    assert kept["plan"]["plan"] == {"target": 1} and kept["plan"]["before"]["deals"] == 0

    page.get_by_role("button", name="Play on past the plan").click()
    page.get_by_role("button", name="Start deal 2").click()
    expect(page.locator("[data-plan-text]")).to_have_text("Plan exceeded by 1 deal")
    expect(page.locator("[data-plan-badge]")).to_have_text("exceeded")
    shoot(page, "plan-offline-exceeded")
    assert page.js_errors == []


def replayed(entries: list[dict[str, Any]], dealer: int, options: dict[str, Any]) -> Any:
    game = GAMES["cheat"]
    state = game.new_deal(players=2, dealer=dealer, options=options)
    for entry in entries:
        state = game.apply(state, entry)
    return state
