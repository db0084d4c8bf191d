"""The club's own administration: its members, their roles, whether they are active, and the
invitations that give a member a sign-in.

Every member of the club sees the list; only its admins change it (anyone else posting gets
the page's refusal, 403, and nothing changes); other clubs' users get a 404. A refused form
shows each message beside its field and keeps what was typed.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from referee import invitations, membership, services
from referee.errors import Refusal
from referee.models import Club, Invitation, Member, Role
from web.pages.access import club_or_404
from web.pages.member_forms import MemberForm, first_messages


def _members(club: Club) -> list[dict[str, Any]]:
    """Every member, active first then by name, with their sign-in and open invitation (two queries)."""
    members = list(club.members.select_related("user").order_by("-active", "name"))
    open_by_member: dict[int, Invitation] = {}
    now = timezone.now()
    for invitation in Invitation.objects.filter(
        member__club=club, used_at__isnull=True, revoked_at__isnull=True,
    ).order_by("created_at"):
        if invitation.expires_at > now:
            open_by_member[invitation.member_id] = invitation
    return [{"member": m, "invitation": open_by_member.get(m.pk)} for m in members]


def _admins_only(request: HttpRequest, club: Club, role: str) -> HttpResponse | None:
    """The refusal page for anyone but an admin, or None for an admin."""
    if role == Role.ADMIN:
        return None
    return render(request, "referee/club_members.html", {
        "club": club, "role": role, "is_admin": False, "rows": _members(club),
        "errors": {"form": _("Only the club's admins can manage members and roles.")},
    }, status=403)


@login_required
def members_page(request: HttpRequest, slug: str) -> HttpResponse:
    """The list of members; an admin adds one here (name and role)."""
    club, role = club_or_404(request.user, slug)
    status = 200
    form = MemberForm(club_id=club.pk)
    if request.method == "POST":
        refused = _admins_only(request, club, role)
        if refused is not None:
            return refused
        form = MemberForm(request.POST, club_id=club.pk)
        if form.is_valid():
            try:
                member = services.member_add(club=club, name=form.cleaned_data["name"], role=form.cleaned_data["role"],
                                             user=request.user)
            except Refusal as error:
                form.add_error("name", error.message)
            else:
                return redirect(reverse("club-members", args=[club.slug]) + f"?added={member.pk}#member-{member.pk}")
        status = 400
    return render(request, "referee/club_members.html", {
        "club": club, "role": role, "is_admin": role == Role.ADMIN, "rows": _members(club), "form": form,
        "errors": first_messages(form), "roles": Role.choices, "added": request.GET.get("added", ""),
    }, status=status)


def _member_or_404(club: Club, pk: int) -> Member:
    member = club.members.select_related("user", "club").filter(pk=pk).first()
    if member is None:
        raise Http404(_("Not found."))
    return member


def _member_page(request: HttpRequest, club: Club, member: Member, *, form: MemberForm | None = None,
                 errors: dict[str, str] | None = None, code: str = "", status: int = 200) -> HttpResponse:
    form = form or MemberForm(club_id=club.pk, member=member)
    invitation = invitations.open_invitation(member)
    link = request.build_absolute_uri(reverse("invitation", args=[code])) if code else ""
    return render(request, "referee/club_member.html", {
        "club": club, "member": member, "form": form, "roles": Role.choices,
        "errors": {**first_messages(form), **(errors or {})}, "invitation": invitation, "code": code, "link": link,
        "code_url": request.build_absolute_uri(reverse("invitation-code")),
    }, status=status)


@login_required
def member_page(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """One member, for an admin: rename, role, active, and the invitation to sign in."""
    club, role = club_or_404(request.user, slug)
    member = _member_or_404(club, pk)
    refused = _admins_only(request, club, role)
    if refused is not None:
        return refused
    if request.method != "POST":
        return _member_page(request, club, member)
    form = MemberForm(request.POST, club_id=club.pk, member=member)
    if form.is_valid():
        try:
            membership.member_update(member=member, user=request.user, name=form.cleaned_data["name"],
                                     role=form.cleaned_data["role"])
        except Refusal as error:
            member.refresh_from_db()
            field = error.extra.get("field")
            form.add_error(field if isinstance(field, str) else None, error.message)
        else:
            return redirect(reverse("club-member", args=[club.slug, member.pk]) + "?saved=1")
    return _member_page(request, club, member, form=form, status=400)


@login_required
@require_POST
def member_active(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Deactivate (``active=0``) or reactivate (``active=1``) a member."""
    club, role = club_or_404(request.user, slug)
    member = _member_or_404(club, pk)
    refused = _admins_only(request, club, role)
    if refused is not None:
        return refused
    wanted = request.POST.get("active")
    if wanted not in ("0", "1"):
        return _member_page(request, club, member, errors={"active": _("Choose to deactivate or reactivate.")},
                            status=400)
    try:
        membership.member_set_active(member=member, user=request.user, active=wanted == "1")
    except Refusal as error:
        member.refresh_from_db()
        return _member_page(request, club, member, errors={"active": error.message}, status=error.status)
    return redirect(reverse("club-member", args=[club.slug, member.pk]) + ("?reactivated=1" if wanted == "1"
                                                                          else "?deactivated=1"))


@login_required
@require_POST
def member_invite(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    """Make an invitation (``action=make``; an earlier open one is withdrawn) or withdraw it
    (``action=revoke``). A new code is shown on this answer only: it is not stored."""
    club, role = club_or_404(request.user, slug)
    member = _member_or_404(club, pk)
    refused = _admins_only(request, club, role)
    if refused is not None:
        return refused
    action = request.POST.get("action")
    try:
        if action == "make":
            _invitation, code = invitations.invitation_create(member=member, user=request.user)
            return _member_page(request, club, member, code=code)
        if action == "revoke":
            invitations.invitation_revoke(member=member, user=request.user)
            return redirect(reverse("club-member", args=[club.slug, member.pk]) + "?revoked=1")
    except Refusal as error:
        return _member_page(request, club, member, errors={"invitation": error.message}, status=error.status)
    return _member_page(request, club, member, errors={"invitation": _("Choose to make or withdraw an invitation.")},
                        status=400)
