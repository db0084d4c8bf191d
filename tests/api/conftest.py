"""Fixtures for the API tests: English clients, row counts, and sessions ready to record.

Every client sends ``Accept-Language: en`` so the exact messages asserted here are the
English source strings, whatever translations the Lithuanian catalogue adds.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient


@pytest.fixture
def client_for(api: Any) -> Callable[..., APIClient]:
    """``client_for(user)``: a token-authenticated client speaking English; ``client_for()`` is anonymous."""

    def make(user: Any = None, language: str = "en") -> APIClient:
        client = api(user)
        client.defaults["HTTP_ACCEPT_LANGUAGE"] = language
        return client

    return make


def row_counts() -> dict[str, int]:
    """How many rows each table the API writes holds: proof that a refused request stored nothing."""
    from django.contrib.auth import get_user_model

    from evenings.models import Evening, EveningPlayer, Round, RoundTable
    from referee.models import Club, Deal, DealChange, Entry, Member, Seat, Session
    from scoring.models import DealResult

    models = [Club, Member, Session, Seat, Deal, Entry, DealChange, DealResult, get_user_model(),
              Evening, EveningPlayer, Round, RoundTable]
    return {model.__name__: model.objects.count() for model in models}


@pytest.fixture
def counts() -> Callable[[], dict[str, int]]:
    return row_counts


@pytest.fixture
def scorer(club_setup: dict[str, Any]) -> Any:
    return club_setup["users"]["scorer"]


@pytest.fixture
def start_session(club_setup: dict[str, Any]) -> Callable[..., Any]:
    """``start_session("velnias", ["Ona", "Jonas", ...], options={...})`` through the service."""
    from referee import services

    def start(game: str, names: list[str], options: dict[str, Any] | None = None, **extra: Any) -> Any:
        members = club_setup["members"]
        by_name = {m.name: m for m in members.values()}
        return services.session_start(
            club=club_setup["club"], game=game, players=[by_name[n] for n in names],
            user=club_setup["users"]["scorer"], options=options, **extra,
        )

    return start


@pytest.fixture
def start_deal(club_setup: dict[str, Any]) -> Callable[..., Any]:
    from referee import services

    def start(session: Any, dealer: int | None = None) -> Any:
        return services.deal_start(session=session, user=club_setup["users"]["scorer"], dealer=dealer)

    return start


FOUR = ["Ona", "Jonas", "Rūta", "Petras"]


class _AnyCode:
    """Equal to any non-empty code: for refusals whose finer code the service chooses
    (``illegal_entry``, ``stale_seq``, ``duplicate_key_conflict``, ``closed``, ...)."""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, str) and bool(other)

    def __repr__(self) -> str:
        return "<any code>"


ANY_CODE: Any = _AnyCode()


@pytest.fixture
def scorer_client(club_setup: dict[str, Any], client_for: Any) -> Any:
    """The club's scorer, signed in with a token."""
    return client_for(club_setup["users"]["scorer"])


@pytest.fixture
def rukas_deal(start_session: Any, start_deal: Any) -> Any:
    """A two-player Rūkas deal (Ona and Jonas), started."""
    return start_deal(start_session("rukas", ["Ona", "Jonas"]))
