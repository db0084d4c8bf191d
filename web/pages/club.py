"""The club's screens: the home page (my clubs), a club's page (its sessions) and the health check."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from evenings import selectors as evening_selectors
from referee import selectors
from referee.models import Role, SessionStatus
from web.pages.access import can_record, club_or_404

#: How many of the club's latest sessions, and club nights, its page lists.
SESSIONS_SHOWN = 30
EVENINGS_SHOWN = 10


@login_required
def home(request: HttpRequest) -> HttpResponse:
    clubs = list(selectors.clubs_for(request.user))
    roles = selectors.member_roles(request.user)
    rows = [{"club": club, "role": roles.get(club.pk, Role.ADMIN if request.user.is_superuser else None)}
            for club in clubs]
    return render(request, "referee/home.html", {"rows": rows})


@login_required
def club_page(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = club_or_404(request.user, slug)
    sessions = selectors.club_sessions(club, limit=SESSIONS_SHOWN)
    open_sessions = [s for s in sessions if s.status == SessionStatus.OPEN]
    closed_sessions = [s for s in sessions if s.status != SessionStatus.OPEN]
    return render(request, "referee/club.html", {
        "club": club, "role": role, "can_record": can_record(role),
        "open_sessions": open_sessions, "closed_sessions": closed_sessions,
        "evenings": evening_selectors.club_evenings(club.pk, limit=EVENINGS_SHOWN),
    })


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness and database check for the load balancer and docker-compose."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")
