"""The club admin's writes: the club's settings, and on members: rename, change a role,
deactivate and reactivate. The pages and the API both write through these.

(Adding a member is ``services.member_add``; linking a sign-in is ``referee.invitations``.)
A deactivated member keeps every seat and result they ever had; they are only no longer
offered at a session's start, and a user linked to them no longer sees the club.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from .errors import Refusal
from .models import Club, Member, Role
from .permissions import require_role


def _keeps_an_admin(member: Member, *, role: str, active: bool) -> bool:
    """Whether the club still has an active admin once ``member`` has ``role`` and ``active``."""
    if role == Role.ADMIN and active:
        return True
    return Member.objects.filter(club_id=member.club_id, role=Role.ADMIN, active=True).exclude(pk=member.pk).exists()


def _lock_admins(member: Member) -> None:
    """Lock the club's admins' rows: two admins demoting each other at once leave one admin."""
    list(Member.objects.select_for_update().filter(club_id=member.club_id, role=Role.ADMIN, active=True)
         .values_list("pk", flat=True))


def member_update(*, member: Member, user: Any, name: str, role: str) -> Member:
    """Rename ``member`` and set their role; refused, changing nothing, when the name is taken
    in the club or no active admin would be left."""
    require_role(user, member.club, Role.ADMIN)
    name = name.strip()
    if not name:
        raise Refusal(_("A member needs a name."), code="name_missing", field="name")
    if role not in Role.values:
        raise Refusal(_("Choose one of the roles."), code="role_unknown", field="role")
    with transaction.atomic():
        _lock_admins(member)
        if Member.objects.filter(club_id=member.club_id, name__iexact=name).exclude(pk=member.pk).exists():
            raise Refusal(_("%(name)s is already a member of this club.") % {"name": name}, code="name_taken",
                          field="name")
        if not _keeps_an_admin(member, role=role, active=member.active):
            raise Refusal(_("A club needs at least one admin; make someone else admin first."), code="last_admin",
                          field="role")
        member.name = name
        member.role = role
        member.save(update_fields=["name", "role"])
    return member


def member_set_active(*, member: Member, user: Any, active: bool) -> Member:
    """Deactivate or reactivate ``member``; the club's last active admin cannot be deactivated."""
    require_role(user, member.club, Role.ADMIN)
    with transaction.atomic():
        _lock_admins(member)
        if not active and not _keeps_an_admin(member, role=member.role, active=False):
            raise Refusal(_("A club needs at least one admin; make someone else admin first."), code="last_admin")
        member.active = active
        member.save(update_fields=["active"])
    return member


def member_change(*, member: Member, user: Any, role: str | None = None, active: bool | None = None) -> Member:
    """Set a member's role and whether they are active, as one change (the API's PATCH); refused,
    changing nothing, when no active admin would be left (whoever is demoted, the admin asking
    included)."""
    require_role(user, member.club, Role.ADMIN)
    new_role = member.role if role is None else role
    new_active = member.active if active is None else active
    if new_role not in Role.values:
        raise Refusal(_("Choose one of the roles."), code="role_unknown", field="role")
    with transaction.atomic():
        _lock_admins(member)
        member.refresh_from_db(fields=["role", "active"])
        if not _keeps_an_admin(member, role=new_role, active=new_active):
            raise Refusal(_("A club needs at least one admin; make someone else admin first."), code="last_admin",
                          field="role" if new_role != member.role else "active")
        member.role, member.active = new_role, new_active
        member.save(update_fields=["role", "active"])
    return member


def club_update(*, club: Club, user: Any, name: str | None = None, public_leaderboard: bool | None = None) -> Club:
    """Rename the club or open its leaderboard to everyone (the club's admins only)."""
    require_role(user, club, Role.ADMIN)
    fields = []
    if name is not None:
        name = name.strip()
        if not name:
            raise Refusal(_("A club needs a name."), code="name_missing", field="name")
        club.name = name
        fields.append("name")
    if public_leaderboard is not None:
        club.public_leaderboard = public_leaderboard
        fields.append("public_leaderboard")
    if fields:
        club.save(update_fields=fields)
    return club
