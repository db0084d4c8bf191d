"""The club export carries the audit chain: the file verifies as the database does (an edit of
the file fails at exactly that record, and the import refuses it, changing nothing), and an
export restored keeps a chain that holds, record for record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from referee.chain_seal import verify_club
from referee.errors import Refusal
from referee.models import ChainHead, ChainRecord, Club, Entry, Session
from tests.referee.chain_history import CHEAT_NAME, EDITED, history
from web.chain_file import verify_file
from web.club_export import export_club, import_club

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english() -> Any:
    with translation.override("en"):
        yield


def exported(setup: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    done = history(setup)
    return done, json.loads(json.dumps(export_club(setup["club"])))


def records(club: Club) -> list[tuple[Any, ...]]:
    return list(ChainRecord.objects.filter(club=club).order_by("seq").values_list(
        "seq", "kind", "ref", "content", "prev_hash", "hash"))


def test_the_export_carries_the_chain_and_the_file_verifies(club_setup: dict[str, Any], tmp_path: Path,
                                                            capsys: Any) -> None:
    _done, data = exported(club_setup)
    head = ChainHead.objects.get(club=club_setup["club"])
    assert data["chain"]["head"] == {"seq": 14, "hash": head.hash}
    assert [r["seq"] for r in data["chain"]["records"]] == list(range(1, 15))
    assert len(data["records"]["referee.seatchange"]) == 1
    path = tmp_path / "vilnius.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    call_command("verify_chain", file=str(path))
    out = capsys.readouterr().out
    assert "The chain holds: all 14 records match what is stored." in out
    assert f"Head: record 14, hash {head.hash}" in out


def test_an_entry_edited_in_the_file_fails_at_its_record_and_is_not_imported(
    club_setup: dict[str, Any], tmp_path: Path
) -> None:
    done, data = exported(club_setup)
    edited = next(e for e in data["entries"] if e["deal"] == done["running"].pk and e["seq"] == 2)
    edited["payload"] = EDITED
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    message = (f"Record 13 (entry 2 of deal 1, session {CHEAT_NAME} #{done['cheat'].pk}): its content does not "
               "match what is stored now: it was edited after it was recorded.")
    with pytest.raises(CommandError) as failed:
        call_command("verify_chain", file=str(path))
    assert str(failed.value) == message
    data["club"]["slug"] = "vilnius-copy"
    with pytest.raises(Refusal) as refused:
        import_club(data)
    assert refused.value.message == ("The file's audit chain does not hold, so it was edited after it was exported; "
                                     "nothing was imported. " + message)
    assert Club.objects.filter(slug="vilnius-copy").count() == 0


def test_records_removed_or_moved_in_the_file_fail_where_the_chain_breaks(club_setup: dict[str, Any]) -> None:
    done, data = exported(club_setup)
    removed = json.loads(json.dumps(data))
    del removed["chain"]["records"][6]
    verdict = verify_file(removed)
    assert (verdict.bad_seq, verdict.message) == (7, "Record 7 is missing: the chain goes from record 6 to record 8.")
    moved = json.loads(json.dumps(data))
    chain = moved["chain"]["records"]
    chain[9], chain[10] = chain[10], chain[9]
    verdict = verify_file(moved)
    assert verdict.bad_seq == 10
    assert verdict.message == (f"Record 11 (start of session {CHEAT_NAME} #{done['cheat'].pk}) is out of place: "
                               "record 10 comes after it, so records were moved.")
    stake = json.loads(json.dumps(data))
    stake["sessions"][0]["stake"] = "5.00"
    verdict = verify_file(stake)
    assert verdict.bad_seq == 1
    assert "its content does not match what is stored now" in verdict.message


def test_a_file_without_a_chain_is_not_verified(club_setup: dict[str, Any]) -> None:
    _done, data = exported(club_setup)
    del data["chain"]
    with pytest.raises(Refusal) as refused:
        verify_file(data)
    assert refused.value.message == "The file carries no audit chain (it was exported before the chain existed)."


def restore(setup: dict[str, Any], data: dict[str, Any]) -> Club:
    """The club deleted here and imported back from its file (the same ids are free again)."""
    Session.objects.filter(club=setup["club"]).delete()
    setup["club"].delete()
    return import_club(data)


def test_an_export_restored_keeps_its_chain_record_for_record(club_setup: dict[str, Any]) -> None:
    _done, data = exported(club_setup)
    before = records(club_setup["club"])
    club = restore(club_setup, data)
    assert records(club) == before
    verdict = verify_club(club.pk)
    assert verdict.ok, verdict.message
    assert verdict.head_seq == 14
    assert ChainHead.objects.get(club=club).hash == before[-1][-1]


def test_a_file_from_before_the_chain_is_sealed_on_import(club_setup: dict[str, Any]) -> None:
    _done, data = exported(club_setup)
    # As exported before the club's other records and the chain travelled (version 1).
    data["version"] = 1
    del data["chain"]
    del data["records"]
    club = restore(club_setup, data)
    verdict = verify_club(club.pk)
    assert verdict.ok, verdict.message
    assert Entry.objects.filter(deal__session__club=club).count() == 7
    assert verdict.checked == 11  # no seat change travelled, and of the closes only the last left a trace
