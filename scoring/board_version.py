"""The version of a club's leaderboard totals, so that a read between two deals is a cache hit.

The leaderboard's totals come from the aggregates (``scoring.results``), which change only when
a deal finishes or is reopened (undo, correction), a session's close settles chips or is
reopened, or a club is rebuilt (``scoring.rebuild``); each of those calls :func:`changed`. The
totals of a period are cached under the club's current version (a random token, never reused),
and every change sets a new one once its transaction commits, so a read that starts after the
writing request has answered never sees totals from before it. A read racing the commit stores
what it computed under the version it read *before* computing, which the commit then retires.

It works only with a cache that every server process shares (Redis in production): with the
per-process memory cache, a deal finished in one gunicorn worker would not retire another
worker's copy, so caching is off there unless ``LEADERBOARD_CACHE`` says otherwise (a single
process: the tests, the benchmarks). A cache that fails is read as a miss: the totals are
computed from the aggregates, as without a cache.
"""

from __future__ import annotations

import logging
import secrets
import threading
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

log = logging.getLogger(__name__)

#: How long a period's totals stay cached: a backstop for a change that bypassed ``changed``
#: (a hand edit in the database); within it, only ``changed`` retires them.
TOTALS_SECONDS = 600
#: How long a club's version lives after its last change or read.
VERSION_SECONDS = 7 * 24 * 3600


def enabled() -> bool:
    setting = getattr(settings, "LEADERBOARD_CACHE", None)
    if setting is not None:
        return bool(setting)
    backend = settings.CACHES["default"]["BACKEND"]
    return not backend.endswith(("LocMemCache", "DummyCache"))


def _key(club_id: int) -> str:
    return f"board-version:{club_id}"


#: The clubs whose aggregates this thread's open transaction changed (a thread has its own
#: connection): their reads skip the cache until it commits or rolls back.
_local = threading.local()


def _changing() -> set[int]:
    clubs: set[int] | None = getattr(_local, "clubs", None)
    if clubs is None:
        clubs = _local.clubs = set()
    return clubs


def changed(club_id: int) -> None:
    """The club's aggregates change in the current transaction: a new version once it commits
    (at once outside a transaction); a rolled-back change retires nothing."""
    if not enabled():
        return
    _changing().add(club_id)
    transaction.on_commit(lambda: _committed(club_id))


def _committed(club_id: int) -> None:
    _changing().discard(club_id)
    _renew(club_id)


def _renew(club_id: int) -> None:
    try:
        cache.set(_key(club_id), secrets.token_hex(8), timeout=VERSION_SECONDS)
    except Exception:  # the cache is down: reads miss it too; the change itself has committed
        log.exception("could not renew the leaderboard version of club %s", club_id)


def cached(club_id: int, key: str) -> tuple[str | None, Any]:
    """The club's current version, read before anything is computed (None: do not cache), and
    what ``key`` holds if it was stored under that version (else None), in one round trip."""
    if not enabled():
        return None, None
    changing = _changing()
    if club_id in changing:
        if transaction.get_connection().in_atomic_block:
            return None, None  # this transaction changed them: its own reads see them uncommitted
        changing.discard(club_id)  # that transaction rolled back (a commit discards it first)
    version_key = _key(club_id)
    try:
        found = cache.get_many([version_key, key])
        version = found.get(version_key)
        if version is None:
            cache.add(version_key, secrets.token_hex(8), timeout=VERSION_SECONDS)
            version = cache.get(version_key)
    except Exception:
        log.exception("could not read the leaderboard version of club %s", club_id)
        return None, None
    if version is None:
        return None, None
    stored = found.get(key)
    if isinstance(stored, tuple) and len(stored) == 2 and stored[0] == version:
        return str(version), stored[1]
    return str(version), None


def put(key: str, version: str, value: Any) -> None:
    """Keep ``value`` for ``key`` as of ``version`` (read before it was computed)."""
    try:
        cache.set(key, (version, value), timeout=TOTALS_SECONDS)
    except Exception:
        log.exception("could not cache the leaderboard totals %s", key)
