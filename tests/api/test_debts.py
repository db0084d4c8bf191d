"""Debts in the API: the club's balances and who owes whom (JSON and CSV), a payment marked
by its payer, a refusal that stores nothing, a reversal."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from referee import services
from scoring.models import Payment

pytestmark = pytest.mark.django_db


@pytest.fixture
def closed(club_setup: dict[str, Any]) -> Any:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=scorer, stake=Decimal("0.10"),
                                     players=[m["admin"], m["scorer"], m["member"]])
    deal = services.deal_start(session=session, user=scorer)
    services.entry_add(deal_id=deal.pk, user=scorer, payload={
        "type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 3, 5]})
    return services.session_close(session=session, user=scorer)


def test_debts_then_a_payment_by_the_payer_then_its_reversal(client_for: Any, club_setup: dict[str, Any],
                                                            closed: Any) -> None:
    m = club_setup["members"]
    ruta = client_for(club_setup["users"]["member"])
    view = ruta.get("/api/clubs/vilnius/debts/").json()
    assert sorted(view["owes"], key=lambda t: t["from_name"]) == [
        {"from": m["scorer"].pk, "from_name": "Jonas", "to": m["admin"].pk, "to_name": "Ona", "amount": "0.30"},
        {"from": m["member"].pk, "from_name": "Rūta", "to": m["admin"].pk, "to_name": "Ona", "amount": "0.50"},
    ]
    assert sorted((b["name"], b["balance"]) for b in view["balances"]) == [
        ("Jonas", "-0.30"), ("Ona", "0.80"), ("Rūta", "-0.50")]
    csv = ruta.get("/api/clubs/vilnius/debts/?format=csv")
    assert csv["Content-Type"].startswith("text/csv")
    assert csv.content.decode().splitlines()[0] == "payer,payee,\"amount (EUR, decimal point)\""
    # Rūta cannot mark Jonas' payment (neither payer, payee nor admin): nothing stored.
    refused = ruta.post("/api/clubs/vilnius/payments/", {"payer": m["scorer"].pk, "payee": m["admin"].pk,
                                                         "session": closed.pk}, format="json")
    assert refused.status_code == 403
    assert refused.json() == {"error": "Only the payer, the payee or a club admin can mark a payment.",
                              "code": "forbidden"}
    assert Payment.objects.count() == 0
    paid = ruta.post("/api/clubs/vilnius/payments/", {"payer": m["member"].pk, "payee": m["admin"].pk,
                                                      "session": closed.pk}, format="json")
    assert paid.status_code == 201 and paid.json()["amount"] == "0.50"
    again = ruta.post("/api/clubs/vilnius/payments/", {"payer": m["member"].pk, "payee": m["admin"].pk,
                                                       "session": closed.pk}, format="json")
    assert again.json() == {"error": "This transfer is already marked paid.", "code": "already_paid"}
    assert Payment.objects.count() == 1
    view = ruta.get("/api/clubs/vilnius/debts/").json()
    assert [(t["from_name"], t["amount"]) for t in view["owes"]] == [("Jonas", "0.30")]
    reversal = ruta.post(f"/api/clubs/vilnius/payments/{paid.json()['id']}/reverse/")
    assert reversal.status_code == 201 and reversal.json()["amount"] == "-0.50"
    assert sorted(t["amount"] for t in ruta.get("/api/clubs/vilnius/debts/").json()["owes"]) == ["0.30", "0.50"]


def test_a_payment_beyond_what_is_owed_is_refused(client_for: Any, club_setup: dict[str, Any], closed: Any) -> None:
    m = club_setup["members"]
    admin = client_for(club_setup["users"]["admin"])
    response = admin.post("/api/clubs/vilnius/payments/", {"payer": m["member"].pk, "payee": m["admin"].pk,
                                                           "amount": "9.00"}, format="json")
    assert response.json() == {"error": "Rūta owes Ona 0.50; a payment is more than 0 and at most that.",
                               "code": "refused"}
    assert Payment.objects.count() == 0
