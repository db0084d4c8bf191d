"""Who may do what in a club: admin (members and roles), scorer (records), member (reads)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from .errors import NotAllowed, NotFound
from .models import ROLE_RANK, Club, Member, Role


def signed_in_id(user: Any) -> int | None:
    """The user's id when signed in; None for an anonymous visitor (the literal statements ask
    for the role of this id, and no member has None)."""
    return user.pk if getattr(user, "is_authenticated", False) else None


def club_role(user: Any, club: Club) -> str | None:
    """The user's role in the club, or None. Superusers act as admins everywhere."""
    if user is None or not user.is_authenticated:
        return None
    if user.is_superuser:
        return Role.ADMIN
    role = (
        Member.objects.filter(club=club, user=user, active=True).values_list("role", flat=True).first()
    )
    return role


def require_role(user: Any, club: Club, needed: str) -> str:
    """Raise NotFound for outsiders (a private club's existence is not revealed), NotAllowed
    for members whose role is too low."""
    return check_role(user, club_role(user, club), needed)


def check_role(user: Any, member_role: str | None, needed: str) -> str:
    """``require_role`` for a caller that has already read the user's active member role in the
    club (the hot path reads it in the query that locks the deal)."""
    role: str | None
    if user is None or not user.is_authenticated:
        role = None
    elif user.is_superuser:
        role = Role.ADMIN
    else:
        role = member_role
    if role is None:
        raise NotFound(_("Not found."))
    if ROLE_RANK[Role(role)] < ROLE_RANK[Role(needed)]:
        messages = {
            Role.SCORER: _("Only the club's scorers and admins can record or change play."),
            Role.ADMIN: _("Only the club's admins can manage members and roles."),
        }
        raise NotAllowed(messages.get(Role(needed), _("You do not have permission to do this.")))
    return role


def can_see_leaderboard(user: Any, club: Club) -> bool:
    return club.public_leaderboard or club_role(user, club) is not None
