"""A member's rating history in the API: a point per rated deal (JSON or CSV)."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee.errors import Refusal
from referee.rules import GAMES
from scoring.models import OVERALL
from scoring.ratings import history
from web.api.scoring import RENDERERS, JSONOrCSV, _club_for_member_data, _csv, _member, _responses, _wants_csv


class RatingHistoryView(APIView):
    renderer_classes = RENDERERS
    content_negotiation_class = JSONOrCSV

    @extend_schema(
        summary="A member's rating after each rated deal (mu, sigma, the cautious ordinal, deal, session)",
        parameters=[OpenApiParameter("game", str, required=False, enum=[OVERALL, *GAMES],
                                     description="One game's stream, or `all` (default) across games."),
                    OpenApiParameter("format", str, enum=["json", "csv"], required=False)],
        responses=_responses("points: one per rated deal, in order."), tags=["scoring"],
    )
    def get(self, request: Request, slug: str, pk: int) -> Response:
        club = _club_for_member_data(request, slug)
        member = _member(club, pk, "member")
        game = request.query_params.get("game", OVERALL)
        if game != OVERALL and game not in GAMES:
            raise Refusal(_("Unknown game “%(game)s”; choose one of %(games)s.") % {
                "game": game[:20], "games": ", ".join([OVERALL, *GAMES])}, code="invalid")
        points = history.member_points(club_id=club.pk, member_id=member.pk, game=game)
        rows: list[dict[str, Any]] = [
            {"seq": p.seq, "deal": p.deal, "session": p.session, "finished_at": p.finished_at,
             "mu": round(p.mu, 4), "sigma": round(p.sigma, 4), "ordinal": round(p.ordinal, 4)} for p in points]
        if not _wants_csv(request):
            return Response({"member": member.pk, "game": game, "points": rows})
        table = [["seq", "deal", "session", "finished_at", "mu", "sigma", "ordinal"]]
        table += [[r["seq"], r["deal"], r["session"], r["finished_at"].isoformat() if r["finished_at"] else "",
                   r["mu"], r["sigma"], r["ordinal"]] for r in rows]
        return _csv(table, f"{club.slug}-member-{member.pk}-rating-history.csv")
