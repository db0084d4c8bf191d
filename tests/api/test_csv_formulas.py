"""Every CSV export neutralises spreadsheet formulas: members named like formulas,
one Velnias deal with money, then each CSV read back cell by cell."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Any

import pytest

from scoring.csv_writer import cell

pytestmark = pytest.mark.django_db

NAMES = ['=HYPERLINK("http://x.example","pay")', "+1 Ona", "-Jonas", "@SUM(A1)", "\tRūta", "\rPetras"]
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


@pytest.fixture
def evening(club_setup: dict[str, Any]) -> Any:
    """Four of the formula-named members play one Velnias deal for money; the session is closed
    and its summary built."""
    from referee import services
    from referee.models import Member
    from scoring.summaries.services import build_and_store, request_summary

    scorer = club_setup["users"]["scorer"]
    players = [Member.objects.create(club=club_setup["club"], name=name) for name in NAMES[:4]]
    for name in NAMES[4:]:
        Member.objects.create(club=club_setup["club"], name=name)
    session = services.session_start(club=club_setup["club"], game="velnias", players=players, user=scorer,
                                     stake=Decimal("0.50"))
    deal = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=deal.pk, user=scorer, payload={
        "type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 3, 5, 2]})
    services.session_close(session=session, user=scorer)
    request_summary(session=session)
    build_and_store(session_id=session.pk)
    return session


def _cells(text: str) -> list[str]:
    return [value for row in csv.reader(io.StringIO(text)) for value in row]


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def test_every_csv_writes_formula_names_as_text_and_numbers_as_numbers(
    evening: Any, club_setup: dict[str, Any], api: Any
) -> None:
    client = api(club_setup["users"]["member"])
    addresses = [f"/api/sessions/{evening.pk}/{kind}/?format=csv" for kind in ("standings", "ledger", "settlement",
                                                                                "summary")]
    addresses.append("/api/clubs/vilnius/leaderboard/?min_deals=0&format=csv")
    negatives: list[str] = []
    for address in addresses:
        response = client.get(address)
        assert response.status_code == 200, address
        assert response["Content-Type"].startswith("text/csv"), address
        cells = _cells(response.content.decode())
        unescaped = [c for c in cells if c.startswith(FORMULA_STARTS) and not _is_number(c)]
        assert unescaped == [], address
        negatives += [c for c in cells if c.startswith("-")]
        named = {"'" + name for name in NAMES[:4]} & set(cells)
        assert len(named) >= 3, (address, cells)
    # Losses and debts are written as numbers a spreadsheet adds up.
    assert "-3" in negatives and all(_is_number(c) for c in negatives), negatives


@pytest.mark.parametrize(("value", "written"), [
    ("=1+2", "'=1+2"), ("+cmd", "'+cmd"), ("-2+3", "'-2+3"), ("@A1", "'@A1"), ("\tx", "'\tx"), ("\rx", "'\rx"),
    ("-3", "-3"), ("+3", "+3"), ("-12.50", "-12.50"), ("-1e5", "-1e5"), ("Ona", "Ona"), ("'=x", "'=x"),
    (-3, -3), (Decimal("-2.00"), Decimal("-2.00")), (1.5, 1.5), (None, ""), ("", ""),
])
def test_a_cell_is_text_when_a_spreadsheet_would_run_it(value: Any, written: Any) -> None:
    assert cell(value) == written
    assert type(cell(value)) is type(written)
