"""Scoring's answers to what the referee announces (``referee.signals``).

Connected by ``ScoringConfig.ready``, so ``referee`` never imports ``scoring``. The signals
are sent inside the referee's transaction, so what these write commits or rolls back with
the entry (or close) that caused it. Each receiver only calls ``scoring.services``.

Recording a deal twice cannot double it: ``results.record_deal`` first removes whatever the
deal recorded before (a replay replaces the record), so a deal has one set of results
whichever path reports it, and however often.
"""

from __future__ import annotations

from typing import Any

from referee.models import Deal, Session

from . import services


def deal_finished(sender: object, *, deal: Deal, state: Any, **kwargs: Any) -> None:
    services.deal_finished(deal=deal, state=state)


def deal_reopened(sender: object, *, deal: Deal, **kwargs: Any) -> None:
    services.deal_reopened(deal=deal)


def session_closed(sender: object, *, session: Session, **kwargs: Any) -> None:
    services.session_closed(session=session)


def session_reopened(sender: object, *, session: Session, **kwargs: Any) -> None:
    services.session_reopened(session=session)
