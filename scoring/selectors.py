"""Reads for the session and club pages, the API and the summaries, one module per job:

* ``scoring.standings``: a session's standings (running totals in the game's unit, places);
* ``scoring.ledger``: a session's ledger and settlement (who owes whom);
* ``scoring.leaderboard``: the club's leaderboard over a period;
* ``scoring.members``: a member's history and head to head.

Every function returns a JSON-safe dict (decimals as strings, dates as ISO text) and runs a
fixed number of queries whatever the size of the session or the club's history; a
leaderboard never reads the results, only the aggregates. This module only gathers them
under the one name the pages and the API read.
"""

from __future__ import annotations

from scoring.ledger.ledger import ledger, settlement

from .leaderboard import DEFAULT_MIN_DEALS, PERIODS, Period, leaderboard, period_of
from .members import head_to_head, member_history
from .standings import standings

__all__ = [
    "DEFAULT_MIN_DEALS", "PERIODS", "Period", "head_to_head", "leaderboard", "ledger", "member_history",
    "period_of", "settlement", "standings",
]
