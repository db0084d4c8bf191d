"""The club night's API: evenings, arrivals and departures, the draw, the director's swap,
starting a round, the evening's standings. Thin: the serializer checks shape, the services
of ``evenings`` decide, one error format."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from evenings import selectors, services
from evenings.models import ByeScore, Evening, Round
from referee.errors import NotFound
from referee.models import GAME_CHOICES, Club, Member
from scoring.evening_standings import TIE_BREAKS, evening_standings
from scoring.ratings.rating import strengths
from web.api import fields as f
from web.api import serializers as s
from web.api.views import _club_for

ERRORS = {code: OpenApiResponse(s.ErrorSerializer) for code in (400, 401, 403, 404)}
CONFLICT = {409: OpenApiResponse(s.ErrorSerializer)}


def member_id(**extra: Any) -> f.IntegerField:
    return f.IntegerField(min_value=1, max_value=2**31 - 1, **extra)


class EveningCreateSerializer(serializers.Serializer[Any]):
    game = f.ChoiceField(choices=GAME_CHOICES)
    name = f.CharField(max_length=80, required=False, allow_blank=True, default="")
    rounds = f.IntegerField(min_value=1, max_value=50, required=False, allow_null=True, default=None,
                            help_text="Rounds planned; null: open-ended.")
    table_size = f.IntegerField(min_value=2, max_value=8, default=4, help_text="The club's preferred table size.")
    options = serializers.DictField(required=False, default=dict, help_text="House rules (RULES.md).")
    stake = f.StakeField(max_digits=10, decimal_places=2, min_value=Decimal("0"), default=Decimal("0"))
    coin = f.CoinField(max_digits=6, decimal_places=2, min_value=Decimal("0.01"), required=False, allow_null=True)
    bye_score = f.ChoiceField(choices=ByeScore.choices, default=ByeScore.HALF,
                              help_text="What a round sat out counts: half a round, or nothing.")
    members = serializers.ListField(child=member_id(), required=False, default=list,
                                    max_length=200, help_text="Member ids present from the start.")


class MemberRefSerializer(serializers.Serializer[Any]):
    member = member_id()


class DrawSerializer(serializers.Serializer[Any]):
    seed = f.IntegerField(min_value=0, max_value=2**31 - 1, required=False, allow_null=True, default=None,
                          help_text="The draw's seed (the same facts and seed give the same seating); "
                                    "random when not given.")


class SwapSerializer(serializers.Serializer[Any]):
    first = member_id()
    second = member_id()
    expected_version = f.IntegerField(min_value=1, max_value=2**31 - 1, required=False, allow_null=True, default=None,
                                      help_text="The round's version the screen showed; a stale one is refused (409).")


class StartSerializer(serializers.Serializer[Any]):
    expected_version = f.IntegerField(min_value=1, max_value=2**31 - 1, required=False, allow_null=True, default=None)


class TableSerializer(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    seats = serializers.ListField(child=serializers.IntegerField(), help_text="Member ids, seat 1 first.")
    session = serializers.IntegerField(source="session_id", allow_null=True)
    finished = serializers.SerializerMethodField(help_text="The table's session is closed.")

    def get_finished(self, table: Any) -> bool:
        return table.session is not None and table.session.status == "closed"


class RoundSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    number = serializers.IntegerField()
    version = serializers.IntegerField()
    seed = serializers.IntegerField()
    started_at = serializers.DateTimeField(allow_null=True)
    costs = serializers.DictField(child=serializers.FloatField(), help_text="The cost of every term now.")
    drawn_costs = serializers.DictField(child=serializers.FloatField(), help_text="Each term as the draw chose.")
    byes = serializers.ListField(child=serializers.IntegerField())
    tables = TableSerializer(many=True)


class EveningSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    club = serializers.CharField(source="club.slug", help_text="The club's slug.")
    game = serializers.CharField()
    name = serializers.CharField()
    day = serializers.DateField()
    rounds = serializers.IntegerField(allow_null=True)
    table_size = serializers.IntegerField()
    options = serializers.DictField()
    stake = serializers.DecimalField(max_digits=10, decimal_places=2)
    coin = serializers.DecimalField(max_digits=6, decimal_places=2, allow_null=True)
    bye_score = serializers.CharField()
    status = serializers.CharField()
    present = serializers.SerializerMethodField(help_text="Member ids present now.")

    def get_present(self, evening: Evening) -> list[int]:
        return [p.member_id for p in evening.players.all() if p.left_at is None]


class EveningDetailSerializer(EveningSerializer):
    round_list = RoundSerializer(many=True, source="round_set")


class StandingSerializer(serializers.Serializer[Any]):
    place = serializers.IntegerField()
    member = serializers.IntegerField(source="member_id")
    name = serializers.CharField()
    score = serializers.FloatField(help_text="The sum of the round scores (each 0-1, by place at the table).")
    rounds_won = serializers.IntegerField()
    deals = serializers.IntegerField()
    deals_won = serializers.IntegerField()
    points = serializers.IntegerField(help_text="The game's own unit over the evening.")
    money = serializers.DecimalField(max_digits=14, decimal_places=2)
    byes = serializers.IntegerField()


class StandingsSerializer(serializers.Serializer[Any]):
    tie_breaks = serializers.ListField(child=serializers.CharField())
    rows = StandingSerializer(many=True)


def _evening_for(user: Any, pk: int) -> Evening:
    evening = selectors.with_rounds(selectors.evenings_for(user)).filter(pk=pk).first()
    if evening is None:
        raise NotFound(_("Not found."))
    return evening


def _round_for(user: Any, pk: int) -> Round:
    found = Round.objects.select_related("evening__club").filter(pk=pk).first()
    if found is None or not selectors.evenings_for(user).filter(pk=found.evening_id).exists():
        raise NotFound(_("Not found."))
    return found


def _member(club: Club, pk: int) -> Member:
    member = Member.objects.filter(club=club, pk=pk).first()
    if member is None:
        raise NotFound(_("No member %(id)s in this club.") % {"id": pk})
    return member


def _detail(user: Any, pk: int) -> Response:
    return Response(EveningDetailSerializer(_evening_for(user, pk)).data)


def _strengths(evening: Evening) -> dict[int, float]:
    return strengths(club_id=evening.club_id, game=evening.game)


def _arrive_or_leave(request: Request, pk: int, change: Any) -> Response:
    """Arriving and leaving read the same body and answer the same detail; only the service differs."""
    evening = _evening_for(request.user, pk)
    data = MemberRefSerializer(data=request.data)
    data.is_valid(raise_exception=True)
    member = _member(evening.club, data.validated_data["member"])
    change(evening=evening, member=member, user=request.user, strengths=_strengths(evening))
    return _detail(request.user, pk)


class EveningListView(APIView):
    @extend_schema(responses={200: EveningSerializer(many=True), **ERRORS}, tags=["club nights"])
    def get(self, request: Request, slug: str) -> Response:
        club = _club_for(request.user, slug)
        evenings = selectors.with_rounds(Evening.objects.filter(club=club).select_related("club"))
        return Response(EveningSerializer(evenings, many=True).data)

    @extend_schema(request=EveningCreateSerializer, responses={201: EveningDetailSerializer, **ERRORS},
                   tags=["club nights"])
    def post(self, request: Request, slug: str) -> Response:
        club = _club_for(request.user, slug)
        data = EveningCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = dict(data.validated_data)
        members = [_member(club, pk) for pk in dict.fromkeys(values.pop("members"))]
        evening = services.evening_open(club=club, user=request.user, members=members, **values)
        return Response(EveningDetailSerializer(_evening_for(request.user, evening.pk)).data,
                        status=status.HTTP_201_CREATED)


class EveningDetailView(APIView):
    @extend_schema(responses={200: EveningDetailSerializer, **ERRORS}, tags=["club nights"])
    def get(self, request: Request, pk: int) -> Response:
        return _detail(request.user, pk)


class EveningArriveView(APIView):
    @extend_schema(request=MemberRefSerializer, responses={200: EveningDetailSerializer, **ERRORS},
                   tags=["club nights"], summary="A member arrives (placed from the next round not yet started)")
    def post(self, request: Request, pk: int) -> Response:
        return _arrive_or_leave(request, pk, services.player_arrive)


class EveningLeaveView(APIView):
    @extend_schema(request=MemberRefSerializer, responses={200: EveningDetailSerializer, **ERRORS},
                   tags=["club nights"], summary="A member leaves (taken out of the rounds not yet started)")
    def post(self, request: Request, pk: int) -> Response:
        return _arrive_or_leave(request, pk, services.player_leave)


class EveningDrawView(APIView):
    @extend_schema(request=DrawSerializer, responses={201: RoundSerializer, **ERRORS}, tags=["club nights"],
                   summary="Draw the next round, or draw again the one not yet started")
    def post(self, request: Request, pk: int) -> Response:
        evening = _evening_for(request.user, pk)
        data = DrawSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        drawn = services.round_draw(evening=evening, user=request.user, strengths=_strengths(evening),
                                    seed=data.validated_data["seed"])
        return Response(RoundSerializer(drawn).data, status=status.HTTP_201_CREATED)


class EveningCloseView(APIView):
    @extend_schema(request=None, responses={200: EveningDetailSerializer, **ERRORS}, tags=["club nights"])
    def post(self, request: Request, pk: int) -> Response:
        services.evening_close(evening=_evening_for(request.user, pk), user=request.user)
        return _detail(request.user, pk)


class EveningStandingsView(APIView):
    @extend_schema(responses={200: StandingsSerializer, **ERRORS}, tags=["club nights"])
    def get(self, request: Request, pk: int) -> Response:
        evening = _evening_for(request.user, pk)
        rows = evening_standings(evening)
        return Response(StandingsSerializer({"tie_breaks": [str(t) for t in TIE_BREAKS], "rows": rows}).data)


class RoundSwapView(APIView):
    @extend_schema(request=SwapSerializer, responses={200: RoundSerializer, **ERRORS, **CONFLICT},
                   tags=["club nights"], summary="Swap two players of a round not yet started")
    def post(self, request: Request, pk: int) -> Response:
        found = _round_for(request.user, pk)
        data = SwapSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        club = found.evening.club
        swapped = services.round_swap(
            round=found, user=request.user, first=_member(club, data.validated_data["first"]),
            second=_member(club, data.validated_data["second"]),
            expected_version=data.validated_data["expected_version"])
        return Response(RoundSerializer(swapped).data)


class RoundStartView(APIView):
    @extend_schema(request=StartSerializer, responses={200: RoundSerializer, **ERRORS, **CONFLICT},
                   tags=["club nights"], summary="Start a round: one session per table")
    def post(self, request: Request, pk: int) -> Response:
        found = _round_for(request.user, pk)
        data = StartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        started = services.round_start(round=found, user=request.user,
                                       expected_version=data.validated_data["expected_version"])
        return Response(RoundSerializer(started).data)
