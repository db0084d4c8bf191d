"""The content policy's moving parts: the headers on every response, and the endpoint that
takes the browsers' violation reports.

The policy itself is ``settings.CONTENT_SECURITY_POLICY`` (django-csp); docs/content-policy.md
says why each directive is there and how a template stays within it.

- :class:`ContentPolicyMiddleware` is django-csp's middleware, placed outside WhiteNoise so that
  static files carry the policy as well. A worker runs under the policy of its own script's
  response, not the page's: the offline engine's worker (and only it) compiles Pyodide's
  WebAssembly, so its script alone gets ``'wasm-unsafe-eval'``. Every response also names the
  powerful features nothing here uses (``Permissions-Policy``); Django's SecurityMiddleware
  adds ``Cross-Origin-Opener-Policy: same-origin`` (no other origin's window shares ours).
- :func:`csp_report` takes the reports (the old ``application/csp-report`` body of
  ``report-uri`` and the Reporting API's ``application/reports+json`` list), at most
  ``CSP_REPORT_RATE`` a minute from one address, and logs each on the ``web.csp`` logger. A body
  it cannot read is a 400, never a 500: anyone can post here.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from csp.middleware import CSPMiddleware, PolicyParts
from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.templatetags.static import static
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST

from web.pages.login import client_address

logger = logging.getLogger("web.csp")

#: The scripts that run Pyodide: only they may compile WebAssembly.
ENGINE_WORKER = "js/offline/engine-worker.js"
#: The largest report body read (a browser's report is a few hundred bytes; a batch of the
#: Reporting API a few kilobytes).
MAX_REPORT_BYTES = 64 * 1024
#: How long a client address's report count lasts.
RATE_WINDOW = 60
_REPORT_TYPES = ("application/csp-report", "application/reports+json", "application/json")
#: The report fields kept in the log line (a report also carries the whole page address and a
#: sample of the refused code, both shortened).
_FIELDS = ("document-uri", "documentURL", "violated-directive", "effectiveDirective", "effective-directive",
           "blocked-uri", "blockedURL", "source-file", "sourceFile", "line-number", "lineNumber", "script-sample",
           "sample", "disposition")


def _engine_paths() -> tuple[str, ...]:
    return (static(ENGINE_WORKER),)


class ContentPolicyMiddleware(CSPMiddleware):
    def get_policy_parts(self, request: HttpRequest, response: HttpResponseBase,
                         report_only: bool = False) -> PolicyParts:
        parts = super().get_policy_parts(request, response, report_only)
        if not report_only and request.path in _engine_paths():
            parts.update = {**(parts.update or {}), "script-src": ["'self'", "'wasm-unsafe-eval'"]}
        return parts

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        response = super().process_response(request, response)
        response.headers.setdefault("Permissions-Policy", settings.PERMISSIONS_POLICY)
        return response


def _over_the_limit(request: HttpRequest) -> bool:
    key = f"csp-report:ip:{client_address(request)}"
    if cache.add(key, 1, RATE_WINDOW):
        return False
    try:
        count = cache.incr(key)
    except ValueError:  # expired between the two calls
        cache.set(key, 1, RATE_WINDOW)
        return False
    return bool(count > settings.CSP_REPORT_RATE)


def _reports(body: Any) -> list[dict[str, Any]] | None:
    """The violations a body carries, or None when it is not a report at all."""
    if isinstance(body, dict) and isinstance(body.get("csp-report"), dict):
        return [body["csp-report"]]
    if isinstance(body, list) and all(isinstance(item, dict) for item in body):
        found = [item["body"] for item in body
                 if item.get("type") == "csp-violation" and isinstance(item.get("body"), dict)]
        return found if len(found) == len(body) else None
    return None


def _shortened(value: Any) -> Any:
    return value[:300] if isinstance(value, str) else value if isinstance(value, int | float) else None


@csrf_exempt
@require_POST
def csp_report(request: HttpRequest) -> HttpResponse:
    """Log the violations a browser reports; 204 when read, 400 for anything else."""
    if _over_the_limit(request):
        return HttpResponse(status=429)
    if request.content_type not in _REPORT_TYPES:
        return HttpResponse(status=415)
    length = request.META.get("CONTENT_LENGTH") or "0"
    if not length.isdigit() or int(length) > MAX_REPORT_BYTES:
        return HttpResponse(status=413)
    try:
        reports = _reports(json.loads(request.body))
    except (ValueError, UnicodeDecodeError, RecursionError):
        reports = None
    if reports is None:
        return HttpResponse(status=400)
    for report in reports:
        shortened = {name: _shortened(report.get(name)) for name in _FIELDS}
        fields = {name: value for name, value in shortened.items() if value is not None}
        logger.warning("Content policy violation: %s", json.dumps(fields, sort_keys=True), extra={"report": fields})
    return HttpResponse(status=204)
