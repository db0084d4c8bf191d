"""Page tests: Django's test client, in English unless a test asks for Lithuanian."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from referee import services


@pytest.fixture
def page() -> Any:
    """``page(user, language="en")``: a signed-in test client reading the pages in that language."""

    def make(user: Any = None, language: str = "en") -> Client:
        client = Client(HTTP_ACCEPT_LANGUAGE=language)
        if user is not None:
            client.force_login(user)
        return client

    return make


@pytest.fixture
def start(club_setup: dict[str, Any]) -> Any:
    """``start(game, names, **options)``: a session of the club's members (by fixture key) and its first deal."""

    def make(game: str, names: list[str], **options: Any) -> Any:
        members = [club_setup["members"][name] for name in names]
        session = services.session_start(
            club=club_setup["club"], game=game, players=members, user=club_setup["users"]["scorer"], options=options,
        )
        return services.deal_start(session=session, user=club_setup["users"]["scorer"])

    return make


def record(deal: Any, user: Any, *payloads: dict[str, Any]) -> None:
    for payload in payloads:
        services.entry_add(deal_id=deal.pk, payload=payload, user=user)
