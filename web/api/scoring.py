"""Scoring endpoints: session standings, ledger and settlement; club leaderboard, head-to-head and
member history. Thin: the query parameters are checked here, the selectors compute.

CSV: add ``?format=csv`` (or send ``Accept: text/csv``) to standings, ledger, settlement or
leaderboard for the same figures as a spreadsheet. Every file holds one table (the settlement's
transfers and its nets are two: ``?table=transfers`` or ``?table=nets``; the ledger's movements
and its zero-sum check likewise) and writes its figures the locale-independent way, a decimal
point and a plain "-", as its column names say ("amount (EUR, decimal point)"), whatever the
reader's language (``referee.numbers.plain_figures``).
"""

from __future__ import annotations

import io
from collections.abc import Iterable, Sequence
from datetime import date
from typing import Any

from django.db import connection
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy as _lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from referee import safe_input
from referee import selectors as referee_selectors
from referee.errors import NotAllowed, NotFound, Refusal
from referee.models import GAME_CHOICES, Club, Member, Session
from referee.numbers import plain_figures
from referee.permissions import club_role, signed_in_id
from scoring import selectors
from scoring.csv_writer import SpreadsheetWriter
from web.api.fields import ExactQueryValue, QueryChoiceField, QueryIntegerField
from web.api.serializers import ErrorSerializer


class CSVRenderer(BaseRenderer):
    """Rows (a list of lists) as CSV, formulas neutralised; an error body as a one-column CSV."""

    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data: Any, accepted_media_type: str | None = None, renderer_context: Any = None) -> bytes:
        if isinstance(data, dict):
            data = [["error"], [data.get("error", "")]]
        out = io.StringIO()
        SpreadsheetWriter(out, lineterminator="\n").writerows(data or [])
        return out.getvalue().encode("utf-8")


RENDERERS: list[type[BaseRenderer]] = [*api_settings.DEFAULT_RENDERER_CLASSES, CSVRenderer]  # type: ignore[list-item]


class JSONOrCSV(DefaultContentNegotiation):
    """``?format=`` names json or csv, nothing else: DRF would read an empty one as absent."""

    def select_renderer(self, request: Request, renderers: Any, format_suffix: str | None = None) -> Any:
        fmt = request.query_params.get("format")
        if fmt is not None and fmt not in ("json", "csv"):
            raise Refusal(_("Unknown format “%(format)s”; use json or csv.") % {"format": fmt[:20]}, code="invalid")
        return super().select_renderer(request, renderers, format_suffix)
# Errors are JSON even where the answer could be CSV (see web/api/errors.py).
ERRORS = {(code, "application/json"): OpenApiResponse(ErrorSerializer) for code in (400, 401, 403, 404)}
FORMAT = OpenApiParameter(
    "format", str, enum=["json", "csv"], required=False,
    description="`csv` returns the same figures as CSV (text/csv); default JSON.",
)


LEDGER_TABLE = OpenApiParameter(
    "table", str, enum=["movements", "check"], required=False,
    description="With `csv`: the movements (default) or the zero-sum check, each a file of its own "
                "(JSON holds both).",
)
SETTLEMENT_TABLE = OpenApiParameter(
    "table", str, enum=["transfers", "nets"], required=False,
    description="With `csv`: who pays whom (default) or each player's net, each a file of its own "
                "(JSON holds both).",
)


def _responses(description: str, csv_too: bool = True) -> dict[Any, Any]:
    body: dict[Any, Any] = {(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description=description)}
    if csv_too:
        body[(200, "text/csv")] = OpenApiResponse(OpenApiTypes.STR, description="The same figures as CSV.")
    return {**body, **ERRORS}


def _wants_csv(request: Request) -> bool:
    return getattr(request.accepted_renderer, "format", None) == "csv"


def _csv(rows: Iterable[Sequence[Any]], filename: str) -> Response:
    response = Response([list(row) for row in rows])
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response


def _money_column(name: str, currency: str) -> str:
    """A money column's name saying how its figures are written."""
    return _("%(name)s (%(currency)s, decimal point)") % {"name": name, "currency": currency}


def _table(request: Request, tables: Sequence[str]) -> str:
    """Which of an export's tables a CSV holds (``?table=``; the first by default)."""
    table = request.query_params.get("table", tables[0])
    if table not in tables:
        raise Refusal(_("Unknown table “%(table)s”; use %(tables)s.") % {
            "table": table[:20], "tables": " or ".join(tables)}, code="invalid")
    return table


def _session(request: Request, pk: int) -> Session:
    session = referee_selectors.sessions_for(request.user).filter(pk=pk).first()
    if session is None:
        raise NotFound(_("Not found."))
    return session


class StandingsView(APIView):
    renderer_classes = RENDERERS
    content_negotiation_class = JSONOrCSV

    @extend_schema(
        summary="Session standings in the game's unit, per deal with running totals",
        parameters=[FORMAT], responses=_responses("Per-deal rows, running totals, places and money."),
        tags=["scoring"],
    )
    def get(self, request: Request, pk: int) -> Response:
        data = selectors.standings(_session(request, pk))
        if not _wants_csv(request):
            return Response(data)
        names = [p["name"] for p in data["players"]]
        rows: list[list[Any]] = [["deal", *names]]
        rows += [[d["deal"], *d["values"]] for d in data["deals"]]
        if data["m3"]:
            rows.append(["M3", *data["m3"]["values"]])
        rows.append([_("total") + f" ({data['unit_label']})", *[t["total"] for t in data["totals"]]])
        rows.append([_("place"), *[t["place"] for t in data["totals"]]])
        rows.append([_money_column(_("money"), data["currency"]), *[t["money"] for t in data["totals"]]])
        return _csv(rows, f"session-{pk}-standings.csv")


class LedgerView(APIView):
    renderer_classes = RENDERERS
    content_negotiation_class = JSONOrCSV

    @extend_schema(
        summary="Every chip (Mičiganas) or stake movement, the nets and the zero-sum check",
        parameters=[FORMAT, LEDGER_TABLE],
        responses=_responses("movements, nets, on_prize_cards and zero_sum_check {players_net, on_prize_cards, "
                             "total, ok}."),
        tags=["scoring"],
    )
    def get(self, request: Request, pk: int) -> Response:
        table = _table(request, ("movements", "check"))  # refused in either format, as the schema says
        data = selectors.ledger(_session(request, pk))
        if not _wants_csv(request):
            return Response(data)
        check = data["zero_sum_check"]
        if table == "check":
            rows: list[list[Any]] = [["players_net", "on_prize_cards", "total", "ok"],
                                     [check["players_net"], check["on_prize_cards"], check["total"],
                                      "yes" if check["ok"] else "NOT ZERO"]]
            return _csv(rows, f"session-{pk}-ledger-check.csv")
        rows = [["deal", "from", "to", data["unit"], "reason", "final"]]
        rows += [
            ["" if m["deal"] is None else m["deal"], m["from_name"], m["to_name"], m["chips"], m["reason"],
             "yes" if m["final"] else "no"]
            for m in data["movements"]
        ]
        return _csv(rows, f"session-{pk}-ledger.csv")


class SettlementView(APIView):
    renderer_classes = RENDERERS
    content_negotiation_class = JSONOrCSV

    @extend_schema(
        summary="Who pays whom: the fewest transfers, explained, with any rounding to the coin shown",
        parameters=[FORMAT, SETTLEMENT_TABLE], responses=_responses("nets (exact, rounded, rounding) and transfers."),
        tags=["scoring"],
    )
    def get(self, request: Request, pk: int) -> Response:
        table = _table(request, ("transfers", "nets"))  # refused in either format, as the schema says
        session = _session(request, pk)
        if not _wants_csv(request):
            return Response(selectors.settlement(session))
        with plain_figures():  # the explanations' amounts as the amount column writes them
            data = selectors.settlement(session)
        currency = data["currency"]
        if table == "nets":
            rows: list[list[Any]] = [["name", *(_money_column(column, currency)
                                                for column in ("exact", "rounded", "rounding"))]]
            rows += [[n["name"], n["exact"], n["rounded"], n["rounding"]] for n in data["nets"]]
            return _csv(rows, f"session-{pk}-settlement-nets.csv")
        rows = [["from", "to", _money_column("amount", currency), "explanation"]]
        rows += [[t["from_name"], t["to_name"], t["amount"], t["explanation"]] for t in data["transfers"]]
        return _csv(rows, f"session-{pk}-settlement-transfers.csv")


# -- club -----------------------------------------------------------------------------------------

#: The days of safe_input's range, 1900-01-01 to 9998-12-31, as the schema's pattern.
DAY_PATTERN = r"^(19\d\d|[2-8]\d{3}|9[0-8]\d\d|99[0-8]\d|999[0-8])-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"


@extend_schema_field({"type": "string", "format": "date", "pattern": DAY_PATTERN})
class PeriodDay(ExactQueryValue, serializers.DateField):
    """A YYYY-MM-DD day the leaderboard can count to: it reaches into the month after the end,
    so 9999-12-31 would crash (the range is the page's too: ``safe_input.read_date``)."""

    default_error_messages = {"out_of_range": _lazy("Give a date from 1900-01-01 to 9998-12-31 (YYYY-MM-DD).")}

    def to_internal_value(self, value: Any) -> date:
        day = super().to_internal_value(value)
        if not safe_input.FIRST_DAY <= day <= safe_input.LAST_DAY:
            self.fail("out_of_range")
        return day


class LeaderboardQuery(serializers.Serializer[Any]):
    game = serializers.ChoiceField(choices=[("", "all games"), *GAME_CHOICES], required=False, allow_blank=True,
                                   help_text="One game, or empty for all games together.")
    period = QueryChoiceField(choices=selectors.PERIODS, default="all")
    start = PeriodDay(required=False, help_text="custom period: first day (YYYY-MM-DD, 1900-01-01 to 9998-12-31), "
                                                "inclusive.")
    end = PeriodDay(required=False, help_text="custom period: last day (YYYY-MM-DD, 1900-01-01 to 9998-12-31), "
                                              "inclusive.")
    min_deals = QueryIntegerField(default=selectors.DEFAULT_MIN_DEALS, min_value=0, max_value=1_000_000,
                                         help_text="Deals in the period needed to be ranked.")


def _club(slug: str) -> Club:
    club = Club.objects.filter(slug=slug).first()
    if club is None:
        raise NotFound(_("Not found."))
    return club


#: The club by its slug and whether a user is one of its active members, in one statement (the
#: leaderboard's hot path: the ORM's Exists annotation cost more to compile than to run).
CLUB_FIELDS = [field.attname for field in Club._meta.concrete_fields]
CLUB_AND_MEMBERSHIP_SQL = (
    f"SELECT {', '.join('c.' + field.column for field in Club._meta.concrete_fields)},"
    f" EXISTS (SELECT 1 FROM {Member._meta.db_table} m WHERE m.club_id = c.id AND m.user_id = %s AND m.active)"
    f" FROM {Club._meta.db_table} c WHERE c.slug = %s"
)


def _club_and_membership(request: Request, slug: str) -> tuple[Club, bool]:
    """The club and whether the user is one of its active members, in one query (the leaderboard's hot path)."""
    user = request.user
    with connection.cursor() as cursor:
        cursor.execute(CLUB_AND_MEMBERSHIP_SQL, [signed_in_id(user), slug])
        row = cursor.fetchone()
    if row is None:
        raise NotFound(_("Not found."))
    club = Club.from_db(connection.alias, CLUB_FIELDS, row[:-1])
    return club, bool(user.is_authenticated and (user.is_superuser or row[-1]))


class LeaderboardView(APIView):
    """Public clubs' leaderboards are open to everyone (without money); others only to members."""

    permission_classes = [AllowAny]
    renderer_classes = RENDERERS
    content_negotiation_class = JSONOrCSV

    @extend_schema(
        summary="The club's leaderboard for one game or all, over a period",
        parameters=[LeaderboardQuery, FORMAT],
        responses=_responses("ranked and unranked rows: deals, wins, win_rate, points, money, rating."),
        tags=["scoring"],
    )
    def get(self, request: Request, slug: str) -> Response:
        club, member = _club_and_membership(request, slug)
        if not member and not club.public_leaderboard:
            raise NotFound(_("Not found."))
        query = LeaderboardQuery(data=request.query_params)
        query.is_valid(raise_exception=True)
        q = query.validated_data
        data = selectors.leaderboard(
            club, game=q.get("game") or None, period=q["period"], start=q.get("start"), end=q.get("end"),
            min_deals=q["min_deals"], include_money=member,
        )
        if not _wants_csv(request):
            return Response(data)
        rows: list[list[Any]] = [["rank", "name", "deals", "wins", "win rate (0 to 1, decimal point)", "points",
                                  _money_column("money", club.currency), "rating (decimal point)"]]
        for row in [*data["ranked"], *data["unranked"]]:
            rows.append([
                "" if row["rank"] is None else row["rank"], row["name"], row["deals"], row["wins"],
                "" if row["win_rate"] is None else row["win_rate"], "" if row["points"] is None else row["points"],
                "" if row["money"] is None else row["money"], row["rating"]["ordinal"],
            ])
        return _csv(rows, f"{club.slug}-leaderboard.csv")


def _club_for_member_data(request: Request, slug: str) -> Club:
    """Money between members and a member's history are for the club's members only."""
    club = _club(slug)
    if club_role(request.user, club) is not None:
        return club
    if club.public_leaderboard:
        raise NotAllowed(_("Head-to-head and member history are only for the club's members."))
    raise NotFound(_("Not found."))


def _member(club: Club, pk: Any, field: str) -> Member:
    try:
        pk = int(pk)
    except (TypeError, ValueError):
        raise serializers.ValidationError({field: [_("Give a member id (a whole number).")]}) from None
    member = Member.objects.filter(club=club, pk=pk).first()
    if member is None:
        raise NotFound(_("No member %(id)s in this club.") % {"id": pk})
    return member


class HeadToHeadView(APIView):
    @extend_schema(
        summary="Two members: deals together, who placed higher how often, net money between them",
        parameters=[OpenApiParameter("a", int, required=True), OpenApiParameter("b", int, required=True)],
        responses=_responses("Totals and per game.", csv_too=False), tags=["scoring"],
    )
    def get(self, request: Request, slug: str) -> Response:
        club = _club_for_member_data(request, slug)
        a = _member(club, request.query_params.get("a"), "a")
        b = _member(club, request.query_params.get("b"), "b")
        return Response(selectors.head_to_head(club, a, b))


class MemberHistoryView(APIView):
    @extend_schema(
        summary="A member's totals and ratings per game, by month, and their latest sessions",
        responses=_responses("games, rating, months, sessions.", csv_too=False), tags=["scoring"],
    )
    def get(self, request: Request, slug: str, pk: int) -> Response:
        club = _club_for_member_data(request, slug)
        return Response(selectors.member_history(_member(club, pk, "member")))
