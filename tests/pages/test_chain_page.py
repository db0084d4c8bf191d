"""The audit chain's page: the club's admins see whether the record holds, and which record
first does not; an export file and a head noted earlier are checked there too."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from referee.models import ChainHead, Entry
from tests.referee.chain_history import CHEAT_NAME, EDITED, history
from web.club_export import export_club

pytestmark = pytest.mark.django_db


def client_for(user: Any) -> Client:
    client = Client()
    client.force_login(user)
    return client


def get(client: Client, slug: str = "vilnius") -> Any:
    return client.get(f"/clubs/{slug}/chain/", HTTP_ACCEPT_LANGUAGE="en")


def post(client: Client, data: dict[str, Any]) -> Any:
    return client.post("/clubs/vilnius/chain/", data, HTTP_ACCEPT_LANGUAGE="en")


def test_an_admin_sees_the_record_holds_and_the_head_to_note(club_setup: dict[str, Any]) -> None:
    history(club_setup)
    head = ChainHead.objects.get(club=club_setup["club"])
    response = get(client_for(club_setup["users"]["admin"]))
    html = response.content.decode()
    assert response.status_code == 200
    assert "The record is intact" in html and "The record was changed" not in html
    assert "The chain holds: all 14 records match what is stored." in html
    assert "Record 14" in html
    assert "".join(f"<span>{head.hash[i:i + 4]}</span>" for i in range(0, 16, 4)) in html
    assert head.hash in html
    assert 'style="' not in html.split("<main", 1)[-1] and "<script>" not in html


def test_the_club_page_links_to_it_for_admins_only(club_setup: dict[str, Any]) -> None:
    admin = client_for(club_setup["users"]["admin"]).get("/clubs/vilnius/", HTTP_ACCEPT_LANGUAGE="en")
    scorer = client_for(club_setup["users"]["scorer"]).get("/clubs/vilnius/", HTTP_ACCEPT_LANGUAGE="en")
    assert "/clubs/vilnius/chain/" in admin.content.decode()
    assert "/clubs/vilnius/chain/" not in scorer.content.decode()


@pytest.mark.parametrize("who", ["scorer", "member"])
def test_the_clubs_other_members_are_told_only_admins_can(club_setup: dict[str, Any], who: str) -> None:
    history(club_setup)
    for response in (get(client_for(club_setup["users"][who])), post(client_for(club_setup["users"][who]), {})):
        html = response.content.decode()
        assert response.status_code == 403
        assert "Only the club&#x27;s admins can verify the audit chain." in html
        assert "The record is intact" not in html and "Record 14" not in html
        assert 'enctype="multipart/form-data"' not in html


def test_outsiders_learn_nothing(club_setup: dict[str, Any]) -> None:
    assert get(client_for(club_setup["users"]["outsider"])).status_code == 404
    assert Client().get("/clubs/vilnius/chain/").status_code == 302  # to the sign-in


def test_an_edit_behind_the_application_names_the_first_bad_record(club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    Entry.objects.filter(deal=done["running"], seq=2).update(payload=EDITED)
    html = get(client_for(club_setup["users"]["admin"])).content.decode()
    assert "The record was changed" in html and "The record is intact" not in html
    assert (f"Record 13 (entry 2 of deal 1, session {CHEAT_NAME} #{done['cheat'].pk}): its content does not match "
            "what is stored now: it was edited after it was recorded.") in html
    assert "First record that does not match: <strong>13</strong>" in html
    assert "Last record that holds" in html and "Record 12" in html


def test_a_noted_head_is_checked(club_setup: dict[str, Any]) -> None:
    history(club_setup)
    admin = client_for(club_setup["users"]["admin"])
    head = ChainHead.objects.get(club=club_setup["club"])
    assert "The record is intact" in post(admin, {"anchor": f"14:{head.hash[:16]}"}).content.decode()
    html = post(admin, {"anchor": "14 0000000000000000"}).content.decode()
    assert "The record was changed" in html
    assert f"is not the record noted earlier: its hash is {head.hash[:16]}, not 0000000000000000." in html
    refused = post(admin, {"anchor": "fourteen"})
    assert refused.status_code == 400
    assert ("Write the noted head as its record number and hash, e.g. 1234:9f2c4e01ab37 (the hash&#x27;s first 12 "
            "characters or more).") in refused.content.decode()


def upload(data: Any, name: str = "vilnius.json") -> SimpleUploadedFile:
    text = data if isinstance(data, bytes) else json.dumps(data).encode()
    return SimpleUploadedFile(name, text, content_type="application/json")


def test_an_export_file_is_verified_and_an_edit_in_it_named(club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    admin = client_for(club_setup["users"]["admin"])
    data = json.loads(json.dumps(export_club(club_setup["club"])))
    html = post(admin, {"file": upload(data)}).content.decode()
    assert "The file is intact" in html and "File: vilnius.json" in html
    next(e for e in data["entries"] if e["deal"] == done["running"].pk and e["seq"] == 2)["payload"] = EDITED
    html = post(admin, {"file": upload(data, "edited.json")}).content.decode()
    assert "The file was changed" in html and "File: edited.json" in html
    assert "First record that does not match: <strong>13</strong>" in html


@pytest.mark.parametrize(("content", "message"), [
    (b"not json", "The file is not a club export of this application."),
    (json.dumps({"format": "kortos-club-export", "club": {"slug": "kaunas"}}).encode(),
     "The file is the export of another club, not of Vilniaus klubas."),
    (json.dumps({"format": "kortos-club-export", "club": {"slug": "vilnius"}}).encode(),
     "The file carries no audit chain (it was exported before the chain existed)."),
])
def test_a_file_that_is_not_this_clubs_export_is_refused(club_setup: dict[str, Any], content: bytes,
                                                         message: str) -> None:
    response = post(client_for(club_setup["users"]["admin"]), {"file": upload(content)})
    assert response.status_code == 400
    assert message in response.content.decode()
