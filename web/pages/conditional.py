"""Conditional requests for the watchers' polls: a screen sends back the version it shows and
hears 304 (nothing rendered) while that is still the version."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse

from web import poll_cache, presence
from web.pages.access import can_record


def etag(version: str) -> str:
    """The version as an entity tag (weak: the fragment's bytes also follow the reader's language)."""
    return f'W/"{version}"'


def unchanged(request: HttpRequest, version: str) -> bool:
    """Whether the screen asking already shows ``version``: ``If-None-Match`` (weak comparison,
    as for a GET), or the ``?v=`` parameter that earlier screens sent."""
    sent = request.headers.get("If-None-Match")
    if sent:
        # A version holds no comma or quote, so the list splits on commas.
        tags = [tag.strip().removeprefix("W/") for tag in sent.split(",")]
        return "*" in tags or f'"{version}"' in tags
    return request.GET.get("v") == version


def poll_headers(response: HttpResponse, version: str, running_deal: int | None) -> HttpResponse:
    """What every answer to a deal's poll carries, 304 or not."""
    response["ETag"] = etag(version)
    response["X-Deal-Version"] = version
    response["X-Running-Deal"] = str(running_deal or "")
    response["Cache-Control"] = "private, no-cache"
    return response


def not_modified_from_cache(request: HttpRequest, pk: int) -> HttpResponse | None:
    """The 304 of a deal's poll from one cache round trip, without the session, the user or
    the database (``referee.poll_cache`` says when that is exact); None when the exact way
    must answer: no validator, no valid watch cookie, anything missing or changed. A scorer's
    device is marked present on the way, as the exact way would."""
    if not request.headers.get("If-None-Match"):
        return None
    device = presence.device_of(request)
    records_key = presence.records_key(pk)
    found = poll_cache.cached_poll(request, pk, (records_key,))
    if found is None:
        return None
    version = found.version
    if can_record(found.role):
        records = presence.mark(pk, device, None, records=found.extra[records_key] or {}) if device else None
        if records is None:  # a device not yet known on this deal: its name needs the database
            return None
        version = presence.versioned(version, presence.others(records, device))
    if not unchanged(request, version):
        return None
    return poll_headers(HttpResponse(status=304), version, found.running_deal)
