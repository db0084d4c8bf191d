"""Who may call what: 401 without credentials, 404 for another club (a private club's data is
never revealed), 403 for a member whose role is too low; and the token endpoint."""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import Deal, Member

pytestmark = pytest.mark.django_db

TRICK = {"type": "trick", "cards": ["3", "2"]}


@pytest.fixture
def table(club_setup: dict[str, Any], start_session: Any, start_deal: Any, client_for: Any) -> dict[str, Any]:
    """A Rūkas session of Vilnius with one deal and one trick recorded."""
    session = start_session("rukas", ["Ona", "Jonas"])
    deal = start_deal(session)
    response = client_for(club_setup["users"]["scorer"]).post(
        f"/api/deals/{deal.pk}/entries/", {"type": "trick", "cards": ["2", "3"]}, format="json"
    )
    assert response.status_code == 201
    return {"session": session, "deal": deal, "member": club_setup["members"]["Petras"]}


def endpoints(table: dict[str, Any]) -> list[tuple[str, str, Any]]:
    """Every endpoint of the API, with a body that would be accepted from a scorer or admin."""
    s, d, m = table["session"].pk, table["deal"].pk, table["member"].pk
    seated = table["session"].seats.first().member_id
    return [
        ("get", "/api/clubs/vilnius/", None),
        ("patch", "/api/clubs/vilnius/", {"name": "X"}),
        ("get", "/api/clubs/vilnius/members/", None),
        ("post", "/api/clubs/vilnius/members/", {"name": "Lina"}),
        ("patch", f"/api/clubs/vilnius/members/{m}/", {"role": "scorer"}),
        ("post", "/api/sessions/", {"club": "vilnius", "game": "rukas", "players": [m, seated]}),
        ("get", f"/api/sessions/{s}/", None),
        ("get", f"/api/sessions/{s}/deals/", None),
        ("post", f"/api/sessions/{s}/deals/", {}),
        ("post", f"/api/sessions/{s}/close/", None),
        ("post", f"/api/sessions/{s}/reopen/", None),
        ("get", f"/api/sessions/{s}/audit/", None),
        ("get", f"/api/deals/{d}/", None),
        ("delete", f"/api/deals/{d}/", None),
        ("get", f"/api/deals/{d}/entries/", None),
        ("post", f"/api/deals/{d}/entries/", TRICK),
        ("put", f"/api/deals/{d}/entries/1/", {"type": "trick", "cards": ["A", "K"]}),
        ("post", f"/api/deals/{d}/undo/", {}),
    ]


WRITES = {"post", "patch", "put", "delete"}


def call(client: Any, method: str, path: str, body: Any) -> Any:
    return getattr(client, method)(path, body, format="json") if body is not None else getattr(client, method)(path)


def test_every_endpoint_needs_credentials(table: dict[str, Any], client_for: Any, counts: Any) -> None:
    anonymous = client_for()
    before = counts()
    paths = [*endpoints(table), ("get", "/api/clubs/", None), ("post", "/api/clubs/", {"slug": "x", "name": "X"}),
             ("get", "/api/sessions/", None)]
    for method, path, body in paths:
        response = call(anonymous, method, path, body)
        assert response.status_code == 401, (method, path)
        assert response.json() == {
            "code": "not_authenticated", "error": "Authentication credentials were not provided."
        }, (method, path)
        assert response["WWW-Authenticate"] == "Token"
    assert counts() == before


def test_a_wrong_token_is_refused(table: dict[str, Any], client_for: Any) -> None:
    client = client_for()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.get("/api/clubs/")
    assert response.status_code == 401
    assert response.json() == {"code": "not_authenticated", "error": "Invalid token."}


def test_another_club_sees_nothing_and_changes_nothing(
    table: dict[str, Any], club_setup: dict[str, Any], client_for: Any, counts: Any
) -> None:
    outsider = client_for(club_setup["users"]["outsider"])  # admin of Kaunas
    before = counts()
    for method, path, body in endpoints(table):
        response = call(outsider, method, path, body)
        assert response.status_code == 404, (method, path, response.json())
        assert response.json() == {"code": "not_found", "error": "Not found."}, (method, path)
    assert counts() == before
    assert outsider.get("/api/sessions/").json() == []
    assert [c["slug"] for c in outsider.get("/api/clubs/").json()] == ["kaunas"]


def test_a_deactivated_member_is_an_outsider(
    table: dict[str, Any], club_setup: dict[str, Any], client_for: Any, counts: Any
) -> None:
    Member.objects.filter(user=club_setup["users"]["scorer"]).update(active=False)
    client = client_for(club_setup["users"]["scorer"])
    before = counts()
    for method, path, body in endpoints(table):
        response = call(client, method, path, body)
        assert response.status_code == 404, (method, path)
    assert counts() == before


def test_a_plain_member_reads_but_does_not_write(
    table: dict[str, Any], club_setup: dict[str, Any], client_for: Any, counts: Any
) -> None:
    member = client_for(club_setup["users"]["member"])
    before = counts()
    admin_only = {"/api/clubs/vilnius/", "/api/clubs/vilnius/members/",
                  f"/api/clubs/vilnius/members/{table['member'].pk}/"}
    for method, path, body in endpoints(table):
        response = call(member, method, path, body)
        if method == "get":
            assert response.status_code == 200, (method, path)
            continue
        assert response.status_code == 403, (method, path, response.json())
        expected = (
            "Only the club's admins can manage members and roles." if path in admin_only
            else "Only the club's scorers and admins can record or change play."
        )
        assert response.json() == {"code": "forbidden", "error": expected}, (method, path)
    assert counts() == before


def test_a_superuser_acts_as_admin_everywhere(table: dict[str, Any], make_user: Any, client_for: Any) -> None:
    root = make_user("root", is_superuser=True, is_staff=True)
    client = client_for(root)
    assert client.get(f"/api/deals/{table['deal'].pk}/").status_code == 200
    response = client.post(f"/api/deals/{table['deal'].pk}/entries/", TRICK, format="json")
    assert response.status_code == 201
    assert response.json()["entry"]["author"] == "root"
    assert Deal.objects.get(pk=table["deal"].pk).seq == 2


# -- tokens ----------------------------------------------------------------------------------


def test_a_token_for_the_right_password(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for().post("/api/auth/token/", {"username": "scorer", "password": "pass-word-123"},
                                 format="json")
    assert response.status_code == 200
    token = response.json()["token"]
    client = client_for()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    assert [c["slug"] for c in client.get("/api/clubs/").json()] == ["vilnius"]
    again = client_for().post("/api/auth/token/", {"username": "scorer", "password": "pass-word-123"}, format="json")
    assert again.json()["token"] == token


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"username": "scorer", "password": "wrong"}, "Wrong username or password."),
        ({"username": "nobody", "password": "pass-word-123"}, "Wrong username or password."),
        ({"username": "scorer"}, "password: This field is required."),
    ],
)
def test_no_token_without_the_right_password(
    club_setup: dict[str, Any], client_for: Any, body: dict[str, str], message: str
) -> None:
    from rest_framework.authtoken.models import Token

    response = client_for().post("/api/auth/token/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == message
    assert Token.objects.count() == 0


def test_an_inactive_user_gets_no_token(club_setup: dict[str, Any], client_for: Any) -> None:
    user = club_setup["users"]["scorer"]
    user.is_active = False
    user.save()
    response = client_for().post("/api/auth/token/", {"username": "scorer", "password": "pass-word-123"},
                                 format="json")
    assert response.status_code == 400
    assert response.json() == {"code": "refused", "error": "Wrong username or password."}
