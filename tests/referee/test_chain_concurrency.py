"""Two tables of one club recording at the same moment keep one gapless chain that verifies
(PostgreSQL: the club's chain head is the one row both wait for, and only while appending)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection

from referee import services
from referee.chain_seal import verify_club
from referee.models import ChainRecord, Entry
from tests.referee.test_entry_service import long_cheat_entries

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True),
              pytest.mark.usefixtures("entry_store_path")]

ENTRIES = 40


def test_two_tables_at_once_keep_a_gapless_valid_chain(club_setup: dict[str, Any], require_postgres: None) -> None:
    club, scorer, members = club_setup["club"], club_setup["users"]["scorer"], club_setup["members"]
    tables = [services.session_start(club=club, game="cheat", user=scorer, players=[members[a], members[b]])
              for a, b in (("admin", "scorer"), ("member", "Petras"))]
    deals = [services.deal_start(session=session, user=scorer) for session in tables]
    barrier = threading.Barrier(len(deals))
    errors: list[BaseException] = []

    def record(deal: Any) -> None:
        try:
            barrier.wait(timeout=10)
            for number, payload in enumerate(long_cheat_entries(ENTRIES), start=1):
                services.entry_add(deal_id=deal.pk, payload=payload, user=scorer, idempotency_key=f"{deal.pk}-{number}")
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=record, args=(deal,)) for deal in deals]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    seqs = list(ChainRecord.objects.filter(club=club).order_by("seq").values_list("seq", "kind"))
    assert [seq for seq, _kind in seqs] == list(range(1, 2 * ENTRIES + 3))
    assert sorted(kind for _seq, kind in seqs) == ["entry"] * (2 * ENTRIES) + ["open", "open"]
    # The two tables' entries interleave in the chain (they did run at once), each deal's in its order.
    refs = list(ChainRecord.objects.filter(club=club, kind="entry").order_by("seq").values_list("ref", flat=True))
    order = [(e.deal_id, e.seq) for e in sorted(Entry.objects.filter(pk__in=refs), key=lambda e: refs.index(e.pk))]
    switches = sum(1 for before, after in zip(order, order[1:], strict=False) if before[0] != after[0])
    assert switches >= 2
    for deal in deals:
        assert [seq for deal_id, seq in order if deal_id == deal.pk] == list(range(1, ENTRIES + 1))
    verdict = verify_club(club.pk)
    assert verdict.ok, verdict.message
    assert verdict.head_seq == 2 * ENTRIES + 2


def test_deals_finishing_at_two_tables_and_a_seat_correction_keep_a_valid_chain(
    club_setup: dict[str, Any], require_postgres: None
) -> None:
    """Finishing entries take the chain head, then scoring's aggregates; a seat correction of a
    third table, played by the same members, takes them in the same order: nobody deadlocks."""
    from referee.seat_corrections import seat_correct
    from tests.scoring.helpers import velnias_end

    club, scorer, members = club_setup["club"], club_setup["users"]["scorer"], club_setup["members"]
    names = (("admin", "scorer", "member"), ("member", "scorer", "admin"), ("scorer", "admin", "member"))
    tables = [services.session_start(club=club, game="velnias", user=scorer, players=[members[n] for n in seat])
              for seat in names]
    corrected = tables[2]
    deal = services.deal_start(session=corrected, user=scorer)
    services.entry_add(deal_id=deal.pk, payload=velnias_end("empty_hand", 0, [0, 4, 2]), user=scorer)
    errors: list[BaseException] = []
    barrier = threading.Barrier(3)

    def finish(session: Any) -> None:
        try:
            barrier.wait(timeout=10)
            for _round in range(4):
                started = services.deal_start(session=session, user=scorer)
                services.entry_add(deal_id=started.pk, payload=velnias_end("empty_hand", 0, [0, 4, 2]), user=scorer)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    def correct() -> None:
        try:
            barrier.wait(timeout=10)
            for member in ("Petras", "Asta", "Tomas", "Eglė"):
                seat_correct(session=corrected, seat=2, member=members[member], user=scorer)
        except BaseException as error:  # noqa: BLE001 - reported below
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=finish, args=(s,)) for s in tables[:2]] + [threading.Thread(target=correct)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    seqs = list(ChainRecord.objects.filter(club=club).order_by("seq").values_list("seq", flat=True))
    # Three starts, the third table's entry, 2 x 4 finishing entries, four seat changes.
    assert seqs == list(range(1, 3 + 1 + 8 + 4 + 1))
    verdict = verify_club(club.pk)
    assert verdict.ok, verdict.message
