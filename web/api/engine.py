"""The engine version the server runs, so that a tablet can tell whether its cached engine is older.

The tablet referees with ``referee/rules`` under Pyodide from an archive that ``manage.py
build_engine`` builds (``referee.offline_engine``); the server computes the same version from
the files it runs, so a deployment that changed the engine, its glue, the page modules' words
or the compiled translations answers a new one, built file or not.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.templatetags.static import static
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee import offline_engine

#: The header naming the engine version beside an answer.
HEADER = "X-Engine-Version"


class EngineVersionView(APIView):
    """The version of the rules engine the server referees with, and where the tablet's copy is."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    @extend_schema(
        responses={200: inline_serializer("EngineVersion", {
            "version": serializers.CharField(help_text="a hash of the engine's source and its messages"),
            "manifest": serializers.CharField(help_text="the built archive's manifest (static file)"),
        })},
        tags=["engine"],
    )
    def get(self, request: Request) -> Response:
        version = offline_engine.version()
        answer = Response({"version": version, "manifest": static("offline/engine.json")})
        answer[HEADER] = version
        # Asked each time the tablet comes online: never answered from a stale cache.
        answer["Cache-Control"] = "no-cache"
        return answer


def versioned(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """``view`` with every answer naming the engine version: a tablet syncing its entries
    learns from the answers themselves that the server now referees with another engine."""

    # wraps() carries the view's attributes (cls, initkwargs, csrf_exempt): the schema and
    # Django still see the DRF view.
    @functools.wraps(view)
    def answer(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        response = view(request, *args, **kwargs)
        response[HEADER] = offline_engine.version()
        return response

    return answer
