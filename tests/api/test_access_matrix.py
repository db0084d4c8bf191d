"""Who may call what: every API operation of the schema, as five people.

Roles: ``anon`` (no credentials), ``outsider`` (admin of another club), ``member``,
``scorer`` and ``admin`` of the club the request is about. Each (operation, role) runs in
a fresh world and must answer exactly the status in ``MATRIX``; an operation of the
OpenAPI schema missing from ``MATRIX`` fails the suite, so a new endpoint cannot ship
without its row. Refusals are in the one error format, and no response about one club
carries a name from the other.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from referee import services
from scoring import seasons
from scoring.settlement import debts
from tests.conftest import build_club_setup, shared_by_the_module
from tests.evenings.world import drawn_evening

pytestmark = pytest.mark.django_db

ROLES = ("anon", "outsider", "member", "scorer", "admin")
VILNIUS_NAMES = ("Ona", "Jonas", "Rūta", "Petras", "Asta", "Tomas", "Eglė", "Marius", "Vilniaus klubas")
KAUNAS_NAMES = ("Darius", "Vytautas", "Ieva", "Kauno klubas")


@dataclass(frozen=True)
class Op:
    method: str
    path: str  # the schema's template
    url: Callable[[dict[str, Any]], str]
    body: Callable[[dict[str, Any]], Any] | None
    expect: tuple[int, int, int, int, int]  # anon, outsider, member, scorer, admin


def _reads(path: str, url: Callable[[dict[str, Any]], str]) -> Op:
    """A read of one club's private data: sign in first; strangers learn nothing; members read."""
    return Op("GET", path, url, None, (401, 404, 200, 200, 200))


def _write(method: str, path: str, url: Callable[[dict[str, Any]], str], body: Any, ok: int,
           needs: str = "scorer") -> Op:
    expect = (401, 404, 403, 403, ok) if needs == "admin" else (401, 404, 403, ok, ok)
    return Op(method, path, url, body if callable(body) else (lambda w, b=body: b), expect)


MATRIX: list[Op] = [
    Op("POST", "/api/auth/token/", lambda w: "/api/auth/token/",
       lambda w: {"username": "member", "password": "pass-word-123"}, (200, 200, 200, 200, 200)),
    Op("GET", "/api/clubs/", lambda w: "/api/clubs/", None, (401, 200, 200, 200, 200)),
    Op("POST", "/api/clubs/", lambda w: "/api/clubs/", lambda w: {"slug": "siauliai", "name": "Šiaulių klubas"},
       (401, 201, 201, 201, 201)),
    _reads("/api/clubs/{slug}/", lambda w: "/api/clubs/vilnius/"),
    _write("PATCH", "/api/clubs/{slug}/", lambda w: "/api/clubs/vilnius/", {"name": "Vilniaus kortų klubas"}, 200,
           needs="admin"),
    _reads("/api/clubs/{slug}/members/", lambda w: "/api/clubs/vilnius/members/"),
    _write("POST", "/api/clubs/{slug}/members/", lambda w: "/api/clubs/vilnius/members/", {"name": "Gintarė"}, 201,
           needs="admin"),
    _write("PATCH", "/api/clubs/{slug}/members/{id}/", lambda w: f"/api/clubs/vilnius/members/{w['petras']}/",
           {"role": "scorer"}, 200, needs="admin"),
    Op("GET", "/api/clubs/{slug}/leaderboard/", lambda w: "/api/clubs/vilnius/leaderboard/", None,
       (404, 404, 200, 200, 200)),
    Op("GET", "/api/clubs/{slug}/head-to-head/",
       lambda w: f"/api/clubs/vilnius/head-to-head/?a={w['ona']}&b={w['jonas']}", None, (401, 404, 200, 200, 200)),
    _reads("/api/clubs/{slug}/members/{id}/history/", lambda w: f"/api/clubs/vilnius/members/{w['ona']}/history/"),
    _reads("/api/clubs/{slug}/members/{id}/rating-history/",
           lambda w: f"/api/clubs/vilnius/members/{w['ona']}/rating-history/"),
    Op("GET", "/api/sessions/", lambda w: "/api/sessions/", None, (401, 200, 200, 200, 200)),
    _write("POST", "/api/sessions/", lambda w: "/api/sessions/",
           lambda w: {"club": "vilnius", "game": "velnias", "players": [w["ona"], w["jonas"], w["petras"]]}, 201),
    _reads("/api/sessions/{id}/", lambda w: f"/api/sessions/{w['rukas']}/"),
    _reads("/api/sessions/{id}/deals/", lambda w: f"/api/sessions/{w['rukas']}/deals/"),
    _write("POST", "/api/sessions/{id}/deals/", lambda w: f"/api/sessions/{w['idle']}/deals/", {}, 201),
    _write("POST", "/api/sessions/{id}/close/", lambda w: f"/api/sessions/{w['idle']}/close/", None, 200),
    _write("POST", "/api/sessions/{id}/reopen/", lambda w: f"/api/sessions/{w['velnias']}/reopen/", None, 200),
    _write("POST", "/api/sessions/{id}/seats/", lambda w: f"/api/sessions/{w['idle']}/seats/",
           lambda w: {"seat": 0, "member": w["marius"]}, 200),
    _write("PATCH", "/api/sessions/{id}/", lambda w: f"/api/sessions/{w['idle']}/", {"plan": {"deals": 5}}, 200),
    # The idle session has no plan to play on past: its scorer is told so, nobody else gets that far.
    _write("POST", "/api/sessions/{id}/play-on/", lambda w: f"/api/sessions/{w['idle']}/play-on/", None, 400),
    _reads("/api/sessions/{id}/audit/", lambda w: f"/api/sessions/{w['rukas']}/audit/"),
    _reads("/api/sessions/{id}/standings/", lambda w: f"/api/sessions/{w['velnias']}/standings/"),
    _reads("/api/sessions/{id}/ledger/", lambda w: f"/api/sessions/{w['velnias']}/ledger/"),
    _reads("/api/sessions/{id}/settlement/", lambda w: f"/api/sessions/{w['velnias']}/settlement/"),
    _reads("/api/sessions/{id}/summary/", lambda w: f"/api/sessions/{w['velnias']}/summary/"),
    _write("POST", "/api/sessions/{id}/summary/retry/", lambda w: f"/api/sessions/{w['velnias']}/summary/retry/",
           None, 202),
    _reads("/api/deals/{id}/", lambda w: f"/api/deals/{w['running']}/"),
    _write("DELETE", "/api/deals/{id}/", lambda w: f"/api/deals/{w['fresh']}/", None, 204),
    _reads("/api/deals/{id}/entries/", lambda w: f"/api/deals/{w['running']}/entries/?all=1"),
    _write("POST", "/api/deals/{id}/entries/", lambda w: f"/api/deals/{w['running']}/entries/",
           {"type": "trick", "cards": ["3", "4", "5", "6"], "expected_seq": 1}, 201),
    _write("PUT", "/api/deals/{id}/entries/{seq}/", lambda w: f"/api/deals/{w['running']}/entries/1/",
           {"type": "trick", "cards": ["2", "3", "4", "6"]}, 200),
    _write("POST", "/api/deals/{id}/undo/", lambda w: f"/api/deals/{w['running']}/undo/", {"expected_seq": 1}, 200),
    _write("POST", "/api/deals/{id}/tablet-version/", lambda w: f"/api/deals/{w['running']}/tablet-version/",
           {"expected_seq": 1, "since_seq": 0, "entries": [
               {"payload": {"type": "trick", "cards": ["2", "3", "4", "6"]}, "idempotency_key": "tablet-1"}]}, 200),
    _reads("/api/clubs/{slug}/debts/", lambda w: "/api/clubs/vilnius/debts/"),
    _write("POST", "/api/clubs/{slug}/payments/", lambda w: "/api/clubs/vilnius/payments/",
           lambda w: {"payer": w["petras"], "payee": w["ona"], "session": w["velnias"]}, 201, needs="admin"),
    _write("POST", "/api/clubs/{slug}/payments/{id}/reverse/",
           lambda w: f"/api/clubs/vilnius/payments/{w['payment']}/reverse/", None, 201, needs="admin"),
    _reads("/api/clubs/{slug}/seasons/", lambda w: "/api/clubs/vilnius/seasons/"),
    _write("POST", "/api/clubs/{slug}/seasons/", lambda w: "/api/clubs/vilnius/seasons/",
           {"name": "Pavasaris", "start": "2026-03-01", "end": "2026-05-31"}, 201, needs="admin"),
    _reads("/api/seasons/{id}/", lambda w: f"/api/seasons/{w['season']}/"),
    _write("POST", "/api/seasons/{id}/close/", lambda w: f"/api/seasons/{w['season']}/close/", None, 200,
           needs="admin"),
    _reads("/api/clubs/{slug}/evenings/", lambda w: "/api/clubs/vilnius/evenings/"),
    _write("POST", "/api/clubs/{slug}/evenings/", lambda w: "/api/clubs/vilnius/evenings/",
           lambda w: {"game": "velnias", "members": [w["ona"], w["jonas"], w["petras"]]}, 201),
    _reads("/api/evenings/{id}/", lambda w: f"/api/evenings/{w['evening']}/"),
    _reads("/api/evenings/{id}/standings/", lambda w: f"/api/evenings/{w['evening']}/standings/"),
    _write("POST", "/api/evenings/{id}/arrivals/", lambda w: f"/api/evenings/{w['evening']}/arrivals/",
           lambda w: {"member": w["marius"]}, 200),
    _write("POST", "/api/evenings/{id}/departures/", lambda w: f"/api/evenings/{w['evening']}/departures/",
           lambda w: {"member": w["petras"]}, 200),
    _write("POST", "/api/evenings/{id}/rounds/", lambda w: f"/api/evenings/{w['evening']}/rounds/", {"seed": 3}, 201),
    _write("POST", "/api/evenings/{id}/close/", lambda w: f"/api/evenings/{w['evening']}/close/", None, 200),
    _write("POST", "/api/rounds/{id}/swap/", lambda w: f"/api/rounds/{w['round']}/swap/",
           lambda w: {"first": w["ona"], "second": w["petras"]}, 200),
    _write("POST", "/api/rounds/{id}/start/", lambda w: f"/api/rounds/{w['round']}/start/", {}, 200),
    # The engine's version is public: a tablet asks before it signs in, and it names no club.
    Op("GET", "/api/engine/", lambda w: "/api/engine/", None, (200, 200, 200, 200, 200)),
]


@pytest.fixture(scope="module")
def shared_world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """Built once for the module; each test runs in a savepoint and is rolled back to it."""
    yield from shared_by_the_module(django_db_blocker, build_world)


@pytest.fixture
def world(shared_world: dict[str, Any], db: Any) -> dict[str, Any]:
    cache.clear()  # the token endpoint's throttle starts empty in every test
    return shared_world


def build_world() -> dict[str, Any]:
    """Vilnius: a closed Velnias evening (its summary failed, so it can be retried), a Rūkas
    evening with a running deal of one trick, an idle evening and one with an empty deal.
    Kaunas: the outsider's club, with its own evening, and a public leaderboard."""
    from scoring.models import SessionSummary

    club_setup = build_club_setup()
    members, users = club_setup["members"], club_setup["users"]
    scorer = users["scorer"]
    four = [members[name] for name in ("admin", "scorer", "member", "Petras")]
    velnias = services.session_start(club=club_setup["club"], game="velnias", players=four, user=scorer,
                                     stake=Decimal("0.10"))
    deal = services.deal_start(session=velnias, user=scorer)
    services.entry_add(deal_id=deal.pk, user=scorer, payload={
        "type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 5, 2, 4]})
    services.session_close(session=velnias, user=scorer)
    SessionSummary.objects.filter(session=velnias).update(state="failed", error="RuntimeError: boom")
    rukas = services.session_start(club=club_setup["club"], game="rukas", players=four, user=scorer)
    running = services.deal_start(session=rukas, user=scorer, dealer=3)
    services.entry_add(deal_id=running.pk, user=scorer, payload={"type": "trick", "cards": ["2", "3", "4", "5"]})
    idle = services.session_start(club=club_setup["club"], game="cheat", players=four[:3], user=scorer)
    waiting = services.session_start(club=club_setup["club"], game="cheat", players=four[1:], user=scorer)
    fresh = services.deal_start(session=waiting, user=scorer)

    other, outsider = club_setup["other"], users["outsider"]
    other.public_leaderboard = True
    other.save()
    theirs = [members["outsider"], *(services.member_add(club=other, name=name, user=outsider)
                                     for name in ("Vytautas", "Ieva"))]
    kaunas = services.session_start(club=other, game="velnias", players=theirs, user=outsider)
    their_deal = services.deal_start(session=kaunas, user=outsider)
    services.entry_add(deal_id=their_deal.pk, user=outsider, payload={
        "type": "end", "condition": "empty_hand", "player": 1, "hand_counts": [6, 0, 3]})
    services.session_close(session=kaunas, user=outsider)
    evening, drawn = drawn_evening(club_setup)
    # Petras (no user of his own) pays Ona toward his balance: only an admin may reverse it.
    paid = debts.payment_mark(club=club_setup["club"], payer=members["Petras"], payee=members["admin"],
                              amount=Decimal("0.10"), user=users["admin"])
    cache.clear()  # the token endpoint's throttle starts empty
    winter = seasons.season_create(club=club_setup["club"], user=users["admin"], name="Žiema",
                                   start=date(2026, 12, 1), end=date(2027, 2, 28))
    return {
        "payment": paid.pk, "season": winter.pk,
        "evening": evening.pk, "round": drawn.pk, "marius": members["Marius"].pk,
        **club_setup, "velnias": velnias.pk, "rukas": rukas.pk, "running": running.pk, "idle": idle.pk,
        "fresh": fresh.pk, "waiting": waiting.pk, "kaunas": kaunas.pk, "their_deal": their_deal.pk,
        "ona": members["admin"].pk, "jonas": members["scorer"].pk, "petras": members["Petras"].pk,
        "darius": members["outsider"].pk,
    }


def client_as(world: dict[str, Any], role: str, api: Any) -> APIClient:
    client = api(None if role == "anon" else world["users"][role])
    client.defaults["HTTP_ACCEPT_LANGUAGE"] = "en"
    return client


def call(client: APIClient, op: Op, world: dict[str, Any]) -> Any:
    body = op.body(world) if op.body else None
    return getattr(client, op.method.lower())(op.url(world), body, format="json")


def test_every_operation_of_the_schema_has_a_row() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    operations = {(method.upper(), path) for path, item in schema["paths"].items() for method in item
                  if method in ("get", "post", "put", "patch", "delete")}
    rows = {(op.method, op.path) for op in MATRIX}
    assert operations - rows == set(), "operations without an access row"
    assert rows - operations == set(), "rows for operations the schema does not have"


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("op", MATRIX, ids=[f"{op.method} {op.path}" for op in MATRIX])
def test_access(op: Op, role: str, world: dict[str, Any], api: Any) -> None:
    response = call(client_as(world, role, api), op, world)
    expected = op.expect[ROLES.index(role)]
    assert response.status_code == expected, response.content[:300]
    text = response.content.decode()
    if response.status_code >= 400:
        body = response.json()
        assert isinstance(body.get("error"), str) and body["error"], body
    # Nothing about the other club, ever: Vilnius' answers carry no Kaunas name, and the
    # outsider's answers about Vilnius carry no Vilnius name.
    if role == "outsider":
        assert not [name for name in VILNIUS_NAMES if name in text], text[:300]
    else:
        assert not [name for name in KAUNAS_NAMES if name in text], text[:300]


REFUSALS = {
    "anon": {"code": "not_authenticated", "error": "Authentication credentials were not provided."},
    "outsider": {"code": "not_found", "error": "Not found."},
    "member": {"code": "forbidden", "error": "Only the club's scorers and admins can record or change play."},
}


@pytest.mark.parametrize("role", ["anon", "outsider", "member"])
def test_refused_writes_change_nothing_and_say_why(role: str, world: dict[str, Any], api: Any) -> None:
    from tests.api.conftest import row_counts

    client = client_as(world, role, api)
    before = row_counts()
    for op in MATRIX:
        if op.method == "GET" or op.path in ("/api/auth/token/", "/api/clubs/") or op.expect[2] != 403:
            continue
        if role == "member" and op.expect[3] == 403:
            continue  # admin-only: a different message, checked below
        response = call(client, op, world)
        assert response.json() == REFUSALS[role], (op.method, op.path)
    assert row_counts() == before


def test_members_and_roles_are_the_admins_alone(world: dict[str, Any], api: Any) -> None:
    response = call(client_as(world, "scorer", api), MATRIX[6], world)
    assert response.json() == {"code": "forbidden", "error": "Only the club's admins can manage members and roles."}


def test_lists_hold_only_ones_own_clubs(world: dict[str, Any], api: Any) -> None:
    member = client_as(world, "member", api)
    assert [club["slug"] for club in member.get("/api/clubs/").json()] == ["vilnius"]
    sessions = member.get("/api/sessions/").json()
    assert sorted(s["id"] for s in sessions) == sorted([world["velnias"], world["rukas"], world["idle"],
                                                        world["waiting"]])
    assert member.get("/api/sessions/?club=kaunas").json() == []
    outsider = client_as(world, "outsider", api)
    assert [club["slug"] for club in outsider.get("/api/clubs/").json()] == ["kaunas"]
    assert [s["id"] for s in outsider.get("/api/sessions/").json()] == [world["kaunas"]]


def test_leaderboards_count_only_their_own_club(world: dict[str, Any], api: Any) -> None:
    """Kaunas' public leaderboard, read by anyone, has Kaunas' one deal; Vilnius' has Vilnius'."""
    public = client_as(world, "anon", api).get("/api/clubs/kaunas/leaderboard/?min_deals=1").json()
    listed = public["ranked"] + public["unranked"]
    assert sorted((row["name"], row["deals"]) for row in listed) == [("Darius", 1), ("Ieva", 1), ("Vytautas", 1)]
    own = client_as(world, "member", api).get("/api/clubs/vilnius/leaderboard/?min_deals=1").json()
    listed = own["ranked"] + own["unranked"]
    assert sorted((row["name"], row["deals"]) for row in listed) == [
        ("Jonas", 1), ("Ona", 1), ("Petras", 1), ("Rūta", 1)]
    assert not [name for name in KAUNAS_NAMES if name in json.dumps(own, ensure_ascii=False)]


def test_another_clubs_member_ids_are_not_found(world: dict[str, Any], api: Any) -> None:
    """Naming a Kaunas member in a Vilnius address or body finds nothing and leaks nothing."""
    admin = client_as(world, "admin", api)
    darius = world["darius"]
    assert admin.get(f"/api/clubs/vilnius/members/{darius}/history/").status_code == 404
    h2h = admin.get(f"/api/clubs/vilnius/head-to-head/?a={world['ona']}&b={darius}")
    assert h2h.status_code == 404
    assert admin.patch(f"/api/clubs/vilnius/members/{darius}/", {"role": "member"}, format="json").status_code == 404
    refused = admin.post("/api/sessions/", {"club": "vilnius", "game": "velnias",
                                            "players": [world["ona"], world["jonas"], darius]}, format="json")
    assert refused.json() == {"code": "refused", "error": f"Member {darius} is not a member of this club."}
    for response in (h2h, refused):
        assert "Darius" not in response.content.decode()
