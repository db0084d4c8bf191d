"""Real headless Chromium (Debian's package) driven by Playwright against pytest-django's
live server. Screenshots go to ``screenshots/`` at the project root (gitignored), each at
tablet (1024x768) and phone (390x844) size.

Playwright's sync API runs an event loop in the test thread, so Django's async-safety check
would refuse the ORM calls the tests make to set up data: DJANGO_ALLOW_ASYNC_UNSAFE lifts it
for these tests only (the server itself runs in its own thread).
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import chromium_path, need

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"
TABLET = {"width": 1024, "height": 768}
PHONE = {"width": 390, "height": 844}
PASSWORD = "pass-word-123"


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    path = chromium_path()
    need(path is not None, "needs Debian's chromium (apt-get install chromium), as .ci/run installs")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(
            executable_path=path,
            args=["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
        )
        yield chromium
        chromium.close()


@pytest.fixture
def open_page(browser: Any, live_server: Any) -> Iterator[Callable[..., Any]]:
    """``open_page(user, language="en", size=TABLET)``: a signed-in page (via the login form)."""
    contexts: list[Any] = []

    def make(user: Any = None, language: str = "en", size: dict[str, int] = TABLET) -> Any:
        context = browser.new_context(viewport=size, locale=language, base_url=live_server.url)
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


def shoot(page: Any, name: str) -> None:
    """Save the page as a tablet (1024x768) and a phone (390x844) show it, plus each whole page.

    The viewport shots are exactly what the screen shows (the phone's sticky action button
    at the bottom included); the ``-full`` shots unstick that button so that it does not
    cover the content in a picture taller than any screen.
    """
    SCREENSHOTS.mkdir(exist_ok=True)
    original = page.viewport_size
    for label, size in (("tablet", TABLET), ("phone", PHONE)):
        page.set_viewport_size(size)
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(50)
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}.png"))
        page.evaluate("document.documentElement.classList.add('full-shot')")
        page.screenshot(path=str(SCREENSHOTS / f"{name}-{label}-full.png"), full_page=True)
        page.evaluate("document.documentElement.classList.remove('full-shot')")
    page.set_viewport_size(original)


# -- accessibility: axe-core, the standard checker ---------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
#: axe-core as ``make setup`` installs it (``npm ci`` from package-lock.json); never from a CDN.
AXE_SCRIPT = ROOT / "node_modules" / "axe-core" / "axe.min.js"
A11Y_SCRIPT = (Path(__file__).parent / "a11y.js").read_text(encoding="utf-8")


def check_a11y(page: Any) -> None:
    """axe-core finds no serious or critical violation, and touch targets are at least 44 px."""
    assert AXE_SCRIPT.exists(), f"axe-core is missing at {AXE_SCRIPT}: run `make setup` (npm ci)"
    if not page.evaluate("typeof window.axe !== 'undefined'"):
        page.add_script_tag(path=str(AXE_SCRIPT))
    # axe judges one scroll position: there the phone's sticky action bar lies over whatever
    # scrolls under it, which axe's target-size rule reports as obscured targets. The check
    # unsticks it, as the full-page screenshots do; the bar itself is still checked.
    page.evaluate("document.documentElement.classList.add('full-shot')")
    try:
        report = page.evaluate(A11Y_SCRIPT)
    finally:
        page.evaluate("document.documentElement.classList.remove('full-shot')")
    assert report["violations"] == [], "axe-core found serious or critical violations:\n" + "\n".join(
        report["violations"])
    assert report["small"] == [], f"touch targets under 44 px: {report['small']}"
