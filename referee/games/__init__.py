"""Every game's presentation, found by slug: ``PAGES[slug]`` (see ``base.GamePages``).

The engine's ``referee.rules.GAMES`` holds what a game is; ``PAGES`` holds how the pages,
the audit and the summaries show it. Both are keyed by the same slugs::

    from referee.games import PAGES
    pages = PAGES[session.game]
    pages.explain_last(view, names, notation)       # the referee's last conclusion in words
    pages.describe_entry(payload, result, names, notation)
    pages.screen(view, names, notation, state=..., finished=...)   # the recording screen
    pages.template                                   # its partial
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.models import GAME_CHOICES
from referee.rules import GAMES

from . import cheat, elgeta, michigan, rukas, velnias
from .base import FactQuery, GamePages, RuleText

PAGES: dict[str, GamePages] = {
    pages.slug: pages for pages in (elgeta.PAGES, velnias.PAGES, rukas.PAGES, michigan.PAGES, cheat.PAGES)
}
assert set(PAGES) == set(GAMES), "every game of the engine has its pages, and no more"
#: The game the session start form opens on: the club's everyday game.
START_FORM_GAME = velnias.PAGES.slug


def register(pages: GamePages) -> None:
    """Add the pages of a game from outside the house (a plug-in, or a test's own game) whose
    engine ``referee.rules.register`` added; sessions may then be started in it."""
    if pages.slug not in GAMES or pages.slug in PAGES:
        raise ValueError(f"{pages.slug!r}: register its engine first, and its pages once")
    PAGES[pages.slug] = pages
    # The API checks a new session's game against this very list (its serializer copies it
    # on every request), so the game can be played at once.
    GAME_CHOICES.append((pages.slug, pages.name))


def unregister(slug: str) -> None:
    """Remove a game's pages that ``register`` added."""
    del PAGES[slug]
    GAME_CHOICES[:] = [choice for choice in GAME_CHOICES if choice[0] != slug]


def explain_last(slug: str, view: Mapping[str, Any], names: Sequence[str], notation: str) -> list[str]:
    """The referee's conclusion from a deal's last entry, in words (empty before any)."""
    return PAGES[slug].explain_last(view, names, notation)


def describe_entry(
    slug: str, payload: Mapping[str, Any], result: Mapping[str, Any] | None, names: Sequence[str], notation: str
) -> str:
    """One short line saying what an entry recorded (the undo button, the entry list)."""
    return PAGES[slug].describe_entry(payload, result, names, notation)


__all__ = [
    "PAGES", "FactQuery", "GamePages", "RuleText", "describe_entry", "explain_last", "register", "unregister",
]
