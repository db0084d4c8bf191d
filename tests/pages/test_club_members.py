"""The club's own administration: an admin adds, renames, re-roles, deactivates and
reactivates members on the club's pages; everyone else is refused, changing nothing."""

from __future__ import annotations

import html
from typing import Any

import pytest

from referee.models import Member, Role

pytestmark = pytest.mark.django_db


def text(response: Any) -> str:
    """The page as a reader sees it (entities such as &#x27; read back)."""
    return html.unescape(response.content.decode())


def members_url(slug: str = "vilnius") -> str:
    return f"/clubs/{slug}/members/"


def member_url(member: Member, tail: str = "") -> str:
    return f"/clubs/{member.club.slug}/members/{member.pk}/manage/{tail}"


def snapshot() -> list[tuple[str, str, bool]]:
    return list(Member.objects.order_by("pk").values_list("name", "role", "active"))


# -- who sees what ---------------------------------------------------------------------------------


def test_the_club_page_links_to_its_members(page: Any, club_setup: dict) -> None:
    body = text(page(club_setup["users"]["member"]).get("/clubs/vilnius/"))
    assert 'href="/clubs/vilnius/members/"' in body


def test_an_admin_sees_the_list_with_the_add_form_and_each_member_linked(page: Any, club_setup: dict) -> None:
    m = club_setup["members"]
    body = text(page(club_setup["users"]["admin"]).get(members_url()))
    assert "Add a member" in body
    assert f'href="{member_url(m["Petras"])}"' in body
    assert "signs in as scorer" in body and "no sign-in" in body
    assert "Darius" not in body  # another club's member


@pytest.mark.parametrize("who", ["scorer", "member"])
def test_scorers_and_members_see_the_list_read_only(page: Any, club_setup: dict, who: str) -> None:
    m = club_setup["members"]
    response = page(club_setup["users"][who]).get(members_url())
    body = text(response)
    assert response.status_code == 200
    assert "Petras" in body and "Add a member" not in body
    assert 'action="/clubs/vilnius/members/"' not in body
    assert f'href="{member_url(m["Petras"])}"' not in body
    assert f'href="/clubs/vilnius/members/{m["Petras"].pk}/"' in body  # the member's history
    assert "Only the club's admins can change members and roles." in body


@pytest.mark.parametrize("who", ["scorer", "member"])
@pytest.mark.parametrize("how", [
    ("post", "", {"name": "Nauja", "role": "member"}),
    ("get", "PK/manage/", {}),
    ("post", "PK/manage/", {"name": "Pertras", "role": "admin"}),
    ("post", "PK/manage/active/", {"active": "0"}),
    ("post", "PK/manage/invitation/", {"action": "make"}),
])
def test_only_admins_change_members(page: Any, club_setup: dict, who: str, how: tuple) -> None:
    method, tail, data = how
    petras = club_setup["members"]["Petras"]
    before = snapshot()
    url = members_url() + tail.replace("PK", str(petras.pk))
    response = getattr(page(club_setup["users"][who]), method)(url, data)
    assert response.status_code == 403
    assert "Only the club's admins can manage members and roles." in text(response)
    assert snapshot() == before
    assert not petras.invitations.exists()


@pytest.mark.parametrize("tail", ["", "PK/manage/", "PK/manage/active/", "PK/manage/invitation/"])
def test_other_clubs_and_strangers_learn_nothing(page: Any, club_setup: dict, tail: str) -> None:
    petras = club_setup["members"]["Petras"]
    url = members_url() + tail.replace("PK", str(petras.pk))
    before = snapshot()
    assert page(club_setup["users"]["outsider"]).post(url, {"name": "X", "role": "admin", "active": "0",
                                                           "action": "make"}).status_code == 404
    assert page().get(url).status_code == 302  # to the sign-in
    assert snapshot() == before


def test_another_clubs_member_is_not_found_under_this_club(page: Any, club_setup: dict) -> None:
    darius = club_setup["members"]["outsider"]
    response = page(club_setup["users"]["admin"]).post(f"/clubs/vilnius/members/{darius.pk}/manage/", {"name": "X",
                                                                                                "role": "member"})
    assert response.status_code == 404
    assert Member.objects.get(pk=darius.pk).name == "Darius"


def test_a_post_without_the_csrf_token_is_refused(club_setup: dict) -> None:
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(club_setup["users"]["admin"])
    before = snapshot()
    assert client.post(members_url(), {"name": "Nauja", "role": "member"}).status_code == 403
    assert snapshot() == before


# -- adding ----------------------------------------------------------------------------------------


def test_an_admin_adds_a_member_with_a_role(page: Any, club_setup: dict) -> None:
    response = page(club_setup["users"]["admin"]).post(members_url(), {"name": "  Gintarė ", "role": "scorer"})
    added = Member.objects.get(club=club_setup["club"], name="Gintarė")
    assert response.status_code == 302
    assert response["Location"] == f"/clubs/vilnius/members/?added={added.pk}#member-{added.pk}"
    assert (added.role, added.active, added.user) == (Role.SCORER, True, None)


@pytest.mark.parametrize(("data", "field", "message"), [
    ({"name": "", "role": "member"}, "name", "A member needs a name."),
    ({"name": "   ", "role": "member"}, "name", "A member needs a name."),
    ({"name": "petras", "role": "member"}, "name", "petras is already a member of this club."),
    ({"name": "x" * 61, "role": "member"}, "name", "A name can be at most 60 characters long."),
    ({"name": "Gintarė", "role": "boss"}, "role", "Choose one of the roles."),
    ({"name": "Gintarė"}, "role", "Choose one of the roles."),
])
def test_a_refused_member_is_explained_beside_its_field(page: Any, club_setup: dict, data: dict, field: str,
                                                        message: str) -> None:
    before = snapshot()
    response = page(club_setup["users"]["admin"]).post(members_url(), data)
    body = text(response)
    assert response.status_code == 400
    assert f'<p class="field-error" id="{field}-error">{message}</p>' in body
    assert f'aria-describedby="{field}-error"' in body
    assert snapshot() == before


def test_the_typed_name_stays_in_the_field_after_a_refusal(page: Any, club_setup: dict) -> None:
    body = text(page(club_setup["users"]["admin"]).post(members_url(), {"name": "Petras", "role": "x"}))
    assert 'value="Petras"' in body


# -- renaming, roles ----------------------------------------------------------------------------


def test_an_admin_renames_a_member_and_sets_their_role(page: Any, club_setup: dict) -> None:
    petras = club_setup["members"]["Petras"]
    response = page(club_setup["users"]["admin"]).post(member_url(petras), {"name": "Petras K.", "role": "scorer"})
    assert response.status_code == 302
    assert response["Location"] == member_url(petras) + "?saved=1"
    petras.refresh_from_db()
    assert (petras.name, petras.role) == ("Petras K.", Role.SCORER)


def test_renaming_keeps_the_members_history(page: Any, club_setup: dict, start: Any) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    page(club_setup["users"]["admin"]).post(member_url(club_setup["members"]["Petras"]), {"name": "Pit",
                                                                                          "role": "member"})
    assert [s.member.name for s in deal.session.seats.order_by("number")] == ["Ona", "Jonas", "Rūta", "Pit"]


@pytest.mark.parametrize(("data", "field", "message"), [
    ({"name": "ASTA", "role": "member"}, "name", "ASTA is already a member of this club."),
    ({"name": "", "role": "member"}, "name", "A member needs a name."),
    ({"name": "Petras", "role": "owner"}, "role", "Choose one of the roles."),
])
def test_a_refused_change_is_explained_beside_its_field(page: Any, club_setup: dict, data: dict, field: str,
                                                        message: str) -> None:
    petras = club_setup["members"]["Petras"]
    before = snapshot()
    response = page(club_setup["users"]["admin"]).post(member_url(petras), data)
    assert response.status_code == 400
    assert f'<p class="field-error" id="{field}-error">{message}</p>' in text(response)
    assert snapshot() == before


def test_the_last_admin_cannot_step_down_or_be_deactivated(page: Any, club_setup: dict) -> None:
    ona = club_setup["members"]["admin"]
    client = page(club_setup["users"]["admin"])
    before = snapshot()
    response = client.post(member_url(ona), {"name": "Ona", "role": "scorer"})
    assert response.status_code == 400
    assert ('<p class="field-error" id="role-error">A club needs at least one admin; make someone else admin first.'
            "</p>") in text(response)
    response = client.post(member_url(ona, "active/"), {"active": "0"})
    assert response.status_code == 400
    assert ('<p class="field-error" role="alert" id="active-error">A club needs at least one admin; make someone '
            "else admin first.</p>") in text(response)
    assert snapshot() == before
    # With a second admin, Ona may step down.
    client.post(member_url(club_setup["members"]["scorer"]), {"name": "Jonas", "role": "admin"})
    assert client.post(member_url(ona), {"name": "Ona", "role": "scorer"}).status_code == 302


# -- deactivating ---------------------------------------------------------------------------------


def test_a_deactivated_member_keeps_history_but_is_not_offered_at_session_start(
    page: Any, club_setup: dict, start: Any,
) -> None:
    petras = club_setup["members"]["Petras"]
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    client = page(club_setup["users"]["admin"])
    response = client.post(member_url(petras, "active/"), {"active": "0"})
    assert response.status_code == 302 and response["Location"] == member_url(petras) + "?deactivated=1"
    petras.refresh_from_db()
    assert not petras.active
    assert deal.session.seats.filter(member=petras).exists()
    form = text(client.get("/clubs/vilnius/sessions/new/"))
    assert f'name="play_{petras.pk}"' not in form and f'name="play_{club_setup["members"]["Asta"].pk}"' in form
    listed = text(client.get(members_url()))
    assert "Deactivated" in listed and "Petras" in listed
    # Reactivated, Petras is offered again.
    assert client.post(member_url(petras, "active/"), {"active": "1"}).status_code == 302
    assert f'name="play_{petras.pk}"' in text(client.get("/clubs/vilnius/sessions/new/"))


def test_a_deactivated_members_sign_in_no_longer_opens_the_club(page: Any, club_setup: dict) -> None:
    page(club_setup["users"]["admin"]).post(member_url(club_setup["members"]["member"], "active/"), {"active": "0"})
    assert page(club_setup["users"]["member"]).get("/clubs/vilnius/").status_code == 404


@pytest.mark.parametrize("value", ["", "yes", "2"])
def test_an_unreadable_activation_changes_nothing(page: Any, club_setup: dict, value: str) -> None:
    petras = club_setup["members"]["Petras"]
    response = page(club_setup["users"]["admin"]).post(member_url(petras, "active/"), {"active": value})
    assert response.status_code == 400
    assert "Choose to deactivate or reactivate." in text(response)
    assert Member.objects.get(pk=petras.pk).active


def test_activation_is_posted_only(page: Any, club_setup: dict) -> None:
    petras = club_setup["members"]["Petras"]
    assert page(club_setup["users"]["admin"]).get(member_url(petras, "active/")).status_code == 405


def test_the_pages_speak_lithuanian(page: Any, club_setup: dict) -> None:
    client = page(club_setup["users"]["admin"], language="lt")
    body = text(client.get(members_url()))
    assert "Nariai" in body and "Pridėti narį" in body
    response = client.post(members_url(), {"name": "Petras", "role": "member"})
    assert "Petras jau yra šio klubo narys." in text(response)
