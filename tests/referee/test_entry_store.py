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
from referee.safe_input import MAX_ID

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


def test_the_unlocked_read_is_the_lock_without_the_lock_and_with_the_key_check() -> None:
    sql = entry_store.READ_DEAL_SQL
    assert selected("d", sql) == columns(Deal) and selected("s", sql) == columns(Session)
    assert "FOR UPDATE" not in sql
    assert sql.split("AS names")[0] == entry_store.LOCK_DEAL_SQL.split("AS names")[0]
    key = re.search(r'EXISTS \(SELECT 1 FROM "(\w+)" e\s+WHERE e\.(\w+) = d\.id AND e\.(\w+) = %\(key\)s\)', sql)
    assert key is not None
    assert key.groups() == (Entry._meta.db_table, "deal_id", "idempotency_key")


def test_the_conditional_store_inserts_every_column_of_an_entry_only_where_the_revision_held() -> None:
    sql = entry_store.STORE_IF_UNCHANGED_SQL
    insert = re.search(r'INSERT INTO "(\w+)" \(([^)]*)\)\s+SELECT ([^\n]*) FROM d', sql)
    assert insert is not None
    assert insert.group(1) == Entry._meta.db_table
    assert [c.strip() for c in insert.group(2).split(",")] == columns(Entry, with_pk=False)
    assert columns(Entry, with_pk=False)[0] == "deal_id"
    assert [v.strip() for v in insert.group(3).split(",")] == ["d.id"] + ["%s"] * (len(columns(Entry)) - 2)
    update = re.search(r'UPDATE "(\w+)" SET (.*?)\s+WHERE id = %s AND revision = %s\s+RETURNING id', sql, re.S)
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
    for deal_id in (0, -1, MAX_ID + 1):
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



# -- the unlocked path (PostgreSQL) ----------------------------------------------------------

TRICKS = [["2", "3", "4", "5"], ["6", "7", "8", "9"], ["10", "J", "Q", "K"]]


def trick(number: int) -> dict[str, Any]:
    return {"type": "trick", "cards": TRICKS[number]}


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_plain_entry_is_one_read_and_one_write_and_takes_no_lock(
    require_postgres: None, start: Callable[..., Deal], scorer: Any
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    deal = start("rukas")
    with CaptureQueriesContext(connection) as queries:
        added = services.entry_add(deal_id=deal.pk, payload=trick(0), user=scorer, idempotency_key="k1")
    statements = [query["sql"] for query in queries.captured_queries]
    assert len(statements) == 2, statements
    assert "AS key_stored" in statements[0] and 'INSERT INTO "referee_entry"' in statements[1]
    assert not any("FOR UPDATE" in statement for statement in statements)
    assert added.created and added.entry.seq == 1
    assert list(Entry.objects.filter(deal=deal).values_list("seq", "idempotency_key")) == [(1, "k1")]


@pytest.mark.postgres
@pytest.mark.django_db
def test_the_conditional_store_stores_nothing_once_the_deal_has_moved(
    require_postgres: None, start: Callable[..., Deal], scorer: Any
) -> None:
    deal = start("rukas")
    read = entry_store.read_deal(deal.pk, scorer, None)
    services.entry_add(deal_id=deal.pk, payload=trick(0), user=scorer)  # another tablet, first
    stale = Entry(deal=read.deal, seq=1, payload=trick(1), author=scorer)
    read.deal.seq, read.deal.revision = 1, read.deal.revision + 1
    assert not entry_store.store_entry_if_unchanged(stale, read.deal, revision=read.deal.revision - 1)
    assert list(Entry.objects.filter(deal=deal).values_list("seq", "payload")) == [(1, trick(0))]
    assert Deal.objects.get(pk=deal.pk).seq == 1


@pytest.fixture
def another_tablet_first(monkeypatch: pytest.MonkeyPatch, scorer: Any) -> Callable[[dict[str, Any]], None]:
    """Between the unlocked read and the conditional store, another tablet records ``payload``."""
    def arrange(payload: dict[str, Any]) -> None:
        original = entry_store.read_deal

        def read_then_another(deal_id: int, user: Any, key: str | None) -> entry_store.DealRead:
            read = original(deal_id, user, key)
            monkeypatch.setattr(entry_store, "read_deal", original)
            services.entry_add(deal_id=deal_id, payload=payload, user=scorer, idempotency_key="other")
            return read

        monkeypatch.setattr(entry_store, "read_deal", read_then_another)

    return arrange


@pytest.mark.postgres
@pytest.mark.django_db
def test_an_entry_whose_deal_moved_is_refereed_again_under_the_lock(
    require_postgres: None, start: Callable[..., Deal], scorer: Any,
    another_tablet_first: Callable[[dict[str, Any]], None],
) -> None:
    deal = start("rukas")
    another_tablet_first(trick(0))
    added = services.entry_add(deal_id=deal.pk, payload=trick(1), user=scorer, idempotency_key="mine")
    assert added.created and added.entry.seq == 2
    assert list(Entry.objects.filter(deal=deal).order_by("seq").values_list("seq", "idempotency_key")) == [
        (1, "other"), (2, "mine")]
    assert Deal.objects.get(pk=deal.pk).seq == 2


@pytest.mark.postgres
@pytest.mark.django_db
def test_an_entry_whose_deal_moved_against_its_expected_seq_is_refused_and_stores_nothing(
    require_postgres: None, start: Callable[..., Deal], scorer: Any,
    another_tablet_first: Callable[[dict[str, Any]], None],
) -> None:
    deal = start("rukas")
    another_tablet_first(trick(0))
    with pytest.raises(Conflict) as refused:
        services.entry_add(deal_id=deal.pk, payload=trick(1), user=scorer, expected_seq=0)
    assert refused.value.code == "stale_seq"
    assert str(refused.value.message) == (
        "Another device recorded first: this deal is now at entry 1. Reload and try again.")
    assert list(Entry.objects.filter(deal=deal).values_list("idempotency_key", flat=True)) == ["other"]


@pytest.mark.postgres
@pytest.mark.django_db
def test_a_finishing_entry_whose_deal_moved_writes_no_results(
    require_postgres: None, start: Callable[..., Deal], scorer: Any,
    another_tablet_first: Callable[[dict[str, Any]], None],
) -> None:
    from scoring.models import DealResult

    deal = start("velnias")
    another_tablet_first(velnias_end(player=1))
    with pytest.raises(Refusal) as refused:
        services.entry_add(deal_id=deal.pk, payload=velnias_end(player=0), user=scorer, expected_seq=0)
    assert refused.value.code == "stale_seq"
    finished = Deal.objects.get(pk=deal.pk)
    assert finished.seq == 1 and finished.status == "finished"
    assert list(Entry.objects.filter(deal=deal).values_list("idempotency_key", flat=True)) == ["other"]
    assert DealResult.objects.filter(deal=deal).count() == 4
