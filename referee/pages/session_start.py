"""Starting a session: the form (players in seat order, game, notation, stake, coin, house
rules), then the first deal's start page."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from referee import selectors, services
from referee.errors import Refusal
from referee.views import _rules_context

from .access import can_record, club_or_404
from .start_form import SessionStartForm


@login_required
def session_new(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = club_or_404(request.user, slug)
    if not can_record(role):
        return render(request, "referee/session_new.html", {
            "club": club, "can_record": False,
            "errors": {"form": _("Only the club's scorers and admins can record or change play.")},
        }, status=403 if request.method == "POST" else 200)
    members = selectors.active_members(club)
    status = 200
    if request.method == "POST":
        form = SessionStartForm(request.POST, members=members)
        if form.is_valid():
            try:
                session = services.session_start(club=club, user=request.user, **form.session_arguments())
            except Refusal as error:
                form.add_error(None, error.message)
                status = error.status if error.status != 404 else 400
            else:
                return redirect("deal-new", pk=session.pk)
        else:
            status = 400
    else:
        form = SessionStartForm(members=members, game=request.GET.get("game"))
    return render(request, "referee/session_new.html", {
        "club": club, "role": role, "can_record": True, "members": members, "errors": form.messages(),
        "form": form.shown(), "games": _rules_context(form.option_values()), "chosen": form.seats(),
    }, status=status)
