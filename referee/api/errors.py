"""One error format for the whole API: ``{"error": "<message>"}`` (+ ``fields`` for forms)."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.utils.translation import gettext as _
from django.views import defaults
from rest_framework import exceptions, status
from rest_framework.renderers import JSONRenderer
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from referee.errors import Refusal


def _first_message(detail: Any) -> str:
    if isinstance(detail, dict):
        for key, value in detail.items():
            message = _first_message(value)
            return message if key in ("non_field_errors", "detail") else f"{key}: {message}"
        return _("Invalid input.")
    if isinstance(detail, list):
        return _first_message(detail[0]) if detail else _("Invalid input.")
    return str(detail)


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = _error_response(exc, context)
    request = context.get("request")
    # An error is JSON even when the client asked for CSV (the standings etc. speak both):
    # a spreadsheet with one "error" cell is not the documented format.
    if response is not None and getattr(getattr(request, "accepted_renderer", None), "format", None) == "csv":
        request.accepted_renderer = JSONRenderer()  # type: ignore[union-attr]
        request.accepted_media_type = JSONRenderer.media_type  # type: ignore[union-attr]
    return response


def _error_response(exc: Exception, context: dict[str, Any]) -> Response | None:
    if isinstance(exc, Refusal):
        body: dict[str, Any] = {"error": exc.message, **exc.extra}
        return Response(body, status=exc.status)
    if isinstance(exc, Http404):
        return Response({"error": _("Not found.")}, status=status.HTTP_404_NOT_FOUND)
    if isinstance(exc, PermissionDenied):
        return Response({"error": _("You do not have permission to do this.")}, status=status.HTTP_403_FORBIDDEN)
    if isinstance(exc, exceptions.ParseError):
        return Response(
            {"error": _("The request body is not valid JSON: %(detail)s") % {"detail": exc.detail}},
            status=status.HTTP_400_BAD_REQUEST,
        )
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = {"error": _first_message(exc.detail), "fields": exc.detail}
    else:
        detail = getattr(exc, "detail", None)
        response.data = {"error": _first_message(detail) if detail is not None else str(exc)}
    return response


# Requests that never reach a DRF view (an /api/ address no URL pattern matches, or a crash
# outside DRF's handler) would otherwise get Django's HTML pages; API clients get the one
# error format everywhere, the pages keep theirs.


def _is_api(request: HttpRequest) -> bool:
    return request.path.startswith("/api/")


def not_found(request: HttpRequest, exception: Exception) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"error": _("Not found.")}, status=404)
    return defaults.page_not_found(request, exception)


def server_error(request: HttpRequest) -> HttpResponse:
    if _is_api(request):
        return JsonResponse({"error": _("Something went wrong on our side; nothing was stored. Try again.")},
                            status=500)
    return defaults.server_error(request)
