"""Pages' side of the summary: the chart as an SVG file, and the HTML fragment to include.

The summary page itself belongs to the pages; it includes :func:`summary_html` and polls
``GET /api/sessions/{id}/summary/`` while the summary is being built.
"""

from __future__ import annotations

import hashlib

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import path
from django.views.decorators.http import require_GET

from referee import selectors
from scoring.models import SessionSummary
from scoring.summaries.summary import summary_html

__all__ = ["summary_chart", "summary_html", "urlpatterns"]


@require_GET
@login_required
def summary_chart(request: HttpRequest, pk: int) -> HttpResponse:
    """The running-totals chart of a built summary (404 until it exists)."""
    session = selectors.sessions_for(request.user).filter(pk=pk).first()
    svg = (
        SessionSummary.objects.filter(session=session).exclude(chart_svg="").values_list("chart_svg", flat=True)
        .first() if session is not None else None
    )
    if svg is None:
        raise Http404("No chart")
    chart = svg
    etag = f'"{hashlib.sha256(chart.encode()).hexdigest()[:32]}"'
    if request.headers.get("If-None-Match") == etag:
        return HttpResponse(status=304, headers={"ETag": etag})
    response = HttpResponse(chart, content_type="image/svg+xml; charset=utf-8")
    response["ETag"] = etag
    response["Cache-Control"] = "private, no-cache"
    # The file is ours, but an SVG can carry script: never let one run.
    response["Content-Security-Policy"] = "default-src 'none'; style-src 'unsafe-inline'"
    return response


urlpatterns = [
    path("sessions/<int:pk>/summary/chart.svg", summary_chart, name="session-summary-chart"),
]
