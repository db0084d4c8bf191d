"""Debts that carry over, in the API: a club's running balances and who still owes whom (JSON
or CSV), marking a transfer paid, reversing a mark. Thin: ``scoring.settlement.debts`` decides."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee.errors import NotFound
from referee.models import Club, Member, Session
from scoring.models import Payment
from scoring.settlement import debts
from web.api import fields as f
from web.api.scoring import FORMAT, RENDERERS, JSONOrCSV, _csv, _money_column, _responses, _wants_csv
from web.api.serializers import ErrorSerializer
from web.api.views import _club_for

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404)}


class PaymentSerializer(serializers.Serializer[Any]):
    payer = f.IntegerField(min_value=1, max_value=2**31 - 1)
    payee = f.IntegerField(min_value=1, max_value=2**31 - 1)
    session = f.IntegerField(min_value=1, max_value=2**31 - 1, required=False, allow_null=True, default=None,
                             help_text="A closed session whose settlement transfer this pays (its amount); "
                                       "none: a payment toward the running balance.")
    amount = f.AmountField(max_digits=10, decimal_places=2, min_value=Decimal("0.01"), required=False,
                          allow_null=True, default=None,
                          help_text="Toward the running balance: at most what the payer owes (default: all of it).")


class PaymentReadSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    session = serializers.IntegerField(source="session_id", allow_null=True)
    payer = serializers.IntegerField(source="payer_id")
    payee = serializers.IntegerField(source="payee_id")
    amount = serializers.DecimalField(max_digits=14, decimal_places=2)
    marked_at = serializers.DateTimeField()
    reversal_of = serializers.IntegerField(source="reversal_of_id", allow_null=True)


def _money_as_text(value: Any) -> Any:
    """Amounts as the API writes money everywhere: text with two decimals ("0.50"), never a float."""
    if isinstance(value, Decimal):
        return f"{value:.2f}"
    if isinstance(value, dict):
        return {key: _money_as_text(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_money_as_text(item) for item in value]
    return value


def _member(club: Club, pk: int) -> Member:
    member = Member.objects.filter(club=club, pk=pk).first()
    if member is None:
        raise NotFound(_("No member %(id)s in this club.") % {"id": pk})
    return member


class DebtsView(APIView):
    renderer_classes = RENDERERS
    content_negotiation_class = JSONOrCSV

    @extend_schema(summary="Running balances, who still owes whom, unpaid transfers and the latest payments",
                   parameters=[FORMAT], responses=_responses("Balances, owes, open transfers, payments."),
                   tags=["debts"])
    def get(self, request: Request, slug: str) -> Response:
        club = _club_for(request.user, slug)
        data = _money_as_text(debts.debts_view(club))
        if not _wants_csv(request):
            return Response(data)
        rows: list[list[Any]] = [[_("payer"), _("payee"), _money_column(_("amount"), data["currency"])]]
        rows += [[t["from_name"], t["to_name"], t["amount"]] for t in data["owes"]]
        return _csv(rows, f"{club.slug}-who-owes-whom.csv")


class PaymentsView(APIView):
    @extend_schema(request=PaymentSerializer, responses={201: PaymentReadSerializer, **ERRORS}, tags=["debts"],
                   summary="Mark money handed over (by the payer, the payee or an admin)")
    def post(self, request: Request, slug: str) -> Response:
        club = _club_for(request.user, slug)
        data = PaymentSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        session = None
        if values["session"] is not None:
            session = Session.objects.filter(club=club, pk=values["session"]).first()
            if session is None:
                raise NotFound(_("No session %(id)s in this club.") % {"id": values["session"]})
        payment = debts.payment_mark(club=club, payer=_member(club, values["payer"]),
                                     payee=_member(club, values["payee"]), session=session,
                                     amount=values["amount"], user=request.user)
        return Response(PaymentReadSerializer(payment).data, status=status.HTTP_201_CREATED)


class PaymentReverseView(APIView):
    @extend_schema(request=None, responses={201: PaymentReadSerializer, **ERRORS}, tags=["debts"],
                   summary="Reverse a payment marked by mistake (another record; nothing is deleted)")
    def post(self, request: Request, slug: str, pk: int) -> Response:
        club = _club_for(request.user, slug)
        payment = Payment.objects.filter(club=club, pk=pk).select_related("club", "payer", "payee").first()
        if payment is None:
            raise NotFound(_("Not found."))
        return Response(PaymentReadSerializer(debts.payment_reverse(payment=payment, user=request.user)).data,
                        status=status.HTTP_201_CREATED)



