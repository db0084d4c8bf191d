"""Debts that carry over: balances are the sum of the closed sessions' settlements minus what
was paid, zero-sum at all times; a transfer is marked paid once, by its payer, its payee or
an admin; a mistaken mark is reversed by another record; two marks at once store one."""

from __future__ import annotations

import random
import threading
from decimal import Decimal
from typing import Any

import pytest
from django.db import connections
from django.utils import translation

from referee.errors import Refusal
from referee.models import Member
from scoring.ledger.ledger import settlement
from scoring.models import Payment
from scoring.settlement import debts
from tests.scoring.helpers import close, play, reopen, start, velnias_end

pytestmark = pytest.mark.django_db

THREE = ["admin", "scorer", "member"]


@pytest.fixture(autouse=True)
def _english() -> Any:
    with translation.override("en"):
        yield


def velnias_session(setup: dict[str, Any], counts: list[int], caller: int = 0, stake: str = "0.10") -> Any:
    session = start(setup, "velnias", THREE, stake=stake)
    play(setup, session, [velnias_end("empty_hand", caller, counts)])
    close(setup, session)
    return session


def settled(session: Any) -> dict[int, Decimal]:
    return {row["member"].pk if hasattr(row["member"], "pk") else row["member"]: Decimal(row["rounded"])
            for row in settlement(session)["nets"]}


def test_balances_are_the_settlements_added_up_and_sum_to_zero(club_setup: dict[str, Any]) -> None:
    one = velnias_session(club_setup, [0, 3, 5])          # Ona +0.80, Jonas -0.30, Rūta -0.50
    two = velnias_session(club_setup, [4, 0, 2], caller=1)  # Jonas +0.60, Ona -0.40, Rūta -0.20
    expected: dict[int, Decimal] = {}
    for session in (one, two):
        for member, amount in settled(session).items():
            expected[member] = expected.get(member, Decimal(0)) + amount
    m = club_setup["members"]
    assert debts.balances(club_setup["club"]) == {k: v for k, v in expected.items() if v}
    assert expected == {m["admin"].pk: Decimal("0.40"), m["scorer"].pk: Decimal("0.30"),
                        m["member"].pk: Decimal("-0.70")}
    owes = debts.who_owes_whom(club_setup["club"])
    assert sorted((t.payer, t.payee, t.amount) for t in owes) == sorted(
        [(m["member"].pk, m["admin"].pk, Decimal("0.40")), (m["member"].pk, m["scorer"].pk, Decimal("0.30"))])
    assert len(debts.open_transfers(club_setup["club"])) == 4  # two per session


def test_marking_paid_reversing_and_refusing_twice(club_setup: dict[str, Any]) -> None:
    session = velnias_session(club_setup, [0, 3, 5])
    m, users, club = club_setup["members"], club_setup["users"], club_setup["club"]
    paid = debts.payment_mark(club=club, session=session, payer=m["member"], payee=m["admin"], user=users["member"])
    assert (paid.amount, paid.marked_by) == (Decimal("0.50"), users["member"])
    assert [(t.payer, t.payee) for t in debts.open_transfers(club)] == [(m["scorer"].pk, m["admin"].pk)]
    assert debts.balances(club) == {m["admin"].pk: Decimal("0.30"), m["scorer"].pk: Decimal("-0.30")}
    with pytest.raises(Refusal, match="This transfer is already marked paid."):
        debts.payment_mark(club=club, session=session, payer=m["member"], payee=m["admin"], user=users["admin"])
    with pytest.raises(Refusal, match="Rūta owes Jonas nothing in this session's settlement."):
        debts.payment_mark(club=club, session=session, payer=m["member"], payee=m["scorer"], user=users["admin"])
    # Jonas (the scorer) is neither payer nor payee of Rūta's transfer, and not an admin.
    with pytest.raises(Refusal):
        debts.payment_reverse(payment=paid, user=users["scorer"])
    reversal = debts.payment_reverse(payment=paid, user=users["admin"])
    assert reversal.amount == Decimal("-0.50") and reversal.reversal_of == paid
    assert Payment.objects.count() == 2  # nothing deleted
    assert len(debts.open_transfers(club)) == 2
    with pytest.raises(Refusal, match="This payment is already reversed."):
        debts.payment_reverse(payment=paid, user=users["admin"])
    assert sum(debts.balances(club).values()) == 0


def test_a_payment_toward_the_running_balance(club_setup: dict[str, Any]) -> None:
    velnias_session(club_setup, [0, 3, 5])
    velnias_session(club_setup, [4, 0, 2], caller=1)
    m, users, club = club_setup["members"], club_setup["users"], club_setup["club"]
    with pytest.raises(Refusal, match="Rūta owes Ona 0.40; a payment is more than 0 and at most that."):
        debts.payment_mark(club=club, payer=m["member"], payee=m["admin"], amount=Decimal("1.00"), user=users["admin"])
    debts.payment_mark(club=club, payer=m["member"], payee=m["admin"], amount=Decimal("0.25"), user=users["admin"])
    assert debts.balances(club)[m["admin"].pk] == Decimal("0.15")
    assert sum(debts.balances(club).values()) == 0


def test_a_reopened_session_is_settled_again_at_its_next_close(club_setup: dict[str, Any]) -> None:
    session = velnias_session(club_setup, [0, 3, 5])
    club, m = club_setup["club"], club_setup["members"]
    assert debts.balances(club)[m["admin"].pk] == Decimal("0.80")
    reopen(club_setup, session)
    assert debts.balances(club) == {}  # an open session owes nothing yet
    play(club_setup, session, [velnias_end("empty_hand", 1, [2, 0, 2])])
    close(club_setup, session)
    assert debts.balances(club) == {m["admin"].pk: Decimal("0.60"), m["scorer"].pk: Decimal("0.10"),
                                    m["member"].pk: Decimal("-0.70")}


def test_balances_stay_zero_sum_over_random_sessions_and_payments(club_setup: dict[str, Any]) -> None:
    rng = random.Random(31)
    club, users = club_setup["club"], club_setup["users"]
    for step in range(12):
        if step % 3 != 2:
            caller = rng.randrange(3)
            counts = [0 if seat == caller else rng.randint(1, 11) for seat in range(3)]
            velnias_session(club_setup, counts, caller=caller, stake=rng.choice(["0.10", "0.05", "1.00"]))
        else:
            owes = debts.who_owes_whom(club)
            if owes:
                t = rng.choice(owes)
                payer, payee = Member.objects.get(pk=t.payer), Member.objects.get(pk=t.payee)
                debts.payment_mark(club=club, payer=payer, payee=payee, amount=t.amount, user=users["admin"])
        balances = debts.balances(club)
        assert sum(balances.values()) == 0
        nets = sum((sum(settled(s).values(), Decimal(0)) for s in club.sessions.all()), Decimal(0))
        assert nets == 0


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_marks_of_one_transfer_at_once_store_one(require_postgres: None, club_setup: dict[str, Any]) -> None:
    session = velnias_session(club_setup, [0, 3, 5])
    m, users, club = club_setup["members"], club_setup["users"], club_setup["club"]
    for _round in range(5):
        Payment.objects.all().delete()
        barrier = threading.Barrier(2)
        outcomes: list[str] = []

        def mark(user: Any, barrier: threading.Barrier = barrier, outcomes: list[str] = outcomes) -> None:
            try:
                barrier.wait(timeout=30)
                debts.payment_mark(club=club, session=session, payer=m["member"], payee=m["admin"], user=user)
                outcomes.append("paid")
            except Refusal as refusal:
                outcomes.append(refusal.code)
            finally:
                connections.close_all()

        threads = [threading.Thread(target=mark, args=(user,)) for user in (users["member"], users["admin"])]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert sorted(outcomes) == ["already_paid", "paid"]
        assert Payment.objects.count() == 1
