"""Correcting an earlier entry in the browser (the standings change as previewed), closing a
session after a confirmation, and reopening it from its page, at both sizes."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee import services
from referee.models import Session
from scoring import selectors as scoring

from .conftest import PHONE, TABLET, check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [pytest.param(TABLET, id="tablet"), pytest.param(PHONE, id="phone")]
SEED_END = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}
SECOND_END = {"type": "end", "condition": "empty_hand", "player": 1, "hand_counts": [2, 0, 1, 4]}


@pytest.mark.parametrize("size", SIZES)
def test_correct_an_earlier_deal_then_close_and_reopen(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int],
) -> None:
    m = club_setup["members"]
    scorer = club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    first = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=first.pk, payload=SEED_END, user=scorer)
    second = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=second.pk, payload=SECOND_END, user=scorer)

    page = open_page(scorer, size=size)
    page.goto(f"/deals/{first.pk}/")
    page.locator("summary", has_text="Recorded in this deal").click()
    page.get_by_role("link", name="Correct entry 1").click()
    page.get_by_role("heading", name="Correct entry 1 of deal 1").wait_for()
    assert page.get_by_role("radio", name="Last face-down card").is_checked()
    shoot(page, f"correct-1-form-{size['width']}")
    check_a11y(page)

    # Petras held 3 cards, not 1: what changes shows before anything is saved.
    page.get_by_role("spinbutton", name="Petras").fill("3")
    page.get_by_role("button", name="Show what changes").click()
    preview = page.locator("[data-correct-preview]")
    preview.wait_for()
    previewed = preview.locator("[data-total-after]").all_inner_texts()
    before = [row["total"] for row in scoring.standings(Session.objects.get()).get("totals")]
    shoot(page, f"correct-2-preview-{size['width']}")
    check_a11y(page)
    page.get_by_role("button", name="Save the correction").click()
    page.wait_for_url(re.compile(rf"/sessions/{session.pk}/$"))
    after = [row["total"] for row in scoring.standings(Session.objects.get())["totals"]]
    assert after != before
    shown = page.locator("#standings-h ~ .table-wrap tbody tr")
    by_name = {shown.nth(i).locator("th").inner_text(): shown.nth(i).locator("td").nth(1).inner_text()
               for i in range(4)}
    assert [by_name[name] for name in ("Ona", "Jonas", "Rūta", "Petras")] == previewed

    # Closing asks first, then closes; the closed session is reopened from its page.
    page.get_by_role("link", name="Close the session and settle up").click()
    page.get_by_role("heading", name="Close the session and settle up?").wait_for()
    assert Session.objects.get().status == "open"
    shoot(page, f"close-1-confirm-{size['width']}")
    check_a11y(page)
    page.get_by_role("button", name="Yes, close the session").click()
    page.get_by_role("button", name="Reopen the session").wait_for()
    assert Session.objects.get().status == "closed"
    shoot(page, f"close-2-closed-{size['width']}")
    check_a11y(page)
    page.get_by_role("button", name="Reopen the session").click()
    page.get_by_role("link", name="Start deal 3").wait_for()
    assert Session.objects.get().status == "open"
    assert page.js_errors == []


@pytest.mark.parametrize("size", SIZES)
def test_an_elgeta_card_is_corrected_from_the_suggested_cards(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int],
) -> None:
    """The correction screen's card fields carry the same hints as the recording screen's pads:
    the ranks and suits named, every card suggested while typing; a corrected card is saved."""
    from referee.models import Entry

    m = club_setup["members"]
    scorer = club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="elgeta", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]],
                                     options={"suits": ["S", "D", "H", "C"]})
    deal = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=deal.pk, payload={"type": "trick", "rounds": [["J♠", "A♦", "A♥", "4♣"],
                                                                             ["6♠", "7♦", "9♥", "Q♣"]]}, user=scorer)
    page = open_page(scorer, size=size)
    page.goto(f"/deals/{deal.pk}/entries/1/correct/")
    hint = page.locator(".card-hint")
    assert hint.inner_text().startswith("Ranks: 2 3 4 5 6 7 8 9 10 J Q K A · Suits: ♠ ♣ ♦ ♥")
    field = page.get_by_role("group", name="Round 2").get_by_label("Petras")
    assert field.get_attribute("list") == "card-hints"
    assert page.locator("#card-hints option").count() == 52
    field.fill("K♣")  # one of the suggestions, as the list offers it after a K
    shoot(page, f"correct-3-card-hints-{size['width']}")
    check_a11y(page)
    page.get_by_role("button", name="Show what changes").click()
    page.locator("[data-correct-preview]").wait_for()
    page.get_by_role("button", name="Save the correction").click()
    page.wait_for_url(re.compile(r"/sessions/\d+/$"))
    assert Entry.objects.get(deal=deal, active=True).payload["rounds"][1] == ["6♠", "7♦", "9♥", "K♣"]
    assert page.js_errors == []
