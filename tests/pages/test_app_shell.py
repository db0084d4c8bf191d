"""The installable app's three routes without a browser: the service worker's script
and what it is told to keep, its version following the static files' contents, the manifest and
the offline page in the asked language, naming no one."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

from web.pages import app_shell

pytestmark = pytest.mark.django_db


def shell_of(response: Any) -> dict[str, Any]:
    first, _rest = response.content.decode().split("\n", 1)
    assert first.startswith("const SHELL = ") and first.endswith(";")
    return dict(json.loads(first.removeprefix("const SHELL = ").removesuffix(";")))


def test_the_worker_is_served_at_the_root_uncached_with_the_shell_it_keeps() -> None:
    response = Client().get("/sw.js")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/javascript; charset=utf-8"
    assert (response["Cache-Control"], response["Service-Worker-Allowed"]) == ("no-store", "/")
    assert response.content.decode().split("\n", 1)[1] == app_shell.WORKER_SOURCE.read_text(encoding="utf-8")
    shell = shell_of(response)
    assert shell["version"] == app_shell.shell_version()
    files = shell["files"]
    assert {"/static/css/app.css", "/static/js/app.js", "/static/js/register-sw.js",
            "/static/js/offline/engine.js", "/static/js/offline/engine-worker.js",
            "/static/img/icon-192.png"} <= set(files)
    # Not the tests, not the worker's own source (it is /sw.js).
    assert not [f for f in files if ".test." in f or f.endswith("/sw.js") or "/fake-" in f]
    # Every one is served: the project's own, and the modules served from node_modules (idb,
    # which the queue imports), kept for offline use as the rest of the shell.
    assert "/static/vendor/idb/index.js" in files
    assert all(finders.find(f.removeprefix("/static/")) for f in files)
    # The worker's Workbox: its classic builds, served from node_modules as well, in the order
    # importScripts needs (the strategies build reads workbox.core).
    assert shell["workbox"] == ["/static/vendor/workbox-core/workbox-core.prod.js",
                                "/static/vendor/workbox-strategies/workbox-strategies.prod.js"]
    assert all(finders.find(f.removeprefix("/static/")) for f in shell["workbox"])
    assert shell["offline"] == {"lt": "/offline/?lang=lt", "en": "/offline/?lang=en"}
    assert Client().post("/sw.js").status_code == 405


def test_the_version_follows_the_contents_of_the_static_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("css/app.css", "js/app.js", "js/sw.js", "js/offline/queue.test.mjs", "img/icon.svg"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(name)
    monkeypatch.setattr(app_shell, "STATIC", tmp_path)
    monkeypatch.setattr(app_shell, "WORKER_SOURCE", tmp_path / "js" / "sw.js")
    assert [p.relative_to(tmp_path).as_posix() for p in app_shell.shell_files()] == [
        "css/app.css", "img/icon.svg", "js/app.js"]
    first = app_shell.shell_version()
    assert app_shell.shell_version() == first
    script = tmp_path / "js" / "app.js"
    stat = script.stat()
    script.write_text("js/app.jz")  # same size; a new time
    os.utime(script, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
    second = app_shell.shell_version()
    assert second != first
    (tmp_path / "js" / "offline" / "queue.test.mjs").write_text("a test changes nothing")
    assert app_shell.shell_version() == second
    (tmp_path / "js" / "sw.js").write_text("the worker changed")
    assert app_shell.shell_version() != second


def test_the_manifest_names_the_app_in_the_asked_language() -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    lithuanian = client.get("/manifest.webmanifest?lang=lt")
    assert lithuanian["Content-Type"] == "application/manifest+json"
    found = lithuanian.json()
    assert (found["name"], found["lang"], found["display"], found["start_url"]) == (
        "Kortų teisėjas", "lt", "standalone", "/")
    assert client.get("/manifest.webmanifest?lang=xx").json()["name"] == "Card referee"
    for icon in found["icons"]:
        assert (app_shell.STATIC / icon["src"].removeprefix("/static/")).is_file()


def test_the_offline_page_speaks_the_asked_language_and_names_no_one(club_setup: dict[str, Any]) -> None:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(club_setup["users"]["scorer"])
    for language, heading in (("lt", "Nėra tinklo"), ("en", "No network")):
        text = client.get(f"/offline/?lang={language}").content.decode()
        assert f'<html lang="{language}"' in text and f"<h1>{heading}</h1>" in text
        # The worker keeps one copy for whoever uses the tablet next.
        assert "scorer" not in text and "Jonas" not in text
        assert "<form" not in text and "csrfmiddlewaretoken" not in text and 'name="app-user"' not in text
    # A page of the site says who is signed in, for the worker to forget another's screens.
    home = client.get("/").content.decode()
    assert f'<meta name="app-user" content="{club_setup["users"]["scorer"].pk}">' in home
    assert '<meta name="app-user" content="">' in Client().get("/login/").content.decode()
