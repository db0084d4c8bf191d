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


# -- accessibility basics ------------------------------------------------------------------------------

A11Y_SCRIPT = """
() => {
  const visible = el => {
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
  };
  const nameOf = el => {
    if (el.getAttribute('aria-label')) return el.getAttribute('aria-label').trim();
    const by = el.getAttribute('aria-labelledby');
    if (by) return by.split(/\\s+/).map(id => (document.getElementById(id) || {}).textContent || '').join(' ').trim();
    if (el.labels && el.labels.length) return Array.from(el.labels).map(l => l.textContent).join(' ').trim();
    if (el.tagName === 'BUTTON' || el.tagName === 'A') return el.textContent.trim();
    return (el.getAttribute('title') || '').trim();
  };
  const unnamed = [];
  const small = [];
  const controls = document.querySelectorAll(
    'button, input:not([type=hidden]), select, textarea, a.button, .tabs a, .crumbs a');
  for (const el of controls) {
    if (el.closest('[hidden]')) continue;
    const target = (el.matches('input[type=radio], input[type=checkbox]') && el.closest('label')) || el;
    if (!visible(target)) continue;
    if (!nameOf(el)) unnamed.push(el.outerHTML.slice(0, 120));
    const box = target.getBoundingClientRect();
    if (box.width < 44 || box.height < 44) small.push(`${Math.round(box.width)}x${Math.round(box.height)} ${target.outerHTML.slice(0, 100)}`);
  }
  const parse = c => (c.match(/[\\d.]+/g) || []).map(Number);
  const lum = ([r, g, b]) => {
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const background = el => {
    for (let node = el; node; node = node.parentElement) {
      const c = parse(getComputedStyle(node).backgroundColor);
      if (c.length === 3 || (c.length === 4 && c[3] > 0.9)) return c.slice(0, 3);
    }
    return parse(getComputedStyle(document.body).backgroundColor).slice(0, 3);
  };
  const contrast = [];
  const texts = document.querySelectorAll('h1, h2, h3, p, li, td, th, label, button, a, .value, .sub, .help, .muted, .who, .name');
  for (const el of texts) {
    if (!visible(el) || !el.textContent.trim() || el.closest('.summary-chart, [aria-disabled=true], :disabled')) continue;
    const fg = parse(getComputedStyle(el).color).slice(0, 3);
    const bg = background(el);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    if (ratio < 4.5) contrast.push(`${ratio.toFixed(2)} ${el.tagName}.${el.className}: ${el.textContent.trim().slice(0, 40)}`);
  }
  return {unnamed, small, contrast};
}
"""


def check_a11y(page: Any) -> None:
    """Every control has an accessible name, touch targets are at least 44 px, text contrast >= 4.5."""
    report = page.evaluate(A11Y_SCRIPT)
    assert report["unnamed"] == [], f"controls without an accessible name: {report['unnamed']}"
    assert report["small"] == [], f"touch targets under 44 px: {report['small']}"
    assert report["contrast"] == [], f"text with contrast under 4.5:1: {report['contrast']}"
