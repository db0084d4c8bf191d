"""Clubs and members: ``/api/clubs/``, ``/api/clubs/{slug}/`` and ``/api/clubs/{slug}/members/``."""

from __future__ import annotations

from typing import Any

import pytest

from referee.models import Club, Member, Role

pytestmark = pytest.mark.django_db


# -- clubs ---------------------------------------------------------------------------------


def test_list_shows_only_the_users_clubs_with_their_role(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["scorer"]).get("/api/clubs/")
    assert response.status_code == 200
    assert response.json() == [
        {"slug": "vilnius", "name": "Vilniaus klubas", "public_leaderboard": False, "currency": "EUR",
         "role": "scorer"},
    ]


def test_list_leaves_out_a_club_where_the_membership_is_inactive(club_setup: dict[str, Any], client_for: Any) -> None:
    Member.objects.filter(user=club_setup["users"]["member"]).update(active=False)
    response = client_for(club_setup["users"]["member"]).get("/api/clubs/")
    assert response.status_code == 200
    assert response.json() == []


def test_create_makes_the_creator_its_admin(club_setup: dict[str, Any], client_for: Any, counts: Any) -> None:
    before = counts()
    user = club_setup["users"]["member"]
    response = client_for(user).post(
        "/api/clubs/", {"slug": "klaipeda", "name": "Klaipėdos klubas", "currency": "USD"}, format="json"
    )
    assert response.status_code == 201
    assert response.json() == {
        "slug": "klaipeda", "name": "Klaipėdos klubas", "public_leaderboard": False, "currency": "USD",
        "role": "admin",
    }
    after = counts()
    assert after["Club"] == before["Club"] + 1
    assert after["Member"] == before["Member"] + 1
    admin = Member.objects.get(club__slug="klaipeda")
    assert (admin.user, admin.role, admin.name) == (user, Role.ADMIN, "member")
    # The new club now lists for its creator next to the one they already belonged to.
    listed = client_for(user).get("/api/clubs/").json()
    assert [(c["slug"], c["role"]) for c in listed] == [("klaipeda", "admin"), ("vilnius", "member")]


def test_creator_name_is_the_users_full_name(make_user: Any, client_for: Any) -> None:
    user = make_user("lina", first_name="Lina", last_name="Kairytė")
    response = client_for(user).post("/api/clubs/", {"slug": "siauliai", "name": "Šiaulių klubas"}, format="json")
    assert response.status_code == 201
    assert Member.objects.get(club__slug="siauliai").name == "Lina Kairytė"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"slug": "vilnius", "name": "Kitas"}, "A club with the address “vilnius” already exists."),
        ({"slug": "ne slugas!", "name": "Kitas"},
         'slug: Enter a valid "slug" consisting of letters, numbers, underscores or hyphens.'),
        ({"slug": "kitas"}, "name: This field is required."),
        ({"slug": "kitas", "name": "Kitas", "currency": "eur"},
         "currency: A currency is three capital letters, e.g. EUR."),
        ({"slug": "kitas", "name": "x" * 101}, "name: Ensure this field has no more than 100 characters."),
    ],
)
def test_create_refuses_bad_input_and_stores_nothing(
    club_setup: dict[str, Any], client_for: Any, counts: Any, body: dict[str, Any], message: str
) -> None:
    before = counts()
    response = client_for(club_setup["users"]["admin"]).post("/api/clubs/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == message
    assert counts() == before


def test_detail_for_a_member(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["member"]).get("/api/clubs/vilnius/")
    assert response.status_code == 200
    assert response.json()["role"] == "member"


def test_detail_of_another_club_is_not_found(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["outsider"]).get("/api/clubs/vilnius/")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "error": "Not found."}


def test_admin_updates_the_club(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["admin"]).patch(
        "/api/clubs/vilnius/", {"public_leaderboard": True, "name": "Vilnius"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["public_leaderboard"] is True
    club = Club.objects.get(slug="vilnius")
    assert (club.name, club.public_leaderboard) == ("Vilnius", True)


def test_scorer_cannot_update_the_club(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["scorer"]).patch("/api/clubs/vilnius/", {"name": "X"}, format="json")
    assert response.status_code == 403
    assert response.json() == {"code": "forbidden", "error": "Only the club's admins can manage members and roles."}
    assert Club.objects.get(slug="vilnius").name == "Vilniaus klubas"


# -- members -------------------------------------------------------------------------------


def test_members_listed_by_name(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["member"]).get("/api/clubs/vilnius/members/")
    assert response.status_code == 200
    body = response.json()
    assert [m["name"] for m in body] == ["Asta", "Eglė", "Jonas", "Marius", "Ona", "Petras", "Rūta", "Tomas"]
    ona = next(m for m in body if m["name"] == "Ona")
    assert ona == {"id": club_setup["members"]["admin"].pk, "name": "Ona", "role": "admin", "active": True,
                   "username": "admin"}
    assert next(m for m in body if m["name"] == "Asta")["username"] is None


def test_members_of_another_club_are_not_found(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["outsider"]).get("/api/clubs/vilnius/members/")
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "error": "Not found."}


def test_admin_adds_a_member_linked_to_a_user(
    club_setup: dict[str, Any], client_for: Any, make_user: Any, counts: Any
) -> None:
    make_user("lina")
    before = counts()
    response = client_for(club_setup["users"]["admin"]).post(
        "/api/clubs/vilnius/members/", {"name": "  Lina ", "role": "scorer", "username": "lina"}, format="json"
    )
    assert response.status_code == 201
    body = response.json()
    assert {k: body[k] for k in ("name", "role", "active", "username")} == {
        "name": "Lina", "role": "scorer", "active": True, "username": "lina",
    }
    assert counts()["Member"] == before["Member"] + 1
    assert Member.objects.get(pk=body["id"]).club.slug == "vilnius"


def test_a_member_without_role_is_a_plain_member(club_setup: dict[str, Any], client_for: Any) -> None:
    response = client_for(club_setup["users"]["admin"]).post(
        "/api/clubs/vilnius/members/", {"name": "Lina"}, format="json"
    )
    assert response.status_code == 201
    assert (response.json()["role"], response.json()["username"]) == ("member", None)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"name": "ona"}, "ona is already a member of this club."),
        ({"name": "   "}, "name: This field may not be blank."),
        ({}, "name: This field is required."),
        ({"name": "Lina", "role": "boss"}, 'role: "boss" is not a valid choice.'),
        ({"name": "Lina", "username": "ghost"}, "There is no user “ghost”."),
        ({"name": "Lina", "username": "scorer"}, "That user is already linked to a member of this club."),
        ({"name": "x" * 61}, "name: Ensure this field has no more than 60 characters."),
    ],
)
def test_add_member_refuses_bad_input_and_stores_nothing(
    club_setup: dict[str, Any], client_for: Any, counts: Any, body: dict[str, Any], message: str
) -> None:
    before = counts()
    response = client_for(club_setup["users"]["admin"]).post("/api/clubs/vilnius/members/", body, format="json")
    assert response.status_code == 400
    assert response.json()["error"] == message
    assert counts() == before


@pytest.mark.parametrize("role", ["scorer", "member"])
def test_only_admins_add_members(club_setup: dict[str, Any], client_for: Any, counts: Any, role: str) -> None:
    before = counts()
    response = client_for(club_setup["users"][role]).post(
        "/api/clubs/vilnius/members/", {"name": "Lina"}, format="json"
    )
    assert response.status_code == 403
    assert response.json() == {"code": "forbidden", "error": "Only the club's admins can manage members and roles."}
    assert counts() == before


def test_outsider_cannot_add_members(club_setup: dict[str, Any], client_for: Any, counts: Any) -> None:
    before = counts()
    response = client_for(club_setup["users"]["outsider"]).post(
        "/api/clubs/vilnius/members/", {"name": "Lina"}, format="json"
    )
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "error": "Not found."}
    assert counts() == before


def test_admin_changes_a_role(club_setup: dict[str, Any], client_for: Any) -> None:
    rūta = club_setup["members"]["member"]
    response = client_for(club_setup["users"]["admin"]).patch(
        f"/api/clubs/vilnius/members/{rūta.pk}/", {"role": "scorer"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["role"] == "scorer"
    rūta.refresh_from_db()
    assert rūta.role == Role.SCORER


def test_member_of_another_club_cannot_be_changed_through_this_one(club_setup: dict[str, Any], client_for: Any) -> None:
    darius = club_setup["members"]["outsider"]
    response = client_for(club_setup["users"]["admin"]).patch(
        f"/api/clubs/vilnius/members/{darius.pk}/", {"role": "member"}, format="json"
    )
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "error": "Not found."}
    darius.refresh_from_db()
    assert darius.role == Role.ADMIN


@pytest.mark.parametrize("body", [{"role": "member"}, {"active": False}])
def test_the_last_admin_cannot_step_down(club_setup: dict[str, Any], client_for: Any, body: dict[str, Any]) -> None:
    ona = club_setup["members"]["admin"]
    response = client_for(club_setup["users"]["admin"]).patch(
        f"/api/clubs/vilnius/members/{ona.pk}/", body, format="json"
    )
    assert response.status_code == 400
    assert response.json() == {
        "code": "last_admin", "error": "A club needs at least one admin; make someone else admin first.",
        "field": next(iter(body)),
    }
    ona.refresh_from_db()
    assert (ona.role, ona.active) == (Role.ADMIN, True)


def test_an_admin_steps_down_once_another_admin_exists(club_setup: dict[str, Any], client_for: Any) -> None:
    Member.objects.filter(pk=club_setup["members"]["scorer"].pk).update(role=Role.ADMIN)
    ona = club_setup["members"]["admin"]
    response = client_for(club_setup["users"]["admin"]).patch(
        f"/api/clubs/vilnius/members/{ona.pk}/", {"role": "member"}, format="json"
    )
    assert response.status_code == 200
    ona.refresh_from_db()
    assert ona.role == Role.MEMBER
