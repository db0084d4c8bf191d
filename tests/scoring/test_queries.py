"""The scoring reads cost a fixed number of queries: one more deal, session or game in the
club's history never adds a query (no N+1 across the modules ``selectors`` gathers)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from referee.models import Member, Session
from scoring import selectors
from tests.scoring.helpers import close, play, start, velnias_end

pytestmark = pytest.mark.django_db

PLAYERS = ["admin", "scorer", "member"]


def queries(read: Callable[[], Any]) -> int:
    with CaptureQueriesContext(connection) as captured:
        read()
    return len(captured.captured_queries)


def velnias_deal(setup: dict[str, Any], session: Session, caller: int) -> None:
    counts = [2, 3, 1]
    counts[caller] = 0
    play(setup, session, [velnias_end("empty_hand", caller, counts)])


def michigan_deal(setup: dict[str, Any], session: Session, card: str) -> None:
    play(setup, session, [
        {"type": "prize", "card": card, "player": 0},
        {"type": "misplay", "player": 1},
        {"type": "out", "player": 2, "hand_counts": [3, 4, 0]},
    ])


def session_reads(session: Session) -> dict[str, int]:
    fresh = Session.objects.get(pk=session.pk)
    return {name: queries(lambda read=read: read(fresh)) for name, read in (
        ("standings", selectors.standings), ("ledger", selectors.ledger), ("settlement", selectors.settlement),
    )}


@pytest.mark.parametrize("closed", [False, True])
def test_a_sessions_figures_do_not_grow_with_its_deals(club_setup, closed):
    setup = club_setup
    velnias = start(setup, "velnias", PLAYERS, stake="0.10")
    michigan = start(setup, "michigan", PLAYERS, stake="0.10")
    velnias_deal(setup, velnias, 0)
    michigan_deal(setup, michigan, "AS")
    if closed:
        velnias, michigan = close(setup, velnias), close(setup, michigan)
    one = {"velnias": session_reads(velnias), "michigan": session_reads(michigan)}
    more_velnias = start(setup, "velnias", PLAYERS, stake="0.10")
    more_michigan = start(setup, "michigan", PLAYERS, stake="0.10")
    for caller in (0, 1, 2):
        velnias_deal(setup, more_velnias, caller)
    for card in ("AS", "KC", "QD"):
        michigan_deal(setup, more_michigan, card)
    if closed:
        more_velnias, more_michigan = close(setup, more_velnias), close(setup, more_michigan)
    three = {"velnias": session_reads(more_velnias), "michigan": session_reads(more_michigan)}
    assert three == one


def club_reads(setup: dict[str, Any]) -> dict[str, int]:
    club = setup["club"]
    a, b = (Member.objects.get(pk=setup["members"][name].pk) for name in ("admin", "scorer"))
    return {
        "leaderboard": queries(lambda: selectors.leaderboard(club, min_deals=0)),
        "leaderboard of a game": queries(lambda: selectors.leaderboard(club, game="velnias", min_deals=0)),
        "head to head": queries(lambda: selectors.head_to_head(club, a, b)),
        "member history": queries(lambda: selectors.member_history(a)),
    }


def test_the_club_reads_do_not_grow_with_its_history(club_setup):
    setup = club_setup
    for game in ("velnias", "michigan", "cheat"):
        session = start(setup, game, PLAYERS, stake="0.10")
        if game == "velnias":
            velnias_deal(setup, session, 0)
        elif game == "michigan":
            michigan_deal(setup, session, "AS")
        else:
            play(setup, session, [{"type": "place", "player": i % 3} for i in range(50)] + [{"type": "stands"}])
        close(setup, session)
    one = club_reads(setup)
    for _round in range(2):
        for game in ("velnias", "michigan"):
            session = start(setup, game, PLAYERS, stake="0.10")
            if game == "velnias":
                velnias_deal(setup, session, 1)
                velnias_deal(setup, session, 2)
            else:
                michigan_deal(setup, session, "KC")
                michigan_deal(setup, session, "QD")
            close(setup, session)
    assert club_reads(setup) == one
