"""Two devices recording one deal: each screen names the other (who, which browser
and device, since when) within a poll, and the banner goes once the other device is closed and
its presence expires. Real Chromium, the recording page's own polling, no reload."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from django.core.cache import cache

from referee import services
from tests.conftest import TABLET, sign_in
from web import presence

from .conftest import PHONE, check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

ANDROID_TABLET = ("Mozilla/5.0 (Linux; Android 13; SM-X200) AppleWebKit/537.36 (KHTML, like Gecko) "
                  "Chrome/124.0.0.0 Safari/537.36")
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.4 Mobile/15E148 Safari/604.1")


def device(browser: Any, live_server: Any, user: Any, agent: str, size: dict[str, int]) -> Any:
    context = browser.new_context(viewport=size, locale="en", base_url=live_server.url, user_agent=agent)
    page = context.new_page()
    page.set_default_timeout(10_000)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.js_errors = errors
    sign_in(page, user.get_username())
    return page


@pytest.mark.parametrize("fast_poll", [False, True], ids=["exact-poll", "cached-304"])
def test_two_devices_on_one_deal_name_each_other_until_one_closes(
    browser: Any, live_server: Any, club_setup: dict[str, Any], settings: Any, fast_poll: bool
) -> None:
    settings.POLL_FAST_304 = fast_poll  # the live server runs in this process: one memory cache
    cache.clear()
    m = club_setup["members"]
    scorer = club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="rukas", user=scorer, options={"notation": "lt"},
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=scorer)
    tablet = device(browser, live_server, scorer, ANDROID_TABLET, TABLET)
    tablet.goto(f"/deals/{deal.pk}/")
    assert tablet.locator("[data-presence]").count() == 0
    # The scorer is half-way through a trick when the other device arrives.
    first_card = tablet.locator("form[data-entry] [data-card-input]").first
    first_card.fill("9")
    first_card.evaluate("(input) => { input.keptByTest = true; }")

    phone = device(browser, live_server, club_setup["users"]["admin"], IPHONE, PHONE)
    phone.goto(f"/deals/{deal.pk}/")
    on_phone = phone.locator("[data-presence]")
    assert re.fullmatch(r"Also recording this deal: Jonas · Chrome, Android tablet, since \d\d:\d\d",
                        " ".join(on_phone.inner_text().split()))

    # The tablet's next poll (every 3 s) brings the banner naming the phone, no reload.
    on_tablet = tablet.locator("[data-presence]")
    on_tablet.wait_for(timeout=8_000)
    assert re.fullmatch(r"Also recording this deal: Ona · Safari, iPhone, since \d\d:\d\d",
                        " ".join(on_tablet.inner_text().split()))
    # Only the banner changed: the half-typed trick is still as typed, and nothing claims the
    # deal was changed elsewhere.
    # The very same field (not a redrawn one), so focus and caret stay where the scorer was.
    assert first_card.input_value() == "9"
    assert first_card.evaluate("(input) => input.keptByTest === true")
    assert "another device" not in tablet.locator("#sync").inner_text()
    shoot(tablet, "presence-tablet")
    check_a11y(tablet)
    check_a11y(phone)

    # The phone is closed: once its presence expires, the tablet's banner goes.
    closed = time.monotonic()
    phone.context.close()
    on_tablet.wait_for(state="detached", timeout=(presence.EXPIRY + 3 * presence.POLL_SECONDS) * 1000)
    assert time.monotonic() - closed >= presence.EXPIRY - presence.POLL_SECONDS
    assert tablet.js_errors == []
    tablet.context.close()
