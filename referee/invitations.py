"""Invitations: how a member the admin added gets a sign-in of their own.

The admin makes an invitation for a member who has no sign-in yet and hands over its link or
its code (read aloud, or written on a beer mat: the same code, grouped for reading). Whoever
opens it chooses a username and password, and the member is then that user. An invitation is
single use, expires after ``INVITATION_DAYS`` days, can be withdrawn by an admin, and only its
SHA-256 is stored: the code holds about 47 random bits, so the hash cannot be reversed by guessing, and
a copy of the database lets nobody in.
"""

from __future__ import annotations

import hashlib
import secrets
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.utils import formats, timezone
from django.utils.translation import gettext as _

from .errors import Conflict, NotFound, Refusal
from .models import Invitation, Member, Role
from .permissions import require_role

#: How long an invitation can be used.
INVITATION_DAYS: int = getattr(settings, "INVITATION_DAYS", 7)
#: Letters and digits that cannot be misread for one another (no 0/O, 1/I/L, 5/S, 8/B).
ALPHABET = "ACDEFGHJKMNPQRTUVWXY234679"
#: Ten characters of 26: about 47 bits; read as two groups of five.
CODE_LENGTH = 10


def new_code() -> str:
    code = "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))
    return f"{code[:5]}-{code[5:]}"


def normalised(code: str) -> str:
    """The code as typed, in any case, with or without its dash or spaces."""
    return "".join(ch for ch in str(code).upper() if ch.isalnum())


def code_hash(code: str) -> str:
    return hashlib.sha256(normalised(code).encode()).hexdigest()


def open_invitation(member: Member) -> Invitation | None:
    """The member's invitation that can still be used, if any."""
    now = timezone.now()
    return (member.invitations.filter(used_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now)
            .order_by("-created_at").first())


def invitation_create(*, member: Member, user: Any) -> tuple[Invitation, str]:
    """A new invitation for ``member`` and its code (shown once; only its hash is kept).

    An earlier open invitation of the member is withdrawn: one member, one valid code."""
    require_role(user, member.club, Role.ADMIN)
    if member.user_id is not None:
        raise Conflict(_("%(name)s already signs in as “%(username)s”.") % {
            "name": member.name, "username": member.user.get_username() if member.user else ""},
            code="already_linked")
    if not member.active:
        raise Refusal(_("%(name)s is deactivated; reactivate them before inviting them.") % {"name": member.name},
                      code="inactive_member")
    code = new_code()
    now = timezone.now()
    with transaction.atomic():
        member.invitations.filter(used_at__isnull=True, revoked_at__isnull=True).update(revoked_at=now)
        invitation = Invitation.objects.create(
            member=member, code_hash=code_hash(code), created_by=user, expires_at=now + timedelta(days=INVITATION_DAYS),
        )
    return invitation, code


def invitation_revoke(*, member: Member, user: Any) -> int:
    """Withdraw the member's open invitations; how many were withdrawn."""
    require_role(user, member.club, Role.ADMIN)
    still_open = member.invitations.filter(used_at__isnull=True, revoked_at__isnull=True)
    withdrawn = still_open.update(revoked_at=timezone.now())
    if not withdrawn:
        raise Refusal(_("%(name)s has no invitation to withdraw.") % {"name": member.name}, code="no_invitation")
    return withdrawn


def invitation_for(code: str, *, lock: bool = False) -> Invitation:
    """The invitation that ``code`` opens, or a refusal that says why it cannot be used."""
    if len(normalised(code)) != CODE_LENGTH:
        raise NotFound(_("This invitation code is not known. Check it, or ask the club's admin for a new one."),
                       code="unknown_invitation")
    found = Invitation.objects.select_related("member__club")
    if lock:
        # The invitation row only: the member's user is joined as nullable, which PostgreSQL cannot lock.
        found = found.select_for_update(of=("self",))
    invitation = found.filter(code_hash=code_hash(code)).first()
    if invitation is None:
        raise NotFound(_("This invitation code is not known. Check it, or ask the club's admin for a new one."),
                       code="unknown_invitation")
    if invitation.used_at is not None:
        raise Refusal(_("This invitation has already been used. Sign in with the username chosen then, or ask "
                        "the club's admin for a new invitation."), code="used_invitation")
    if invitation.revoked_at is not None:
        raise Refusal(_("This invitation was withdrawn by the club's admin. Ask them for a new one."),
                      code="revoked_invitation")
    if invitation.expires_at <= timezone.now():
        when = formats.date_format(timezone.localtime(invitation.expires_at), "SHORT_DATETIME_FORMAT")
        raise Refusal(_("This invitation expired on %(when)s. Ask the club's admin for a new one.") % {"when": when},
                      code="expired_invitation")
    if not invitation.member.active or invitation.member.user_id is not None:
        raise Refusal(_("This invitation is no longer valid. Ask the club's admin for a new one."),
                      code="revoked_invitation")
    return invitation


def invitation_accept(*, code: str, username: str, password: str) -> Any:
    """Create the user ``username`` and make them the invited member; the invitation is spent.

    The invitation row is locked, so the same code opened on two phones makes one user."""
    with transaction.atomic():
        invitation = invitation_for(code, lock=True)
        users = get_user_model()
        if users.objects.filter(username__iexact=username).exists():
            raise Conflict(_("The username “%(username)s” is taken; choose another.") % {"username": username},
                           code="username_taken")
        try:
            with transaction.atomic():
                user = users.objects.create_user(username=username, password=password)
        except IntegrityError as error:
            raise Conflict(_("The username “%(username)s” is taken; choose another.") % {"username": username},
                           code="username_taken") from error
        member = invitation.member
        member.user = user
        member.save(update_fields=["user"])
        invitation.used_at = timezone.now()
        invitation.save(update_fields=["used_at"])
    return user
