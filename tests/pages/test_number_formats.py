"""Figures on the session page in the reader's language: one formatter for points and
money, "0,30" in Lithuanian and "0.30" in English, a real minus sign and never a "−0.00"."""

from __future__ import annotations

import html
import re
from decimal import Decimal
from typing import Any

import pytest
from django.utils import translation

from web.templatetags import table

from .conftest import record

pytestmark = pytest.mark.django_db

SEED_END = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}


def session_page(page: Any, start: Any, club_setup: dict, language: str) -> str:
    """A Velnias session at 0.03 EUR a point after one deal (Ona +27, Jonas −9, Rūta −10, Petras −8),
    read by a member."""
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    session = deal.session
    session.stake = Decimal("0.03")
    session.save()
    record(deal, club_setup["users"]["scorer"], SEED_END)
    response = page(club_setup["users"]["member"], language).get(f"/sessions/{session.pk}/")
    assert response.status_code == 200
    return html.unescape(response.content.decode())


def visible(body: str) -> str:
    """The page's words, tags and scripts left out, spaces squeezed."""
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", body, flags=re.S)
    return " ".join(re.sub(r"<[^>]+>", " ", body).split())


def test_the_session_page_writes_money_in_lithuanian(page: Any, start: Any, club_setup: dict) -> None:
    text = visible(session_page(page, start, club_setup, "lt"))
    assert "0,03 EUR už tašką" in text
    assert "1 Ona +27 0,81 2 Petras −8 −0,24 3 Jonas −9 −0,27 4 Rūta −10 −0,30" in text
    assert "Rūta moka → Ona: 0,30 EUR" in text
    assert "Ona +27 0,81 EUR Jonas −9 −0,27 EUR Rūta −10 −0,30 EUR Petras −8 −0,24 EUR" in text
    assert not re.search(r"\d\.\d\d", text)  # no English decimal point left anywhere


def test_the_session_page_writes_money_in_english(page: Any, start: Any, club_setup: dict) -> None:
    text = visible(session_page(page, start, club_setup, "en"))
    assert "0.03 EUR per point" in text
    assert "1 Ona +27 0.81 2 Petras −8 −0.24 3 Jonas −9 −0.27 4 Rūta −10 −0.30" in text
    assert "Rūta pays Ona 0.30 EUR" in text
    assert "Ona +27 0.81 EUR Jonas −9 −0.27 EUR Rūta −10 −0.30 EUR Petras −8 −0.24 EUR" in text
    assert not re.search(r"\d,\d\d", text)


@pytest.mark.parametrize("language", ["lt", "en"])
def test_no_figure_on_the_session_page_has_a_hyphen_minus_or_a_signed_zero(
    page: Any, start: Any, club_setup: dict, language: str
) -> None:
    text = visible(session_page(page, start, club_setup, language))
    assert not re.search(r"(?<![\w-])-\d", text)  # a real minus sign "−", never "-"
    assert not re.search(r"[−-]0[.,]00\b", text)


@pytest.mark.parametrize(("language", "value", "expected"), [
    ("lt", "-0.001", "0,00"), ("en", "-0.00", "0.00"), ("lt", Decimal("-1.2"), "−1,20"), ("en", "0.3", "0.30"),
    ("en", "–", "–"),  # a dash for "none" comes back as it is
])
def test_the_money_filter(language: str, value: Any, expected: str) -> None:
    with translation.override(language):
        assert table.money(value) == expected


@pytest.mark.parametrize(("value", "expected"), [
    (3, "+3"), (-3, "−3"), (0, "0"), ("-1.5", "−1.5"), (Decimal("2.25"), "+2.25"), ("–", "–"),
])
def test_the_signed_filter_writes_a_real_minus_sign(value: Any, expected: str) -> None:
    with translation.override("en"):
        assert table.signed(value) == expected
