"""One error format for the whole API: ``{"error": "<message>", "code": "<code>"}`` (+ ``fields``
for forms, + what a refusal adds, e.g. the current ``seq`` of a stale ``expected_seq``).

A person reads ``error``; a client branches on ``code`` (one of ``CODES``), never on the text.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from referee.errors import CODES as ERROR_CODES
from referee.errors import Refusal
from web.api.exceptions import BodyTooLarge

#: Every code an error body may carry (referee.errors.CODES: the one list the schema, the API
#: and the pages use).
CODES = ERROR_CODES

#: DRF's own exceptions, by class, and the code each answers with.
_DRF_CODES: list[tuple[type[exceptions.APIException], str]] = [
    (exceptions.ValidationError, "invalid"),
    (exceptions.NotAuthenticated, "not_authenticated"),
    (exceptions.AuthenticationFailed, "not_authenticated"),
    (exceptions.PermissionDenied, "forbidden"),
    (exceptions.NotFound, "not_found"),
    (exceptions.MethodNotAllowed, "method_not_allowed"),
    (exceptions.NotAcceptable, "not_acceptable"),
    (exceptions.UnsupportedMediaType, "unsupported_media_type"),
    (exceptions.Throttled, "throttled"),
]


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            message = _first_message(value)
            return message if key in ("non_field_errors", "detail") else f"{key}: {message}"
        return _("Invalid input.")
    if isinstance(detail, list):
        return _first_message(detail[0]) if detail else _("Invalid input.")
    return str(detail)


def error_body(message: str, code: str, **extra: Any) -> dict[str, Any]:
    return {"error": message, "code": code, **extra}


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = _error_response(exc, context)
    request = context.get("request")
    # An error is JSON even when the client asked for CSV (the standings etc. speak both):
    # a spreadsheet with one "error" cell is not the documented format.
    if response is not None and getattr(getattr(request, "accepted_renderer", None), "format", None) == "csv":
        request.accepted_renderer = JSONRenderer()  # type: ignore[union-attr]
        request.accepted_media_type = JSONRenderer.media_type  # type: ignore[union-attr]
    return response


def _drf_code(exc: exceptions.APIException) -> str:
    if isinstance(exc, exceptions.ParseError):
        code = getattr(exc.detail, "code", None)
        return code if isinstance(code, str) and code in CODES else "malformed_json"
    for kind, code in _DRF_CODES:
        if isinstance(exc, kind):
            return code
    return str(exc.default_code)


def _error_response(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Refusal):
        return Response(error_body(exc.message, exc.code, **exc.extra), status=exc.status)
    if isinstance(exc, Http404):
        return Response(error_body(_("Not found."), "not_found"), status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, PermissionDenied):
        return Response(error_body(_("You do not have permission to do this."), "forbidden"),
                        status=status.HTTP_403_FORBIDDEN)
    if isinstance(exc, RequestDataTooBig):
        exc = BodyTooLarge()
    if isinstance(exc, exceptions.ParseError) and getattr(exc.detail, "code", None) == "parse_error":
        return Response(
            error_body(_("The request body is not valid JSON: %(detail)s") % {"detail": exc.detail}, "malformed_json"),
            status=status.HTTP_400_BAD_REQUEST,
        )
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    if isinstance(exc, exceptions.ValidationError):
        response.data = error_body(_first_message(exc.detail), "invalid", fields=exc.detail)
    else:
        response.data = error_body(_first_message(exc.detail), _drf_code(exc))
    return response


# Requests that never reach a DRF view (an /api/ address no URL pattern matches, a body or
# query Django refuses before any view, or a crash outside DRF's handler) would otherwise get
# Django's HTML pages; API clients get the one error format everywhere, the pages keep theirs.


def is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def json_error(message: str, code: str, status_code: int) -> JsonResponse:
    return JsonResponse(error_body(message, code), status=status_code)


def bad_request(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        if isinstance(exception, RequestDataTooBig):
            return json_error(str(BodyTooLarge.default_detail), "too_large", 413)
        return json_error(_("The request cannot be read."), "invalid", 400)
    return defaults.bad_request(request, exception)


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if is_api(request):
        return json_error(_("Not found."), "not_found", 404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if is_api(request):
        return json_error(_("Something went wrong on our side; nothing was stored. Try again."), "server_error", 500)
    return defaults.server_error(request)
