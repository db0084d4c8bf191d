"""A rules refusal in the session's language, naming seats as the players (moved out of
``referee.services`` so that the deal start, which lives apart, renders refusals the same way)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from django.utils.translation import gettext as _

from referee.games import PAGES
from referee.rules import IllegalEntry

from . import selectors
from .errors import Refusal
from .models import Session, SessionStatus


def refusal_from(error: IllegalEntry, session: Session, names: Sequence[str] | None = None) -> Refusal:
    """A rules refusal in the session's language, with seats shown as the players' names."""
    if names is None:
        names = seat_names(session)
    notation: Literal["en", "lt"] = "lt" if session.notation == "lt" else "en"
    words = PAGES[session.game].words()  # the club's words for the fields and choices it names
    return Refusal(error.render(names=names, translate=_, notation=notation, words=words), code="illegal_entry")


def seat_names(session: Session) -> list[str]:
    """The players' names in seat order, read once per session object (refusals name players)."""
    names = getattr(session, "_seat_names", None)
    if names is None:
        names = selectors.seat_names(session.pk)
        session._seat_names = names  # type: ignore[attr-defined]
    return names


def require_open(session: Session) -> None:
    if session.status != SessionStatus.OPEN:
        raise Refusal(_("This session is closed; reopen it to record or correct anything."), code="closed")
