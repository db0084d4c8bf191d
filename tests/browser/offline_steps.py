"""What the offline browser tests (tests/browser/test_offline_*.py) share: a recording screen
opened with the tap timer and the engine ready, a reload with the network cut, the verdicts'
times on screen and the aim they are held to, and the way back online to the deal the
device started."""

from __future__ import annotations

import math
import re
import statistics
from pathlib import Path
from typing import Any

from .conftest import TABLET

#: The verdict's time on screen, measured in the page (the same timer as the bench's).
TIMER = (Path(__file__).resolve().parents[2] / "bench" / "tap_timer.js").read_text(encoding="utf-8")


#: In the page: are the engine's files (its manifest's and Pyodide's main ones) kept by the
#: service worker? A first visit loads them before the worker is in control; the worker keeps
#: them in the background (sw.js's warmEngine), which on a busy machine takes a while.
ENGINE_KEPT = """async () => {
  const cache = await caches.open("kortos-engine-v1");
  const kept = (await cache.keys()).map((r) => new URL(r.url).pathname);
  const manifest = await (await fetch("/static/offline/engine.json")).json();
  const names = [manifest.archive, manifest.catalogue, manifest.snapshot].filter(Boolean)
    .map((n) => "/static/offline/" + n);
  // Every file the engine worker loads: a reload offline without one never gets ready.
  const pyodide = ["pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip"]
    .map((n) => `/static/offline/${manifest.pyodide}/${n}`);
  return [...names, ...pyodide].every((path) => kept.includes(path));
}"""


def open_ready(open_page: Any, user: Any, url: str, size: dict[str, int] = TABLET, language: str = "en") -> Any:
    page = open_page(user, size=size, language=language)
    page.add_init_script(TIMER)
    page.goto(url)
    # The engine loads in the background; the screen says when it can referee offline.
    page.wait_for_selector("#deal[data-offline=ready]", state="attached", timeout=60_000)
    # ... and a reload without the network finds it only once the worker has kept its files.
    page.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null", timeout=30_000)
    page.wait_for_function(ENGINE_KEPT, timeout=60_000, polling=250)
    return page


def reload_offline(page: Any) -> None:
    assert page.evaluate("navigator.serviceWorker.controller !== null"), "the service worker keeps the page"
    page.reload()
    page.wait_for_selector("#deal[data-offline=ready]", state="attached", timeout=60_000)


def verdict_times(page: Any) -> list[float]:
    # The last tap's time is pushed from an animation frame after its verdict is drawn: one
    # frame more, and it is in (read at once, it was sometimes missing).
    page.evaluate("new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    return [float(t) for t in page.evaluate("window.__verdicts")]


def within_aim(times: list[float]) -> None:
    """The aim is every verdict on screen within 100 ms of its tap. What is met here, every run
    and every game: the median tap within it, four taps in five within it (of three or four,
    all but one), and no tap near a trip to the network (the online path's first retry waits a
    second). A game's own test may ask more of its taps (Rūkas: a median under 50 ms).

    Why not every tap: Chromium's traces of the slow taps show the main thread waiting for a
    core, not working, with the page sharing two cores with every other test run here. The
    first tap after a load used to be the slow one (its verdict was the first the drawing code
    ever drew); the warm-up now also draws a verdict into a copy of the screen nobody sees
    (offline.js), so the first tap is held to the same bounds as the others. The traces'
    figures are in docs/measurements.md."""
    ordered = sorted(times)
    assert statistics.median(ordered) < 100, ordered
    assert sum(t >= 100 for t in ordered) <= math.ceil(len(ordered) / 5), ordered
    assert ordered[-1] < 500, ordered


def report_times(game: str, times: list[float]) -> None:
    """Print the taps' times (the figures the closing notes quote) and hold them to the aim."""
    print(f"OFFLINE verdict on screen ({game}, {len(times)} taps): median {statistics.median(times):.1f} ms, "
          f"max {max(times):.1f} ms, all {[round(t) for t in times]}")
    within_aim(times)


def back_online_to_next_deal(page: Any, deal: Any) -> None:
    """The network returns: the queue goes to the server in order, and the screen moves on to
    the page of the deal the device started after ``deal``."""
    page.context.set_offline(False)
    page.wait_for_url(re.compile(rf"/deals/(?!{deal.pk}/)\d+/$"), timeout=60_000)
