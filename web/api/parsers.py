"""The API's JSON parser: the body read within the size limit and checked by ``safe_input``.

DRF's own parser reads the stream with no limit (Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``
only guards ``request.body`` and forms) and lets a deeply nested body raise RecursionError
(a 500); NUL characters and infinities would reach PostgreSQL's jsonb and fail there.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext as _
from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser, get_encoding  # type: ignore[attr-defined]

from referee import safe_input
from web.api.exceptions import BodyTooLarge


def body_limit() -> int:
    return int(settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 2_621_440)


class SafeJSONParser(JSONParser):
    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        limit = body_limit()
        data = stream.read(limit + 1) if stream is not None else b""
        if len(data) > limit:
            raise BodyTooLarge()
        # get_encoding refuses bytes-to-bytes codecs (bz2_codec would inflate past the limit).
        encoding = get_encoding(parser_context or {})
        try:
            return safe_input.read_json(data.decode(encoding))
        except safe_input.UnsafeJSON as bad:
            raise ParseError(_("The request body cannot be taken: %(detail)s") % {"detail": bad},
                             code="invalid") from None
        except ValueError as bad:
            # DRF's own wording, which the error handler frames as "not valid JSON".
            raise ParseError(f"JSON parse error - {bad}") from None
