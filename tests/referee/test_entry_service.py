"""The referee's services below the API: the hot path keeps a snapshot and never replays,
undo and corrections replay from the log, and the snapshot always equals that replay."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from referee import services
from referee.errors import NotAllowed, NotFound
from referee.models import ChangeKind, DealChange, Entry
from referee.rules import GAMES
from tests.rules import playout_cheat, playout_michigan, playout_rukas, playout_velnias

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("entry_store_path")]

NAMES = ["Ona", "Jonas", "Rūta", "Petras", "Asta", "Tomas", "Eglė", "Marius"]
PLAYOUTS: dict[str, Any] = {
    "rukas": playout_rukas, "cheat": playout_cheat, "velnias": playout_velnias, "michigan": playout_michigan,
}
PLAYERS = {"rukas": (2, 5, 8), "cheat": (2, 4, 6), "velnias": (3, 5, 8), "michigan": (3, 4, 6)}


@pytest.fixture
def new_deal(club_setup: dict[str, Any]) -> Callable[..., Any]:
    """``new_deal(game, players, options=None, dealer=None)``: a session of the first ``players``
    members and its first deal, through the services."""
    by_name = {m.name: m for m in club_setup["members"].values()}
    scorer = club_setup["users"]["scorer"]

    def make(game: str, players: int, options: dict[str, Any] | None = None, dealer: int | None = None) -> Any:
        session = services.session_start(club=club_setup["club"], game=game, user=scorer, options=options,
                                         players=[by_name[n] for n in NAMES[:players]])
        return services.deal_start(session=session, user=scorer, dealer=dealer)

    return make


def long_cheat_entries(count: int) -> list[dict[str, Any]]:
    """Ona places, Jonas challenges and reveals a lie, again and again: a deal that never ends."""
    pair = [{"type": "place", "player": 0}, {"type": "challenge", "challenger": 1, "revealed": "5H"}]
    return (pair * (count // 2 + 1))[:count]


class Calls:
    """Counts the calls of some methods of a game object (the registry's instance)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, game: Any, *names: str) -> None:
        self.counts = dict.fromkeys(names, 0)
        for name in names:
            original = getattr(game, name)

            def counted(*args: Any, _name: str = name, _original: Any = original, **kwargs: Any) -> Any:
                self.counts[_name] += 1
                return _original(*args, **kwargs)

            monkeypatch.setattr(game, name, counted)


@pytest.mark.parametrize("game", sorted(PLAYOUTS))
@pytest.mark.parametrize("seed", range(3))
def test_the_snapshot_always_equals_a_replay_of_the_log(
    new_deal: Callable[..., Any], club_setup: dict[str, Any], game: str, seed: int
) -> None:
    rng = random.Random(f"{game}-{seed}")
    players = PLAYERS[game][seed]
    kwargs, entries = PLAYOUTS[game].random_deal(rng, players, {})
    deal = new_deal(game, players, kwargs.get("options"), kwargs["dealer"])
    rules = GAMES[game]
    scorer = club_setup["users"]["scorer"]
    for number, entry in enumerate(entries, start=1):
        added = services.entry_add(deal_id=deal.pk, payload=entry, user=scorer, expected_seq=number - 1)
        # The view handed back with the entry is the view of the stored snapshot.
        assert added.view == rules.view(rules.from_dict(added.deal.state))
        assert added.entry.result == added.view["last"]
    deal.refresh_from_db()
    assert deal.seq == len(entries)
    log = [e.payload for e in Entry.objects.filter(deal=deal, active=True).order_by("seq")]
    assert log == entries
    assert deal.state == rules.to_dict(services.replay(deal, log))
    assert deal.status == ("finished" if rules.outcome(services.replay(deal, log)) is not None else "running")


def test_one_entry_applies_once_however_long_the_deal(
    new_deal: Callable[..., Any], club_setup: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    deal = new_deal("cheat", 2)
    scorer = club_setup["users"]["scorer"]
    entries = long_cheat_entries(302)
    for entry in entries[:300]:
        services.entry_add(deal_id=deal.pk, payload=entry, user=scorer)
    calls = Calls(monkeypatch, GAMES["cheat"], "apply", "new_deal", "from_dict", "view")
    services.entry_add(deal_id=deal.pk, payload=entries[300], user=scorer)
    assert calls.counts == {"apply": 1, "new_deal": 0, "from_dict": 1, "view": 1}


def test_the_queries_of_one_entry_do_not_grow_with_the_deal(
    new_deal: Callable[..., Any], club_setup: dict[str, Any]
) -> None:
    deal = new_deal("cheat", 2)
    scorer = club_setup["users"]["scorer"]
    entries = long_cheat_entries(400)
    counts = {}
    for number, entry in enumerate(entries, start=1):
        if number in (4, 400):
            with CaptureQueriesContext(connection) as queries:
                services.entry_add(deal_id=deal.pk, payload=entry, user=scorer, idempotency_key=f"k{number}")
            counts[number] = len(queries.captured_queries)
        else:
            services.entry_add(deal_id=deal.pk, payload=entry, user=scorer, idempotency_key=f"k{number}")
    assert counts[400] == counts[4]
    # lock + role (one query), the key, the insert, the snapshot update, the audit chain's head (read under
    # its lock, written) and record; plus the transaction's own statements. PostgreSQL's path: two in all.
    assert counts[4] <= 9


def test_undo_replays_the_log_without_the_last_entry(
    new_deal: Callable[..., Any], club_setup: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    deal = new_deal("cheat", 2)
    scorer = club_setup["users"]["scorer"]
    entries = long_cheat_entries(41)
    for entry in entries:
        services.entry_add(deal_id=deal.pk, payload=entry, user=scorer)
    calls = Calls(monkeypatch, GAMES["cheat"], "apply", "new_deal")
    undone = services.entry_undo(deal_id=deal.pk, user=scorer, expected_seq=41)
    assert calls.counts == {"apply": 40, "new_deal": 1}
    rules = GAMES["cheat"]
    assert undone.state == rules.to_dict(services.replay(deal, entries[:40]))
    assert undone.seq == 40
    assert list(DealChange.objects.filter(deal=deal).values_list("kind", "replaced__seq")) == [(ChangeKind.UNDO, 41)]


def test_a_correction_rewrites_the_snapshot_from_the_log(
    new_deal: Callable[..., Any], club_setup: dict[str, Any]
) -> None:
    deal = new_deal("cheat", 2)
    scorer = club_setup["users"]["scorer"]
    entries = long_cheat_entries(10)
    for entry in entries:
        services.entry_add(deal_id=deal.pk, payload=entry, user=scorer)
    # The fourth entry's revealed card was really an ace: the challenge was wrong and Jonas takes the pile.
    corrected = {"type": "challenge", "challenger": 1, "revealed": "AS"}
    with translation.override("en"), pytest.raises(services.Refusal) as refused:
        services.entry_correct(deal_id=deal.pk, seq=4, payload=corrected, user=scorer)
    # Jonas would now start the next round, so Ona's next place is out of turn: nothing changes.
    assert refused.value.message == (
        "This correction is refused: It is Jonas's turn to place a card and announce A, not Ona's."
    )
    deal.refresh_from_db()
    assert deal.state == GAMES["cheat"].to_dict(services.replay(deal, entries))
    fine = {"type": "challenge", "challenger": 1, "revealed": "6H"}
    services.entry_correct(deal_id=deal.pk, seq=4, payload=fine, user=scorer)
    deal.refresh_from_db()
    expected = [*entries[:3], fine, *entries[4:]]
    assert deal.state == GAMES["cheat"].to_dict(services.replay(deal, expected))
    assert [e.payload for e in Entry.objects.filter(deal=deal, active=True).order_by("seq")] == expected


def test_the_hot_path_checks_who_is_recording(
    new_deal: Callable[..., Any], club_setup: dict[str, Any], make_user: Any
) -> None:
    deal = new_deal("cheat", 2)
    place = {"type": "place", "player": 0}
    with pytest.raises(NotFound):
        services.entry_add(deal_id=deal.pk, payload=place, user=AnonymousUser())
    with pytest.raises(NotFound):
        services.entry_add(deal_id=deal.pk, payload=place, user=club_setup["users"]["outsider"])
    with pytest.raises(NotAllowed):
        services.entry_add(deal_id=deal.pk, payload=place, user=club_setup["users"]["member"])
    with pytest.raises(NotFound):
        services.entry_add(deal_id=deal.pk + 1000, payload=place, user=club_setup["users"]["scorer"])
    assert Entry.objects.count() == 0
    root = make_user("root", is_superuser=True)
    added = services.entry_add(deal_id=deal.pk, payload=place, user=root)
    assert (added.created, added.entry.author) == (True, root)


def test_the_rows_the_hot_path_writes_read_back_as_written(
    new_deal: Callable[..., Any], club_setup: dict[str, Any]
) -> None:
    """entry_add writes with literal SQL on PostgreSQL; on either path, reading the rows back
    through the ORM gives exactly the objects it returned (JSON, times with their zone, the
    author, the key), and the deal's snapshot, seq, status and finish time."""
    from referee.models import Deal

    deal = new_deal("velnias", 3)
    scorer = club_setup["users"]["scorer"]
    ending = {"type": "end", "condition": "blocked", "player": None, "hand_counts": [1, 2, 3]}
    added = services.entry_add(deal_id=deal.pk, payload=ending, user=scorer, idempotency_key="ключ-ą")
    stored = Entry.objects.get(pk=added.entry.pk)
    fields = ("deal_id", "seq", "payload", "result", "author_id", "created_at", "idempotency_key", "active")
    assert {f: getattr(stored, f) for f in fields} == {f: getattr(added.entry, f) for f in fields}
    assert (stored.seq, stored.payload, stored.author_id, stored.active) == (1, ending, scorer.pk, True)
    assert stored.created_at.utcoffset() is not None
    assert stored.result["points"] == [3, -1, -2]
    row = Deal.objects.get(pk=deal.pk)
    for field in ("seq", "state", "status", "finished_at", "number", "dealer", "options"):
        assert getattr(row, field) == getattr(added.deal, field), field
    assert (row.seq, row.status) == (1, "finished")
    assert row.finished_at is not None and row.finished_at.utcoffset() is not None
    assert GAMES["velnias"].outcome(GAMES["velnias"].from_dict(row.state)).points == (3, -1, -2)
    # The session read with the lock is the whole row, as the ORM gives it.
    assert added.deal.session.__dict__.keys() >= {"stake", "currency", "options", "club_id", "status", "created_at"}
    assert added.deal.session.stake == row.session.stake
    assert added.deal.session.created_at == row.session.created_at
