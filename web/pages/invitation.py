"""Opening an invitation: by its link, or by typing its code; then choosing a username and a
password, which signs the new user in on their club's page.

These pages need no sign-in (the invited person has none yet). Wrong codes are counted per
address like failed sign-ins, so codes cannot be guessed at speed; a used, withdrawn or expired
invitation says so and what to do.
"""

from __future__ import annotations

from django.contrib.auth import login
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from referee import invitations
from referee.errors import Refusal
from web.pages.login import LIMIT, WINDOW, client_address
from web.pages.member_forms import InvitationCodeForm, NewSignInForm, first_messages


def _too_many(request: HttpRequest) -> bool:
    return int(cache.get(_key(request), 0)) >= LIMIT * 2


def _key(request: HttpRequest) -> str:
    return f"invitation-fail:ip:{client_address(request)}"


def _count_failure(request: HttpRequest) -> None:
    if not cache.add(_key(request), 1, WINDOW):
        try:
            cache.incr(_key(request))
        except ValueError:
            cache.set(_key(request), 1, WINDOW)


def invitation_code(request: HttpRequest) -> HttpResponse:
    """Type the code from an invitation (``?code=``), then go on to its page."""
    form = InvitationCodeForm(request.GET if "code" in request.GET else None)
    if form.is_bound and form.is_valid():
        return redirect("invitation", code=form.cleaned_data["code"])
    status = 400 if form.is_bound else 200
    return render(request, "referee/invitation_code.html", {"form": form, "errors": first_messages(form)},
                  status=status)


def invitation_page(request: HttpRequest, code: str) -> HttpResponse:
    """The invitation's member and club, and the form for the new sign-in."""
    if _too_many(request):
        return render(request, "referee/invitation.html", {
            "refusal": _("Too many wrong invitation codes. Wait a few minutes and try again."),
        }, status=429)
    try:
        invitation = invitations.invitation_for(code)
    except Refusal as error:
        if error.code == "unknown_invitation":
            _count_failure(request)
        return render(request, "referee/invitation.html", {"refusal": error.message}, status=error.status)
    form = NewSignInForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                user = invitations.invitation_accept(code=code, username=form.cleaned_data["username"],
                                                     password=form.cleaned_data["password1"])
            except Refusal as error:
                if error.code == "username_taken":
                    form.add_error("username", error.message)
                else:
                    return render(request, "referee/invitation.html", {"refusal": error.message},
                                  status=error.status)
            else:
                login(request, user, backend="django.contrib.auth.backends.ModelBackend")
                return redirect("club", slug=invitation.member.club.slug)
        status = 400
    return render(request, "referee/invitation.html", {
        "invitation": invitation, "member": invitation.member, "club": invitation.member.club, "form": form,
        "errors": first_messages(form),
    }, status=status)
