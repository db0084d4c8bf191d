"""The correction form of a closed session says so before anything is filled in."""

from __future__ import annotations

from typing import Any

import pytest

from tests.scoring.helpers import close, play, start, velnias_end

pytestmark = pytest.mark.django_db


def test_a_closed_sessions_correction_page_says_it_is_closed_first(club_setup: dict[str, Any], client: Any) -> None:
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    deal = play(club_setup, session, [velnias_end("empty_hand", 0, [0, 2, 3])])
    close(club_setup, session)
    client.force_login(club_setup["users"]["scorer"])
    page = client.get(f"/deals/{deal.pk}/entries/1/correct/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "This session is closed; reopen it to record or correct anything." in page
    assert 'id="form-correct"' not in page


def test_the_close_confirmation_names_the_prize_cards_split(club_setup: dict[str, Any], client: Any) -> None:
    session = start(club_setup, "michigan", ["admin", "scorer", "member"], stake="0.05")
    play(club_setup, session, [{"type": "out", "player": 0, "hand_counts": [0, 3, 5]}])
    client.force_login(club_setup["users"]["scorer"])
    page = client.get(f"/sessions/{session.pk}/close/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Closing also splits the chips left on the prize cards (M3), included below:" in page
