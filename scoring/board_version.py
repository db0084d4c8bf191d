"""The versions of a club's leaderboard totals, so that a read between two deals is a cache hit
and the read after a deal re-sums only the current month's rows.

The leaderboard's totals come from the aggregates (``scoring.results``), which change only when
a deal finishes or is reopened (undo, correction), a session's close settles chips or is
reopened, or a club is rebuilt (``scoring.rebuild``); each of those calls :func:`changed`. A
club has two versions (random tokens, never reused), each set anew once the changing
transaction commits:

* the *current* version, renewed by every change: a period's totals kept under it are right
  as they stand;
* the *past* version, renewed only by a change to a day before the current month (a
  correction or undo of an older deal, a close settling into last month) and by a club-wide
  change (a rebuild): the part of a period before the current month (``recent_start``) kept
  under it is right, so a deal finishing today re-sums only the period's days in this month
  (``scoring.leaderboard``). A past month's board, or a custom period that ended before this
  month, is not re-summed at all.

A read takes the versions *before* computing and stores what it computed under them, so a
change that commits meanwhile retires it; a read that starts after the writing request has
answered never sees totals from before it. Which side of the month's start a change falls is
decided when it commits, with ``MONTH_MARGIN`` to spare for server clocks that differ: near the
turn of a month a change to its last days renews the past version too.

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
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction
from django.utils import timezone

log = logging.getLogger(__name__)

#: How long a period's totals stay cached: a backstop for a change that bypassed ``changed``
#: (a hand edit in the database); within it, only ``changed`` retires them.
TOTALS_SECONDS = 600
#: How long a club's versions live after their last change or read.
VERSION_SECONDS = 7 * 24 * 3600
#: A change this close to the turn of a month counts as a change to the past too (a server
#: whose clock is already in the next month sums the ending month as past).
MONTH_MARGIN = timedelta(minutes=15)


def enabled() -> bool:
    setting = getattr(settings, "LEADERBOARD_CACHE", None)
    if setting is not None:
        return bool(setting)
    backend = settings.CACHES["default"]["BACKEND"]
    return not backend.endswith(("LocMemCache", "DummyCache"))


def _key(club_id: int) -> str:
    return f"board-version:{club_id}"


def _past_key(club_id: int) -> str:
    return f"board-past:{club_id}"


def recent_start(today: date | None = None) -> date:
    """The first day of the current month (the club's time zone): a period's days from here on
    are summed again after every change, those before it only after a change to them."""
    today = today or timezone.localdate()
    return date(today.year, today.month, 1)


#: The clubs whose aggregates this thread's open transaction changed (a thread has its own
#: connection): their reads skip the cache until it commits or rolls back.
_local = threading.local()


def _changing() -> set[int]:
    clubs: set[int] | None = getattr(_local, "clubs", None)
    if clubs is None:
        clubs = _local.clubs = set()
    return clubs


def changed(club_id: int, moment: datetime | None = None) -> None:
    """The club's aggregates of ``moment``'s day change in the current transaction (None: any
    day, e.g. a rebuild): new versions once it commits (at once outside a transaction); a
    rolled-back change retires nothing."""
    if not enabled():
        return
    _changing().add(club_id)
    day = None if moment is None else timezone.localdate(moment)
    transaction.on_commit(lambda: _committed(club_id, day))


def _committed(club_id: int, day: date | None) -> None:
    _changing().discard(club_id)
    past = day is None or day < recent_start(timezone.localdate(timezone.now() + MONTH_MARGIN))
    _renew(club_id, past=past)


def _renew(club_id: int, past: bool = True) -> None:
    """New versions: the current one, and the past one too when ``past``."""
    keys = [_key(club_id), *([_past_key(club_id)] if past else [])]
    try:
        cache.set_many({key: secrets.token_hex(8) for key in keys}, timeout=VERSION_SECONDS)
    except Exception:  # the cache is down: reads miss it too; the change itself has committed
        log.exception("could not renew the leaderboard version of club %s", club_id)


@dataclass(frozen=True)
class Versions:
    current: str
    past: str


def cached(club_id: int, key: str) -> tuple[Versions | None, Any]:
    """The club's versions, read before anything is computed (None: do not cache), and what
    ``key`` holds (stored by ``put``; None if nothing), in one round trip."""
    if not enabled():
        return None, None
    changing = _changing()
    if club_id in changing:
        if transaction.get_connection().in_atomic_block:
            return None, None  # this transaction changed them: its own reads see them uncommitted
        changing.discard(club_id)  # that transaction rolled back (a commit discards it first)
    version_keys = [_key(club_id), _past_key(club_id)]
    try:
        found = cache.get_many([*version_keys, key])
        missing = [name for name in version_keys if found.get(name) is None]
        if missing:
            for name in missing:
                cache.add(name, secrets.token_hex(8), timeout=VERSION_SECONDS)
            found.update(cache.get_many(missing))
    except Exception:
        log.exception("could not read the leaderboard versions of club %s", club_id)
        return None, None
    current, past = (found.get(name) for name in version_keys)
    if current is None or past is None:
        return None, None
    return Versions(str(current), str(past)), found.get(key)


def put(key: str, value: Any) -> None:
    """Keep ``value`` for ``key`` (it names the versions it was computed under)."""
    try:
        cache.set(key, value, timeout=TOTALS_SECONDS)
    except Exception:
        log.exception("could not cache the leaderboard totals %s", key)
