"""The audit chain's page in real Chromium, on a tablet and a phone: an admin finds it from the
club's page, reads that the record holds, and after an entry was edited behind the
application's back reads which record first does not match (in English and in Lithuanian)."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.models import Entry
from tests.referee.chain_history import EDITED, history

from .conftest import PHONE, TABLET, check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def fits(page: Any) -> None:
    for size in (TABLET, PHONE):
        page.set_viewport_size(size)
        assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]
    page.set_viewport_size(TABLET)


def test_an_admin_verifies_the_chain_and_sees_the_first_bad_record(open_page: Any, club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    page = open_page(club_setup["users"]["admin"])
    page.get_by_role("link", name=re.compile("Vilniaus klubas")).first.click()
    page.get_by_role("link", name="Audit chain").click()
    page.get_by_role("heading", name="Is the record intact?").wait_for()
    assert page.get_by_role("status").inner_text().startswith("✓ The record is intact")
    fits(page)
    shoot(page, "chain-holds")
    check_a11y(page)

    Entry.objects.filter(deal=done["running"], seq=2).update(payload=EDITED)
    page.reload()
    status = page.get_by_role("status").inner_text()
    assert status.startswith("✗ The record was changed")
    assert "Record 13 (entry 2 of deal 1, session" in status
    assert "First record that does not match: 13" in status
    fits(page)
    shoot(page, "chain-broken")
    check_a11y(page)
    assert page.js_errors == []


def test_the_page_in_lithuanian(open_page: Any, club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    Entry.objects.filter(deal=done["running"], seq=2).update(payload=EDITED)
    page = open_page(club_setup["users"]["admin"], language="lt")
    page.goto("/clubs/vilnius/chain/")
    status = page.get_by_role("status").inner_text()
    assert status.startswith("✗ Įrašai buvo pakeisti")
    assert "Grandis 13 (1 padalijimo 2 įrašas, partija" in status
    fits(page)
    shoot(page, "chain-broken-lt")
