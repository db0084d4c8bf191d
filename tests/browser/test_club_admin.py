"""The club's own administration in real Chromium, on a tablet and a phone: an admin
renames and deactivates a member, and an invitation link lets a new member choose a password,
sign in and see the club."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.models import Member

from .conftest import PHONE, TABLET, check_a11y, shoot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

NEW_PASSWORD = "kortos-vakaras-7"


def no_overflow(page: Any, size: dict[str, int]) -> None:
    assert page.evaluate("document.documentElement.scrollWidth") <= size["width"]


@pytest.mark.parametrize("size", [TABLET, PHONE], ids=["tablet", "phone"])
def test_an_admin_renames_and_deactivates_a_member(open_page: Any, club_setup: dict[str, Any],
                                                   size: dict[str, int]) -> None:
    petras = club_setup["members"]["Petras"]
    page = open_page(club_setup["users"]["admin"], size=size)
    page.get_by_role("link", name=re.compile("Vilniaus klubas")).click()
    page.get_by_role("link", name="Members").click()
    page.get_by_role("heading", name="Members", exact=True).wait_for()
    no_overflow(page, size)
    # A name already taken is refused beside the field, as typed, and nothing is added.
    page.get_by_label("Name", exact=True).fill("asta")
    page.get_by_role("button", name="Add the member").click()
    assert page.locator("#name-error").inner_text() == "asta is already a member of this club."
    assert page.get_by_label("Name", exact=True).input_value() == "asta"
    if size == TABLET:
        shoot(page, "club-members-refused")
    page.get_by_label("Name", exact=True).fill("Gintarė")
    page.get_by_label("Role").select_option("scorer")
    page.get_by_role("button", name="Add the member").click()
    page.locator(f"#member-{Member.objects.get(name='Gintarė').pk}").wait_for()
    assert Member.objects.get(name="Gintarė").role == "scorer"
    if size == TABLET:
        shoot(page, "club-members")
    check_a11y(page)

    page.get_by_role("link", name=re.compile("^Petras")).click()
    page.get_by_role("heading", name="Petras").wait_for()
    no_overflow(page, size)
    page.get_by_label("Name", exact=True).fill("Petras K.")
    page.get_by_role("button", name="Save").click()
    page.get_by_text("Saved.").wait_for()
    assert page.get_by_role("heading", name="Petras K.").is_visible()
    page.get_by_role("button", name="Deactivate Petras K.").click()
    page.get_by_text("Petras K. is deactivated: their history stays").wait_for()
    petras.refresh_from_db()
    assert (petras.name, petras.active) == ("Petras K.", False)
    if size == TABLET:
        shoot(page, "club-member-deactivated")
    check_a11y(page)
    # The session form no longer offers him.
    page.goto("/clubs/vilnius/sessions/new/")
    assert page.locator(".seat-pick").filter(has_text="Petras").count() == 0
    assert page.js_errors == []


@pytest.mark.parametrize("size", [TABLET, PHONE], ids=["tablet", "phone"])
def test_an_invitation_link_lets_a_new_member_sign_in_and_see_the_club(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int],
) -> None:
    admin = open_page(club_setup["users"]["admin"], size=size)
    petras = club_setup["members"]["Asta"]
    admin.goto(f"/clubs/vilnius/members/{petras.pk}/manage/")
    admin.get_by_role("button", name="Make an invitation").click()
    code = admin.locator("[data-invitation-code]").inner_text()
    assert re.fullmatch(r"[A-Z0-9]{5}-[A-Z0-9]{5}", code)
    link = admin.get_by_label("Invitation link").input_value()
    assert link.endswith(f"/invitation/{code}/")
    no_overflow(admin, size)
    if size == TABLET:
        shoot(admin, "club-member-invitation")
    check_a11y(admin)

    newcomer = open_page(size=size)  # another browser, nobody signed in
    newcomer.goto(link)
    newcomer.get_by_role("heading", name="Join Vilniaus klubas").wait_for()
    newcomer.get_by_label("Username").fill("asta")
    newcomer.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
    newcomer.get_by_label("The password again").fill(NEW_PASSWORD + "x")
    newcomer.get_by_role("button", name="Create my sign-in").click()
    assert newcomer.locator("#password2-error").inner_text() == "The two password fields didn’t match."
    no_overflow(newcomer, size)
    if size == TABLET:
        shoot(newcomer, "invitation-refused")
    newcomer.get_by_label("Password", exact=True).fill(NEW_PASSWORD)
    newcomer.get_by_label("The password again").fill(NEW_PASSWORD)
    newcomer.get_by_role("button", name="Create my sign-in").click()
    newcomer.wait_for_url(re.compile("/clubs/vilnius/$"))
    newcomer.get_by_role("heading", name="Vilniaus klubas").wait_for()
    assert newcomer.get_by_role("button", name="Sign out asta").is_visible()

    # Used once, the link says so; and the new password signs in from anywhere.
    again = open_page(size=size)
    again.goto(link)
    assert again.locator("#invitation-refusal").inner_text().startswith("This invitation has already been used.")
    if size == TABLET:
        shoot(again, "invitation-used")
    check_a11y(again)
    sign_in(again, "asta", NEW_PASSWORD)
    again.goto("/clubs/vilnius/")
    again.get_by_role("heading", name="Vilniaus klubas").wait_for()
    assert Member.objects.get(pk=petras.pk).user.get_username() == "asta"
    assert newcomer.js_errors == [] and admin.js_errors == []


def test_the_code_typed_by_hand_opens_the_invitation(open_page: Any, club_setup: dict[str, Any]) -> None:
    admin = open_page(club_setup["users"]["admin"], size=PHONE)
    admin.goto(f"/clubs/vilnius/members/{club_setup['members']['Tomas'].pk}/manage/")
    admin.get_by_role("button", name="Make an invitation").click()
    code = admin.locator("[data-invitation-code]").inner_text()
    newcomer = open_page(size=PHONE)
    newcomer.goto("/invitation/")
    newcomer.get_by_label("Invitation code").fill(code.lower().replace("-", " "))
    shoot(newcomer, "invitation-code")
    check_a11y(newcomer)
    newcomer.get_by_role("button", name="Open the invitation").click()
    newcomer.get_by_role("heading", name="Join Vilniaus klubas").wait_for()
    assert "You are invited as Tomas." in newcomer.locator("main").inner_text()


def test_the_members_pages_in_lithuanian_fit_a_phone(open_page: Any, club_setup: dict[str, Any]) -> None:
    page = open_page(club_setup["users"]["admin"], language="lt", size=PHONE)
    page.goto("/clubs/vilnius/members/")
    page.get_by_role("heading", name="Nariai", exact=True).wait_for()
    no_overflow(page, PHONE)
    shoot(page, "club-members-lt")
    page.goto(f"/clubs/vilnius/members/{club_setup['members']['Marius'].pk}/manage/")
    page.get_by_role("button", name="Sukurti kvietimą").click()
    page.locator("[data-invitation-code]").wait_for()
    no_overflow(page, PHONE)
    shoot(page, "club-member-invitation-lt")
    check_a11y(page)
