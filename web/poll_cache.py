"""The watchers' poll answered from the cache (a 304 under 2 ms of server time).

A phone watching a table asks every two or three seconds whether the deal changed. The exact
answer needs the session, the user and a statement over the deal (``selectors.deal_poll``);
this module lets the poll say "unchanged" from one cache round trip instead, and stay exact:

- **The deal's version** is kept under ``poll:<deal>``, tagged with the deal's generation
  (``poll-gen:<deal>``, a random token) and its session's (``poll-sgen:<session>``). Whatever
  changes what a poll answers sets a new generation after its commit (the receivers below): an
  entry, an undo or a correction the deal's; a deal started or finished (the running deal every
  deal's watchers are told) and the session closed or reopened the session's, one key however
  many deals the evening has. So a version read before the change is never taken for the
  current one: a poll stores the generations it read *before* its statement, and a change that
  commits after that statement leaves the stored version under an old tag. The screen's poll
  address names the session (``?s=``), so the fast way reads both generations in its one round
  trip; a poll without it, or naming another session, goes the exact way.
- **Access** is carried by a signed cookie (``kortos_watch``, per user and club, bound to the
  sign-in session's cookie): the user, the club, the role, and two access epochs read before
  the exact check: the user's (a new one on sign-out, on any save of the user: password,
  active flag, superuser) and the club's (a new one on any save or removal of a member). A
  poll whose epochs are no longer current goes the exact way; so does any poll once the cookie
  expires (``TOKEN_SECONDS``, never past the sign-in session's own expiry). A member removed
  through the ORM loses the fast answer at once; a change that bypasses Django's signals
  (``QuerySet.update`` on members or users; none in this project) holds at most
  ``TOKEN_SECONDS``.

It works only with a cache every server process shares (Redis in production). With the
per-process memory cache, a change written by one gunicorn worker would not reach another's
cache, so the fast answer is off unless ``POLL_FAST_304`` says otherwise (the tests do: one
process). Where a key is missing or the cache fails, the poll goes the exact way.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache as memo
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.http import HttpRequest, HttpResponse

log = logging.getLogger(__name__)

COOKIE = "kortos_watch"
#: How long a watch cookie holds without the exact check (the backstop for changes no signal tells).
TOKEN_SECONDS = 600
#: How long the cache keeps a deal's version and generations after their last change.
KEEP_SECONDS = 24 * 3600


def enabled() -> bool:
    setting = getattr(settings, "POLL_FAST_304", None)
    if setting is not None:
        return bool(setting)
    backend = settings.CACHES["default"]["BACKEND"]
    return not backend.endswith(("LocMemCache", "DummyCache"))


def poll_key(deal_id: int) -> str:
    return f"poll:{deal_id}"


def gen_key(deal_id: int) -> str:
    return f"poll-gen:{deal_id}"


def session_gen_key(session_id: int) -> str:
    return f"poll-sgen:{session_id}"


def user_key(user_id: int) -> str:
    return f"access-user:{user_id}"


def club_key(club_id: int) -> str:
    return f"access-club:{club_id}"


def _fresh() -> str:
    return secrets.token_hex(6)


# -- after a change ------------------------------------------------------------------------------------


def _after_commit(keys: Callable[[], list[str]]) -> None:
    """New generations or epochs for ``keys()`` once the change commits (at once outside a
    transaction). A cache that fails here is logged: the change itself has committed."""
    def bump() -> None:
        try:
            cache.set_many({key: _fresh() for key in keys()}, timeout=KEEP_SECONDS)
        except Exception:  # the cache is down: the poll's fast path fails to read it too
            log.exception("could not renew the watchers' poll keys")

    transaction.on_commit(bump)


def deals_changed(deal_ids: list[int]) -> None:
    _after_commit(lambda: [gen_key(pk) for pk in deal_ids])


def session_changed(session_id: int) -> None:
    """Every deal of the session at once, by its one generation: a deal started or finished
    changes the running deal that each of them names to its watchers; closing the session
    changes every version. (Renewing each deal's own key cost a read of the session's deals
    and a write per deal, twice a Velnias deal, growing through the evening.)"""
    _after_commit(lambda: [session_gen_key(session_id)])


def access_changed(user_id: int | None = None, club_id: int | None = None) -> None:
    keys = ([user_key(user_id)] if user_id is not None else []) + ([club_key(club_id)] if club_id is not None else [])
    _after_commit(lambda: keys)


# -- the exact way: read the stamps first, remember what it found -------------------------------------------


@dataclass(frozen=True)
class Stamps:
    gen: str
    session_gen: str
    user: str
    club: str


def place_of(deal_id: int) -> tuple[int, int] | None:
    """The club and the session a deal belongs to (they never change), or None."""
    from referee.models import Deal

    found = Deal.objects.filter(pk=deal_id).values_list("session__club_id", "session_id").first()
    return (found[0], found[1]) if found else None


def stamps(deal_id: int, session_id: int, user_id: int, club_id: int) -> Stamps:
    """The deal's and its session's generations and the access epochs, read *before* the
    exact check (a change committing after it then leaves whatever it found under stale stamps)."""
    keys = [gen_key(deal_id), session_gen_key(session_id), user_key(user_id), club_key(club_id)]
    got = cache.get_many(keys)
    for key in keys:
        if key not in got:
            cache.add(key, _fresh(), timeout=KEEP_SECONDS)
    if len(got) < len(keys):
        got = cache.get_many(keys)
    # A key evicted between the two reads: an empty stamp never matches a stored one.
    return Stamps(*(str(got.get(key, "")) for key in keys))


def remember(deal_id: int, found: Stamps, version: str, running_deal: int | None, club_id: int,
             session_id: int) -> None:
    if found.gen and found.session_gen:
        cache.set(poll_key(deal_id), (found.gen, found.session_gen, version, running_deal, club_id, session_id),
                  timeout=KEEP_SECONDS)


# -- the watch cookie -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Token:
    user_id: int
    club_id: int
    role: str
    user_epoch: str
    club_epoch: str


@memo
def _key() -> bytes:
    return hashlib.sha256(b"kortos.watch-token:" + settings.SECRET_KEY.encode()).digest()


def _signature(body: str, request: HttpRequest) -> str:
    # Bound to the sign-in session's cookie: signing out (a new or no session cookie) ends it.
    session = request.COOKIES.get(settings.SESSION_COOKIE_NAME, "")
    mac = hmac.new(_key(), f"{body}|{session}".encode(), hashlib.sha256).digest()[:18]
    return base64.urlsafe_b64encode(mac).decode()


def read_token(request: HttpRequest, now: float | None = None) -> Token | None:
    value = request.COOKIES.get(COOKIE, "")
    parts = value.split(".")
    if len(parts) != 7 or not request.COOKIES.get(settings.SESSION_COOKIE_NAME):
        return None
    body, signature = ".".join(parts[:6]), parts[6]
    if not hmac.compare_digest(signature, _signature(body, request)):
        return None
    user_id, club_id, role, user_epoch, club_epoch, expires = parts[:6]
    if not (user_id.isdigit() and club_id.isdigit() and expires.isdigit()):
        return None
    if int(expires) < (time.time() if now is None else now):
        return None
    return Token(int(user_id), int(club_id), role, user_epoch, club_epoch)


def keep_token(request: HttpRequest, response: HttpResponse, user_id: int, club_id: int, role: str,
               found: Stamps) -> None:
    """Give the answer a watch cookie for what the exact check just found, unless the one
    the request carries already says the same."""
    want = Token(user_id, club_id, role, found.user, found.club)
    if not (found.user and found.club) or read_token(request) == want:
        return
    seconds = min(TOKEN_SECONDS, request.session.get_expiry_age())
    body = f"{user_id}.{club_id}.{role}.{found.user}.{found.club}.{int(time.time() + seconds)}"
    response.set_cookie(COOKIE, f"{body}.{_signature(body, request)}", max_age=seconds, path="/deals/",
                        httponly=True, samesite="Lax", secure=settings.SESSION_COOKIE_SECURE)


# -- the fast way ------------------------------------------------------------------------------------------


def _read_many(keys: list[str]) -> dict[str, Any]:
    """``cache.get_many`` in one round trip. On Redis, straight through one client kept for
    the process: Django's backend builds a client and checks every key's characters on each
    call, which costs more than the round trip itself (about 0.4 ms of the poll's 2)."""
    backend = getattr(cache, "_cache", None)
    serializer = getattr(backend, "_serializer", None)
    if backend is None or serializer is None or not hasattr(backend, "get_client"):
        return cache.get_many(keys)
    client = _redis_client()
    values = client.mget([cache.make_key(key) for key in keys])
    return {key: serializer.loads(value) for key, value in zip(keys, values, strict=True) if value is not None}


@memo
def _redis_client() -> Any:
    # The backend's own pool (redis-py's pool starts afresh in a forked worker).
    return cache._cache.get_client(write=False)  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Cached:
    """What the cache says about a deal for this watcher, when it says it with certainty."""

    version: str
    running_deal: int | None
    role: str
    extra: dict[str, Any]


def cached_poll(request: HttpRequest, deal_id: int, more_keys: tuple[str, ...] = ()) -> Cached | None:
    """The deal's current version for the watcher's valid watch cookie, from one cache round
    trip; None whenever anything is missing, stale or unreadable (then the exact way answers).
    ``more_keys`` are read in the same round trip (the presence records) and answered in ``extra``."""
    if not enabled():
        return None
    session = request.GET.get("s", "")
    token = read_token(request)
    if token is None or not (session.isascii() and session.isdigit()) or len(session) > 18:
        return None
    keys = [poll_key(deal_id), gen_key(deal_id), session_gen_key(int(session)),
            user_key(token.user_id), club_key(token.club_id), *more_keys]
    try:
        got = _read_many(keys)
    except Exception:
        return None
    stored = got.get(keys[0])
    # A record of another shape (kept by an older release) is a miss, as is another session.
    if not isinstance(stored, tuple) or len(stored) != 6 or stored[5] != int(session):
        return None
    if stored[0] != got.get(keys[1]) or stored[1] != got.get(keys[2]) or stored[4] != token.club_id:
        return None
    if got.get(keys[3]) != token.user_epoch or got.get(keys[4]) != token.club_epoch:
        return None
    return Cached(stored[2], stored[3], token.role, {key: got.get(key) for key in more_keys})
