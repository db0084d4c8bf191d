"""Input refused before any view: what would otherwise crash deep inside (a 500).

- A NUL character in the query string or a form field: PostgreSQL stores no NUL in text, and
  a filter or an insert carrying one fails in the database.
- An API request body over ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (by its Content-Length): answered
  413 in the API's error format before anything reads it, as the JSON parser does for a body
  that arrives without a length.

API answers are the one JSON error format; the pages get a plain 400.
"""

from __future__ import annotations

from collections.abc import Callable

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, QueryDict
from django.utils.translation import gettext as _

from referee.safe_input import read_int
from web.api.errors import is_api, json_error
from web.api.exceptions import BodyTooLarge
from web.api.parsers import body_limit

_FORMS = ("application/x-www-form-urlencoded", "multipart/form-data")


def _has_nul(values: QueryDict) -> bool:
    return any("\x00" in key or any("\x00" in value for value in values.getlist(key)) for key in values)


class RefuseUnreadableInput:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        refused = self._refusal(request)
        return refused if refused is not None else self.get_response(request)

    def _refusal(self, request: HttpRequest) -> HttpResponse | None:
        api = is_api(request)
        length = read_int(request.META.get("CONTENT_LENGTH") or "0")
        if api and length is not None and length > body_limit():
            return json_error(str(BodyTooLarge.default_detail), "too_large", 413)
        try:
            nul = _has_nul(request.GET) or (
                request.method == "POST" and request.content_type in _FORMS and _has_nul(request.POST)
            )
        except RequestDataTooBig:
            if api:
                return json_error(str(BodyTooLarge.default_detail), "too_large", 413)
            return HttpResponse(_("The request body is larger than this service takes."), status=413,
                                content_type="text/plain; charset=utf-8")
        if not nul:
            return None
        message = _("Text may not contain the NUL character (\\u0000).")
        return json_error(message, "invalid", 400) if api else HttpResponseBadRequest(message)
