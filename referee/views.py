"""Pages for tablets and phones."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from . import selectors


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "referee/home.html", {"clubs": selectors.clubs_for(request.user)})


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness and database check for the load balancer and docker-compose."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")
