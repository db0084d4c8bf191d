"""Invitations: an admin makes a link or code for a member without a sign-in; the
new user opens it once, chooses a username and password and lands on the club's page. A used,
withdrawn, expired or unknown one says so; only a hash of the code is stored."""

from __future__ import annotations

import html
import re
from datetime import timedelta
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.utils import timezone

from referee import invitations
from referee.models import Invitation, Member

pytestmark = pytest.mark.django_db

PASSWORD = "žalias-kirtis-42"


@pytest.fixture(autouse=True)
def fresh_counts() -> Any:
    """Wrong-code counts live in the cache; each test starts with none."""
    cache.clear()
    yield
    cache.clear()


def text(response: Any) -> str:
    return html.unescape(response.content.decode())


def plain(response: Any) -> str:
    """The page's text without its tags."""
    return re.sub(r"<[^>]+>", "", text(response))


def invite_url(member: Member) -> str:
    return f"/clubs/{member.club.slug}/members/{member.pk}/manage/invitation/"


def make_invitation(page: Any, club_setup: dict, who: str = "Petras") -> str:
    """The code the admin's page shows for a new invitation."""
    response = page(club_setup["users"]["admin"]).post(invite_url(club_setup["members"][who]), {"action": "make"})
    assert response.status_code == 200
    found = re.search(r"data-invitation-code>([A-Z0-9]{5}-[A-Z0-9]{5})<", response.content.decode())
    assert found is not None
    return found.group(1)


def accept(client: Any, code: str, username: str = "petras", password: str = PASSWORD,
           again: str | None = None) -> Any:
    return client.post(f"/invitation/{code}/", {"username": username, "password1": password,
                                                "password2": password if again is None else again})


def test_the_admin_gets_a_link_and_a_code_stored_only_as_a_hash(page: Any, club_setup: dict) -> None:
    petras = club_setup["members"]["Petras"]
    response = page(club_setup["users"]["admin"]).post(invite_url(petras), {"action": "make"})
    body = text(response)
    code = re.search(r"data-invitation-code>([A-Z0-9-]+)<", body).group(1)  # type: ignore[union-attr]
    assert f'value="http://testserver/invitation/{code}/"' in body
    assert '<meta name="referrer" content="same-origin">' in body  # the code never leaves for another site
    stored = Invitation.objects.get(member=petras)
    assert code.replace("-", "") not in stored.code_hash and stored.code_hash == invitations.code_hash(code)
    assert timedelta(days=6, hours=23) < stored.expires_at - timezone.now() <= timedelta(days=7)
    # The code is not shown again; the page says an invitation is open.
    again = text(page(club_setup["users"]["admin"]).get(f"/clubs/vilnius/members/{petras.pk}/manage/"))
    assert code not in again and "An invitation is open until" in again


def test_a_new_user_sets_a_password_signs_in_and_sees_the_club(page: Any, club_setup: dict) -> None:
    code = make_invitation(page, club_setup)
    visitor = page()
    opened = plain(visitor.get(f"/invitation/{code}/"))
    assert "Join Vilniaus klubas" in opened and "You are invited as Petras." in opened
    response = accept(visitor, code)
    assert response.status_code == 302 and response["Location"] == "/clubs/vilnius/"
    user = get_user_model().objects.get(username="petras")
    assert user.check_password(PASSWORD)
    assert Member.objects.get(pk=club_setup["members"]["Petras"].pk).user == user
    assert visitor.get("/clubs/vilnius/").status_code == 200  # signed in, a member
    assert Invitation.objects.get().used_at is not None


def test_the_code_works_typed_in_any_case_without_its_dash(page: Any, club_setup: dict) -> None:
    code = make_invitation(page, club_setup)
    response = page().get("/invitation/", {"code": f" {code.replace('-', ' ').lower()} "})
    assert response.status_code == 302 and response["Location"] == f"/invitation/{code}/"


@pytest.mark.parametrize(("typed", "message"), [
    ("", "Type the code from your invitation, e.g. KQ7MX-4TRAH."),
    ("ABC", "An invitation code has 10 letters and digits, e.g. KQ7MX-4TRAH."),
])
def test_an_unreadable_typed_code_is_explained_beside_the_field(page: Any, typed: str, message: str) -> None:
    response = page().get("/invitation/", {"code": typed})
    assert response.status_code == 400
    assert f'<p class="field-error" id="code-error">{message}</p>' in text(response)


def test_a_used_invitation_says_so_and_makes_nobody(page: Any, club_setup: dict) -> None:
    code = make_invitation(page, club_setup)
    accept(page(), code)
    response = accept(page(), code, username="kitas")
    assert response.status_code == 400
    assert ("This invitation has already been used. Sign in with the username chosen then, or ask the club's admin "
            "for a new invitation.") in text(response)
    assert not get_user_model().objects.filter(username="kitas").exists()


def test_an_expired_invitation_says_when_it_expired(page: Any, club_setup: dict) -> None:
    code = make_invitation(page, club_setup)
    Invitation.objects.update(expires_at=timezone.now() - timedelta(minutes=1))
    response = page().get(f"/invitation/{code}/")
    assert response.status_code == 400
    assert re.search(r"This invitation expired on \d.+?\. Ask the club's admin for a new one\.", text(response))
    assert accept(page(), code).status_code == 400
    assert not get_user_model().objects.filter(username="petras").exists()


def test_an_admin_withdraws_an_invitation(page: Any, club_setup: dict) -> None:
    code = make_invitation(page, club_setup)
    petras = club_setup["members"]["Petras"]
    response = page(club_setup["users"]["admin"]).post(invite_url(petras), {"action": "revoke"})
    assert response.status_code == 302 and response["Location"].endswith("?revoked=1")
    refused = accept(page(), code)
    assert refused.status_code == 400
    assert "This invitation was withdrawn by the club's admin. Ask them for a new one." in text(refused)
    assert Member.objects.get(pk=petras.pk).user is None


def test_a_new_invitation_withdraws_the_open_one(page: Any, club_setup: dict) -> None:
    first = make_invitation(page, club_setup)
    second = make_invitation(page, club_setup)
    assert "withdrawn by the club's admin" in text(page().get(f"/invitation/{first}/"))
    assert accept(page(), second).status_code == 302


def test_withdrawing_without_an_open_invitation_is_explained(page: Any, club_setup: dict) -> None:
    petras = club_setup["members"]["Petras"]
    response = page(club_setup["users"]["admin"]).post(invite_url(petras), {"action": "revoke"})
    assert response.status_code == 400
    assert ('<p class="field-error" role="alert" id="invitation-error">Petras has no invitation to withdraw.</p>'
            in text(response))


@pytest.mark.parametrize(("who", "action", "status", "message"), [
    ("scorer", "make", 409, "Jonas already signs in as “scorer”."),
    ("Petras", "frobnicate", 400, "Choose to make or withdraw an invitation."),
    ("Petras", "", 400, "Choose to make or withdraw an invitation."),
])
def test_a_refused_invitation_makes_nothing(page: Any, club_setup: dict, who: str, action: str, status: int,
                                            message: str) -> None:
    response = page(club_setup["users"]["admin"]).post(invite_url(club_setup["members"][who]), {"action": action})
    assert response.status_code == status
    assert f'id="invitation-error">{message}</p>' in text(response)
    assert not Invitation.objects.exists()


def test_a_deactivated_member_cannot_be_invited_and_their_open_invitation_stops(page: Any, club_setup: dict) -> None:
    code = make_invitation(page, club_setup)
    petras = club_setup["members"]["Petras"]
    admin = page(club_setup["users"]["admin"])
    admin.post(f"/clubs/vilnius/members/{petras.pk}/manage/active/", {"active": "0"})
    assert "This invitation is no longer valid. Ask the club's admin for a new one." in text(
        page().get(f"/invitation/{code}/"))
    response = admin.post(invite_url(petras), {"action": "make"})
    assert response.status_code == 400
    assert "Petras is deactivated; reactivate them before inviting them." in text(response)


def test_an_unknown_code_is_a_404_and_guessing_is_slowed_down(page: Any) -> None:
    visitor = page()
    response = visitor.get("/invitation/AAAAA-AAAAA/")
    assert response.status_code == 404
    assert "This invitation code is not known. Check it, or ask the club's admin for a new one." in text(response)
    for _ in range(9):
        visitor.get("/invitation/AAAAA-AAAAA/")
    blocked = visitor.get("/invitation/AAAAA-AAAAA/")
    assert blocked.status_code == 429
    assert "Too many wrong invitation codes. Wait a few minutes and try again." in text(blocked)


@pytest.mark.parametrize(("fields", "field", "message"), [
    ({"username": ""}, "username", "This field is required."),
    ({"username": "scorer"}, "username", "A user with that username already exists."),
    ({"username": "Scorer"}, "username", "A user with that username already exists."),
    ({"username": "pe tras"}, "username", "Enter a valid username. This value may contain only letters, numbers, "
                                          "and @/./+/-/_ characters."),
    ({"password": "short"}, "password2", "This password is too short. It must contain at least 8 characters."),
    ({"again": "kitas-slaptazodis"}, "password2", "The two password fields didn’t match."),
])
def test_a_refused_sign_in_is_explained_beside_its_field_and_keeps_the_invitation(
    page: Any, club_setup: dict, fields: dict, field: str, message: str,
) -> None:
    code = make_invitation(page, club_setup)
    users = get_user_model().objects.count()
    response = accept(page(), code, **fields)
    assert response.status_code == 400
    assert f'<p class="field-error" id="{field}-error">{message}</p>' in text(response)
    assert get_user_model().objects.count() == users
    assert Invitation.objects.get().used_at is None
    assert Member.objects.get(pk=club_setup["members"]["Petras"].pk).user is None


def test_the_invitation_speaks_lithuanian(page: Any, club_setup: dict) -> None:
    code = make_invitation(page, club_setup)
    body = plain(page(language="lt").get(f"/invitation/{code}/"))
    assert "Prisijungimas prie klubo: Vilniaus klubas" in body  # a club's name is not declined
    assert "Esate pakviesti kaip Petras." in body
    refused = plain(page(language="lt").get("/invitation/AAAAA-AAAAA/"))
    assert "Tokio kvietimo kodo nėra. Patikrinkite jį arba paprašykite klubo administratoriaus naujo." in refused


def test_a_too_short_password_is_refused_in_lithuanian(page: Any, club_setup: dict) -> None:
    code = make_invitation(page, club_setup)
    response = accept(page(language="lt"), code, password="trumpas")
    assert response.status_code == 400
    assert "Šis slaptažodis yra per trumpas." in text(response)
