"""Who may see a page and who may record on it: a private club's pages are a 404 to outsiders."""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.utils.translation import gettext as _

from referee import selectors
from referee.models import ROLE_RANK, Club, Deal, Role, Session
from referee.permissions import club_role


def can_record(role: str | None) -> bool:
    """Scorers and admins record play; members only watch."""
    return role is not None and ROLE_RANK[Role(role)] >= ROLE_RANK[Role.SCORER]


def club_or_404(user: Any, slug: str) -> tuple[Club, str]:
    """The club and the user's role in it; outsiders learn nothing, not even that it exists."""
    club = selectors.club_by_slug(slug)
    role = club_role(user, club) if club is not None else None
    if club is None or role is None:
        raise Http404(_("Not found."))
    return club, role


def session_or_404(user: Any, pk: int) -> Session:
    session = selectors.session_for_page(user, pk)
    if session is None:
        raise Http404(_("Not found."))
    return session


def deal_or_404(user: Any, pk: int, *, snapshot_as_text: bool = False) -> tuple[Deal, str]:
    found = selectors.deal_for_page(user, pk, snapshot_as_text=snapshot_as_text)
    if found is None:
        raise Http404(_("Not found."))
    return found
