"""A club night ready for the API tests: seven of Vilnius' members present, round 1 drawn."""

from __future__ import annotations

from typing import Any

from evenings import services
from evenings.models import Evening, Round

PRESENT = ("admin", "scorer", "member", "Petras", "Asta", "Tomas", "Eglė")


def drawn_evening(club_setup: dict[str, Any]) -> tuple[Evening, Round]:
    scorer = club_setup["users"]["scorer"]
    evening = services.evening_open(club=club_setup["club"], user=scorer, game="velnias", name="Penktadienis",
                                    members=[club_setup["members"][role] for role in PRESENT])
    return evening, services.round_draw(evening=evening, user=scorer, seed=1)
