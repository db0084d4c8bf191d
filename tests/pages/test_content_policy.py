"""The content policy's headers and its report endpoint (web/content_policy.py).

Every response carries the strict policy, static files included; only the offline engine's
worker may compile WebAssembly. ``/csp-report/`` logs what browsers report, in both the old
and the Reporting API's form; refuses anything else without a 500; and takes at most
``CSP_REPORT_RATE`` a minute from one address.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

pytestmark = pytest.mark.django_db

STRICT = ["default-src 'self'", "script-src 'self'", "style-src 'self'", "object-src 'none'", "base-uri 'none'",
          "form-action 'self'", "frame-ancestors 'none'", "report-uri /csp-report/"]


def directives(response: Any) -> set[str]:
    return {part.strip() for part in response["Content-Security-Policy"].split(";")}


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def logged(caplog: pytest.LogCaptureFixture) -> Any:
    caplog.set_level(logging.WARNING, logger="web.csp")
    return lambda: [record.report for record in caplog.records if record.name == "web.csp"]  # type: ignore[attr-defined]


@pytest.mark.parametrize("path", ["/login/", "/offline/", "/sw.js", "/manifest.webmanifest", "/static/js/app.js",
                                  "/static/css/app.css", "/csp-report/", "/no-such-page/"])
def test_every_response_carries_the_strict_policy(client: Client, path: str) -> None:
    response = client.get(path)
    assert set(STRICT) <= directives(response)
    assert "wasm-unsafe-eval" not in response["Content-Security-Policy"]
    assert "unsafe-inline" not in response["Content-Security-Policy"]
    assert "camera=()" in response["Permissions-Policy"] and "microphone=()" in response["Permissions-Policy"]
    assert response["Cross-Origin-Opener-Policy"] == "same-origin"


def test_only_the_engines_worker_may_compile_webassembly(client: Client) -> None:
    worker = client.get("/static/js/offline/engine-worker.js")
    assert "script-src 'self' 'wasm-unsafe-eval'" in directives(worker)
    assert set(STRICT) - {"script-src 'self'"} <= directives(worker)
    bridge = client.get("/static/js/offline/engine.js")
    assert "script-src 'self'" in directives(bridge)


def test_the_api_docs_may_show_swagger_uis_data_images_and_nothing_inline(client: Client,
                                                                         django_user_model: Any) -> None:
    client.force_login(django_user_model.objects.create_user("reader", password="pass-word-123"))
    response = client.get("/api/docs/")
    assert response.status_code == 200
    assert "img-src 'self' data:" in directives(response)
    html = response.content.decode()
    assert "<style" not in html and "<script>" not in html
    assert 'src="/api/docs/?script=' in html  # Swagger UI's start-up as a script file of its own


def test_a_report_of_either_form_is_logged(client: Client, fresh_cache: None, logged: Any) -> None:
    old = {"csp-report": {"document-uri": "https://kortos.example.lt/deals/4/", "violated-directive": "script-src-elem",
                          "effective-directive": "script-src-elem", "blocked-uri": "inline", "line-number": 12}}
    new = [{"type": "csp-violation", "url": "https://kortos.example.lt/", "body": {
        "documentURL": "https://kortos.example.lt/", "effectiveDirective": "style-src-attr", "blockedURL": "inline",
        "disposition": "enforce"}}]
    first = client.post("/csp-report/", json.dumps(old), content_type="application/csp-report")
    second = client.post("/csp-report/", json.dumps(new), content_type="application/reports+json")
    assert (first.status_code, second.status_code) == (204, 204)
    assert logged() == [
        {"document-uri": "https://kortos.example.lt/deals/4/", "violated-directive": "script-src-elem",
         "effective-directive": "script-src-elem", "blocked-uri": "inline", "line-number": 12},
        {"documentURL": "https://kortos.example.lt/", "effectiveDirective": "style-src-attr", "blockedURL": "inline",
         "disposition": "enforce"},
    ]


def test_a_long_field_is_shortened_and_unknown_fields_are_left_out(client: Client, fresh_cache: None,
                                                                   logged: Any) -> None:
    report = {"csp-report": {"document-uri": "https://x/" + "a" * 5000, "cookie": "secret", "line-number": [1]}}
    assert client.post("/csp-report/", json.dumps(report), content_type="application/csp-report").status_code == 204
    assert logged() == [{"document-uri": ("https://x/" + "a" * 5000)[:300]}]


@pytest.mark.parametrize(("body", "content_type", "status"), [
    (b"not json", "application/csp-report", 400),
    (b"\xff\xfe\x00", "application/csp-report", 400),
    (b"[1, 2]", "application/reports+json", 400),
    (b'{"csp-report": "inline"}', "application/csp-report", 400),
    (b'[{"type": "deprecation", "body": {}}]', "application/reports+json", 400),
    (b"[" * 100_000 + b"]" * 100_000, "application/json", 413),
    (b"[" * 30_000 + b"]" * 30_000, "application/json", 400),
    (b'{"csp-report": {}}', "text/plain", 415),
    (b"a=1", "application/x-www-form-urlencoded", 415),
])
def test_anything_else_is_refused_without_a_500(client: Client, fresh_cache: None, logged: Any, body: bytes,
                                               content_type: str, status: int) -> None:
    assert client.post("/csp-report/", body, content_type=content_type).status_code == status
    assert logged() == []


def test_only_posts_are_taken(client: Client) -> None:
    assert client.get("/csp-report/").status_code == 405


def test_reports_are_limited_per_address(client: Client, fresh_cache: None, logged: Any, settings: Any) -> None:
    settings.CSP_REPORT_RATE = 3
    body = json.dumps({"csp-report": {"blocked-uri": "inline"}})
    answers = [client.post("/csp-report/", body, content_type="application/csp-report", REMOTE_ADDR="10.0.0.7")
               .status_code for _ in range(5)]
    assert answers == [204, 204, 204, 429, 429]
    other = client.post("/csp-report/", body, content_type="application/csp-report", REMOTE_ADDR="10.0.0.8")
    assert other.status_code == 204
    assert len(logged()) == 4
