"""Registering a game from outside the house: its engine, then its pages; both undone after."""

from __future__ import annotations

import pytest

from referee import games, rules
from referee.models import GAME_CHOICES

from .high_card import ENGINE, PAGES, SLUG


def test_a_registered_game_is_found_by_its_slug_and_offered_to_new_sessions() -> None:
    rules.register(ENGINE)
    games.register(PAGES)
    try:
        assert rules.GAMES[SLUG] is ENGINE and games.PAGES[SLUG] is PAGES
        assert GAME_CHOICES[-1] == (SLUG, "Aukščiausia korta")
        assert games.PAGES[SLUG].template == "referee/games/highcard.html"
    finally:
        games.unregister(SLUG)
        rules.unregister(SLUG)
    assert SLUG not in rules.GAMES and SLUG not in games.PAGES
    assert [slug for slug, _name in GAME_CHOICES] == ["elgeta", "velnias", "rukas", "michigan", "cheat"]


def test_pages_need_their_engine_and_come_once() -> None:
    with pytest.raises(ValueError, match="'highcard': register its engine first, and its pages once"):
        games.register(PAGES)
    with pytest.raises(ValueError, match="a game 'rukas' is already registered"):
        rules.register(rules.GAMES["rukas"])


@pytest.mark.django_db
def test_a_registered_game_needs_no_migration() -> None:
    """The game fields are checked against the registry, not frozen into migrations: with the
    sixth game registered, the models still match the migrations exactly."""
    from django.core.management import call_command

    rules.register(ENGINE)
    games.register(PAGES)
    try:
        call_command("makemigrations", "--check", "--dry-run", verbosity=0)
    finally:
        games.unregister(SLUG)
        rules.unregister(SLUG)


def test_a_game_field_takes_only_a_game_of_the_registry() -> None:
    from django.core.exceptions import ValidationError
    from django.utils import translation

    from referee.models import known_game

    known_game("rukas")
    refused = pytest.raises(ValidationError, match="“highcard” is not a game this referee knows.")
    with translation.override("en"), refused:
        known_game(SLUG)
    rules.register(ENGINE)
    try:
        known_game(SLUG)
    finally:
        rules.unregister(SLUG)


def test_the_tablets_engine_takes_its_games_from_the_registry() -> None:
    """The tablet's referee knows the games the registry knows: its words per game come from
    the registered pages (no list of games on the tablet: tests/test_house.py reads the
    scripts), so a registered game is in the engine's catalogue and leaves it when it goes."""
    from referee import offline_engine

    assert SLUG not in offline_engine.catalogue()["en"]["words"]
    rules.register(ENGINE)
    games.register(PAGES)
    try:
        words = offline_engine.catalogue()["en"]["words"]
        assert sorted(words) == sorted([*rules.GAMES])
        assert words[SLUG]["cards"] == "the cards"
    finally:
        games.unregister(SLUG)
        rules.unregister(SLUG)
