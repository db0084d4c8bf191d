"""Thin API views: the serializer checks shape, the service decides, one error format."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import authenticate, get_user_model
from django.db.models import QuerySet, prefetch_related_objects
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.authtoken.models import Token
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import ScopedRateThrottle
from rest_framework.views import APIView

from referee import deal_starts, membership, plans, selectors, services
from referee.errors import NotFound, Refusal
from referee.models import Club, Deal, Member, Role, Session, SessionStatus
from referee.permissions import club_role, require_role
from referee.seat_corrections import seat_correct
from scoring.plans import plan_play_on
from web import presence
from web.api import serializers as s

ERRORS = {code: OpenApiResponse(s.ErrorSerializer) for code in (400, 401, 403, 404)}
User = get_user_model()


class TokenView(APIView):
    """Exchange a username and password for an API token (rate-limited)."""

    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    throttle_classes = [ScopedRateThrottle]
    throttle_scope = "login"

    @extend_schema(request=s.TokenRequestSerializer, responses={200: s.TokenSerializer, **ERRORS}, tags=["auth"])
    def post(self, request: Request) -> Response:
        data = s.TokenRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request, username=data.validated_data["username"], password=data.validated_data["password"])
        if user is None or not user.is_active:
            raise Refusal(_("Wrong username or password."))
        token, _created = Token.objects.get_or_create(user=user)
        return Response({"token": token.key})


def _club_for(user: Any, slug: str) -> Club:
    club = Club.objects.filter(slug=slug).first()
    if club is None or club_role(user, club) is None:
        raise NotFound(_("Not found."))
    return club


def _session_for(user: Any, pk: int) -> Session:
    session = selectors.sessions_for(user).filter(pk=pk).first()
    if session is None:
        raise NotFound(_("Not found."))
    return session


def _session_answer(session: Session, serializer: type[s.SessionSerializer] = s.SessionSerializer) -> Any:
    """A session a service has just written, as the API shows it: its club, its seats and their
    members read once each, as ``selectors.sessions_for`` prefetches them (the serializer would
    read each seat's member on its own, and the seats twice; a club night closes and opens
    sessions by the dozen)."""
    prefetch_related_objects([session], "club", "seats__member")
    return serializer(session).data


def _deal_for(user: Any, pk: int) -> Deal:
    deal = selectors.deals_for(user).filter(pk=pk).first()
    if deal is None:
        raise NotFound(_("Not found."))
    return deal


def _roles(user: Any) -> dict[int, str]:
    return dict(Member.objects.filter(user=user, active=True).values_list("club_id", "role"))


class ClubListView(APIView):
    @extend_schema(responses={200: s.ClubSerializer(many=True)}, tags=["clubs"])
    def get(self, request: Request) -> Response:
        clubs = selectors.clubs_for(request.user)
        return Response(s.ClubSerializer(clubs, many=True, context={"roles": _roles(request.user)}).data)

    @extend_schema(request=s.ClubCreateSerializer, responses={201: s.ClubSerializer, **ERRORS}, tags=["clubs"])
    def post(self, request: Request) -> Response:
        data = s.ClubCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        club = services.club_create(user=request.user, **data.validated_data)
        return Response(s.ClubSerializer(club, context={"roles": {club.pk: Role.ADMIN}}).data, status=201)


class ClubDetailView(APIView):
    @extend_schema(responses={200: s.ClubSerializer, **ERRORS}, tags=["clubs"])
    def get(self, request: Request, slug: str) -> Response:
        club = _club_for(request.user, slug)
        return Response(s.ClubSerializer(club, context={"roles": _roles(request.user)}).data)

    @extend_schema(request=s.ClubUpdateSerializer, responses={200: s.ClubSerializer, **ERRORS}, tags=["clubs"])
    def patch(self, request: Request, slug: str) -> Response:
        club = _club_for(request.user, slug)
        require_role(request.user, club, Role.ADMIN)
        data = s.ClubUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        club = membership.club_update(club=club, user=request.user, **data.validated_data)
        return Response(s.ClubSerializer(club, context={"roles": _roles(request.user)}).data)


class MemberListView(APIView):
    @extend_schema(responses={200: s.MemberSerializer(many=True), **ERRORS}, tags=["clubs"])
    def get(self, request: Request, slug: str) -> Response:
        club = _club_for(request.user, slug)
        members = club.members.select_related("user").order_by("name")
        return Response(s.MemberSerializer(members, many=True).data)

    @extend_schema(request=s.MemberCreateSerializer, responses={201: s.MemberSerializer, **ERRORS}, tags=["clubs"])
    def post(self, request: Request, slug: str) -> Response:
        club = _club_for(request.user, slug)
        require_role(request.user, club, Role.ADMIN)
        data = s.MemberCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        linked = None
        username = data.validated_data.get("username")
        if username:
            linked = User.objects.filter(username=username).first()
            if linked is None:
                raise Refusal(_("There is no user “%(username)s”.") % {"username": username})
        member = services.member_add(
            club=club, name=data.validated_data["name"], role=data.validated_data["role"], user=request.user,
            linked_user=linked,
        )
        return Response(s.MemberSerializer(member).data, status=201)


class MemberDetailView(APIView):
    @extend_schema(request=s.MemberUpdateSerializer, responses={200: s.MemberSerializer, **ERRORS}, tags=["clubs"])
    def patch(self, request: Request, slug: str, pk: int) -> Response:
        club = _club_for(request.user, slug)
        require_role(request.user, club, Role.ADMIN)
        member = get_object_or_404(Member, club=club, pk=pk)
        data = s.MemberUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        member = membership.member_change(member=member, user=request.user, **data.validated_data)
        return Response(s.MemberSerializer(member).data)


class SessionListView(APIView):
    @extend_schema(responses={200: s.SessionSerializer(many=True), **ERRORS}, tags=["sessions"],
                   parameters=[s.SessionFilterSerializer])
    def get(self, request: Request) -> Response:
        sessions: QuerySet[Session] = selectors.sessions_for(request.user)
        query = s.SessionFilterSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        club = query.validated_data.get("club")
        if club:
            sessions = sessions.filter(club__slug=club)
        return Response(s.SessionSerializer(sessions[:200], many=True).data)

    @extend_schema(request=s.SessionCreateSerializer, responses={201: s.SessionDetailSerializer, **ERRORS},
                   tags=["sessions"])
    def post(self, request: Request) -> Response:
        data = s.SessionCreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        club = _club_for(request.user, values["club"])
        members = {m.pk: m for m in Member.objects.filter(club=club, pk__in=values["players"])}
        missing = [pk for pk in values["players"] if pk not in members]
        if missing:
            raise Refusal(
                _("Member %(ids)s is not a member of this club.") % {"ids": ", ".join(str(pk) for pk in missing)}
            )
        session = services.session_start(
            club=club, game=values["game"], players=[members[pk] for pk in values["players"]], user=request.user,
            options=values["options"], stake=values["stake"], coin=values.get("coin"), plan=values["plan"],
        )
        return Response(_session_answer(session, s.SessionDetailSerializer), status=201)


class SessionDetailView(APIView):
    @extend_schema(responses={200: s.SessionDetailSerializer, **ERRORS}, tags=["sessions"])
    def get(self, request: Request, pk: int) -> Response:
        return Response(s.SessionDetailSerializer(_session_for(request.user, pk)).data)

    @extend_schema(request=s.SessionUpdateSerializer, responses={200: s.SessionDetailSerializer, **ERRORS},
                   tags=["sessions"], summary="Change the session's plan (its scorer; kept in the audit log)")
    def patch(self, request: Request, pk: int) -> Response:
        session = _session_for(request.user, pk)
        data = s.SessionUpdateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if "plan" in data.validated_data:
            plans.plan_set(session=session, plan=data.validated_data["plan"], user=request.user)
        else:  # nothing to change, still a scorer's request
            require_role(request.user, session.club, Role.SCORER)
        return Response(s.SessionDetailSerializer(_session_for(request.user, pk)).data)


class SessionPlayOnView(APIView):
    @extend_schema(request=None, responses={200: s.SessionDetailSerializer, **ERRORS}, tags=["sessions"],
                   summary="Play on past the reached plan (a deliberate step, kept in the audit log)")
    def post(self, request: Request, pk: int) -> Response:
        plan_play_on(session=_session_for(request.user, pk), user=request.user)
        return Response(s.SessionDetailSerializer(_session_for(request.user, pk)).data)


class SessionDealsView(APIView):
    @extend_schema(responses={200: s.DealBriefSerializer(many=True), **ERRORS}, tags=["deals"])
    def get(self, request: Request, pk: int) -> Response:
        session = _session_for(request.user, pk)
        return Response(s.DealBriefSerializer(session.deals.order_by("number"), many=True).data)

    @extend_schema(request=s.DealStartSerializer, responses={
        201: OpenApiResponse(OpenApiTypes.OBJECT, description="The new deal (as GET /api/deals/{id}/, with "
                             "`client_id` when one was given)."),
        200: OpenApiResponse(OpenApiTypes.OBJECT, description="A retry: the deal already started under this "
                             "`client_id`; nothing new was started."),
        **ERRORS,
        409: OpenApiResponse(s.ErrorSerializer, description="`duplicate_key_conflict`: the `client_id` started a "
                             "deal with another dealer; `stale_deal_number`: `expected_number` is not the next "
                             "deal's `number` (given in the body)."),
    }, tags=["deals"])
    def post(self, request: Request, pk: int) -> Response:
        data = s.DealStartSerializer(data=request.data)
        if not data.is_valid():
            _session_for(request.user, pk)  # another club's session is "not found", whatever the body
            data.is_valid(raise_exception=True)
        # Half of a Velnias table's requests: the start reads the session, the user's role and
        # the names with its lock (404 for outsiders, as _session_for would say).
        started = deal_starts.start(session_id=pk, user=request.user, **data.validated_data)
        body = selectors.deal_view(started.deal, names=started.names)
        # Only when given, so that the answers of deals started online stay as they were.
        if started.deal.client_id is not None:
            body["client_id"] = started.deal.client_id
        return Response(body, status=201 if started.created else 200)


class SessionCloseView(APIView):
    @extend_schema(request=None, responses={200: s.SessionSerializer, **ERRORS}, tags=["sessions"])
    def post(self, request: Request, pk: int) -> Response:
        session = services.session_close(session=_session_for(request.user, pk), user=request.user)
        return Response(_session_answer(session))


class SessionSeatView(APIView):
    @extend_schema(request=s.SeatCorrectSerializer, responses={200: s.SessionSerializer, **ERRORS}, tags=["sessions"],
                   summary="Correct a seat's member after entries were recorded (the entries stand)")
    def post(self, request: Request, pk: int) -> Response:
        session = _session_for(request.user, pk)
        data = s.SeatCorrectSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        member = Member.objects.filter(club=session.club, pk=data.validated_data["member"]).first()
        if member is None:
            raise NotFound(_("No member %(id)s in this club.") % {"id": data.validated_data["member"]})
        seat_correct(session=session, seat=data.validated_data["seat"], member=member, user=request.user)
        return Response(s.SessionSerializer(_session_for(request.user, pk)).data)


class SessionReopenView(APIView):
    @extend_schema(request=None, responses={200: s.SessionSerializer, **ERRORS}, tags=["sessions"])
    def post(self, request: Request, pk: int) -> Response:
        session = services.session_reopen(session=_session_for(request.user, pk), user=request.user)
        return Response(_session_answer(session))


class SessionAuditView(APIView):
    """Every entry (undone and replaced ones too) and every undo or correction, with who and when."""

    @extend_schema(responses={200: OpenApiTypes.OBJECT, **ERRORS}, tags=["sessions"])
    def get(self, request: Request, pk: int) -> Response:
        session = _session_for(request.user, pk)
        return Response(selectors.session_audit(session))


class DealDetailView(APIView):
    @extend_schema(responses={200: OpenApiTypes.OBJECT, **ERRORS}, tags=["deals"],
                   parameters=[s.DealReadSerializer])
    def get(self, request: Request, pk: int) -> Response:
        deal = _deal_for(request.user, pk)
        query = s.DealReadSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        if not query.validated_data.get("snapshot"):
            return Response(selectors.deal_view(deal))
        # A tablet in a conflict offers only the choices that can succeed: its referee tries its
        # entries on this snapshot, and an undo is refused once a later deal exists.
        later = Deal.objects.filter(session_id=deal.session_id, number__gt=deal.number).exists()
        return Response({**selectors.deal_view(deal), "snapshot": deal.state, "later_deals": later,
                         "session_open": deal.session.status == SessionStatus.OPEN})

    @extend_schema(responses={204: None, **ERRORS}, tags=["deals"])
    def delete(self, request: Request, pk: int) -> Response:
        services.deal_discard(deal=_deal_for(request.user, pk), user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


def _entry_body(request: Request) -> tuple[dict[str, Any], str | None, int | None]:
    """Split the body into the entry itself and the two transport fields."""
    if not isinstance(request.data, dict):
        raise Refusal(_("The entry must be a JSON object with a “type”."), code="invalid")
    payload = dict(request.data)
    key = payload.pop("idempotency_key", None)
    expected = payload.pop("expected_seq", None)
    if key is not None and (not isinstance(key, str) or not 1 <= len(key) <= 80):
        raise Refusal(_("idempotency_key must be text of 1 to 80 characters."), code="invalid")
    if expected is not None and (isinstance(expected, bool) or not isinstance(expected, int) or expected < 0):
        raise Refusal(_("expected_seq must be a whole number of 0 or more."), code="invalid")
    return payload, key, expected


class DealEntriesView(APIView):
    @extend_schema(responses={200: s.EntrySerializer(many=True), **ERRORS}, tags=["deals"])
    def get(self, request: Request, pk: int) -> Response:
        deal = _deal_for(request.user, pk)
        entries = deal.entries.select_related("author").order_by("seq", "id")
        if request.query_params.get("all") not in ("1", "true"):
            entries = entries.filter(active=True)
        names = selectors.seat_names(deal.session_id)
        return Response(s.EntrySerializer(entries, many=True, context={"names": names}).data)

    @extend_schema(
        request=s.EntryRequestSerializer,
        responses={
            201: OpenApiResponse(OpenApiTypes.OBJECT, description="Stored: the entry and the deal's new state."),
            200: OpenApiResponse(OpenApiTypes.OBJECT, description="A retry of a stored idempotency key."),
            409: OpenApiResponse(s.ErrorSerializer, description="Stale expected_seq; the body has the current seq."),
            **ERRORS,
        },
        tags=["deals"],
    )
    def post(self, request: Request, pk: int) -> Response:
        try:
            payload, key, expected = _entry_body(request)
        except Refusal:
            _deal_for(request.user, pk)  # another club's deal is "not found", whatever the body
            raise
        # The hot path: the service locks the deal and checks the role (404 for outsiders, as
        # _deal_for would say) in one query, so the view does not look the deal up first.
        added = services.entry_add(
            deal_id=pk, payload=payload, user=request.user, idempotency_key=key, expected_seq=expected
        )
        presence.touch(request, pk)  # this device is recording the deal
        names = added.names if added.names is not None else selectors.seat_names(added.deal.session_id)
        body = {"entry": s.entry_data(added.entry, names),
                "deal": selectors.deal_view(added.deal, names=names, state_view=added.view),
                "replayed": not added.created}
        return Response(body, status=201 if added.created else 200)


class EntryCorrectView(APIView):
    @extend_schema(request=OpenApiTypes.OBJECT, responses={200: OpenApiTypes.OBJECT, **ERRORS}, tags=["deals"])
    def put(self, request: Request, pk: int, seq: int) -> Response:
        deal = _deal_for(request.user, pk)
        payload, _key, _expected = _entry_body(request)
        deal = services.entry_correct(deal_id=deal.pk, seq=seq, payload=payload, user=request.user)
        return Response({"deal": selectors.deal_view(deal)})


class DealUndoView(APIView):
    @extend_schema(
        request=s.ExpectedSeqSerializer,
        responses={
            200: OpenApiTypes.OBJECT,
            409: OpenApiResponse(s.ErrorSerializer, description="Stale expected_seq; the body has the current seq."),
            **ERRORS,
        },
        tags=["deals"],
    )
    def post(self, request: Request, pk: int) -> Response:
        deal = _deal_for(request.user, pk)
        if not isinstance(request.data, dict):
            raise Refusal(_("The body must be a JSON object, e.g. {\"expected_seq\": 3}."), code="invalid")
        data = s.ExpectedSeqSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        deal = services.entry_undo(
            deal_id=deal.pk, user=request.user, expected_seq=data.validated_data.get("expected_seq")
        )
        return Response({"deal": selectors.deal_view(deal)})
