"""Session summary endpoints: its state and figures (JSON or CSV), and trying again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.http import HttpResponse
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee import selectors
from referee.errors import Conflict, NotFound, Refusal
from referee.models import Session
from scoring.models import SessionSummary, SummaryState
from scoring.summaries.services import retry_summary, summary_csv, summary_status
from web.api.serializers import ErrorSerializer

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404, 409)}


def _session_for(user: Any, pk: int) -> Session:
    session = selectors.sessions_for(user).filter(pk=pk).first()
    if session is None:
        raise NotFound(_("Not found."))
    return session


def _summary_for(session: Session) -> SessionSummary:
    summary = SessionSummary.objects.filter(session=session).first()
    if summary is None:
        raise NotFound(_("This session has no summary yet: it is built when the session is closed."))
    return summary


class _JSONOnly:
    """Errors are always JSON (``{"error": ...}``), even for ``?format=csv``: the view reads
    ``format`` itself instead of letting DRF pick a renderer (which would 404 on "csv")."""

    renderer_classes: Sequence[type[BaseRenderer]] = [JSONRenderer]

    def perform_content_negotiation(self, request: Request, force: bool = False) -> tuple[BaseRenderer, str]:
        renderer = JSONRenderer()
        return renderer, renderer.media_type


class SessionSummaryView(_JSONOnly, APIView):
    @extend_schema(
        summary="The session's summary, its state and progress",
        description=(
            "State (pending, running, done, failed) and percent done while the summary is built in the background "
            "after the session closes; once done, `summary` holds the standings, settlement (who pays whom), the "
            "deal-by-deal table, running totals and highlights. `?format=csv` returns the deal table as CSV."
        ),
        parameters=[OpenApiParameter("format", str, enum=["json", "csv"], required=False)],
        responses={
            (200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description="The summary's state."),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.STR, description="With ?format=csv: the deal table."),
            **ERRORS,
        },
        tags=["sessions"],
    )
    def get(self, request: Request, pk: int) -> Response | HttpResponse:
        fmt = request.query_params.get("format", "json")
        if fmt not in ("json", "csv"):
            raise Refusal(_("Unknown format “%(format)s”; use json or csv.") % {"format": fmt[:20]}, code="invalid")
        session = _session_for(request.user, pk)
        summary = _summary_for(session)
        status = summary_status(summary, session)
        if fmt == "json":
            return Response(status)
        if summary.state != SummaryState.DONE or not summary.csv:
            raise Conflict(_("The summary is not ready yet: %(message)s") % {"message": status["message"]},
                           state=summary.state, progress=summary.progress)
        response = HttpResponse(summary_csv(summary), content_type="text/csv; charset=utf-8")
        response["Content-Disposition"] = f'attachment; filename="session-{session.pk}-summary.csv"'
        return response


class SessionSummaryRetryView(_JSONOnly, APIView):
    @extend_schema(
        summary="Build the summary again after it failed",
        request=None,
        responses={202: OpenApiResponse(OpenApiTypes.OBJECT, description="Queued again: the summary's state"),
                   **ERRORS},
        tags=["sessions"],
    )
    def post(self, request: Request, pk: int) -> Response:
        session = _session_for(request.user, pk)
        summary = retry_summary(session=session, user=request.user)
        summary.refresh_from_db()
        return Response(summary_status(summary, session), status=202)
