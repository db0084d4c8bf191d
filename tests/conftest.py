"""Shared fixtures: users with roles in a club, API clients, and service requirements.

Tests that need a server this machine may lack (PostgreSQL, a Celery broker, Chromium)
skip with the reason locally; with REQUIRE_SERVICES=1 (set by .ci/run) they fail instead,
so in CI nothing skips.
"""

from __future__ import annotations

import os
import shutil
from typing import Any

import pytest
from django.conf import settings
from rest_framework.test import APIClient

REQUIRE_SERVICES = os.environ.get("REQUIRE_SERVICES") == "1"


def need(condition: bool, reason: str) -> None:
    """Skip (locally) or fail (CI) when a required service is missing."""
    if condition:
        return
    if REQUIRE_SERVICES:
        pytest.fail(f"required service missing in CI: {reason}")
    pytest.skip(reason)


def is_postgres() -> bool:
    return settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


@pytest.fixture
def require_postgres() -> None:
    need(is_postgres(), "needs PostgreSQL: set DATABASE_URL=postgres://... (as .ci/run does)")


@pytest.fixture
def require_broker() -> str:
    url = getattr(settings, "TEST_CELERY_BROKER_URL", "")
    need(bool(url), "needs a Celery broker: set CELERY_BROKER_URL=redis://... (as .ci/run does)")
    return str(url)


def chromium_path() -> str | None:
    path = os.environ.get("CHROMIUM_PATH", "/usr/bin/chromium")
    return path if os.path.exists(path) else shutil.which("chromium")


@pytest.fixture
def require_chromium() -> str:
    path = chromium_path()
    need(path is not None, "needs Debian's chromium (apt-get install chromium), as .ci/run installs")
    assert path is not None
    return path


@pytest.fixture
def make_user(django_user_model: Any) -> Any:
    def make(username: str, password: str = "pass-word-123", **extra: Any) -> Any:
        return django_user_model.objects.create_user(username=username, password=password, **extra)

    return make


@pytest.fixture
def club_setup(make_user: Any) -> dict[str, Any]:
    """A club with an admin, a scorer, a member, and five more players; plus an outsider's club."""
    from referee.models import Club, Member, Role

    club = Club.objects.create(slug="vilnius", name="Vilniaus klubas")
    users = {role: make_user(role) for role in ("admin", "scorer", "member", "outsider")}
    members = {
        "admin": Member.objects.create(club=club, name="Ona", user=users["admin"], role=Role.ADMIN),
        "scorer": Member.objects.create(club=club, name="Jonas", user=users["scorer"], role=Role.SCORER),
        "member": Member.objects.create(club=club, name="Rūta", user=users["member"], role=Role.MEMBER),
    }
    for name in ("Petras", "Asta", "Tomas", "Eglė", "Marius"):
        members[name] = Member.objects.create(club=club, name=name)
    other = Club.objects.create(slug="kaunas", name="Kauno klubas")
    members["outsider"] = Member.objects.create(club=other, name="Darius", user=users["outsider"], role=Role.ADMIN)
    return {"club": club, "other": other, "users": users, "members": members}


@pytest.fixture
def api() -> Any:
    """An API client factory: ``api(user)`` authenticates with a token, ``api()`` is anonymous."""
    from rest_framework.authtoken.models import Token

    def client(user: Any = None) -> APIClient:
        c = APIClient()
        if user is not None:
            token, _ = Token.objects.get_or_create(user=user)
            c.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
        return c

    return client
