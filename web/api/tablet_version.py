"""POST /api/deals/{id}/tablet-version/: a conflict's "use mine instead" (referee.tablet_version).

The body: ``{"expected_seq": 7, "since_seq": 5, "entries": [{"payload": {...},
"idempotency_key": "..."}, ...]}``: the server's seq the scorer saw, where the tablet's version
begins, and its entries in order. Answers the deal as it then stands."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from referee import selectors
from referee.errors import Conflict, Refusal
from referee.tablet_version import TabletEntry, use_tablet_version
from web.api import fields as f
from web.api import serializers as s
from web.api.views import ERRORS, _deal_for

#: More than a deal ever holds (an Elgeta deal of thousands of tricks is recorded online).
MOST_ENTRIES = 500


class TabletEntrySerializer(serializers.Serializer[Any]):
    payload = serializers.DictField(help_text="The entry as recorded (its JSON shape in RULES.md).")
    idempotency_key = f.CharField(min_length=1, max_length=80, help_text="The key the tablet recorded it under.")


class TabletVersionSerializer(serializers.Serializer[Any]):
    """The schema's description of the body; the view reads it with its own words for each fault."""

    expected_seq = f.IntegerField(min_value=0, help_text="The server's seq the scorer saw; 409 if it moved.")
    since_seq = f.IntegerField(min_value=0, help_text="The tablet's version was recorded on the deal at this seq.")
    entries = serializers.ListField(child=TabletEntrySerializer(), min_length=1, max_length=MOST_ENTRIES)


def _whole(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise Refusal(_("%(name)s must be a whole number of 0 or more.") % {"name": name}, code="invalid")
    return value


def _entries(value: Any) -> list[TabletEntry]:
    if not isinstance(value, list) or not 1 <= len(value) <= MOST_ENTRIES:
        raise Refusal(_("entries must be a list of 1 to %(most)s entries.") % {"most": MOST_ENTRIES}, code="invalid")
    entries = []
    for item in value:
        payload = item.get("payload") if isinstance(item, dict) else None
        key = item.get("idempotency_key") if isinstance(item, dict) else None
        if not isinstance(payload, dict):
            raise Refusal(_("Each of the entries must be a JSON object with a “payload” object."), code="invalid")
        if not isinstance(key, str) or not 1 <= len(key) <= 80:
            raise Refusal(_("idempotency_key must be text of 1 to 80 characters."), code="invalid")
        entries.append(TabletEntry(payload=payload, idempotency_key=key))
    if len({entry.idempotency_key for entry in entries}) != len(entries):
        raise Conflict(_("Each of the entries needs its own idempotency_key."), code="duplicate_key_conflict")
    return entries


class TabletVersionView(APIView):
    @extend_schema(
        request=TabletVersionSerializer,
        responses={
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="The deal with the tablet's entries in place."),
            409: OpenApiResponse(s.ErrorSerializer, description="Stale expected_seq; the body has the current seq."),
            **ERRORS,
        },
        tags=["deals"],
    )
    def post(self, request: Request, pk: int) -> Response:
        deal = _deal_for(request.user, pk)  # another club's deal is "not found", whatever the body
        body = request.data
        if not isinstance(body, dict):
            raise Refusal(_("The body must be a JSON object with expected_seq, since_seq and entries."), code="invalid")
        deal = use_tablet_version(
            deal_id=deal.pk, user=request.user,
            expected_seq=_whole(body.get("expected_seq"), "expected_seq"),
            since_seq=_whole(body.get("since_seq"), "since_seq"),
            entries=_entries(body.get("entries")),
        )
        return Response({"deal": selectors.deal_view(deal)})
