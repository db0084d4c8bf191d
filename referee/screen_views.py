"""The engine's view of each deal version, kept in the cache for the screens that show it.

Every screen of a deal (the scorer's recording screen, a second tablet, every phone watching
the table) draws from the engine's view of the deal's snapshot, and after each entry they all
ask for the new version at once. Reading a long snapshot is the dearest part of drawing one:
a 500-entry Mičiganas deal (its whole chip ledger) takes about 2 ms to read and view. The
entry that makes a version already holds its view, so it keeps it here once its transaction
has committed (never before: a rolled-back entry's version number can come back with other
content); a version no entry made (an undo, a correction, an evicted key) is read from the
snapshot by the first screen that asks (``web.pages.deal_screen.engine_view``).

A version (``selectors.deal_version``) never repeats for a deal: the deal's ``revision``
counts every write of its snapshot. The creation time keeps keys apart should a database
ever be rebuilt with the same ids, and the version names the deal's status, so a running
version's view never answers for a finished one.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from django.core.cache import cache
from django.db import transaction

from .games import PAGES
from .models import Deal

log = logging.getLogger(__name__)

#: How long a deal version's view stays kept, in seconds.
VIEW_CACHE_SECONDS = 600

#: The engine's view of a version and, once the deal is finished, the next deal's dealer.
Kept = tuple[dict[str, Any], int | None]


def _key(deal: Deal, version: str) -> str:
    return f"deal-screen:{deal.pk}:{deal.created_at.timestamp()}:{version}"


def kept(deal: Deal, version: str) -> Kept | None:
    """The version's kept view; None when it is not kept, or the cache cannot be read (the
    screen then reads the snapshot: a cache that is down costs time, never a page)."""
    try:
        found: Kept | None = cache.get(_key(deal, version))
    except Exception:
        log.warning("could not read a deal version's kept view", exc_info=True)
        return None
    return found


def keep(deal: Deal, version: str, view: Mapping[str, Any], next_dealer: int | None) -> Kept:
    """Keep the version's view as the game's screens keep it (``GamePages.kept_view``) and
    answer it; a cache that fails is logged (the screens read the snapshot)."""
    found = (PAGES[deal.session.game].kept_view(view), next_dealer)
    try:
        cache.set(_key(deal, version), found, timeout=VIEW_CACHE_SECONDS)
    except Exception:
        log.warning("could not keep a deal version's view", exc_info=True)
    return found


def keep_after_commit(deal: Deal, version: str, view: Mapping[str, Any], next_dealer: int | None) -> None:
    """``keep``, once the current transaction commits (at once outside one). The entry has
    committed by then: nothing here may fail its answer."""
    transaction.on_commit(lambda: keep(deal, version, view, next_dealer))
