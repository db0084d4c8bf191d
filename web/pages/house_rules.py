"""The house rules a session plays by, as the session page and the deal screen show them once the
session has started: the game's own rules with this session's values (each game says them in
``referee.games.<game>``), then the rules every session has (stake, coin, card notation)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

from referee.games import PAGES
from referee.models import Session
from referee.numbers import money_text
from referee.rules import GAMES


def house_rules_of(session: Session, names: list[str]) -> list[dict[str, str]]:
    """Each rule as ``{"label", "value"}``, in the reader's language."""
    pages = PAGES[session.game]
    options: dict[str, Any] = session.options if isinstance(session.options, dict) else {}
    rows = pages.rules_in_play(options, names, session.notation)
    if session.stake:
        stake = money_text(session.stake, currency=session.currency)
        per = _("%(stake)s per chip") if GAMES[session.game].unit.key == "chips" else _("%(stake)s per point")
        rows.append((_("Stake"), per % {"stake": stake}))
        rows.append((_("Smallest coin"), money_text(session.coin, currency=session.currency) if session.coin
                     else _("none: exact cents")))
    else:
        rows.append((_("Stake"), _("not for money")))
    rows.append((_("Card notation"), _("Lithuanian: T K D V") if session.notation == "lt" else _("English: A K Q J")))
    return [{"label": label, "value": value} for label, value in rows]
