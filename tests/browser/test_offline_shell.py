"""The installable app in real Chromium with the network cut (Playwright's offline
mode): the service worker installs and controls the first page; a recording screen seen online
comes back after a reload offline and in a new tab offline; a page never opened shows the
offline page in the reader's language, listing the screens kept; the engine's manifest is
asked of the network whenever there is one, its files are kept; signing out forgets the pages.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from io import BytesIO
from typing import Any

import pytest
from django.test import Client

from referee import services
from referee.models import Deal
from web.pages import app_shell

from .conftest import TABLET, check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PLAYERS = ("admin", "scorer", "member", "Petras", "Asta")
NAMES = ("Ona", "Jonas", "Rūta", "Petras", "Asta")

CONTROLLED = "navigator.serviceWorker && navigator.serviceWorker.controller !== null"

#: What the worker keeps, read from the page (the Cache API is the page's too).
KEPT = """async ([cacheName, path]) => {
  const names = (await caches.keys()).filter((name) => name.startsWith(cacheName));
  for (const name of names) {
    const cache = await caches.open(name);
    const found = await cache.match(new URL(path, location.href).href, { ignoreSearch: true });
    if (found) return await found.text();
  }
  return null;
}"""


def start_deal(club_setup: dict[str, Any]) -> Deal:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="rukas", user=scorer,
                                     players=[m[p] for p in PLAYERS], options={"notation": "lt"})
    return services.deal_start(session=session, user=scorer, dealer=4)


def signed_in_context(browser: Any, live_server: Any, user: Any, language: str = "en") -> Any:
    """A context signed in by its cookie, so that its first page is the one the test opens (the
    worker is not yet in control of it: the first visit itself must be kept)."""
    client = Client()
    client.force_login(user)
    context = browser.new_context(viewport=TABLET, locale=language, base_url=live_server.url)
    context.add_cookies([
        {"name": "django_language", "value": language, "url": live_server.url},
        {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url},
    ])
    return context


def wait_kept(page: Any, cache: str, path: str, timeout: float = 10.0,
              until: Any = lambda text: True) -> str:
    """What the worker keeps for `path`, once it is there and `until` accepts it: the worker
    answers the page first and writes its cache after (Workbox's strategies put in the
    event's waitUntil), so a test that reads the cache right after a fetch may see the copy
    from before."""
    deadline = time.monotonic() + timeout
    found = None
    while time.monotonic() < deadline:
        found = page.evaluate(KEPT, [cache, path])
        if found is not None and until(found):
            return str(found)
        time.sleep(0.1)
    raise AssertionError(f"{path} was not kept in {cache}* as expected (last kept: {str(found)[:200]})")


def assert_recording_screen(page: Any, deal: Deal) -> None:
    heading = page.get_by_role("heading", level=1)
    assert re.search(rf"deal {deal.number}\b", heading.inner_text(), re.IGNORECASE), heading.inner_text()
    text = page.locator("main").inner_text()
    assert all(name in text for name in NAMES), text[:500]
    assert page.locator("[data-offline-page]").count() == 0


def test_the_worker_installs_controls_the_first_page_and_is_never_cached(
    browser: Any, live_server: Any, club_setup: dict[str, Any]
) -> None:
    context = signed_in_context(browser, live_server, club_setup["users"]["scorer"])
    try:
        page = context.new_page()
        page.goto("/")
        page.wait_for_function(CONTROLLED)
        scope = page.evaluate("navigator.serviceWorker.ready.then((r) => r.scope)")
        assert scope == live_server.url + "/"

        worker = page.request.get("/sw.js")
        assert worker.ok and worker.headers["content-type"].startswith("text/javascript")
        assert worker.headers["cache-control"] == "no-store"
        assert worker.headers["service-worker-allowed"] == "/"
        # The version names the static files' contents; the shell lists the static files.
        assert f'"version": "{app_shell.shell_version()}"' in worker.text()
        shell = wait_kept(page, "kortos-shell-" + app_shell.shell_version(), "/static/css/app.css")
        assert shell == (app_shell.STATIC / "css" / "app.css").read_text(encoding="utf-8")

        href = page.locator("link[rel=manifest]").get_attribute("href")
        manifest = page.request.get(href)
        assert manifest.headers["content-type"] == "application/manifest+json"
        found = manifest.json()
        assert (found["display"], found["start_url"], found["scope"]) == ("standalone", "/", "/")
        assert found["name"] == "Card referee" and found["theme_color"] == "#101317"
        assert page.request.get("/manifest.webmanifest?lang=lt").json()["name"] == "Kortų teisėjas"
        from PIL import Image

        sizes = {}
        for icon in found["icons"]:
            answer = page.request.get(icon["src"])
            assert answer.ok, icon
            if icon["type"] == "image/png":
                sizes[icon["purpose"], icon["sizes"]] = "x".join(map(str, Image.open(BytesIO(answer.body())).size))
        assert sizes == {("any", "192x192"): "192x192", ("any", "512x512"): "512x512",
                         ("maskable", "512x512"): "512x512"}
        # Chromium itself finds the manifest sound and the app installable.
        cdp = context.new_cdp_session(page)
        parsed = cdp.send("Page.getAppManifest")
        assert parsed["errors"] == [] and parsed["url"].endswith("/manifest.webmanifest?lang=en"), parsed
        # (A Playwright context is a private window, where no browser offers to install.)
        errors = [e for e in cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
                  if e["errorId"] != "in-incognito"]
        assert errors == [], errors
    finally:
        context.close()


def test_a_recording_screen_comes_back_offline_after_a_reload_and_in_a_new_tab(
    browser: Any, live_server: Any, club_setup: dict[str, Any]
) -> None:
    deal = start_deal(club_setup)
    context = signed_in_context(browser, live_server, club_setup["users"]["scorer"])
    try:
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(f"{error} {error.stack or ''}".strip()))
        page.goto(f"/deals/{deal.pk}/")
        assert_recording_screen(page, deal)
        page.wait_for_function(CONTROLLED)
        # The first visit was loaded before the worker was in control; it is kept all the same.
        wait_kept(page, "kortos-pages", f"/deals/{deal.pk}/")

        # The screen's own refresh (after an entry) asks for the fragment without a version.
        live = f"/deals/{deal.pk}/live/"
        assert page.evaluate("(url) => fetch(url).then((r) => r.status)", live) == 200
        wait_kept(page, "kortos-pages", live)

        context.set_offline(True)
        assert page.evaluate("fetch('/healthz').then(() => 'answered', () => 'offline')") == "offline"
        page.reload()
        assert_recording_screen(page, deal)
        page.reload()
        assert_recording_screen(page, deal)

        # The live fragment: the kept copy for a plain fetch, a network error for a poll that
        # names its version (a kept copy could be behind what the screen shows).
        live = f"/deals/{deal.pk}/live/"
        fragment = page.evaluate("(url) => fetch(url).then((r) => r.status + ' ' + r.headers.get('X-Kept-For'))", live)
        assert fragment == f"200 {club_setup['users']['scorer'].pk}"
        poll = """(url) => fetch(url, { headers: { "If-None-Match": '"x"' } }).then((r) => r.status, () => "offline")"""
        assert page.evaluate(poll, live) == "offline"

        page.close()
        again = context.new_page()
        again.goto(f"/deals/{deal.pk}/")
        assert_recording_screen(again, deal)
        assert again.evaluate(CONTROLLED)
        # The static files came from the shell: the screen is styled, its scripts ran.
        assert again.evaluate("getComputedStyle(document.body).backgroundColor") != "rgba(0, 0, 0, 0)"
        assert again.evaluate("document.documentElement.classList.contains('js')")

        context.set_offline(False)
        again.reload()
        assert_recording_screen(again, deal)
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize(("language", "heading", "hint"), [
    ("en", "No network", "has not been opened on this device yet"),
    ("lt", "Nėra tinklo", "šiame įrenginyje dar nebuvo atidarytas"),
])
def test_a_page_never_opened_shows_the_offline_page_in_the_readers_language(
    open_page: Any, club_setup: dict[str, Any], language: str, heading: str, hint: str
) -> None:
    deal = start_deal(club_setup)
    page = open_page(club_setup["users"]["scorer"], language=language)
    page.goto(f"/deals/{deal.pk}/")
    page.wait_for_function(CONTROLLED)
    title = page.get_by_role("heading", level=1).inner_text()
    wait_kept(page, "kortos-pages", f"/deals/{deal.pk}/")

    page.context.set_offline(True)
    # Offline for the service worker too before the next navigation (it fetches on the page's
    # behalf; under load Chromium applies the emulation to it a moment later).
    page.wait_for_function("""(url) => fetch(url, { headers: { "If-None-Match": '"x"' } })
      .then(() => false, () => true)""", arg=f"/deals/{deal.pk}/live/", timeout=10_000)
    page.goto("/clubs/vilnius/")
    assert page.evaluate("document.documentElement.lang") == language
    assert page.get_by_role("heading", level=1).inner_text() == heading
    assert hint in page.locator("[data-offline-page]").inner_text()
    page.locator("[data-kept-pages] a").first.wait_for()
    check_a11y(page)
    shoot(page, f"offline-page-{language}")
    # It names no one and carries no form: one copy serves whoever signs in next.
    assert page.locator("form").count() == 0
    assert "Jonas" not in page.locator("header").inner_text()
    # The screens kept on this device are offered, and open.
    kept = page.locator("[data-kept-pages] a")
    kept.first.wait_for()
    assert kept.count() == 1 and kept.first.inner_text().removesuffix("›").strip() == title
    kept.first.click()
    page.wait_for_url(f"**/deals/{deal.pk}/")
    assert page.get_by_role("heading", level=1).inner_text().startswith(deal.session.get_game_display())
    assert page.js_errors == []


def test_the_engine_manifest_is_asked_of_the_network_and_its_files_are_kept(
    open_page: Any, club_setup: dict[str, Any]
) -> None:
    page = open_page(club_setup["users"]["scorer"])
    page.goto("/")
    page.wait_for_function(CONTROLLED)
    engine = page.request.get("/static/offline/engine.json").json()
    fetch = """async (path) => {
      const response = await fetch(path, { cache: "no-cache" });
      return { status: response.status, text: await response.text() };
    }"""
    digest = """async (path) => {
      const bytes = await (await fetch(path)).arrayBuffer();
      const sum = await crypto.subtle.digest("SHA-256", bytes);
      return Array.from(new Uint8Array(sum), (b) => b.toString(16).padStart(2, "0")).join("");
    }"""
    # A tablet that kept an older engine's manifest: online, the server's is what it gets.
    stale = {**engine, "version": "0000000000000000"}
    page.evaluate("""async (stale) => {
      const cache = await caches.open("kortos-engine-v1");
      await cache.put("/static/offline/engine.json", new Response(JSON.stringify(stale)));
    }""", stale)
    assert json.loads(page.evaluate(fetch, "/static/offline/engine.json")["text"])["version"] == engine["version"]
    # ...and the server's is what it keeps (the wait fails if the stale one stays).
    wait_kept(page, "kortos-engine", "/static/offline/engine.json",
              until=lambda text: json.loads(text)["version"] == engine["version"])
    archive = f"/static/offline/{engine['archive']}"
    assert page.evaluate(digest, archive) == engine["sha256"]["archive"]
    # Pyodide's entry point, which the engine worker imports by this name.
    entry = f"/static/offline/{engine['pyodide']}/pyodide.mjs"
    entry_text = page.evaluate(fetch, entry)["text"]

    page.context.set_offline(True)
    assert json.loads(page.evaluate(fetch, "/static/offline/engine.json")["text"])["version"] == engine["version"]
    assert page.evaluate(digest, archive) == engine["sha256"]["archive"]
    assert page.evaluate(fetch, entry)["text"] == entry_text
    assert hashlib.sha256(entry_text.encode()).hexdigest() == hashlib.sha256(
        (app_shell.ENGINE_MANIFEST.parent / engine["pyodide"] / "pyodide.mjs").read_bytes()).hexdigest()


def test_signing_out_forgets_the_kept_pages(open_page: Any, club_setup: dict[str, Any]) -> None:
    deal = start_deal(club_setup)
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    page.wait_for_function(CONTROLLED)
    wait_kept(page, "kortos-pages", f"/deals/{deal.pk}/")

    page.get_by_role("button", name=re.compile("Sign out")).click()
    page.wait_for_url(re.compile(r"/login/"))
    assert page.evaluate(KEPT, ["kortos-pages", f"/deals/{deal.pk}/"]) is None
    page.context.set_offline(True)
    page.goto(f"/deals/{deal.pk}/")
    assert page.locator("[data-offline-page]").count() == 1
    assert "Jonas" not in page.content()


def test_new_static_files_make_a_new_worker_that_drops_the_old_shell_and_keeps_the_screens(
    open_page: Any, club_setup: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    deal = start_deal(club_setup)
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    page.wait_for_function(CONTROLLED)
    wait_kept(page, "kortos-pages", f"/deals/{deal.pk}/")
    old = "kortos-shell-" + app_shell.shell_version()
    wait_kept(page, old, "/static/css/app.css")

    # A deploy changes the static files: the worker's script changes with their hash.
    monkeypatch.setattr(app_shell, "shell_version", lambda *shell: "0123456789abcdef")
    page.evaluate("navigator.serviceWorker.getRegistration().then((r) => r.update())")
    new = "kortos-shell-0123456789abcdef"
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        names = page.evaluate("caches.keys()")
        if new in names and old not in names:
            break
        time.sleep(0.1)
    assert new in names and old not in names, names
    # Only the new shell's name changed: the screens, the engine and the language stay.
    assert "kortos-pages-v1" in names
    assert set(names) <= {new, "kortos-pages-v1", "kortos-engine-v1", "kortos-meta-v1"}
    wait_kept(page, new, "/static/css/app.css")
    # The screens outlive the deploy: an offline tablet still has its table.
    context = page.context
    context.set_offline(True)
    page.reload()
    assert_recording_screen(page, deal)


#: Starts the referee on the tablet in the page and answers its version (or the failure).
ENGINE_READY = """async () => {
  const { createEngine } = await import("/static/js/offline/engine.js");
  const engine = createEngine({ context: { names: [], language: "en", notation: "en" } });
  try { return await engine.ready(); } catch (error) { return "failed: " + error; } finally { engine.terminate(); }
}"""


def test_the_referee_loads_offline_after_one_visit_online(open_page: Any, club_setup: dict[str, Any]) -> None:
    deal = start_deal(club_setup)
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    page.wait_for_function(CONTROLLED)
    online_version = page.evaluate(ENGINE_READY)
    assert not str(online_version).startswith("failed"), online_version

    page.context.set_offline(True)
    page.reload()
    assert_recording_screen(page, deal)
    # The engine's worker, Pyodide and the archive all come from the worker's caches.
    assert page.evaluate(ENGINE_READY) == online_version


def test_another_user_on_the_device_never_gets_the_screens_kept_for_the_first(
    browser: Any, live_server: Any, club_setup: dict[str, Any]
) -> None:
    deal = start_deal(club_setup)
    context = signed_in_context(browser, live_server, club_setup["users"]["scorer"])
    try:
        page = context.new_page()
        page.goto(f"/deals/{deal.pk}/")
        page.wait_for_function(CONTROLLED)
        wait_kept(page, "kortos-pages", f"/deals/{deal.pk}/")
        # Another user's session arrives without a sign-in form (an invitation, an expired
        # session signed in again elsewhere): the first page they open drops the kept screens.
        client = Client()
        client.force_login(club_setup["users"]["member"])
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
        page.goto("/")
        deadline = time.monotonic() + 10
        while page.evaluate(KEPT, ["kortos-pages", f"/deals/{deal.pk}/"]) is not None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert page.evaluate(KEPT, ["kortos-pages", f"/deals/{deal.pk}/"]) is None
        context.set_offline(True)
        page.goto(f"/deals/{deal.pk}/")
        assert page.locator("[data-offline-page]").count() == 1
    finally:
        context.close()
