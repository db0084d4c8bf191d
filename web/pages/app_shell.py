"""The installable app: the web app manifest, the service worker at the site's root
and the page it shows offline for a page never opened on the device.

The worker's script is static/js/sw.js with one line put before it (``const SHELL = {...}``):
the static files to keep (listed here at request time, so no build step) and a version hashed
from their contents, so that any change to the static files changes the script and the
browser installs the new worker, which keeps the new files and deletes the old cache.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

#: The project's own static files (settings.STATICFILES_DIRS' unprefixed folder; the prefixed
#: ones are served from node_modules, VENDOR_STATIC); the shell is what lies under
#: SHELL_DIRS of it, less the tests and the worker's own source.
STATIC = next(folder for folder in settings.STATICFILES_DIRS if isinstance(folder, Path))
SHELL_DIRS = ("css", "js", "img")
WORKER_SOURCE = STATIC / "js" / "sw.js"
ENGINE_MANIFEST = STATIC / "offline" / "engine.json"
#: Files whose change changes the offline page (its template and its translations).
OFFLINE_TEMPLATE = Path(settings.BASE_DIR) / "templates" / "offline.html"
#: The app's colours: static/css/app.css's dark theme (the default), --bg.
THEME_COLOUR = "#101317"

_version_memo: dict[tuple[Any, ...], str] = {}


def _is_shell_file(path: Path) -> bool:
    name = path.name
    return (path.is_file() and not name.startswith(".") and path != WORKER_SOURCE
            and ".test." not in name and not name.startswith("fake-"))


def shell_files() -> list[Path]:
    """The app shell: the stylesheet, every script and module, the icons."""
    return sorted(p for folder in SHELL_DIRS for p in (STATIC / folder).rglob("*") if _is_shell_file(p))


def vendor_files(names: list[str] | None = None) -> dict[str, Path]:
    """What the site serves from node_modules: the path under STATIC_URL -> the file, for the
    modules the pages import (settings.VENDOR_MODULES, which the shell keeps too), or `names`."""
    found: dict[str, Path] = {}
    for name in settings.VENDOR_MODULES if names is None else names:
        folder, _slash, rest = name.rpartition("/")
        while folder and folder not in settings.VENDOR_STATIC:
            folder, _slash, step = folder.rpartition("/")
            rest = f"{step}/{rest}"
        found[name] = Path(settings.VENDOR_STATIC[folder]) / rest
    return found


def shell_version(shell: list[Path] | None = None) -> str:
    """A hash of the shell's contents (and of the worker, the offline page and its
    translations, and the modules served from node_modules), read again only when a file's
    size or time changes."""
    messages = sorted(Path(settings.BASE_DIR, "locale").glob("*/LC_MESSAGES/django.mo"))
    files = [*(shell_files() if shell is None else shell), *vendor_files().values(),
             *vendor_files(settings.WORKBOX_SCRIPTS).values(), WORKER_SOURCE, OFFLINE_TEMPLATE, *messages]
    stats = [(path, path.stat()) for path in files if path.exists()]
    signature = tuple((str(path), stat.st_mtime_ns, stat.st_size) for path, stat in stats)
    if signature not in _version_memo:
        digest = hashlib.sha256()
        for path, _stat in stats:
            name = os.path.relpath(path, settings.BASE_DIR)
            digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        _version_memo.clear()
        _version_memo[signature] = digest.hexdigest()[:16]
    return _version_memo[signature]


def _pyodide_files() -> dict[str, Any]:
    """Pyodide's files as build_engine copied them, so that the worker can keep the engine after
    a first visit that loaded it before the worker was in control."""
    try:
        folder = json.loads(ENGINE_MANIFEST.read_text(encoding="utf-8"))["pyodide"]
    except (OSError, ValueError, KeyError, TypeError):
        return {"dir": None, "files": []}  # no engine built: the tablet records online only
    directory = ENGINE_MANIFEST.parent / str(folder)
    files = sorted(p.name for p in directory.iterdir() if p.is_file()) if directory.is_dir() else []
    return {"dir": folder, "files": files}


def _language_url(name: str, language: str) -> str:
    return f"{reverse(name)}?lang={language}"


@require_GET
def service_worker(request: HttpRequest) -> HttpResponse:
    languages = [code for code, _name in settings.LANGUAGES]
    files = shell_files()
    shell = {
        "version": shell_version(files),
        "files": [static(p.relative_to(STATIC).as_posix()) for p in files] + [static(name) for name in vendor_files()],
        "offline": {code: _language_url("offline", code) for code in languages},
        "defaultLanguage": settings.LANGUAGE_CODE,
        "pyodide": _pyodide_files(),
        # Workbox's strategies, which the worker loads with importScripts.
        "workbox": [static(name) for name in settings.WORKBOX_SCRIPTS],
    }
    script = f"const SHELL = {json.dumps(shell)};\n" + WORKER_SOURCE.read_text(encoding="utf-8")
    response = HttpResponse(script, content_type="text/javascript; charset=utf-8")
    # The browser must see a new worker as soon as the static files change.
    response["Cache-Control"] = "no-store"
    response["Service-Worker-Allowed"] = "/"
    return response


def _asked_language(request: HttpRequest) -> str:
    """``?lang=`` (the worker keeps one copy a language; the browser fetches the manifest
    without cookies), else the request's language."""
    asked = request.GET.get("lang", "")
    return asked if asked in dict(settings.LANGUAGES) else translation.get_language()


@require_GET
def web_manifest(request: HttpRequest) -> HttpResponse:
    language = _asked_language(request)
    with translation.override(language):
        name = _("Card referee")
        description = _("Records the deals of Lithuanian card games at the table, with the network or without.")
    # PNG only: Chromium (156 here) refuses to offer the install when an SVG icon with
    # sizes "any" is listed (no-acceptable-icon); img/icon.svg is the drawing they come from.
    icons = [
        {"src": static("img/icon-192.png"), "sizes": "192x192", "type": "image/png", "purpose": "any"},
        {"src": static("img/icon-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "any"},
        {"src": static("img/icon-maskable-512.png"), "sizes": "512x512", "type": "image/png", "purpose": "maskable"},
    ]
    manifest = {
        "id": "/", "name": name, "short_name": name, "description": description, "lang": language,
        "start_url": "/", "scope": "/", "display": "standalone", "orientation": "any",
        "theme_color": THEME_COLOUR, "background_color": THEME_COLOUR, "icons": icons,
    }
    response = JsonResponse(manifest, content_type="application/manifest+json",
                            json_dumps_params={"ensure_ascii": False})
    response["Cache-Control"] = "no-cache"
    return response


@require_GET
def offline_page(request: HttpRequest) -> HttpResponse:
    """What the worker shows for a page it has no copy of. The same for everyone (the worker
    keeps it for whoever signs in next), so it names no one and carries no form."""
    language = _asked_language(request)
    with translation.override(language):
        response = render(request, "offline.html", {"LANGUAGE_CODE": language})
    response["Cache-Control"] = "no-cache"
    return response
