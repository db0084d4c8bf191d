"""Shared fixtures: users with roles in a club, API clients, and service requirements.

Tests that need a server this machine may lack (PostgreSQL, a Celery broker, Chromium)
skip with the reason locally; with REQUIRE_SERVICES=1 (set by .ci/run) they fail instead,
so in CI nothing skips.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable, Iterator
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
    return build_club_setup(make_user)


def build_club_setup(make_user: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """``club_setup``'s club, built where no fixture can be asked (a module's shared world)."""
    from django.contrib.auth import get_user_model

    from referee.models import Club, Member, Role

    if make_user is None:
        def make_user(username: str) -> Any:
            return get_user_model().objects.create_user(username=username, password=PASSWORD)

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


def shared_by_the_module(django_db_blocker: Any, build: Callable[[], dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """For a module-scoped fixture (``yield from shared_by_the_module(django_db_blocker, build)``)
    whose world many tests read: ``build()`` runs once in a transaction that stays open for the
    module's tests (each runs in a savepoint of its own, as pytest-django nests it, and is rolled
    back to the world) and is rolled back after the module's last test. Building a world of
    sessions, deals and an evening once, not for each of a matrix's hundreds of cells, is most of
    the access matrices' time saved. The database is open to the build and the rollback only: a
    test still needs its own ``db``."""
    from django.db import transaction

    with django_db_blocker.unblock():
        outer = transaction.atomic()
        outer.__enter__()
    try:
        with django_db_blocker.unblock():
            world = build()
        yield world
    finally:
        with django_db_blocker.unblock():
            transaction.set_rollback(True)
            outer.__exit__(None, None, None)


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


# -- real Chromium (the browser tests, wherever they live) ------------------------------------

TABLET = {"width": 1024, "height": 768}
PASSWORD = "pass-word-123"


def _through_the_app(application: Any) -> Any:
    """A live server's "static handler" that hands /static/ to the application itself."""
    return application


@pytest.fixture(scope="session")
def live_server(request: pytest.FixtureRequest) -> Iterator[Any]:
    """pytest-django's live server, but with the static files served as in production: by
    WhiteNoise inside the application, so that they carry its headers (the content policy, and
    the offline engine's worker its own). pytest-django's default answers /static/ before any
    middleware, and a worker started from such a script ran under no policy at all."""
    from unittest import mock

    from pytest_django import live_server_helper

    address = request.config.getvalue("liveserver") or os.getenv("DJANGO_LIVE_TEST_SERVER_ADDRESS") or "localhost"
    with mock.patch("django.contrib.staticfiles.handlers.StaticFilesHandler", _through_the_app):
        server = live_server_helper.LiveServer(address)
    yield server
    server.stop()


#: Runs in the page: whether the wait is over, the predicate written as an expression or as a
#: function of ``arg``. As in Playwright's own: a predicate that returns a promise (an async
#: function) ends the wait once the promise settles, whatever its value.
_PREDICATE = """async (arg) => {{
  const value = ({expression}
  );
  const result = typeof value === "function" ? value(arg) : value;
  if (result instanceof Promise) {{ await result; return true; }}
  return Boolean(result);
}}"""


def wait_for_function(page: Any, expression: str, *, arg: Any = None, timeout: float | None = None,
                      polling: float | str | None = None) -> Any:
    """Playwright's ``wait_for_function``, polled from here: Playwright's own hands the predicate
    to the page's ``eval``, which the content policy refuses (no ``'unsafe-eval'``); evaluating
    a function goes through the debugging protocol, which no policy governs."""
    from playwright.sync_api import Error, TimeoutError

    if timeout is None:
        try:
            timeout = float(page._impl_obj._timeout_settings.timeout(None))
        except (AttributeError, TypeError):  # Playwright's private settings moved
            timeout = 30_000.0
    interval = float(polling) if isinstance(polling, int | float) else 25.0
    predicate = _PREDICATE.format(expression=expression)
    deadline = time.monotonic() + timeout / 1000
    while True:
        try:
            if page.evaluate(predicate, arg):
                return None
        except Error as error:  # the page navigated meanwhile: ask the next one
            if "context was destroyed" not in str(error) and "navigat" not in str(error):
                raise
        if time.monotonic() >= deadline:
            raise TimeoutError(f"wait_for_function: {timeout:.0f} ms passed waiting for {expression[:200]}")
        page.wait_for_timeout(interval)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    need(path is not None, "needs Debian's chromium (apt-get install chromium), as .ci/run installs")
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in the test thread; the tests' own ORM calls
    # (setting up data) are safe there, the server runs in its own thread.
    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=path,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        from playwright.sync_api import Page

        original = Page.wait_for_function
        Page.wait_for_function = wait_for_function  # type: ignore[assignment,method-assign]
        try:
            yield chromium
        finally:
            Page.wait_for_function = original  # type: ignore[method-assign]
            chromium.close()


@pytest.fixture
def open_page(browser: Any, live_server: Any) -> Iterator[Callable[..., Any]]:
    """``open_page(user, language="en", size=TABLET)``: a signed-in page (via the login form)."""
    contexts: list[Any] = []

    def make(user: Any = None, language: str = "en", size: dict[str, int] = TABLET) -> Any:
        from tests.browser.content_policy import WATCH

        context = browser.new_context(viewport=size, locale=language, base_url=live_server.url)
        context.add_init_script(WATCH)
        context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url}])
        contexts.append(context)
        page = context.new_page()
        page.set_default_timeout(10_000)
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.js_errors = errors  # type: ignore[attr-defined]
        if user is not None:
            sign_in(page, user.get_username())
        return page

    yield make
    for context in contexts:
        context.close()


def sign_in(page: Any, username: str, password: str = PASSWORD) -> None:
    page.goto("/login/")
    page.get_by_label(re.compile("Username|Naudotojo vardas")).fill(username)
    page.get_by_label(re.compile("Password|Slaptažodis")).fill(password)
    page.locator("form button[type=submit].primary").click()
    page.wait_for_url(re.compile(r"/$"))


@pytest.fixture(autouse=True)
def _default_language() -> Iterator[None]:
    """Every test starts in the site's default language: a request of an earlier test leaves its
    language active in the thread (Django's LocaleMiddleware does not put it back), so a test
    that reads translated text in-process would depend on which tests ran before it."""
    from django.utils import translation

    translation.deactivate()
    yield
    translation.deactivate()


# -- the order the parallel workers take the tests in ----------------------------------------------

#: Modules of long tests that carry no marker saying so: the tablet's engine under Node and
#: Pyodide, the schema fuzzer, the rules fuzzer.
LONG_MODULES = ("tests/offline/", "tests/api/test_schemathesis.py", "tests/rules/test_fuzz_all_games.py")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The long tests first (the browser's, those marked slow, the fuzzers), the quick ones after.
    The workers (``--dist worksteal``) start from shares of this order, and one that runs out
    takes half of what another has left: with the quick tests last, what is left to take at the
    end is quick and the workers finish together. With the long tests spread through the run
    (and ``--dist load``, which never takes a test back), one worker ran its browser tests for
    minutes while the other waited (docs/measurements.md). The order within each group is the
    files' own, so a module's shared world is built once."""
    def long(item: pytest.Item) -> bool:
        path = item.nodeid.split("::", 1)[0]
        return (item.get_closest_marker("browser") is not None or item.get_closest_marker("slow") is not None
                or path.startswith(LONG_MODULES))

    items.sort(key=lambda item: 0 if long(item) else 1)
