"""Every CSV holds one table and writes its figures one way whatever the reader's language: a
decimal point and a plain "-", as its money columns' names say. The settlement's transfers and
its nets (two tables) are two files (``?table=``); so are the ledger's movements and its check."""

from __future__ import annotations

import csv
import io
from decimal import Decimal
from typing import Any

import pytest

from referee import services

pytestmark = pytest.mark.django_db


@pytest.fixture
def session(club_setup: dict[str, Any]) -> Any:
    """Velnias at 0.05 EUR a point with a 0.20 coin: Ona +27, Jonas −9, Rūta −10, Petras −8."""
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=scorer, stake=Decimal("0.05"),
                                     coin=Decimal("0.20"), players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    deal = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=deal.pk, user=scorer, payload={
        "type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]})
    return session


def rows_of(response: Any) -> list[list[str]]:
    assert response.status_code == 200, response.content
    return list(csv.reader(io.StringIO(response.content.decode())))


def one_table(rows: list[list[str]]) -> None:
    """Every row as wide as the header, no empty row between tables."""
    assert rows and all(len(row) == len(rows[0]) for row in rows), rows


@pytest.mark.parametrize("language", ["lt", "en"])
def test_the_settlement_is_two_files_of_one_table_each_with_a_decimal_point(
        api: Any, club_setup: dict[str, Any], session: Any, language: str) -> None:
    client = api(club_setup["users"]["member"])
    address = f"/api/sessions/{session.pk}/settlement/?format=csv"
    transfers = rows_of(client.get(address + "&table=transfers", HTTP_ACCEPT_LANGUAGE=language))
    one_table(transfers)
    assert rows_of(client.get(address, HTTP_ACCEPT_LANGUAGE=language)) == transfers  # the default
    assert transfers[0][:3] == ["from", "to", transfers[0][2]]
    assert transfers[0][2] in ("amount (EUR, decimal point)", "amount (EUR, dešimtainis taškas)")
    for row in transfers[1:]:
        amount = row[2]
        assert "," not in amount and "." in amount
        # The explanation writes the amounts as the amount column does: "1.35", never "1,35".
        assert amount in row[3] and "," + amount.split(".")[1] not in row[3].replace(", ", " ")
    nets = rows_of(client.get(address + "&table=nets", HTTP_ACCEPT_LANGUAGE=language))
    one_table(nets)
    assert len(nets) == 5 and nets[0][0] == "name"
    by_name = {row[0]: row[1:] for row in nets[1:]}
    assert by_name["Jonas"] == ["-0.45", "-0.40", "0.05"] or by_name["Jonas"][0] == "-0.45"
    assert all("," not in cell and "\u2212" not in cell for row in nets[1:] for cell in row[1:])


def test_an_unknown_table_is_refused_with_the_tables_there_are(api: Any, club_setup: dict[str, Any],
                                                               session: Any) -> None:
    response = api(club_setup["users"]["member"]).get(
        f"/api/sessions/{session.pk}/settlement/?format=csv&table=both", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400
    assert "Unknown table “both”; use transfers or nets." in response.content.decode()
    as_json = api(club_setup["users"]["member"]).get(
        f"/api/sessions/{session.pk}/ledger/?table=nets", HTTP_ACCEPT_LANGUAGE="en")
    assert (as_json.status_code, as_json.json()) == (
        400, {"error": "Unknown table “nets”; use movements or check.", "code": "invalid"})


def test_the_ledger_is_two_files_of_one_table_each(api: Any, club_setup: dict[str, Any], session: Any) -> None:
    client = api(club_setup["users"]["member"])
    address = f"/api/sessions/{session.pk}/ledger/?format=csv"
    movements = rows_of(client.get(address))
    one_table(movements)
    assert movements[0][0] == "deal" and len(movements) > 1
    check = rows_of(client.get(address + "&table=check"))
    one_table(check)
    assert check == [["players_net", "on_prize_cards", "total", "ok"], ["0", "0", "0", "yes"]]


def test_the_leaderboard_and_the_standings_name_their_money_format(api: Any, club_setup: dict[str, Any],
                                                                  session: Any) -> None:
    client = api(club_setup["users"]["member"])
    board = rows_of(client.get("/api/clubs/vilnius/leaderboard/?format=csv&min_deals=0", HTTP_ACCEPT_LANGUAGE="lt"))
    one_table(board)
    assert "money (EUR, decimal point)" in board[0] or "money (EUR, dešimtainis taškas)" in board[0]
    standings = rows_of(client.get(f"/api/sessions/{session.pk}/standings/?format=csv", HTTP_ACCEPT_LANGUAGE="en"))
    assert standings[-1][0] == "money (EUR, decimal point)"
    assert standings[-1][1:] == ["1.35", "-0.45", "-0.50", "-0.40"]
