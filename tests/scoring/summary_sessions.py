"""Sessions with known figures for the summary tests, played through the referee's services.

``velnias_evening``: three deals of Pašėlęs Velnias (Ona, Jonas, Rūta; stake 0.50), one of
each ending (RULES.md section 2):

* deal 1, ``empty_hand`` by Ona, counts 0 3 5: Ona +8, Jonas -3, Rūta -5;
* deal 2, ``last_card`` by Jonas, counts 2 4 6: the others lose 10 each and Jonas gains 20;
  Ona holds 2 fewer than Jonas, so she gains 2 and he loses 2: Ona -8, Jonas +18, Rūta -10;
* deal 3, ``blocked``, counts 1 1 3: Ona and Jonas (fewest) each collect 2 from Rūta:
  Ona +2, Jonas +2, Rūta -4.

Totals: Ona 2, Jonas 17, Rūta -19; money at 0.50 a point: Ona 1.00, Jonas 8.50, Rūta -9.50.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal
from typing import Any

from referee import services
from referee.models import Deal, Session
from referee.rules import GAMES

VELNIAS_DEALS = [
    {"type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 3, 5]},
    {"type": "end", "condition": "last_card", "player": 1, "hand_counts": [2, 4, 6]},
    {"type": "end", "condition": "blocked", "player": None, "hand_counts": [1, 1, 3]},
]


def start(setup: dict[str, Any], game: str, names: Sequence[str], *, stake: str = "0",
          options: dict[str, Any] | None = None) -> Session:
    return services.session_start(
        club=setup["club"], game=game, players=[setup["members"][name] for name in names],
        user=setup["users"]["scorer"], options=options or {}, stake=Decimal(stake),
    )


def play(setup: dict[str, Any], session: Session, entries: Sequence[dict[str, Any]]) -> Deal:
    user = setup["users"]["scorer"]
    deal = services.deal_start(session=session, user=user)
    for entry in entries:
        services.entry_add(deal_id=deal.pk, payload=entry, user=user)
    deal.refresh_from_db()
    return deal


def velnias_evening(setup: dict[str, Any]) -> Session:
    session = start(setup, "velnias", ["admin", "scorer", "member"], stake="0.50")
    for entry in VELNIAS_DEALS:
        play(setup, session, [entry])
    return session


def close(setup: dict[str, Any], session: Session) -> Session:
    return services.session_close(session=session, user=setup["users"]["scorer"])


def reopen(setup: dict[str, Any], session: Session) -> Session:
    return services.session_reopen(session=session, user=setup["users"]["scorer"])


def rukas_deal(setup: dict[str, Any], session: Session, plan: Sequence[Sequence[str]]) -> Deal:
    """A Rūkas deal from a per-seat plan: ``plan[trick][seat]`` is the rank that seat plays;
    each trick is written in reveal order from whoever leads it (as the engine says)."""
    user = setup["users"]["scorer"]
    deal = services.deal_start(session=session, user=user)
    rules = GAMES["rukas"]
    for ranks in plan:
        deal.refresh_from_db()
        view = rules.view(rules.from_dict(deal.state))
        order = [(view["leader"] + step) % view["players"] for step in range(view["players"])]
        services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": [ranks[s] for s in order]}, user=user)
    deal.refresh_from_db()
    return deal


#: Three seats. Trick 1: 2, 3, 4: the 4 is highest, the 3 takes from it and the 2 from the 3,
#: so seat 0 takes with a 2. Tricks 2-11: everyone plays the same rank (void). Trick 12: the
#: 3s cancel, seat 1 takes with the 4. Trick 13: the 2s cancel, seat 0 takes with the 4.
#: Tricks: seat 0 two, seat 1 one, seat 2 none.
RUKAS_PLAN = [
    ["2", "3", "4"],
    *[[rank] * 3 for rank in ["5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]],
    ["3", "4", "3"],
    ["4", "2", "2"],
]
