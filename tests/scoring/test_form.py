"""Form, today's chance, rival and nemesis on a member's page."""

from __future__ import annotations

from typing import Any

import pytest

from scoring.models import OVERALL
from scoring.ratings import form, history
from tests.scoring.helpers import close, play, start, velnias_end

pytestmark = pytest.mark.django_db


def twelve_deals(setup: dict[str, Any]) -> None:
    """Ona always first, Jonas second but twice third, Rūta last but twice second."""
    session = start(setup, "velnias", ["admin", "scorer", "member"])
    for n in range(12):
        counts = [0, 2, 3] if n % 6 else [0, 3, 2]
        play(setup, session, [velnias_end("empty_hand", 0, counts)])
    close(setup, session)


def test_form_rival_nemesis_and_chance(club_setup: dict[str, Any], client: Any) -> None:
    twelve_deals(club_setup)
    m = club_setup["members"]
    club = club_setup["club"]
    ona = history.member_points(club_id=club.pk, member_id=m["admin"].pk, game=OVERALL)
    shape = form.form(ona)
    assert shape is not None and shape.deals == form.FORM_DEALS and shape.change > 0
    assert shape.change == round(ona[-1].mu - ona[-11].mu, 2)
    rival, nemesis = form.rival_and_nemesis(m["scorer"])
    # Jonas: 12 deals with each; Rūta placed above him twice (closest to even), Ona every time.
    assert (rival.name, rival.deals, rival.above, rival.below) == ("Rūta", 12, 2, 10)
    assert (nemesis.name, nemesis.above) == ("Ona", 12)
    chance = form.chance(club_id=club.pk, game="velnias", a=m["admin"].pk, b=m["member"].pk)
    assert chance is not None and chance > 0.9
    assert form.chance(club_id=club.pk, game="velnias", a=m["admin"].pk, b=m["Asta"].pk) is None
    client.force_login(club_setup["users"]["member"])
    page = client.get(f"/clubs/vilnius/members/{m['scorer'].pk}/?vs={m['admin'].pk}",
                      HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Rival" in page and "Nemesis" in page and "Running balance" in page
    assert "Today Jonas finishes ahead of Ona with a chance of" in page
