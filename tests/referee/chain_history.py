"""A club's evening through the services, for the audit chain's tests."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from referee import services
from referee.models import game_name
from referee.seat_corrections import seat_correct
from tests.scoring.helpers import velnias_end

CHEAT_NAME, VELNIAS_NAME = game_name("cheat"), game_name("velnias")
#: Ona places, Jonas challenges and reveals a lie, Ona places again.
CHEAT = [{"type": "place", "player": 0}, {"type": "challenge", "challenger": 1, "revealed": "5H"},
         {"type": "place", "player": 0}]
#: The challenge as someone would edit it behind the application's back.
EDITED = {"type": "challenge", "challenger": 2, "revealed": "5H"}
TRICK_ENDS = [velnias_end("empty_hand", 0, [0, 3, 5, 2]), velnias_end("last_card", 2, [3, 2, 6, 1])]


def history(setup: dict[str, Any]) -> dict[str, Any]:
    """A club's evening through the services: a Velnias session (two deals, an undo, a
    correction, a seat change, close, reopen, close again) and a Cheat session still running."""
    scorer, members, club = setup["users"]["scorer"], setup["members"], setup["club"]
    velnias = services.session_start(club=club, game="velnias", user=scorer, stake=Decimal("0.10"),
                                     players=[members[n] for n in ("admin", "scorer", "member", "Petras")])
    first = services.deal_start(session=velnias, user=scorer)
    services.entry_add(deal_id=first.pk, payload=TRICK_ENDS[0], user=scorer)
    second = services.deal_start(session=velnias, user=scorer)
    services.entry_add(deal_id=second.pk, payload=TRICK_ENDS[0], user=scorer, idempotency_key="k-1")
    services.entry_undo(deal_id=second.pk, user=scorer)
    services.entry_add(deal_id=second.pk, payload=TRICK_ENDS[1], user=scorer)
    services.entry_correct(deal_id=first.pk, seq=1, payload=velnias_end("empty_hand", 0, [0, 4, 5, 2]),
                           user=scorer)
    seat_correct(session=velnias, seat=3, member=members["Marius"], user=scorer)
    services.session_close(session=velnias, user=scorer)
    services.session_reopen(session=velnias, user=scorer)
    velnias.refresh_from_db()
    services.session_close(session=velnias, user=scorer)
    cheat = services.session_start(club=club, game="cheat", user=scorer,
                                   players=[members[n] for n in ("admin", "scorer", "member")])
    running = services.deal_start(session=cheat, user=scorer)
    for payload in CHEAT:
        services.entry_add(deal_id=running.pk, payload=payload, user=scorer)
    return {"velnias": velnias, "first": first, "second": second, "cheat": cheat, "running": running}
