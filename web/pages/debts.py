"""Who still owes whom: the club's running balances across sessions and club nights, the
sessions' transfers not yet marked paid, and the payments (each can be reversed, nothing is
deleted). Every member reads it; the payer, the payee or an admin marks a payment."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from referee.errors import Refusal
from referee.models import Club, Member, Role, Session
from referee.safe_input import read_int
from scoring.models import Payment
from scoring.settlement import debts
from web.pages.access import club_or_404


def _page(request: HttpRequest, club: Club, role: str, *, error: str = "", status: int = 200) -> HttpResponse:
    view = debts.debts_view(club)
    me = set(Member.objects.filter(club=club, user_id=request.user.pk or 0).values_list("pk", flat=True))
    admin = role == Role.ADMIN

    def mine(row: dict[str, object]) -> bool:
        return admin or row["from"] in me or row["to"] in me

    for key in ("owes", "open", "payments"):
        for row in view[key]:
            row["can_mark"] = mine(row)
    return render(request, "scoring/debts.html", {
        "club": club, "role": role, "view": view, "error": error,
        "csv": reverse("api-debts", args=[club.slug]) + "?format=csv",
    }, status=status)


@login_required
def debts_page(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = club_or_404(request.user, slug)
    return _page(request, club, role)


@login_required
@require_POST
def payment_mark(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = club_or_404(request.user, slug)
    post = request.POST
    try:
        payer = Member.objects.filter(club=club, pk=read_int(post.get("payer", "")) or 0).first()
        payee = Member.objects.filter(club=club, pk=read_int(post.get("payee", "")) or 0).first()
        if payer is None or payee is None:
            raise Refusal(_("Choose two different members of this club."))
        session = Session.objects.filter(club=club, pk=read_int(post.get("session", "")) or 0).first()
        amount = None
        if session is None and post.get("amount"):
            try:
                amount = Decimal(post["amount"].replace(",", "."))
            except InvalidOperation:
                raise Refusal(_("The stake is an amount like 0.50.")) from None
            if not amount.is_finite():
                raise Refusal(_("The stake is an amount like 0.50."))
        debts.payment_mark(club=club, payer=payer, payee=payee, session=session, amount=amount, user=request.user)
    except Refusal as error:
        return _page(request, club, role, error=error.message, status=error.status)
    return redirect(reverse("debts", args=[club.slug]))


@login_required
@require_POST
def payment_reverse(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    club, role = club_or_404(request.user, slug)
    payment = Payment.objects.filter(club=club, pk=pk).select_related("club", "payer", "payee").first()
    try:
        if payment is None:
            raise Refusal(_("Not found."))
        debts.payment_reverse(payment=payment, user=request.user)
    except Refusal as error:
        return _page(request, club, role, error=error.message, status=error.status)
    return redirect(reverse("debts", args=[club.slug]))
