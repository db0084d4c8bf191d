"""Debts that carry over: what each closed session's settlement left owing, what was paid, and
who still owes whom across sessions and club nights.

A member's balance is the sum of their nets over the club's closed sessions (each as its
settlement rounds it to the coin; positive: they are owed) plus what they paid minus what they
were paid. Balances sum to zero at all times (each session's nets do; each payment moves the
same amount from one member to another). Who still owes whom nets the balances with the same
fewest-transfers settlement a session uses.

A transfer is marked paid by its payer, its payee or a club admin; nothing is deleted: a mark
made by mistake is reversed by another payment of the opposite amount. The club's row is
locked while a payment is written, so two marks of one transfer at once store one.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import Sum
from django.utils.translation import gettext as _

from referee.errors import NotAllowed, NotFound, Refusal
from referee.models import Club, Member, Role, Session, SessionStatus
from referee.permissions import club_role

from ..ledger.ledger import settlement
from ..models import Payment, SessionNet
from .settlement import Transfer, fewest_transfers

CENT = Decimal("0.01")


@dataclass(frozen=True)
class OpenTransfer:
    """A closed session's settlement transfer not yet marked paid."""

    session: Session
    payer: int
    payee: int
    amount: Decimal


def session_nets(session: Session) -> dict[int, Decimal]:
    """The closed session's rounded nets by member, stored on first use."""
    rows = dict(SessionNet.objects.filter(session=session).values_list("member_id", "amount"))
    if rows or session.status != SessionStatus.CLOSED:
        return rows
    figures = settlement(session)
    nets = {row["member"].pk if hasattr(row["member"], "pk") else row["member"]: Decimal(row["rounded"])
            for row in figures["nets"]}
    SessionNet.objects.bulk_create(
        [SessionNet(session=session, club_id=session.club_id, member_id=member, amount=amount)
         for member, amount in nets.items()], ignore_conflicts=True)
    return nets


def forget_nets(session: Session) -> None:
    """The session is open again: its nets are no longer a closed settlement."""
    SessionNet.objects.filter(session=session).delete()


def _closed_sessions(club: Club) -> list[Session]:
    return list(Session.objects.filter(club=club, status=SessionStatus.CLOSED, stake__gt=0).order_by("closed_at", "pk"))


def balances(club: Club) -> dict[int, Decimal]:
    """Every member's running balance (positive: owed to them), members at zero left out."""
    have = set(SessionNet.objects.filter(club=club).values_list("session_id", flat=True).distinct())
    for session in _closed_sessions(club):
        if session.pk not in have:
            session_nets(session)
    balance: dict[int, Decimal] = defaultdict(Decimal)
    for member, amount in SessionNet.objects.filter(club=club).values("member_id").annotate(
            total=Sum("amount")).values_list("member_id", "total"):
        balance[member] += amount
    for member, amount in Payment.objects.filter(club=club).values("payer_id").annotate(
            total=Sum("amount")).values_list("payer_id", "total"):
        balance[member] += amount
    for member, amount in Payment.objects.filter(club=club).values("payee_id").annotate(
            total=Sum("amount")).values_list("payee_id", "total"):
        balance[member] -= amount
    return {member: amount.quantize(CENT) for member, amount in balance.items() if amount}


def who_owes_whom(club: Club) -> list[Transfer[int]]:
    """The fewest transfers that settle every running balance."""
    return [Transfer(t.payer, t.payee, t.amount.quantize(CENT))
            for t in fewest_transfers(sorted(balances(club).items()))]


def _paid(club: Club) -> dict[tuple[int, int, int], Decimal]:
    """What was paid per (session, payer, payee), reversals counted."""
    paid: dict[tuple[int, int, int], Decimal] = defaultdict(Decimal)
    for session, payer, payee, amount in Payment.objects.filter(club=club, session__isnull=False).values_list(
            "session_id", "payer_id", "payee_id", "amount"):
        paid[(session, payer, payee)] += amount
    return paid


def open_transfers(club: Club) -> list[OpenTransfer]:
    """The closed sessions' settlement transfers not yet marked paid, oldest session first."""
    paid = _paid(club)
    found = []
    for session in _closed_sessions(club):
        nets = session_nets(session)
        for transfer in fewest_transfers(sorted(nets.items())):
            if paid.get((session.pk, transfer.payer, transfer.payee), Decimal(0)) < transfer.amount:
                found.append(OpenTransfer(session, transfer.payer, transfer.payee, transfer.amount))
    return found


def _may_mark(user: Any, club: Club, payer: Member, payee: Member) -> None:
    role = club_role(user, club)
    if role is None:
        raise NotFound(_("Not found."))
    if role == Role.ADMIN or user.is_superuser or user.pk in (payer.user_id, payee.user_id):
        return
    raise NotAllowed(_("Only the payer, the payee or a club admin can mark a payment."))


def payment_mark(*, club: Club, payer: Member, payee: Member, user: Any, session: Session | None = None,
                 amount: Decimal | None = None) -> Payment:
    """Mark money handed over: a session's transfer (its amount), or toward the running balance
    (an amount up to what the payer owes the payee)."""
    if payer.club_id != club.pk or payee.club_id != club.pk or payer.pk == payee.pk:
        raise Refusal(_("Choose two different members of this club."))
    _may_mark(user, club, payer, payee)
    with transaction.atomic():
        Club.objects.select_for_update().get(pk=club.pk)
        if session is not None:
            session = Session.objects.get(pk=session.pk)  # as it is now, under the lock
            if session.club_id != club.pk or session.status != SessionStatus.CLOSED:
                raise Refusal(_("Only a closed session's settlement can be marked paid."))
            due = next((t.amount for t in fewest_transfers(sorted(session_nets(session).items()))
                        if (t.payer, t.payee) == (payer.pk, payee.pk)), None)
            if due is None:
                raise Refusal(_("%(payer)s owes %(payee)s nothing in this session's settlement.") % {
                    "payer": payer.name, "payee": payee.name})
            if _paid(club).get((session.pk, payer.pk, payee.pk), Decimal(0)) >= due:
                raise Refusal(_("This transfer is already marked paid."), code="already_paid")
            amount = due
        else:
            owed = next((t.amount for t in who_owes_whom(club) if (t.payer, t.payee) == (payer.pk, payee.pk)),
                        Decimal(0))
            if amount is None:
                amount = owed
            if amount <= 0 or amount > owed:
                raise Refusal(_("%(payer)s owes %(payee)s %(owed)s; a payment is more than 0 and at most that.") % {
                    "payer": payer.name, "payee": payee.name, "owed": owed})
        return Payment.objects.create(club=club, session=session, payer=payer, payee=payee, amount=amount,
                                      marked_by=user if getattr(user, "pk", None) else None)


def payment_reverse(*, payment: Payment, user: Any) -> Payment:
    """Take back a mark made by mistake: another row of the opposite amount (the first stays)."""
    _may_mark(user, payment.club, payment.payer, payment.payee)
    with transaction.atomic():
        Club.objects.select_for_update().get(pk=payment.club_id)
        payment = Payment.objects.select_for_update().get(pk=payment.pk)
        if payment.reversal_of_id is not None:
            raise Refusal(_("A reversal cannot be reversed; mark the payment again."))
        if Payment.objects.filter(reversal_of=payment).exists():
            raise Refusal(_("This payment is already reversed."), code="already_paid")
        return Payment.objects.create(club_id=payment.club_id, session_id=payment.session_id,
                                      payer_id=payment.payer_id, payee_id=payment.payee_id,
                                      amount=-payment.amount, reversal_of=payment,
                                      marked_by=user if getattr(user, "pk", None) else None)


def debts_view(club: Club, *, payments_shown: int = 50) -> dict[str, Any]:
    """Everything the debts page and the API show, with names: balances, who still owes whom,
    the sessions' transfers not yet marked paid, and the latest payments (reversed ones said so)."""
    names = dict(Member.objects.filter(club=club).values_list("pk", "name"))
    balance = balances(club)
    owes = who_owes_whom(club)
    open_ = open_transfers(club)
    reversed_ids = set(Payment.objects.filter(club=club, reversal_of__isnull=False).values_list(
        "reversal_of_id", flat=True))
    latest = list(Payment.objects.filter(club=club).select_related("marked_by", "session").order_by(
        "-marked_at", "-id")[:payments_shown])
    return {
        "club": club.slug,
        "currency": club.currency,
        "balances": [{"member": m, "name": names.get(m, "?"), "balance": amount}
                     for m, amount in sorted(balance.items(), key=lambda item: (-item[1], names.get(item[0], "")))],
        "owes": [{"from": t.payer, "from_name": names.get(t.payer, "?"), "to": t.payee,
                  "to_name": names.get(t.payee, "?"), "amount": t.amount} for t in owes],
        "open": [{"session": t.session.pk, "day": t.session.closed_at, "game": t.session.game,
                  "from": t.payer, "from_name": names.get(t.payer, "?"), "to": t.payee,
                  "to_name": names.get(t.payee, "?"), "amount": t.amount} for t in open_],
        "payments": [{"id": p.pk, "session": p.session_id, "from": p.payer_id, "from_name": names.get(p.payer_id, "?"),
                      "to": p.payee_id, "to_name": names.get(p.payee_id, "?"), "amount": p.amount,
                      "marked_by": p.marked_by.get_username() if p.marked_by else "", "marked_at": p.marked_at,
                      "reversal_of": p.reversal_of_id, "reversed": p.pk in reversed_ids} for p in latest],
    }
