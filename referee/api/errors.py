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

from referee.errors import Refusal

from .exceptions import BodyTooLarge

#: Every code an error body may carry, with when (the schema lists them for clients).
CODES: dict[str, str] = {
    "invalid": "400: a field or the body breaks the operation's rules; `fields` says which.",
    "malformed_json": "400: the body is not JSON.",
    "refused": "400: the service refuses the request; nothing changed.",
    "illegal_entry": "400: the referee refuses the entry; nothing was stored.",
    "closed": "400: the session is closed; reopen it first.",
    "running_deal": "400: a deal of the session is still running; finish it first.",
    "not_authenticated": "401: no token or session, or a wrong one.",
    "forbidden": "403: the user's role in the club does not allow this.",
    "not_found": "404: no such object, or not one of the user's clubs.",
    "method_not_allowed": "405: the address does not take this method.",
    "not_acceptable": "406: no answer in the media type the Accept header asks for.",
    "conflict": "409: another device changed the deal first, or the summary is not ready.",
    "stale_seq": "409: expected_seq is not the deal's seq; the body gives the current `seq`.",
    "duplicate_key_conflict": "409: the idempotency_key was used for a different entry (or the client_id for "
    "a deal with another dealer).",
    "stale_deal_number": "409: expected_number is not the next deal's number; the body gives that `number`.",
    "too_large": "413: the request body is over the size limit.",
    "unsupported_media_type": "415: the body's Content-Type is not one the operation reads.",
    "throttled": "429: too many requests; try again later (see Retry-After).",
    "server_error": "500: something broke on our side; nothing was stored.",
}

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
