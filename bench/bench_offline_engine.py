"""The referee on the tablet in headless Chromium: the engine's cold and warm load time
(aim: under 3 s cold, under 1 s from cache) and the median time from a message to the verdict
(aim: under 20 ms).

Run: ``.venv/bin/python bench/bench_offline_engine.py`` (needs ``make setup``: node_modules
with Pyodide, and Debian's chromium, or ``CHROMIUM_PATH``). It builds the engine as ``make
setup`` does, serves ``static/`` over loopback from a small threaded server (versioned
files, ``engine-<version>.*`` and ``pyodide-<version>/``, as cacheable for a year, as a
service worker or hashed static names would keep them; the manifest revalidated), and in a
fresh Chromium profile times ``createEngine().ready()`` through ``static/js/offline/engine.js``:

* cold: an empty cache, everything downloaded (about 13 MB, mostly Pyodide's WebAssembly)
  and compiled;
* warm: the page reloaded, everything from the browser's cache (and V8's caches of the
  compiled JavaScript and WebAssembly);
* each with the CPU time the browser's processes spent on it (from /proc): on a busy shared
  machine the wall time measures the queue for the cores as much as the work;
* verdicts: the seed Rūkas trick "3 9 9 V 4" applied ``--verdicts`` times to a 5-player
  snapshot, timed in the page from ``engine.apply`` to the answer (the worker round trip);
* tap to verdict on the real recording screen (``--screen``, on by default): a throwaway
  PostgreSQL database and gunicorn on ``--port`` (bench_api's, ``BENCH_DB_NAME``), a Rūkas
  deal of four players, the scorer signed in; once the screen says it can referee offline
  (``#deal[data-offline=ready]``), the network is cut (Playwright's offline mode) and a whole
  deal of 13 tricks is recorded; each tap is timed in the page from the Record button's click
  to the frame that paints the verdict (the live part's ``data-seq`` changes in the same task).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("ALLOW_INSECURE_KEY", "1")
# The recording screen's part (--screen) runs on a throwaway PostgreSQL database with the
# settings gunicorn gets (bench_api's); the engine's part touches no database.
os.environ.setdefault("BENCH_DB_NAME", "kortos_bench_offline_screen")

from bench import bench_api  # noqa: E402

os.environ["DATABASE_URL"] = bench_api.database_url()
os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings_bench"

import django  # noqa: E402

django.setup()

from referee import offline_engine  # noqa: E402
from referee.rules import GAMES  # noqa: E402

#: The manifest with its snapshot left out (served by the bench itself): the worker's way
#: without one, Python started and the engine imported at every load (--compare).
WITHOUT_SNAPSHOT = "/static/offline/engine-without-snapshot.json"

HARNESS = b"<!doctype html><html lang='en'><meta charset='utf-8'><title>engine bench</title><body></body></html>"

LOAD = """async (manifestURL) => {
  const started = performance.now();
  const { createEngine } = await import("/static/js/offline/engine.js");
  const names = ["Ona", "Jonas", "Rūta", "Petras", "Asta"];
  window.engine = createEngine({ manifestURL, context: { names, language: "lt", notation: "lt" } });
  const version = await window.engine.ready();
  return { ms: performance.now() - started, version, timings: window.engine.timings };
}"""

VERDICTS = """async ({ snapshot, entry, times }) => {
  const spent = [];
  let answer = null;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    answer = await window.engine.apply(snapshot, entry);
    spent.push(performance.now() - started);
  }
  return { spent, taker: answer.view.last.taker };
}"""


def browser_cpu_seconds(profile: str) -> float:
    """CPU time (user + system) used so far by the Chromium started on ``profile`` and every
    process under it (the worker runs in a renderer): a figure the other loads on a shared
    machine do not inflate the way they inflate wall time."""
    parents: dict[int, int] = {}
    spent: dict[int, float] = {}
    roots: list[int] = []
    tick = os.sysconf("SC_CLK_TCK")
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        pid = int(entry.name)
        parents[pid] = int(fields[1])
        spent[pid] = (int(fields[11]) + int(fields[12])) / tick
        if profile.encode() in command and b"--type=" not in command:
            roots.append(pid)
    family = set(roots)
    grew = True
    while grew:
        grew = False
        for pid, parent in parents.items():
            if parent in family and pid not in family:
                family.add(pid)
                grew = True
    return sum(spent[pid] for pid in family)


class Static(SimpleHTTPRequestHandler):
    """``/`` is an empty page; ``/static/...`` is the project's static folder."""

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path == WITHOUT_SNAPSHOT:
            manifest = json.loads((ROOT / "static" / "offline" / "engine.json").read_text())
            body = json.dumps({**manifest, "snapshot": None}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        if self.path in ("/", "/index.html"):
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(HARNESS)))
            self.end_headers()
            self.wfile.write(HARNESS)
            return
        super().do_GET()

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0]
        if not path.startswith("/static/"):
            return str(ROOT / "missing")
        return super().translate_path(path[len("/static"):])

    def end_headers(self) -> None:
        versioned = "/offline/engine-" in self.path or "/offline/pyodide-" in self.path
        self.send_header("Cache-Control", "public, max-age=31536000, immutable" if versioned else "no-cache")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


#: In the recording screen, before its scripts: each tap's time to the frame showing its verdict.
TAP_TIMER = (ROOT / "bench" / "tap_timer.js").read_text(encoding="utf-8")


def screen_taps(chromium: str, port: int) -> str:
    """The recording screen's tap-to-verdict offline over a whole Rūkas deal; the line to print."""
    from referee.rules.cards import RANK_TEXT_LT

    ranks = [RANK_TEXT_LT[v] for v in range(2, 15)]
    bench_api.recreate_database()
    server = None
    try:
        from django.core.management import call_command

        call_command("migrate", verbosity=0)
        from referee import services
        from referee.rules import GAMES

        seed = bench_api.seed_club()
        session = services.session_start(club=seed.club, game="rukas", players=seed.members, user=seed.user,
                                         options={"notation": "lt"})
        deal = services.deal_start(session=session, user=seed.user)
        game = GAMES["rukas"]
        state = game.new_deal(players=4, dealer=deal.dealer, options={"notation": "lt"})
        tricks = []
        for trick in range(13):
            leader = state.leader
            order = [(leader + i) % 4 for i in range(4)]
            cards = [ranks[(trick * 3 + seat * 5) % 13] for seat in order]
            state = game.apply(state, {"type": "trick", "cards": cards})
            tricks.append((order, cards))
        server = bench_api.start_gunicorn(port, 2)

        from playwright.sync_api import TimeoutError as PlaywrightTimeout
        from playwright.sync_api import sync_playwright

        base = f"http://{bench_api.HOST}:{port}"
        with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
            context = playwright.chromium.launch_persistent_context(
                profile, executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"],
                viewport={"width": 1024, "height": 768},
            )
            page = context.new_page()
            page.goto(f"{base}/login/")
            page.locator("input[name=username]").fill("bench")
            page.locator("input[name=password]").fill("bench-pass-123")
            page.locator("form button[type=submit].primary").click()
            page.wait_for_url(f"{base}/", timeout=60_000)
            page.add_init_script(TAP_TIMER)
            page.goto(f"{base}/deals/{deal.pk}/")
            try:
                page.wait_for_selector("#deal[data-offline=ready]", state="attached", timeout=120_000)
            except PlaywrightTimeout:
                said = page.evaluate("[location.pathname, document.querySelector('#deal')?.dataset.offline ?? null,"
                                     " document.querySelector('[data-offline-note]')?.textContent ?? '']")
                context.close()
                return ("tap to verdict on the recording screen: not measured, the screen never said it could "
                        f"referee offline (#deal[data-offline=ready]; page, state, note: {said})")
            context.set_offline(True)
            for seq, (order, cards) in enumerate(tricks, start=1):
                for seat, rank in zip(order, cards, strict=True):
                    page.locator(f"#card-{seat}").fill(rank)
                page.locator("form[data-entry] button[type=submit], button[form]").first.click()
                page.wait_for_selector(f"[data-live][data-seq='{seq}']", state="attached", timeout=30_000)
            page.wait_for_timeout(200)  # the last frame
            times = sorted(float(t) for t in page.evaluate("window.__verdicts"))
            context.close()
        if len(times) != len(tricks):
            return f"tap to verdict on the recording screen: {len(times)} verdicts timed of {len(tricks)} taps"
        p95 = times[max(0, int(len(times) * 0.95) - 1)]
        return (f"tap to verdict on the recording screen, offline, a whole Rūkas deal ({len(times)} taps): "
                f"median {statistics.median(times):.1f} ms, 95th percentile {p95:.1f} ms, max {times[-1]:.1f} ms "
                f"(aim: under 20 ms median; 100 ms each)")
    finally:
        if server is not None:
            bench_api.stop_gunicorn(server)
        from django.db import connections

        connections.close_all()
        bench_api.drop_database()


def loads(chromium: str, url: str, manifest_url: str, args: argparse.Namespace, ask: dict[str, Any] | None) -> Any:
    """In a fresh profile: the cold load, then ``--warm`` reloads, each with Chromium's CPU time;
    and, when ``ask`` is given, the verdicts timed after the cold load."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            profile, executable_path=chromium, headless=True, args=["--no-sandbox", "--disable-gpu"],
        )
        page = context.new_page()
        page.goto(url)
        before = browser_cpu_seconds(profile)
        cold = page.evaluate(LOAD, manifest_url)
        cold_cpu = browser_cpu_seconds(profile) - before
        timed = None
        if ask is not None:
            timed = page.evaluate(VERDICTS, {**ask, "times": args.verdicts})
            assert timed["taker"] == 3
        warm: list[float] = []
        steps: list[dict[str, float]] = []
        warm_cpu: list[float] = []
        for _ in range(args.warm):
            # A reload, as a tablet reloads its screen (a new tab would also have Chromium load its
            # own omnibox pages, measured here as if they were the engine's).
            page.reload()
            before = browser_cpu_seconds(profile)
            loaded = page.evaluate(LOAD, manifest_url)
            warm_cpu.append(browser_cpu_seconds(profile) - before)
            warm.append(loaded["ms"])
            steps.append(loaded["timings"])
        context.close()
    return cold, cold_cpu, warm, warm_cpu, steps, timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warm", type=int, default=3, help="warm loads to time")
    parser.add_argument("--verdicts", type=int, default=200, help="verdicts to time")
    parser.add_argument("--screen", action=argparse.BooleanOptionalAction, default=True,
                        help="also time tap to verdict on the real recording screen (PostgreSQL, gunicorn)")
    parser.add_argument("--port", type=int, default=8106, help="gunicorn's loopback port for --screen")
    parser.add_argument("--compare", action="store_true",
                        help="also load the engine without its memory snapshot, in another fresh profile")
    args = parser.parse_args()

    chromium = os.environ.get("CHROMIUM_PATH") or shutil.which("chromium")
    if not chromium or not (offline_engine.PYODIDE / "pyodide.mjs").is_file():
        print("needs Debian's chromium (or CHROMIUM_PATH) and node_modules/pyodide (make setup)")
        return 1
    manifest = offline_engine.build()
    server = ThreadingHTTPServer(("127.0.0.1", 0), partial(Static, directory=str(ROOT / "static")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"

    rukas = GAMES["rukas"]
    snapshot = rukas.to_dict(rukas.new_deal(players=5, dealer=4, options={"notation": "lt"}))
    entry = {"type": "trick", "cards": ["3", "9", "9", "V", "4"]}
    ask = {"snapshot": snapshot, "entry": entry}

    cold, cold_cpu, warm, warm_cpu, steps, timed = loads(chromium, url, "/static/offline/engine.json", args, ask)
    assert cold["version"] == manifest["version"], cold
    compared = loads(chromium, url, WITHOUT_SNAPSHOT, args, None) if args.compare else None
    server.shutdown()

    spent = sorted(timed["spent"])

    def breakdown(timings: dict[str, float]) -> str:
        names = {"manifest": "manifest", "downloaded": "downloads", "pyodide": "Pyodide started", "engine": "engine"}
        how = "from the memory snapshot" if timings.get("snapshot") else "Python started afresh (no snapshot)"
        return ", ".join(f"{label} at {timings[key] / 1000:.2f} s" for key, label in names.items()) + f"; {how}"

    print(f"engine {manifest['version']} (Pyodide {manifest['pyodide']}), headless Chromium, loopback, "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    print(f"cold load (empty cache): {cold['ms'] / 1000:.2f} s   (aim: under 3 s); "
          f"Chromium's CPU time for it: {cold_cpu:.2f} s")
    print(f"warm load (from cache), median of {len(warm)}: {statistics.median(warm) / 1000:.2f} s "
          f"(each: {', '.join(f'{ms / 1000:.2f}' for ms in warm)})   (aim: under 1 s); "
          f"Chromium's CPU time, median: {statistics.median(warm_cpu):.2f} s")
    print(f"  cold, in the worker: {breakdown(cold['timings'])}")
    print(f"  warm, in the worker: {breakdown(steps[len(steps) // 2])}")
    print(f"message to verdict, seed Rūkas trick, {len(spent)} times: median {statistics.median(spent):.2f} ms, "
          f"95th percentile {spent[int(len(spent) * 0.95) - 1]:.2f} ms   (aim: under 20 ms)")
    if compared is not None:
        c_cold, c_cold_cpu, c_warm, c_warm_cpu, c_steps, _ = compared
        print(f"the same without the snapshot (Python started afresh, as before it): cold {c_cold['ms'] / 1000:.2f} s "
              f"({c_cold_cpu:.2f} s CPU), warm median {statistics.median(c_warm) / 1000:.2f} s "
              f"({statistics.median(c_warm_cpu):.2f} s CPU); load average {os.getloadavg()[0]:.1f}")
        print(f"  warm, in the worker: {breakdown(c_steps[len(c_steps) // 2])}")
    if args.screen:
        print(screen_taps(chromium, args.port))
        print(f"  load average then: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
