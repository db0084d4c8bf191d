"""The entry store's literal statements name the models' own tables and columns, and the
services around it refuse with stable codes and tell scoring through signals."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from django.db import models
from django.utils import translation

from referee import entry_store, services, signals
from referee.errors import Conflict, Refusal
from referee.models import Deal, Entry, Member, Seat, Session

NAMES = ["Ona", "Jonas", "Rūta", "Petras"]


def columns(model: type[models.Model], *, with_pk: bool = True) -> list[str]:
    return [f.column for f in model._meta.concrete_fields if with_pk or not f.primary_key]


def selected(alias: str, sql: str) -> list[str]:
    """The columns of ``alias`` in the SELECT list, in order (before the first subquery)."""
    head = sql.split("(SELECT", 1)[0]
    return re.findall(rf"\b{alias}\.(\w+)", head)


# -- the statements match the models -------------------------------------------------------


def test_the_lock_reads_every_column_of_the_deal_and_its_session_in_field_order() -> None:
    sql = entry_store.LOCK_DEAL_SQL
    assert selected("d", sql) == columns(Deal)
    assert selected("s", sql) == columns(Session)
    assert f'FROM "{Deal._meta.db_table}" d' in sql
    assert f'JOIN "{Session._meta.db_table}" s ON s.id = d.{Deal._meta.get_field("session").column}' in sql


def test_the_lock_reads_the_role_and_the_names_from_the_members_and_seats_tables() -> None:
    sql = entry_store.LOCK_DEAL_SQL
    member = {f.column for f in Member._meta.concrete_fields}
    seat = {f.column for f in Seat._meta.concrete_fields}
    assert f'FROM "{Member._meta.db_table}" m' in sql and f'JOIN "{Member._meta.db_table}" p' in sql
    assert f'FROM "{Seat._meta.db_table}" st' in sql
    assert set(re.findall(r"\bm\.(\w+)", sql)) <= member
    assert set(re.findall(r"\bp\.(\w+)", sql)) <= member
    assert set(re.findall(r"\bst\.(\w+)", sql)) <= seat
    assert {"role", "club_id", "user_id", "active", "name"} <= member


def test_the_store_inserts_every_column_of_an_entry_and_saves_the_snapshot_fields() -> None:
    sql = entry_store.STORE_ENTRY_SQL
    insert = re.search(r'INSERT INTO "(\w+)" \(([^)]*)\)\s+VALUES \(([^)]*)\)', sql)
    assert insert is not None
    assert insert.group(1) == Entry._meta.db_table
    assert [c.strip() for c in insert.group(2).split(",")] == columns(Entry, with_pk=False)
    assert insert.group(3).count("%s") == len(columns(Entry, with_pk=False))
    # The conflict target is the partial unique constraint on the key, exactly.
    constraint = next(c for c in Entry._meta.constraints if c.name == "idempotency_key_unique_per_deal")
    assert isinstance(constraint, models.UniqueConstraint)
    target = [Entry._meta.get_field(name).column for name in constraint.fields]
    assert f"ON CONFLICT ({', '.join(target)}) WHERE idempotency_key IS NOT NULL DO NOTHING" in sql
    update = re.search(r'UPDATE "(\w+)" SET (.*?)\s+WHERE', sql, re.S)
    assert update is not None
    assert update.group(1) == Deal._meta.db_table
    assert re.findall(r"(\w+) = %s", update.group(2)) == [
        Deal._meta.get_field(name).column for name in entry_store.SNAPSHOT_FIELDS
    ]


def raw_row(model: type[models.Model], pk: int) -> list[Any]:
    """The model's row as the database sends it (before any field's converter)."""
    from django.db import connection

    with connection.cursor() as cursor:
        table = model._meta.db_table
        cursor.execute(f'SELECT {entry_store.columns(model, "t")} FROM "{table}" t WHERE t.id = %s', [pk])
        return list(cursor.fetchone())


@pytest.mark.django_db
def test_an_instance_from_a_row_is_the_one_django_makes_from_it(
    start: Callable[..., Deal], monkeypatch: pytest.MonkeyPatch
) -> None:
    deal = start("rukas")
    for model, pk in ((Deal, deal.pk), (Session, deal.session_id)):
        made = entry_store.from_row(model, raw_row(model, pk))
        with monkeypatch.context() as patched:
            patched.setattr(entry_store, "signals_watch", lambda model: True)  # Django's own from_db
            django_made = entry_store.from_row(model, raw_row(model, pk))
        assert type(made) is model
        assert {k: v for k, v in vars(made).items() if k != "_state"} == {
            k: v for k, v in vars(django_made).items() if k != "_state"}
        assert (made._state.adding, made._state.db) == (django_made._state.adding, django_made._state.db)
        assert made == django_made and made.pk == pk
    assert isinstance(vars(entry_store.from_row(Deal, raw_row(Deal, deal.pk)))["state"], dict)


@pytest.mark.django_db
def test_an_instance_from_a_row_goes_through_init_when_someone_listens(start: Callable[..., Deal]) -> None:
    deal = start("rukas")
    seen: list[Any] = []

    def listener(sender: Any, instance: Any, **kwargs: Any) -> None:
        seen.append(instance)

    values = raw_row(Deal, deal.pk)
    models.signals.post_init.connect(listener, sender=Deal)
    try:
        made = entry_store.from_row(Deal, values)
    finally:
        models.signals.post_init.disconnect(listener, sender=Deal)
    assert seen == [made]


def test_an_id_no_column_can_hold_is_not_found_without_asking_the_database() -> None:
    for deal_id in (0, -1, entry_store.MAX_ID + 1):
        with pytest.raises(Refusal) as refused:
            entry_store.lock_deal(deal_id, None)
        assert refused.value.code == "not_found"


# -- the services: refusals with codes, and signals ----------------------------------------

@pytest.fixture
def scorer(club_setup: dict[str, Any]) -> Any:
    return club_setup["users"]["scorer"]


@pytest.fixture
def start(club_setup: dict[str, Any], scorer: Any) -> Callable[..., Deal]:
    by_name = {m.name: m for m in club_setup["members"].values()}

    def make(game: str, players: int = 4) -> Deal:
        session = services.session_start(
            club=club_setup["club"], game=game, user=scorer, players=[by_name[n] for n in NAMES[:players]]
        )
        return services.deal_start(session=session, user=scorer)

    return make


@pytest.fixture(autouse=True)
def english() -> Iterator[None]:
    with translation.override("en"):
        yield


def velnias_end(player: int = 0) -> dict[str, Any]:
    counts = [3, 5, 2, 4]
    counts[player] = 0
    return {"type": "end", "condition": "empty_hand", "player": player, "hand_counts": counts}


def refusal(action: Callable[[], Any]) -> Refusal:
    with pytest.raises(Refusal) as refused:
        action()
    return refused.value


@pytest.mark.django_db
@pytest.mark.usefixtures("entry_store_path")
def test_a_stale_expected_seq_is_refused_with_its_code_and_the_current_seq(
    start: Callable[..., Deal], scorer: Any
) -> None:
    deal = start("rukas")
    services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": ["2", "3", "4", "5"]}, user=scorer)
    for action in (
        lambda: services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": ["2", "3", "4", "5"]},
                                   user=scorer, expected_seq=0),
        lambda: services.entry_undo(deal_id=deal.pk, user=scorer, expected_seq=0),
    ):
        refused = refusal(action)
        assert isinstance(refused, Conflict)
        assert (refused.code, refused.extra, refused.message) == (
            "stale_seq", {"seq": 1},
            "Another device recorded first: this deal is now at entry 1. Reload and try again.",
        )
    assert Entry.objects.filter(deal=deal).count() == 1


@pytest.mark.django_db
@pytest.mark.usefixtures("entry_store_path")
def test_a_key_reused_for_another_entry_is_refused_with_its_code(start: Callable[..., Deal], scorer: Any) -> None:
    deal = start("rukas")
    services.entry_add(deal_id=deal.pk, payload={"type": "trick", "cards": ["2", "3", "4", "5"]},
                       user=scorer, idempotency_key="k1")
    refused = refusal(lambda: services.entry_add(
        deal_id=deal.pk, payload={"type": "trick", "cards": ["3", "4", "5", "6"]}, user=scorer, idempotency_key="k1"
    ))
    assert (refused.code, refused.status, refused.extra) == ("duplicate_key_conflict", 409, {"seq": 1})
    assert refused.message == "This idempotency key was already used for a different entry; create a new key."
    assert Entry.objects.filter(deal=deal).count() == 1


@pytest.mark.django_db
@pytest.mark.usefixtures("entry_store_path")
def test_an_illegal_entry_is_refused_with_its_code_naming_the_player(start: Callable[..., Deal], scorer: Any) -> None:
    deal = start("cheat", 2)
    refused = refusal(lambda: services.entry_add(deal_id=deal.pk, payload={"type": "place", "player": 1},
                                                 user=scorer))
    assert (refused.code, refused.status) == ("illegal_entry", 400)
    assert refused.message == "It is Ona's turn to place a card and announce A, not Jonas's."
    assert Entry.objects.filter(deal=deal).count() == 0


@pytest.mark.django_db
@pytest.mark.usefixtures("entry_store_path")
def test_a_closed_session_refuses_entries_with_its_code(start: Callable[..., Deal], scorer: Any) -> None:
    deal = start("velnias")
    services.entry_add(deal_id=deal.pk, payload=velnias_end(), user=scorer)
    services.session_close(session=deal.session, user=scorer)
    for action in (
        lambda: services.entry_add(deal_id=deal.pk, payload=velnias_end(), user=scorer),
        lambda: services.deal_start(session=deal.session, user=scorer),
        lambda: services.session_close(session=deal.session, user=scorer),
    ):
        refused = refusal(action)
        assert (refused.code, refused.message) == (
            "closed", "This session is closed; reopen it to record or correct anything."
        )
    assert Entry.objects.filter(deal=deal).count() == 1


@pytest.mark.django_db
def test_a_running_deal_holds_up_the_next_deal_and_the_close_with_its_code(
    start: Callable[..., Deal], scorer: Any
) -> None:
    deal = start("velnias")
    refused = refusal(lambda: services.deal_start(session=deal.session, user=scorer))
    assert (refused.code, refused.message) == (
        "running_deal", "Deal 1 is still running; finish it before starting the next."
    )
    refused = refusal(lambda: services.session_close(session=deal.session, user=scorer))
    assert (refused.code, refused.message) == (
        "running_deal",
        "Deal 1 is still running: finish it, or undo its entries and discard it, before closing.",
    )
    assert list(deal.session.deals.values_list("number", flat=True)) == [1]
    assert Session.objects.get(pk=deal.session.pk).status == "open"


class Heard:
    """Every signal of referee.signals sent while it listens, as (signal name, sender, kwargs)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, Any, dict[str, Any]]] = []
        self.receivers = []
        for name in ("deal_finished", "deal_reopened", "session_closed", "session_reopened"):
            def receiver(sender: Any, _name: str = name, **kwargs: Any) -> None:
                kwargs.pop("signal")
                self.sent.append((_name, sender, kwargs))

            getattr(signals, name).connect(receiver, weak=False)
            self.receivers.append((getattr(signals, name), receiver))

    def close(self) -> None:
        for signal, receiver in self.receivers:
            signal.disconnect(receiver)


@pytest.fixture
def heard() -> Iterator[Heard]:
    listening = Heard()
    yield listening
    listening.close()


@pytest.mark.django_db
@pytest.mark.usefixtures("entry_store_path")
def test_the_referee_tells_who_listens_when_a_deal_finishes_reopens_and_a_session_closes(
    start: Callable[..., Deal], scorer: Any, heard: Heard
) -> None:
    deal = start("velnias")
    services.entry_add(deal_id=deal.pk, payload=velnias_end(2), user=scorer)
    [(name, sender, sent)] = heard.sent
    assert (name, sender, sent["deal"].pk, sorted(sent)) == ("deal_finished", Deal, deal.pk, ["deal", "state"])
    assert services.GAMES["velnias"].outcome(sent["state"]).points == (-3, -5, 12, -4)
    services.entry_undo(deal_id=deal.pk, user=scorer)
    assert [(name, sender, sent["deal"].pk) for name, sender, sent in heard.sent[1:]] == [
        ("deal_reopened", Deal, deal.pk)
    ]
    services.entry_add(deal_id=deal.pk, payload=velnias_end(1), user=scorer)
    session = services.session_close(session=deal.session, user=scorer)
    services.session_reopen(session=session, user=scorer)
    assert [(name, sender) for name, sender, _sent in heard.sent[2:]] == [
        ("deal_finished", Deal), ("session_closed", Session), ("session_reopened", Session)
    ]
    assert [sent["session"].pk for _name, _sender, sent in heard.sent[3:]] == [session.pk, session.pk]

