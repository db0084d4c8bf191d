"""One scorer at a time, visibly: when another device is recording the same deal,
both recording screens name it (who, which browser and device, since when), and the poll's
version changes with the devices present, so the 304 path still tells a screen when to redraw."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from web import presence

pytestmark = pytest.mark.django_db

TABLET = ("Mozilla/5.0 (Linux; Android 13; SM-X200) AppleWebKit/537.36 (KHTML, like Gecko) "
          "Chrome/124.0.0.0 Safari/537.36")
IPHONE = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
          "Version/17.4 Mobile/15E148 Safari/604.1")
PLACE = {"type": "place", "player": 0}


@pytest.fixture(autouse=True)
def _fresh_cache() -> None:
    # Deal ids repeat from one test database to the next; the records of an earlier test's
    # deal must not show up as devices on this one.
    cache.clear()


def device(page: Any, user: Any, agent: str, language: str = "en") -> Client:
    client: Client = page(user, language=language)
    client.defaults["HTTP_USER_AGENT"] = agent
    return client


def banner(response: Any) -> str:
    found = re.search(r"<p class=\"notice\" role=\"status\" data-presence>(.*?)</p>", response.content.decode(), re.S)
    return " ".join(re.sub(r"<[^>]+>", "", found.group(1)).split()) if found else ""


def test_two_scorers_on_one_deal_see_each_other_and_the_poll_redraws_once(
    page: Any, start: Any, club_setup: dict
) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    jonas = device(page, club_setup["users"]["scorer"], TABLET)
    first = jonas.get(f"/deals/{deal.pk}/")
    assert first.status_code == 200 and banner(first) == ""
    cookie = first.cookies[presence.COOKIE]
    assert cookie["httponly"] and cookie["samesite"] == "Lax" and int(cookie["max-age"]) > 365 * 24 * 3600
    shown = jonas.get(f"/deals/{deal.pk}/live/")
    assert shown.status_code == 200 and banner(shown) == ""

    ona = device(page, club_setup["users"]["admin"], IPHONE)
    page_b = ona.get(f"/deals/{deal.pk}/")
    assert re.fullmatch(r"Also recording this deal: Jonas · Chrome, Android tablet, since \d\d:\d\d", banner(page_b))

    # Jonas's screen still shows the version without Ona: its poll is answered with the banner.
    moved = jonas.get(f"/deals/{deal.pk}/live/", HTTP_IF_NONE_MATCH=shown["ETag"])
    assert moved.status_code == 200
    assert re.fullmatch(r"Also recording this deal: Ona · Safari, iPhone, since \d\d:\d\d", banner(moved))
    assert moved["ETag"] != shown["ETag"]
    assert f'data-version="{moved["X-Deal-Version"]}"' in moved.content.decode()
    # Nothing changed since: 304, for both.
    assert jonas.get(f"/deals/{deal.pk}/live/", HTTP_IF_NONE_MATCH=moved["ETag"]).status_code == 304
    b_tag = ona.get(f"/deals/{deal.pk}/live/")["ETag"]
    assert ona.get(f"/deals/{deal.pk}/live/", HTTP_IF_NONE_MATCH=b_tag).status_code == 304


def test_a_device_that_stops_asking_is_gone_after_the_expiry(
    page: Any, start: Any, club_setup: dict, monkeypatch: pytest.MonkeyPatch
) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    jonas = device(page, club_setup["users"]["scorer"], TABLET)
    ona = device(page, club_setup["users"]["admin"], IPHONE)
    clock = presence.time.time()

    def at(seconds: float) -> None:
        monkeypatch.setattr(presence.time, "time", lambda: clock + seconds)

    at(0)
    ona.get(f"/deals/{deal.pk}/")
    both = jonas.get(f"/deals/{deal.pk}/live/")
    assert "Ona" in banner(both)
    at(presence.EXPIRY - 1)
    assert jonas.get(f"/deals/{deal.pk}/live/", HTTP_IF_NONE_MATCH=both["ETag"]).status_code == 304
    at(presence.EXPIRY + 1)  # Ona's screen stopped asking
    alone = jonas.get(f"/deals/{deal.pk}/live/", HTTP_IF_NONE_MATCH=both["ETag"])
    assert alone.status_code == 200 and banner(alone) == ""
    # Ona comes back: a new "since".
    at(presence.EXPIRY + 5)
    assert jonas.get(f"/deals/{deal.pk}/live/", HTTP_IF_NONE_MATCH=alone["ETag"]).status_code == 304
    ona.get(f"/deals/{deal.pk}/live/")
    back = jonas.get(f"/deals/{deal.pk}/live/", HTTP_IF_NONE_MATCH=alone["ETag"])
    assert back.status_code == 200 and "Ona" in banner(back)


def test_one_member_on_two_devices_and_a_watcher_who_is_not_recording(
    page: Any, start: Any, club_setup: dict
) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    tablet = device(page, club_setup["users"]["scorer"], TABLET)
    phone = device(page, club_setup["users"]["scorer"], IPHONE)
    watcher = device(page, club_setup["users"]["member"], IPHONE)
    tablet.get(f"/deals/{deal.pk}/")
    watched = watcher.get(f"/deals/{deal.pk}/")
    assert banner(watched) == "" and presence.COOKIE not in watched.cookies  # a watcher records nothing
    on_phone = banner(phone.get(f"/deals/{deal.pk}/"))
    assert on_phone.startswith("Also recording this deal: Jonas · Chrome, Android tablet")
    on_tablet = banner(tablet.get(f"/deals/{deal.pk}/live/"))
    assert "Jonas · Safari, iPhone" in on_tablet and "Rūta" not in on_tablet


def test_an_entry_posted_through_the_api_marks_its_device(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    jonas = device(page, club_setup["users"]["scorer"], TABLET)
    before = jonas.get(f"/deals/{deal.pk}/live/")
    ona = device(page, club_setup["users"]["admin"], IPHONE)
    ona.cookies[presence.COOKIE] = "o" * 24  # the recording page gave it earlier
    posted = ona.post(f"/api/deals/{deal.pk}/entries/", json.dumps(PLACE), content_type="application/json")
    assert posted.status_code == 201 and presence.COOKIE not in posted.cookies
    after = jonas.get(f"/deals/{deal.pk}/live/", HTTP_IF_NONE_MATCH=before["ETag"])
    assert "Ona · Safari, iPhone" in banner(after)
    # A client without the cookie (a script, another app) names no device.
    cache.clear()
    bare = device(page, club_setup["users"]["admin"], IPHONE)
    assert bare.post(f"/api/deals/{deal.pk}/entries/", json.dumps({"type": "place", "player": 1}),
                     content_type="application/json").status_code == 201
    assert banner(jonas.get(f"/deals/{deal.pk}/live/")) == ""


def test_the_banner_in_lithuanian_and_a_malformed_cookie_replaced(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    device(page, club_setup["users"]["scorer"], TABLET).get(f"/deals/{deal.pk}/")
    ona = device(page, club_setup["users"]["admin"], IPHONE, language="lt")
    ona.cookies[presence.COOKIE] = "<script>"
    shown = ona.get(f"/deals/{deal.pk}/")
    assert re.fullmatch(r"Šį padalijimą taip pat įrašo: Jonas · Chrome, Android planšetė, nuo \d\d:\d\d", banner(shown))
    assert re.fullmatch(r"[A-Za-z0-9_-]{24}", shown.cookies[presence.COOKIE].value)


@pytest.mark.parametrize(("agent", "expected"), [
    (TABLET, ("Chrome", "android-tablet")),
    ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 "
     "Mobile Safari/537.36",
     ("Chrome", "android-phone")),
    (IPHONE, ("Safari", "iphone")),
    ("Mozilla/5.0 (iPad; CPU OS 17_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/124.0 Mobile/15E148",
     ("Chrome", "ipad")),
    ("Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36 "
     "Edg/124.0", ("Edge", "windows")),
    ("Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0", ("Firefox", "linux")),
    ("Mozilla/5.0 (Linux; Android 13; SM-X200) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/24.0 "
     "Chrome/117.0 Safari/537.36", ("Samsung Internet", "android-tablet")),
    ("curl/8.5", ("", "other")),
    ("", ("", "other")),
])
def test_the_device_kind_from_the_user_agent(agent: str, expected: tuple[str, str]) -> None:
    assert presence.browser_and_kind(agent) == expected


def test_a_cache_that_is_down_costs_the_banner_not_the_entry_or_the_screen(
    page: Any, start: Any, club_setup: dict, monkeypatch: Any
) -> None:
    """The cache keeps who is recording; when it fails, an entry posted through the API (already
    stored when the device is marked) still answers 201, and the recording screen still draws,
    without the banner: a tablet that heard 500 would retry an entry that was stored."""
    from referee import screen_views
    from referee.models import Deal

    deal = start("cheat", ["admin", "scorer", "member"])
    ona = device(page, club_setup["users"]["admin"], IPHONE)
    ona.cookies[presence.COOKIE] = "o" * 24

    def down(*_args: Any, **_kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    for name in ("get", "set", "get_many", "set_many", "add", "delete"):
        monkeypatch.setattr(cache, name, down)
    assert presence.cache is cache and screen_views.cache is cache
    posted = ona.post(f"/api/deals/{deal.pk}/entries/", json.dumps(PLACE), content_type="application/json")
    assert posted.status_code == 201
    assert Deal.objects.get(pk=deal.pk).seq == 1
    screen = ona.get(f"/deals/{deal.pk}/")
    assert screen.status_code == 200 and banner(screen) == ""
    assert "placed a card" in screen.content.decode()
