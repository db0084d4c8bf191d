"""Real headless Chromium (Debian's package) driven by Playwright against pytest-django's
live server. Screenshots go to ``screenshots/`` at the project root (gitignored), each at
tablet (1024x768) and phone (390x844) size.

Playwright's sync API runs an event loop in the test thread, so Django's async-safety check
would refuse the ORM calls the tests make to set up data: DJANGO_ALLOW_ASYNC_UNSAFE lifts it
for these tests only (the server itself runs in its own thread).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee import offline_engine, services
from tests.browser.content_policy import ReportLog
from tests.conftest import PASSWORD, TABLET, chromium_path, need, sign_in  # noqa: F401  (re-exported)

os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")

SCREENSHOTS = Path(__file__).resolve().parents[2] / "screenshots"
PHONE = {"width": 390, "height": 844}


# ``browser`` and ``open_page`` live in tests/conftest.py, so that a browser test outside this
# folder (tests/sixth_game) shares the one Playwright session: a second one in the same
# process would refuse to start inside the first one's event loop.


#: Pictures are for people to look at, not checks: ``make screenshots`` (SCREENSHOTS=1) takes
#: them; a plain test run does not spend its time on the several hundred it would write.
TAKE_SCREENSHOTS = os.environ.get("SCREENSHOTS", "") not in ("", "0")


def shoot(page: Any, name: str) -> None:
    """Save the page as a tablet (1024x768) and a phone (390x844) show it, plus each whole page.

    The viewport shots are exactly what the screen shows (the phone's sticky action button
    at the bottom included); the ``-full`` shots unstick that button so that it does not
    cover the content in a picture taller than any screen.
    """
    if not TAKE_SCREENSHOTS:
        return
    SCREENSHOTS.mkdir(exist_ok=True)
    original = page.viewport_size
    for label, size in (("tablet", TABLET), ("phone", PHONE)):
        page.set_viewport_size(size)
        # The recording screens scroll inside the body (above their docked Record strip), other
        # pages scroll the window: the shot starts at the top either way.
        page.evaluate("window.scrollTo(0, 0); document.body.scrollTop = 0")
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
        # Evaluated by the browser's debugging protocol, which the content policy does not
        # govern: an added <script> element would be an inline script, refused.
        page.evaluate(AXE_SCRIPT.read_text(encoding="utf-8"))
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


# -- the content policy: no test's page may see a violation ----------------------------------------

@pytest.fixture(autouse=True)
def policy_reports(request: pytest.FixtureRequest) -> Iterator[ReportLog]:
    """The content policy's reports that reach the endpoint during the test; a test that
    does not expect any (``@pytest.mark.policy_violations`` expects them) fails on one."""
    with ReportLog() as log:
        yield log
    if request.node.get_closest_marker("policy_violations") is None and "live_server" in request.fixturenames:
        assert log.reports == [], f"content policy violations reported: {log.reports}"


# -- the tablet's referee and a deal to record offline (the offline tests share them) ------------

@pytest.fixture
def built_engine(engine_once: dict[str, Any]) -> dict[str, Any]:
    return engine_once


@pytest.fixture(scope="session")
def engine_once() -> dict[str, Any]:
    """The tablet's referee, built once per test process; the parallel workers (pytest-xdist)
    take turns by a lock on the output folder, so none reads a file another is writing."""
    need((offline_engine.PYODIDE / "pyodide.mjs").is_file(), "needs node_modules/pyodide: run `make setup` (npm ci)")
    offline_engine.OUTPUT.mkdir(parents=True, exist_ok=True)
    with open(offline_engine.OUTPUT / ".build.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            return offline_engine.build()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


#: A Rūkas deal of five players, Lithuanian notation, Asta dealing (the conflict and drafts tests).
def rukas_deal(club_setup: dict[str, Any]) -> Any:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="rukas", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]],
                                     options={"notation": "lt"})
    return services.deal_start(session=session, user=scorer, dealer=4)
