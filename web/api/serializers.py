"""Input shapes (checked here) and output shapes of the API. The services decide."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from referee.models import GAME_CHOICES, Club, Deal, DealStatus, Entry, Member, Role, Session
from referee.refusals import seat_names
from referee.rules.plan import MAX_PLAN
from referee.rules.seat_names import with_names
from scoring.plans import plan_status
from web.api import fields as f
from web.api.errors import CODES


class TokenRequestSerializer(serializers.Serializer[Any]):
    username = f.CharField(trim_whitespace=False)  # " " is a wrong username, not a malformed request
    password = f.CharField(style={"input_type": "password"}, trim_whitespace=False)


class TokenSerializer(serializers.Serializer[Any]):
    token = serializers.CharField()


class ErrorSerializer(serializers.Serializer[Any]):
    error = serializers.CharField(help_text="A message a person understands.")
    code = serializers.CharField(help_text="A stable code to branch on, never reworded: " + "; ".join(
        f"`{code}` ({meaning})" for code, meaning in CODES.items()))


class ClubSerializer(serializers.ModelSerializer[Club]):
    role = serializers.SerializerMethodField()

    class Meta:
        model = Club
        fields = ["slug", "name", "public_leaderboard", "currency", "role"]

    def get_role(self, club: Club) -> str | None:
        roles: dict[int, str] = self.context.get("roles", {})
        return roles.get(club.pk)


class ClubCreateSerializer(serializers.Serializer[Any]):
    slug = f.SlugField(max_length=50)
    name = f.CharField(max_length=100)
    public_leaderboard = f.BooleanField(default=False)
    currency = f.RegexField(
        r"^[A-Z]{3}$", default="EUR", error_messages={"invalid": _("A currency is three capital letters, e.g. EUR.")}
    )


class ClubUpdateSerializer(serializers.Serializer[Any]):
    name = f.CharField(max_length=100, required=False)
    public_leaderboard = f.BooleanField(required=False)


class MemberSerializer(serializers.ModelSerializer[Member]):
    username = serializers.SerializerMethodField()

    class Meta:
        model = Member
        fields = ["id", "name", "role", "active", "username"]

    def get_username(self, member: Member) -> str | None:
        return member.user.get_username() if member.user else None


class MemberCreateSerializer(serializers.Serializer[Any]):
    name = f.CharField(max_length=60)
    role = f.ChoiceField(choices=Role.choices, default=Role.MEMBER)
    username = f.CharField(required=False, allow_blank=False,
                                     help_text="Link an existing user who will sign in as this member.")


class MemberUpdateSerializer(serializers.Serializer[Any]):
    role = f.ChoiceField(choices=Role.choices, required=False)
    active = f.BooleanField(required=False)


#: The plan's shape as the schema states it (``referee.rules.plan`` checks it; RULES.md, common
#: conventions: how long a session runs).
PLAN_SCHEMA: dict[str, Any] = {
    "type": "object", "nullable": True, "minProperties": 1, "maxProperties": 1, "additionalProperties": False,
    "properties": {
        "deals": {"type": "integer", "minimum": 1, "maximum": MAX_PLAN, "description": "Play this many deals."},
        "target": {"type": "integer", "minimum": 1, "maximum": MAX_PLAN,
                   "description": "End after the first deal at whose end someone has this many in the game's "
                                  "unit (Cheat: losses)."},
    },
    "description": "How long the players agreed to play: {\"deals\": N}, {\"target\": T}, or null (open-ended). "
                   "The referee never refuses a deal past it.",
}


@extend_schema_field(PLAN_SCHEMA)
class PlanField(serializers.JSONField):
    """The plan as given: the service checks it and refuses a bad one with its reason (``invalid_plan``)."""


class SessionCreateSerializer(serializers.Serializer[Any]):
    club = f.SlugField(help_text="The club's slug.")
    game = f.ChoiceField(choices=GAME_CHOICES)
    players = serializers.ListField(child=f.IntegerField(min_value=1), min_length=2, max_length=8,
                                    help_text="Member ids in seat order (seat 0 first).")
    options = serializers.DictField(required=False, default=dict, help_text="House rules (RULES.md).")
    stake = f.StakeField(max_digits=10, decimal_places=2, min_value=Decimal("0"), default=Decimal("0"),
                         help_text="Money per point, or per chip in Mičiganas.")
    coin = f.CoinField(max_digits=6, decimal_places=2, min_value=Decimal("0.01"), required=False,
                       allow_null=True, help_text="Smallest coin for rounding the settlement.")
    plan = PlanField(allow_null=True, default=None)


class SessionUpdateSerializer(serializers.Serializer[Any]):
    #: PATCH: a field left out stays as it is.
    plan = PlanField(allow_null=True, required=False)


class PlanLeaderSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField()
    name = serializers.CharField()


class PlanStatusSerializer(serializers.Serializer[Any]):
    """Where the session stands against its plan (null without one)."""

    plan = PlanField(help_text="The plan.")
    deals_played = serializers.IntegerField(help_text="Finished deals.")
    deal = serializers.IntegerField(allow_null=True, help_text="The running deal's number, or null between deals.")
    reached = serializers.BooleanField(help_text="The plan is reached (the session may close).")
    reached_after = serializers.IntegerField(allow_null=True, help_text="After how many deals it was reached.")
    exceeded = serializers.BooleanField(help_text="A deal was started after it was reached.")
    deals_past = serializers.IntegerField(help_text="Deals started after it was reached.")
    leaders = PlanLeaderSerializer(many=True, help_text="Target plans: the players nearest the target.")
    needs = serializers.IntegerField(allow_null=True, help_text="Target plans: what the leaders still need.")
    played_on = serializers.BooleanField(help_text="The scorer chose to play on past it (or a deal past it started).")
    close_first = serializers.BooleanField(
        help_text="Reached and nobody chose to play on: closing and settling is the screens' main action.")
    headline = serializers.CharField(help_text="The plan in words, e.g. \"Plan: 10 deals\", \"Target: 50 points\".")
    text = serializers.CharField(help_text="Where the session stands, e.g. \"Deal 7 of 10\", \"Ona needs 4 more\".")


class SessionFilterSerializer(serializers.Serializer[Any]):
    club = f.QuerySlugField(required=False, help_text="Only this club's sessions (its slug).")


class DealReadSerializer(serializers.Serializer[Any]):
    snapshot = f.QueryChoiceField(
        choices=["1"], required=False,
        help_text="1: the answer carries the deal's snapshot and whether a later deal has started "
                  "(what a tablet in a conflict needs to offer only the choices that can succeed).")


class SeatSerializer(serializers.Serializer[Any]):
    seat = serializers.IntegerField(source="number")
    member = serializers.IntegerField(source="member_id")
    name = serializers.CharField(source="member.name")


class DealBriefSerializer(serializers.ModelSerializer[Deal]):
    class Meta:
        model = Deal
        fields = ["id", "number", "dealer", "seq", "status", "created_at", "finished_at"]


class SessionSerializer(serializers.ModelSerializer[Session]):
    club: serializers.SlugRelatedField[Club] = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    seats = SeatSerializer(many=True, read_only=True)
    players = serializers.SerializerMethodField()

    plan = PlanField(read_only=True)

    class Meta:
        model = Session
        fields = ["id", "club", "game", "players", "seats", "options", "stake", "currency", "coin", "notation",
                  "plan", "status", "created_at", "closed_at"]

    def get_players(self, session: Session) -> list[int]:
        return [seat.member_id for seat in session.seats.all()]


class SessionDetailSerializer(SessionSerializer):
    deals = DealBriefSerializer(many=True, read_only=True)
    plan_status = serializers.SerializerMethodField()

    class Meta(SessionSerializer.Meta):
        fields = [*SessionSerializer.Meta.fields, "plan_status", "deals"]

    @extend_schema_field(PlanStatusSerializer(allow_null=True))
    def get_plan_status(self, session: Session) -> dict[str, Any] | None:
        if session.plan is None:
            return None
        running = session.deals.filter(status=DealStatus.RUNNING).values_list("number", flat=True).first()
        return plan_status(session, seat_names(session), running=running)


#: A tablet's deal id: visible ASCII only (no spaces or control characters, NUL included).
CLIENT_ID = r"^[!-~]{1,80}$"


class DealStartSerializer(serializers.Serializer[Any]):
    dealer = f.IntegerField(required=False, allow_null=True, min_value=0,
                                      help_text="Seat of the dealer; default: the game's rotation.")
    client_id = f.RegexField(
        CLIENT_ID, required=False, allow_null=True, max_length=80, trim_whitespace=False,
        error_messages={"invalid": _("client_id must be 1 to 80 visible characters, without spaces.")},
        help_text="The id the tablet gave a deal it started offline; a retry with it answers 200 with that deal.",
    )
    expected_number = f.IntegerField(
        required=False, min_value=1, help_text="The number the new deal should get; 409 if another device started one.",
    )

    def validate_client_id(self, value: str | None) -> str | None:
        # RegexField searches, and "$" also matches before a final newline; the whole text must match.
        if value is not None and not re.fullmatch(CLIENT_ID.strip("^$"), value):
            raise serializers.ValidationError(self.fields["client_id"].error_messages["invalid"])
        return value


class EntrySerializer(serializers.ModelSerializer[Entry]):
    """An entry; its ``result`` speaks of the players by name (``context["names"]``, seat order),
    as the pages do: "Ona +27", not "Seat 0: +27"."""

    author = serializers.SerializerMethodField()
    result = serializers.SerializerMethodField()

    class Meta:
        model = Entry
        fields = ["seq", "payload", "result", "author", "created_at", "idempotency_key", "active"]

    def get_author(self, entry: Entry) -> str | None:
        return entry.author.get_username() if entry.author else None

    @extend_schema_field(serializers.JSONField(allow_null=True))
    def get_result(self, entry: Entry) -> Any:
        return with_names(entry.result, self.context.get("names", []))


_CREATED_AT = serializers.DateTimeField()


def entry_data(entry: Entry, names: list[str]) -> dict[str, Any]:
    """``EntrySerializer(entry, context={"names": names}).data`` without building a serializer,
    which costs more than the rest of answering an entry (tests/api check the two stay equal)."""
    return {
        "seq": entry.seq,
        "payload": entry.payload,
        "result": with_names(entry.result, names),
        "author": entry.author.get_username() if entry.author else None,
        "created_at": _CREATED_AT.to_representation(entry.created_at),
        "idempotency_key": entry.idempotency_key,
        "active": entry.active,
    }


class EntryRequestSerializer(serializers.Serializer[Any]):
    """The entry of RULES.md (its own fields, e.g. ``cards``, ``rounds``, ``player``) plus these."""

    type = f.CharField(help_text="The entry type of RULES.md, e.g. trick, end, prize, place.")
    idempotency_key = f.CharField(
        required=False, min_length=1, max_length=80,
        help_text="Made once per entry on the tablet; a retry returns the original."
    )
    expected_seq = f.IntegerField(
        required=False, min_value=0, help_text="The deal's seq the tablet saw; 409 if another device recorded first."
    )


class ExpectedSeqSerializer(serializers.Serializer[Any]):
    expected_seq = f.IntegerField(required=False, min_value=0)


class SeatCorrectSerializer(serializers.Serializer[Any]):
    seat = f.IntegerField(min_value=0, max_value=7, help_text="The seat (0-based) whose member was wrong.")
    member = f.IntegerField(min_value=1, max_value=2**31 - 1, help_text="The member who really sat there.")
