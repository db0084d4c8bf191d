"""Which devices are recording a deal right now ("one scorer at a time, visibly").

A device is a browser, known by a long-lived random cookie (not by the sign-in: one member may
hold a tablet and a phone). Every poll and every view of the recording screen by someone who
may record marks the device present on the deal, and so does an entry posted through the API;
a device that stops asking is gone after ``EXPIRY`` seconds. Both screens then say who else is
recording and since when, so two scorers do not race each other.

The records live in Django's cache, one dictionary per deal: Redis in production (CACHE_URL,
shared by every gunicorn worker), the process's own memory under ``runserver``. Two devices
writing the same dictionary in the same millisecond may lose one refresh; the loser's next poll
writes it again, well inside the expiry.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext as _

log = logging.getLogger(__name__)

#: The device's cookie: a random id, nothing else (the name is worked out on the server).
COOKIE = "kortos_device"
COOKIE_AGE = 2 * 365 * 24 * 3600
_DEVICE_ID = re.compile(r"[A-Za-z0-9_-]{16,64}\Z")

#: A scorer's screen polls every 3 s (static/js/table/live.js): two polls and a margin.
POLL_SECONDS = 3
EXPIRY = 2 * POLL_SECONDS + 4
#: A record younger than this is not written again (most polls only read).
REFRESH = 2


@dataclass(frozen=True)
class Device:
    """Another device on the deal, as the banner names it."""

    id: str
    member: str
    browser: str
    kind: str
    since_ts: float

    @property
    def label(self) -> str:
        """"Ona · Chrome, Android tablet", in the reader's language."""
        what = ", ".join(part for part in (self.browser, kind_label(self.kind)) if part)
        return f"{self.member} · {what}" if what else self.member

    @property
    def since(self) -> datetime:
        return datetime.fromtimestamp(self.since_ts, tz=UTC)


def kind_label(kind: str) -> str:
    labels = {
        "android-tablet": _("Android tablet"),
        "android-phone": _("Android phone"),
        "ipad": "iPad",
        "iphone": "iPhone",
        "chromebook": "Chromebook",
        "windows": "Windows",
        "mac": "Mac",
        "linux": "Linux",
    }
    return labels.get(kind, _("another device"))


def browser_and_kind(user_agent: str) -> tuple[str, str]:
    """The browser's name and the kind of device from a User-Agent header. Only what a scorer
    recognises at the table; an unknown one is "" (the browser) or "other" (the device)."""
    ua = user_agent or ""
    browser = ""
    for mark, name in (("Edg", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser", "Samsung Internet"),
                       ("Firefox/", "Firefox"), ("FxiOS", "Firefox"), ("CriOS", "Chrome"),
                       ("Chrome/", "Chrome"), ("Version/", "Safari")):
        if mark in ua:
            browser = name
            break
    if "iPad" in ua:
        kind = "ipad"
    elif "iPhone" in ua:
        kind = "iphone"
    elif "Android" in ua:
        # Android's own rule: a phone's browser says "Mobile", a tablet's does not.
        kind = "android-phone" if "Mobile" in ua else "android-tablet"
    elif "CrOS" in ua:
        kind = "chromebook"
    elif "Windows" in ua:
        kind = "windows"
    elif "Macintosh" in ua:
        kind = "mac"
    elif "Linux" in ua:
        kind = "linux"
    else:
        kind = "other"
    return browser, kind


# -- the device's cookie -----------------------------------------------------------------------------


def device_of(request: HttpRequest) -> str | None:
    """The device's id from its cookie, if it has a well-formed one."""
    value = request.COOKIES.get(COOKIE, "")
    return value if _DEVICE_ID.match(value) else None


def ensure_device(request: HttpRequest) -> tuple[str, bool]:
    """The device's id, and whether it is new (the answer must then set the cookie)."""
    known = device_of(request)
    return (known, False) if known else (secrets.token_urlsafe(18), True)


def remember_device(response: HttpResponse, device: str) -> None:
    # HttpOnly: no script needs it; Lax: sent on the scorer's own navigation, not by other sites.
    response.set_cookie(COOKIE, device, max_age=COOKIE_AGE, httponly=True, samesite="Lax",
                        secure=settings.SESSION_COOKIE_SECURE)


# -- the records ---------------------------------------------------------------------------------------


def _key(deal_id: int) -> str:
    return f"presence:{deal_id}"


#: One record: member's name, browser, device kind, since, last seen (seconds since the epoch).
Record = tuple[str, str, str, float, float]


def records_key(deal_id: int) -> str:
    """The cache key of a deal's records (the fast poll reads it with its other keys)."""
    return _key(deal_id)


def mark(deal_id: int, device: str, who: tuple[str, str, str] | None, records: dict[str, Record] | None = None,
         now: float | None = None) -> dict[str, Record] | None:
    """Mark the device present on the deal and answer the deal's live records. ``who`` (the
    member's name, browser, kind) names a device not yet recorded; without it an unknown or
    expired device answers None (the caller looks the name up and asks again). ``records``:
    the deal's records already read with other keys."""
    now = time.time() if now is None else now
    if records is None:
        records = cache.get(_key(deal_id)) or {}
    live = {key: record for key, record in records.items() if now - record[4] <= EXPIRY}
    mine = live.get(device)
    if mine is None and who is None:
        return None
    if mine is None or (who is not None and tuple(mine[:3]) != who):
        assert who is not None
        live[device] = (*who, mine[3] if mine else now, now)
    elif now - mine[4] < REFRESH and len(live) == len(records):
        return live  # fresh enough, nothing expired: no write
    else:
        live[device] = (*mine[:4], now)
    cache.set(_key(deal_id), live, timeout=EXPIRY * 3)
    return live


def others(records: dict[str, Record], device: str | None, now: float | None = None) -> list[Device]:
    """The other devices present on the deal, the longest there first."""
    now = time.time() if now is None else now
    found = [Device(key, r[0], r[1], r[2], r[3]) for key, r in records.items()
             if key != device and now - r[4] <= EXPIRY]
    return sorted(found, key=lambda d: (d.since_ts, d.id))


def present(deal_id: int, device: str | None) -> list[Device]:
    """The other devices on the deal, without marking this one (a watcher's view)."""
    try:
        return others(cache.get(_key(deal_id)) or {}, device)
    except Exception:
        log.warning("could not read who is recording a deal", exc_info=True)
        return []


def fingerprint(devices: list[Device]) -> str:
    """A short token of who else is present: part of the screen's version, so the 304 path
    answers 200 with the banner as soon as a device comes or goes."""
    if not devices:
        return ""
    text = "|".join(f"{d.id}:{d.member}:{d.browser}:{d.kind}:{d.since_ts:.0f}" for d in devices)
    return hashlib.sha256(text.encode()).hexdigest()[:10]


def versioned(version: str, devices: list[Device]) -> str:
    """The screen's version with who else is present (a version holds no comma or quote)."""
    mark_ = fingerprint(devices)
    return f"{version}~{mark_}" if mark_ else version


#: How long a member's name is kept for naming their devices (a renamed member's banner follows
#: within this; a scorer opening deal after deal asks the database once).
NAME_SECONDS = 600


def member_name(user: Any, club_id: int) -> str:
    """How the club knows the signed-in user (their member name), else their user name."""
    from referee.models import Member

    key = f"presence-name:{club_id}:{user.pk}"
    name: str | None = cache.get(key)
    if name is None:
        found = Member.objects.filter(club_id=club_id, user=user, active=True).values_list("name", flat=True).first()
        name = found or user.get_username()
        cache.set(key, name, timeout=NAME_SECONDS)
    return name


def who(request: HttpRequest, club_id: int) -> tuple[str, str, str]:
    browser, kind = browser_and_kind(request.headers.get("User-Agent", ""))
    return member_name(request.user, club_id), browser, kind


def club_of(deal_id: int) -> int | None:
    """The club a deal belongs to (it never changes)."""
    from referee.models import Deal

    club_id: int | None = Deal.objects.filter(pk=deal_id).values_list("session__club_id", flat=True).first()
    return club_id


def on_screen(request: HttpRequest, deal_id: int, club_id: int | None = None) -> tuple[list[Device], str | None]:
    """Mark the requesting device present (the recording screen of someone who may record)
    and answer the others; the second value is a new device id the answer must set as cookie.
    ``club_id`` is looked up only to name a device the deal does not know yet."""
    device, new = ensure_device(request)
    return others(_marked(request, deal_id, device, known=not new, club_id=club_id), device), device if new else None


def _marked(request: Any, deal_id: int, device: str, *, known: bool, club_id: int | None = None) -> dict[str, Record]:
    """Mark ``device`` present and answer the deal's live records, naming the device from the
    club (``club_id``, looked up when not given) when the deal does not know it yet, or when it
    is new (not ``known``). A cache that is down answers no records: the screen shows no other
    device rather than no screen, and an entry already stored still gets its answer."""
    try:
        records = mark(deal_id, device, None) if known else None
        if records is None:
            club = club_id if club_id is not None else club_of(deal_id)
            records = mark(deal_id, device, who(request, club)) if club is not None else {}
    except Exception:
        log.warning("could not mark a device present on a deal", exc_info=True)
        return {}
    return records or {}


def touch(request: Any, deal_id: int) -> None:
    """An entry posted through the API by this device: it is recording this deal. Only a device
    that already has its cookie (the recording page gave it); the API sets no cookie.
    ``request``: Django's or REST framework's (which reads through to Django's)."""
    device = device_of(request)
    if device is not None:
        _marked(request, deal_id, device, known=True)
