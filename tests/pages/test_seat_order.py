"""The session form's seat order: tap targets with their seat numbers, the seat
order list for the script, and the typed seat numbers kept as the fallback without JavaScript."""

from __future__ import annotations

import html
from typing import Any

import pytest

from referee.models import Session

pytestmark = pytest.mark.django_db


def test_the_form_offers_taps_with_the_typed_seats_as_fallback(page: Any, club_setup: dict) -> None:
    body = html.unescape(page(club_setup["users"]["scorer"]).get("/clubs/vilnius/sessions/new/").content.decode())
    ona = club_setup["members"]["admin"].pk
    assert f'data-seat-badge="{ona}"' in body
    assert '<span class="seat-typed no-js-only">' in body  # hidden once the script runs
    assert "Tap the players in the order they sit, clockwise: the first tapped is seat 1." in body
    assert 'data-earlier="Move {name} one seat earlier"' in body
    assert 'src="/static/js/seats.js"' in body


def test_a_refused_start_shows_the_seats_again(page: Any, club_setup: dict) -> None:
    m = club_setup["members"]
    response = page(club_setup["users"]["scorer"]).post("/clubs/vilnius/sessions/new/", {
        "game": "velnias", "notation": "en", "stake": "0",
        f"play_{m['Petras'].pk}": "1", f"seat_{m['Petras'].pk}": "1",
        f"play_{m['admin'].pk}": "1", f"seat_{m['admin'].pk}": "2",
    })
    assert response.status_code == 400
    body = response.content.decode()
    assert f'data-seat-badge="{m["Petras"].pk}" aria-hidden="true">1</span>' in body
    assert f'data-seat-badge="{m["admin"].pk}" aria-hidden="true">2</span>' in body
    assert not Session.objects.exists()


def test_the_seat_order_speaks_lithuanian(page: Any, club_setup: dict) -> None:
    body = page(club_setup["users"]["scorer"], language="lt").get("/clubs/vilnius/sessions/new/").content.decode()
    assert "Prie stalo" in body and 'data-earlier="{name} – viena vieta anksčiau"' in body
