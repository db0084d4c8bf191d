"""Conditional requests for the watchers' polls: a screen sends back the version it shows and
hears 304 (nothing rendered) while that is still the version."""

from __future__ import annotations

from django.http import HttpRequest


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
