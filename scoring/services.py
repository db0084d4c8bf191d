"""What scoring does when the referee finishes or reopens a deal, or closes or reopens a
session (inside the referee's transaction; ``scoring.receivers`` calls these on its signals).

The writes themselves (results, chip ledger, aggregates; money rules) live in
``scoring.results``; the ratings, queued there and rated after commit, in ``scoring.ratings``.
"""

from __future__ import annotations

from typing import Any

from referee.models import Deal, Session
from scoring.summaries.services import request_summary

from . import rebuild, results, seasons
from .settlement import debts


def deal_finished(*, deal: Deal, state: Any) -> None:
    """Write one result row per seat for a deal that just finished (same transaction), with its
    chip movements (Mičiganas) and the aggregates; its rating step is queued for after commit."""
    results.record_deal(deal=deal, state=state)


def deal_reopened(*, deal: Deal) -> None:
    """A finished deal became unfinished (undo or correction): everything it recorded goes."""
    results.unrecord_deal(deal=deal)


def session_closed(*, session: Session) -> None:
    """Settle what is settled at close (Michigan's M3) and enqueue the summary."""
    results.close_session(session=session)
    seasons.ensure_results([session])
    request_summary(session=session)


def session_reopened(*, session: Session) -> None:
    """Undo what closing settled; the summary is rebuilt at the next close."""
    results.reopen_session(session=session)
    debts.forget_nets(session)
    seasons.forget_results(session)


def rebuild_club(*, club: Any) -> None:
    """Recompute the club's leaderboard aggregates and ratings from its results (after a
    restore; see ``scoring.rebuild``)."""
    rebuild.rebuild_club(club=club)
