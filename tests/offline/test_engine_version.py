"""The server says which engine it referees with, so that a tablet can tell its copy is older."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from referee import offline_engine, services

pytestmark = pytest.mark.django_db


def test_the_engine_version_is_public_and_matches_what_the_build_writes(client: Any, tmp_path: Path) -> None:
    answer = client.get("/api/engine/")
    assert answer.status_code == 200
    manifest = offline_engine.build(tmp_path, with_pyodide=False)
    assert answer.json() == {"version": manifest["version"], "manifest": "/static/offline/engine.json"}
    assert answer["X-Engine-Version"] == manifest["version"]
    assert answer["Cache-Control"] == "no-cache"


def test_the_build_is_the_same_bytes_for_the_same_source_and_its_manifest_holds_their_hashes(tmp_path: Path) -> None:
    first = offline_engine.build(tmp_path / "one", with_pyodide=False)
    second = offline_engine.build(tmp_path / "two", with_pyodide=False)
    assert first == second
    for kind in ("archive", "catalogue"):
        data = (tmp_path / "one" / first[kind]).read_bytes()
        assert data == (tmp_path / "two" / second[kind]).read_bytes()
        assert hashlib.sha256(data).hexdigest() == first["sha256"][kind]
    assert json.loads((tmp_path / "one" / "engine.json").read_text()) == first
    assert first["archive"] == f"engine-{first['version']}.zip"


def test_a_new_build_leaves_only_the_current_version(tmp_path: Path) -> None:
    (tmp_path / "engine-0000000000000000.zip").write_bytes(b"old")
    manifest = offline_engine.build(tmp_path, with_pyodide=False)
    assert sorted(path.name for path in tmp_path.iterdir()) == sorted(
        ["engine.json", manifest["archive"], manifest["catalogue"]]
    )


def test_the_catalogue_translates_the_engines_refusals_and_names_each_games_fields(tmp_path: Path) -> None:
    manifest = offline_engine.build(tmp_path, with_pyodide=False)
    catalogue = json.loads((tmp_path / manifest["catalogue"]).read_text())
    assert set(catalogue) == {"lt", "en"}
    ended = "This deal has ended; nothing more can be recorded in it."
    assert catalogue["lt"]["messages"][ended] == "Šis padalijimas baigtas; jame nieko daugiau rašyti negalima."
    assert ended not in catalogue["en"]["messages"]  # English is the template itself
    assert catalogue["lt"]["words"]["rukas"]["cards"] != catalogue["en"]["words"]["rukas"]["cards"]


def test_entry_answers_name_the_engine_version_stored_or_refused(api: Any, club_setup: dict[str, Any]) -> None:
    scorer = club_setup["users"]["scorer"]
    players = list(club_setup["members"].values())[:5]
    session = services.session_start(club=club_setup["club"], game="rukas", players=players, user=scorer)
    deal = services.deal_start(session=session, user=scorer, dealer=4)
    client = api(scorer)
    url = f"/api/deals/{deal.pk}/entries/"
    stored = client.post(url, {"type": "trick", "cards": ["3", "9", "9", "J", "4"]}, format="json")
    refused = client.post(url, {"type": "trick", "cards": ["3"]}, format="json")
    listed = client.get(url)
    assert (stored.status_code, refused.status_code, listed.status_code) == (201, 400, 200)
    for answer in (stored, refused, listed):
        assert answer["X-Engine-Version"] == offline_engine.version()
