"""Seasons in the API: the club's seasons, a new one (admins), a season's table (JSON or CSV),
closing it (admins). Thin: ``scoring.seasons`` decides."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee.errors import NotFound
from referee.models import GAME_CHOICES
from referee.permissions import club_role
from scoring import seasons
from scoring.models import Season
from web.api import fields as f
from web.api.scoring import FORMAT, RENDERERS, JSONOrCSV, _csv, _responses, _wants_csv
from web.api.serializers import ErrorSerializer
from web.api.views import _club_for

ERRORS = {code: OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404)}


class SeasonCreateSerializer(serializers.Serializer[Any]):
    name = f.CharField(max_length=80)
    start = serializers.DateField()
    end = serializers.DateField()
    game = f.ChoiceField(choices=[("", "all games"), *GAME_CHOICES], required=False, default="")
    unit = f.ChoiceField(choices=Season.Unit.choices, default=Season.Unit.SESSION)
    best_of = f.IntegerField(min_value=1, max_value=999, required=False, allow_null=True, default=None)
    min_results = f.IntegerField(min_value=0, max_value=999, default=0)
    below_minimum = f.ChoiceField(choices=Season.BelowMinimum.choices, default=Season.BelowMinimum.UNRANKED)
    tie_breaks = serializers.ListField(child=f.ChoiceField(choices=list(seasons.TIE_BREAKS)), required=False,
                                       max_length=len(seasons.TIE_BREAKS), default=list(seasons.DEFAULT_TIE_BREAKS))
    divisions = f.IntegerField(min_value=1, max_value=9, default=1)
    movers = f.IntegerField(min_value=1, max_value=99, default=2,
                            help_text="How many go up and down at each division's boundary.")


class SeasonSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    name = serializers.CharField()
    start = serializers.DateField()
    end = serializers.DateField()
    game = serializers.CharField()
    unit = serializers.CharField()
    best_of = serializers.IntegerField(allow_null=True)
    min_results = serializers.IntegerField()
    below_minimum = serializers.CharField()
    tie_breaks = serializers.ListField(child=serializers.CharField())
    divisions = serializers.IntegerField()
    movers = serializers.IntegerField()
    closed_at = serializers.DateTimeField(allow_null=True)


def _season_for(user: Any, pk: int) -> Season:
    season = Season.objects.select_related("club").filter(pk=pk).first()
    if season is None or club_role(user, season.club) is None:
        raise NotFound(_("Not found."))
    return season


class SeasonListView(APIView):
    @extend_schema(responses={200: SeasonSerializer(many=True), **ERRORS}, tags=["seasons"])
    def get(self, request: Request, slug: str) -> Response:
        return Response(SeasonSerializer(Season.objects.filter(club=_club_for(request.user, slug)), many=True).data)

    @extend_schema(request=SeasonCreateSerializer, responses={201: SeasonSerializer, **ERRORS}, tags=["seasons"])
    def post(self, request: Request, slug: str) -> Response:
        club = _club_for(request.user, slug)
        data = SeasonCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        season = seasons.season_create(club=club, user=request.user, **data.validated_data)
        return Response(SeasonSerializer(season).data, status=status.HTTP_201_CREATED)


class SeasonTableView(APIView):
    renderer_classes = RENDERERS
    content_negotiation_class = JSONOrCSV

    @extend_schema(summary="The season's table: places, scores, each result counted or struck through",
                   parameters=[FORMAT], responses=_responses("season, rows, changes since the close."),
                   tags=["seasons"])
    def get(self, request: Request, pk: int) -> Response:
        season = _season_for(request.user, pk)
        rows = seasons.season_table(season)
        table = seasons.table_json(rows)
        if not _wants_csv(request):
            return Response({"season": SeasonSerializer(season).data, "rows": table, "frozen": season.frozen,
                             "changes_since_close": seasons.changes_since_close(season, rows)})
        csv_rows: list[list[Any]] = [[_("place"), _("member"), _("score"), _("results"), _("counted")]]
        csv_rows += [[r["place"] if r["place"] is not None else "", r["name"], r["score"], len(r["results"]),
                      sum(1 for res in r["results"] if res["counted"])] for r in table]
        return _csv(csv_rows, f"season-{season.pk}.csv")


class SeasonCloseView(APIView):
    @extend_schema(request=None, responses={200: SeasonSerializer, **ERRORS}, tags=["seasons"])
    def post(self, request: Request, pk: int) -> Response:
        return Response(SeasonSerializer(seasons.season_close(season=_season_for(request.user, pk),
                                                              user=request.user)).data)
