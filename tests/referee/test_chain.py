"""The club's audit chain: every entry, undo, correction, seat change, start, close and reopen
gets the next number of the club's chain and a hash over its content and the record before;
an edit behind the application's back (a payload, a record, a record removed or moved) fails
verification at exactly that record. Runs on both entry-store paths (tests/referee/conftest.py)."""

from __future__ import annotations

import hashlib
import json
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.utils import translation

from referee import chain, services
from referee.chain_seal import ledger_of, seal_club, verify_club
from referee.models import ChainHead, ChainRecord, DealChange, Entry, SeatChange, Session
from tests.referee.chain_history import CHEAT, CHEAT_NAME, EDITED, TRICK_ENDS, VELNIAS_NAME, history
from tests.scoring.helpers import velnias_end

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("entry_store_path", "english")]

@pytest.fixture
def english() -> Any:
    with translation.override("en"):
        yield


def kinds(club: Any) -> list[str]:
    return list(ChainRecord.objects.filter(club=club).order_by("seq").values_list("kind", flat=True))


def test_every_change_of_the_record_is_a_numbered_link(club_setup: dict[str, Any]) -> None:
    club = club_setup["club"]
    history(club_setup)
    assert kinds(club) == ["open", "entry", "entry", "undo", "entry", "correction", "seat", "close", "reopen",
                           "close", "open", "entry", "entry", "entry"]
    records = list(ChainRecord.objects.filter(club=club).order_by("seq"))
    assert [r.seq for r in records] == list(range(1, 15))
    prev = chain.GENESIS
    for record in records:
        # The database's hash (PostgreSQL hashes in the statement) is Python's over the same text.
        assert record.prev_hash == prev
        assert record.hash == hashlib.sha256((prev + record.content).encode()).hexdigest()
        prev = record.hash
    head = ChainHead.objects.get(club=club)
    assert (head.seq, head.hash) == (14, prev)
    entry = Entry.objects.get(pk=records[1].ref)
    assert json.loads(records[1].content) == {
        "kind": "entry", "session": entry.deal.session_id, "deal": 1, "dealer": entry.deal.dealer, "seq": 1,
        "payload": TRICK_ENDS[0], "by": "scorer", "at": chain.moment(entry.created_at)}
    verdict = verify_club(club.pk)
    assert verdict.ok, verdict.message
    assert verdict.message == "The chain holds: all 14 records match what is stored."
    assert (verdict.checked, verdict.head_seq, verdict.head_hash) == (14, 14, head.hash)


def test_a_refused_entry_or_a_retry_adds_no_record(club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    scorer = club_setup["users"]["scorer"]
    before = kinds(club_setup["club"])
    services.entry_add(deal_id=done["second"].pk, payload=TRICK_ENDS[0], user=scorer, idempotency_key="k-1")
    with pytest.raises(services.Refusal):
        services.entry_add(deal_id=done["running"].pk, payload={"type": "place", "player": 9}, user=scorer)
    assert kinds(club_setup["club"]) == before


def _record(club: Any, seq: int) -> ChainRecord:
    return ChainRecord.objects.get(club=club, seq=seq)


def test_an_entry_edited_behind_the_application_fails_at_its_record(club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    club = club_setup["club"]
    # The Cheat deal's second entry: record 13.
    entry = Entry.objects.get(deal=done["running"], seq=2)
    assert _record(club, 13).ref == entry.pk
    Entry.objects.filter(pk=entry.pk).update(payload=EDITED)
    verdict = verify_club(club.pk)
    assert not verdict.ok and verdict.bad_seq == 13
    assert verdict.message == (
        f"Record 13 (entry 2 of deal 1, session {CHEAT_NAME} #{done['cheat'].pk}): its content does not match what is "
        "stored now: it was edited after it was recorded.")
    assert verdict.checked == 12


def test_an_entry_edited_by_raw_sql_fails_at_its_record(club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    club = club_setup["club"]
    entry = Entry.objects.get(deal=done["first"], seq=1, active=False)  # the one the correction replaced
    with connection.cursor() as cursor:
        cursor.execute("UPDATE referee_entry SET author_id = NULL WHERE id = %s", [entry.pk])
    verdict = verify_club(club.pk)
    # Its own record (2) names its author; so does the correction (6), but 2 comes first.
    assert (verdict.ok, verdict.bad_seq) == (False, 2)
    assert verdict.message.startswith(f"Record 2 (entry 1 of deal 1, session {VELNIAS_NAME} #{done['velnias'].pk}): "
                                      "its content does not match")


def test_a_correction_edited_fails_at_its_record(club_setup: dict[str, Any]) -> None:
    history(club_setup)
    club = club_setup["club"]
    correction = DealChange.objects.get(kind="correction")
    replacement = correction.replacement
    assert replacement is not None
    Entry.objects.filter(pk=replacement.pk).update(payload=velnias_end("empty_hand", 0, [0, 9, 5, 2]))
    verdict = verify_club(club.pk)
    assert verdict.bad_seq == 6
    assert verdict.message.startswith(f"Record 6 (correction of entry 1 of deal 1, session {VELNIAS_NAME} #")


def test_a_stake_or_seat_edited_fails_at_the_first_record_that_names_it(club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    club = club_setup["club"]
    SeatChange.objects.update(now=club_setup["members"]["Tomas"])
    assert verify_club(club.pk).bad_seq == 7
    SeatChange.objects.update(now=club_setup["members"]["Marius"])
    assert verify_club(club.pk).ok
    Session.objects.filter(pk=done["velnias"].pk).update(stake=Decimal("1.00"))
    verdict = verify_club(club.pk)
    assert verdict.bad_seq == 1
    assert verdict.message.startswith(f"Record 1 (start of session {VELNIAS_NAME} #{done['velnias'].pk}): its content")


def test_a_session_reopened_behind_the_application_fails_at_its_last_close(club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    Session.objects.filter(pk=done["velnias"].pk).update(status="open", closed_at=None)
    verdict = verify_club(club_setup["club"].pk)
    assert verdict.bad_seq == 10
    assert "the session's state or closing time does not match it" in verdict.message


def test_a_record_edited_fails_at_that_record(club_setup: dict[str, Any]) -> None:
    history(club_setup)
    club = club_setup["club"]
    record = _record(club, 5)
    ChainRecord.objects.filter(pk=record.pk).update(content=record.content.replace('"seq":1', '"seq":2'))
    verdict = verify_club(club.pk)
    assert verdict.bad_seq == 5
    assert verdict.message.startswith(f"Record 5 (entry 2 of deal 2, session {VELNIAS_NAME} #")
    assert verdict.message.endswith("was edited: its hash does not match its content.")


def test_a_record_rewritten_with_its_hash_fails_at_the_next(club_setup: dict[str, Any]) -> None:
    """Whoever edits an entry and rewrites its record's content and hash breaks the next link."""
    done = history(club_setup)
    club = club_setup["club"]
    entry = Entry.objects.get(deal=done["running"], seq=2)
    Entry.objects.filter(pk=entry.pk).update(payload=EDITED)
    record = _record(club, 13)
    content = record.content.replace('"challenger":1', '"challenger":2')
    assert content != record.content
    ChainRecord.objects.filter(pk=record.pk).update(content=content, hash=chain.link(record.prev_hash, content))
    verdict = verify_club(club.pk)
    assert verdict.bad_seq == 14
    assert verdict.message.startswith(f"Record 14 (entry 3 of deal 1, session {CHEAT_NAME} #")
    assert "does not follow record 13" in verdict.message


def test_a_record_deleted_fails_at_its_number(club_setup: dict[str, Any]) -> None:
    history(club_setup)
    club = club_setup["club"]
    _record(club, 4).delete()
    verdict = verify_club(club.pk)
    assert verdict.bad_seq == 4
    assert verdict.message == "Record 4 is missing: the chain goes from record 3 to record 5."


def test_records_renumbered_to_hide_a_deletion_fail_where_the_link_breaks(club_setup: dict[str, Any]) -> None:
    history(club_setup)
    club = club_setup["club"]
    _record(club, 4).delete()
    for seq in range(5, 15):
        ChainRecord.objects.filter(club=club, seq=seq).update(seq=seq - 1)
    ChainHead.objects.filter(club=club).update(seq=13)
    verdict = verify_club(club.pk)
    assert verdict.bad_seq == 4
    assert "does not follow record 3" in verdict.message


def test_two_records_swapped_fail_at_the_first(club_setup: dict[str, Any]) -> None:
    history(club_setup)
    club = club_setup["club"]
    a, b = _record(club, 8), _record(club, 9)
    ChainRecord.objects.filter(pk=a.pk).update(seq=1000)
    ChainRecord.objects.filter(pk=b.pk).update(seq=8)
    ChainRecord.objects.filter(pk=a.pk).update(seq=9)
    verdict = verify_club(club.pk)
    assert verdict.bad_seq == 8
    assert verdict.message.startswith(f"Record 8 (reopening of session {VELNIAS_NAME} #")


def test_the_last_records_removed_show_at_the_head(club_setup: dict[str, Any]) -> None:
    history(club_setup)
    club = club_setup["club"]
    ChainRecord.objects.filter(club=club, seq__gte=13).delete()
    verdict = verify_club(club.pk)
    assert verdict.bad_seq == 13
    assert verdict.message == "The chain ends at record 12, but its head says 14: the records after 12 were removed."


def test_an_earlier_head_proves_a_rewritten_tail(club_setup: dict[str, Any]) -> None:
    """A chain rewritten from some record on, with its head, holds by itself; the head noted
    earlier does not."""
    done = history(club_setup)
    club = club_setup["club"]
    noted = (_record(club, 13).seq, _record(club, 13).hash)
    Entry.objects.filter(deal=done["running"], seq=2).update(payload=EDITED)
    ChainRecord.objects.filter(club=club, seq__gte=13).delete()
    ChainHead.objects.filter(club=club).update(seq=12, hash=_record(club, 12).hash)
    assert seal_club(club.pk) == 2  # the edited entry and the next, sealed again
    assert verify_club(club.pk).ok
    verdict = verify_club(club.pk, anchor=(noted[0], noted[1][:16]))
    assert verdict.bad_seq == 13
    assert verdict.message.startswith(f"Record 13 (entry 2 of deal 1, session {CHEAT_NAME} #")
    assert "is not the record noted earlier" in verdict.message


def test_an_entry_inserted_behind_the_application_is_named(club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    Entry.objects.create(deal=done["running"], seq=4, payload={"type": "place", "player": 1})
    verdict = verify_club(club_setup["club"].pk)
    assert (verdict.ok, verdict.bad_seq) == (False, None)
    assert verdict.message == (f"Entry 4 of deal 1, session {CHEAT_NAME} #{done['cheat'].pk} is not in the chain: "
                               "it was written behind the application's back.")


def test_an_entry_deleted_fails_at_its_record(club_setup: dict[str, Any]) -> None:
    done = history(club_setup)
    Entry.objects.filter(deal=done["running"], seq=3).delete()
    verdict = verify_club(club_setup["club"].pk)
    assert verdict.bad_seq == 14
    assert verdict.message.endswith("what it records is no longer there: it was deleted.")


def test_sealing_gives_history_from_before_the_chain_its_records_in_order(club_setup: dict[str, Any]) -> None:
    club = club_setup["club"]
    history(club_setup)
    expected = kinds(club)
    ChainRecord.objects.all().delete()
    ChainHead.objects.all().delete()
    verdict = verify_club(club.pk)
    first = Session.objects.order_by("pk")[0].pk
    assert verdict.message == (f"The start of session {VELNIAS_NAME} #{first} is not in the chain: it was written "
                               "behind the application's back.")
    assert seal_club(club.pk) == 12  # a close reopened since left no trace in the rows: only the last
    assert seal_club(club.pk) == 0
    assert kinds(club) == [k for k in expected if k != "reopen"][:7] + ["close"] + expected[10:]
    assert verify_club(club.pk).ok


def test_the_command_verifies_a_club_and_names_the_bad_record(club_setup: dict[str, Any], capsys: Any) -> None:
    done = history(club_setup)
    call_command("verify_chain", "vilnius")
    assert "The chain holds: all 14 records match what is stored." in capsys.readouterr().out
    Entry.objects.filter(deal=done["running"], seq=2).update(payload=EDITED)
    bad = r"^Record 13 \(entry 2 of deal 1, session " + CHEAT_NAME + r" #\d+\): its content"
    with pytest.raises(CommandError, match=bad):
        call_command("verify_chain", "vilnius")
    with pytest.raises(CommandError, match="There is no club “nowhere”."):
        call_command("verify_chain", "nowhere")


def test_the_ledger_reads_a_club_in_a_fixed_number_of_queries(club_setup: dict[str, Any],
                                                              django_assert_num_queries: Any) -> None:
    history(club_setup)
    with django_assert_num_queries(8):
        ledger_of(club_setup["club"].pk)


def test_a_tablets_version_is_chained_change_by_change(club_setup: dict[str, Any]) -> None:
    """Each server entry the tablet's version replaces is a "tablet" record naming the entry
    put in its place; the tablet's entries beyond those are entries of their own."""
    from referee.tablet_version import TabletEntry, use_tablet_version

    done = history(club_setup)
    club, scorer = club_setup["club"], club_setup["users"]["scorer"]
    tablet = [TabletEntry(payload=payload, idempotency_key=f"t-{n}") for n, payload in enumerate(
        [CHEAT[1], CHEAT[2], {"type": "place", "player": 1}])]
    use_tablet_version(deal_id=done["running"].pk, user=scorer, expected_seq=3, since_seq=1, entries=tablet)
    assert kinds(club)[14:] == ["tablet", "tablet", "entry"]
    verdict = verify_club(club.pk)
    assert verdict.ok, verdict.message
    replacement = DealChange.objects.filter(kind="tablet").order_by("pk").last()
    assert replacement is not None and replacement.replacement is not None
    Entry.objects.filter(pk=replacement.replacement.pk).update(payload=EDITED)
    verdict = verify_club(club.pk)
    assert verdict.bad_seq == 16
    assert verdict.message.startswith(f"Record 16 (tablet's version of entry 3 of deal 1, session {CHEAT_NAME} #")
