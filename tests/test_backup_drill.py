"""The restore drill: a backup is only as good as its restore.

A club plays through the services: every game (Velnias with money, Rūkas with an undo and a
correction, Mičiganas with its chip ledger and M3 at close, Cheat still running), a club night
of two tables, a season, debts marked paid and one mark reversed, a seat corrected. The
scheduled task backs every club up (through a real Celery worker and broker when the suite has
one, as in CI; else the task's function as the worker would run it), more play follows with
another backup, and the club's newest file is restored with ``manage.py restore_club --latest``
into an empty database of the same engine. Every figure of ``tests.restore_figures.FIGURES``
(standings, ledger, settlement, debts, leaderboards, ratings and their history, summaries,
audit, deals, members, seasons, club nights) reads back identical there, by name.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import uuid
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.db import connections
from django.test import TestCase
from django.utils import timezone

from referee import services
from referee.plans import plan_set
from tests.conftest import is_postgres
from tests.live_server import ROOT, Database, production_env, run_python
from tests.restore_figures import FIGURES, read_figures
from tests.test_export_import import build_history
from web import backups

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def more_history(setup: dict[str, Any]) -> None:
    """What the export's play leaves out: a club night, a season, debts, a seat correction."""
    from evenings import services as evenings
    from referee.seat_corrections import seat_correct
    from scoring.seasons import season_create
    from scoring.settlement import debts

    club, members, users = setup["club"], setup["members"], setup["users"]
    scorer, admin = users["scorer"], users["admin"]
    with TestCase.captureOnCommitCallbacks(execute=True):
        present = [members[name] for name in ("admin", "scorer", "member", "Petras", "Asta", "Tomas", "Eglė")]
        evening = evenings.evening_open(club=club, user=scorer, game="velnias", name="Penktadienis",
                                        members=present, stake=Decimal("0.10"))
        round_ = evenings.round_draw(evening=evening, user=scorer, seed=1)
        round_ = evenings.round_start(round=round_, user=scorer)
        for table in round_.tables.select_related("session").order_by("number"):
            session = table.session
            players = len(table.seats)
            deal = services.deal_start(session=session, user=scorer)
            services.entry_add(deal_id=deal.pk, user=scorer, payload={
                "type": "end", "condition": "empty_hand", "player": 0,
                "hand_counts": [0, *range(2, players + 1)]})
            services.session_close(session=session, user=scorer)
        evenings.evening_close(evening=evening, user=scorer)

        today = timezone.localdate()
        season_create(club=club, user=admin, name="Žiema", start=today - timedelta(days=30),
                      end=today + timedelta(days=30))
        owed = debts.who_owes_whom(club)
        assert owed, "the club's sessions left debts"
        payer, payee = (club.members.get(pk=owed[0].payer), club.members.get(pk=owed[0].payee))
        debts.payment_mark(club=club, payer=payer, payee=payee, user=admin, amount=owed[0].amount / 2)
        owed = debts.who_owes_whom(club)  # the fewest transfers, after that payment
        payer, payee = (club.members.get(pk=owed[-1].payer), club.members.get(pk=owed[-1].payee))
        mistaken = debts.payment_mark(club=club, payer=payer, payee=payee, user=admin)
        debts.payment_reverse(payment=mistaken, user=admin)

        cheat = club.sessions.get(game="cheat")
        seat_correct(session=cheat, seat=1, member=members["Marius"], user=admin)


def one_more_deal(setup: dict[str, Any]) -> None:
    with TestCase.captureOnCommitCallbacks(execute=True):
        velnias = services.session_start(club=setup["club"], game="velnias", user=setup["users"]["scorer"],
                                         players=[setup["members"][n] for n in ("Petras", "Asta", "Tomas")],
                                         plan={"deals": 4})
        plan_set(session=velnias, plan={"target": 30}, user=setup["users"]["scorer"])  # the audit lists it
        deal = services.deal_start(session=velnias, user=setup["users"]["scorer"])
        services.entry_add(deal_id=deal.pk, user=setup["users"]["scorer"], payload={
            "type": "end", "condition": "empty_hand", "player": 1, "hand_counts": [4, 0, 2]})


def run_backup_task(broker_url: str) -> dict[str, Any]:
    """The scheduled task once: through a real worker and broker when there is one."""
    from web.tasks import backup_clubs

    if not broker_url:
        return dict(backup_clubs.apply(throw=True).get())
    from celery.contrib.testing.worker import start_worker
    from celery.signals import task_postrun

    from config.celery import app

    queue = f"backup-drill-{uuid.uuid4().hex[:12]}"
    finished: dict[str, Any] = {}
    done = threading.Event()

    def on_finished(task_id: str | None = None, retval: Any = None, state: str = "", **_kwargs: Any) -> None:
        finished.update(id=task_id, retval=retval, state=state)
        connections.close_all()  # the worker thread's connection must not outlive the test
        done.set()

    saved = {key: app.conf[key] for key in ("task_always_eager", "broker_url")}
    app.conf.task_always_eager, app.conf.broker_url = False, broker_url
    app._pool = None
    task_postrun.connect(on_finished, weak=False)
    try:
        with start_worker(app, pool="solo", concurrency=1, perform_ping_check=False, queues=[queue],
                          shutdown_timeout=30, loglevel="WARNING"):
            sent = backup_clubs.apply_async(queue=queue)
            assert done.wait(120), "the worker did not finish the backup in 120 s"
        assert finished["id"] == sent.id and finished["state"] == "SUCCESS", finished
        return dict(finished["retval"])
    finally:
        task_postrun.disconnect(on_finished)
        with app.connection_for_write() as connection:
            connection.default_channel.queue_delete(queue)
        app.amqp.queues._consume_from = None
        app.conf.task_always_eager, app.conf.broker_url = saved["task_always_eager"], saved["broker_url"]
        app._pool = None


def restore_into_empty_database(tmp_path: Path, directory: Path) -> dict[str, Any]:
    database = Database(tmp_path, settings.DATABASES["default"] if is_postgres() else None)
    env = production_env(database.url, BACKUP_DIR=str(directory))
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                       check=True, timeout=600)
        result = subprocess.run([sys.executable, "manage.py", "restore_club", "--latest", "vilnius"], cwd=ROOT,
                                env=env, capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        assert "Restored Vilniaus klubas (vilnius) from " in result.stderr
        out = run_python(env, "import json\nfrom tests.restore_figures import read_figures\n"
                              "print(json.dumps(read_figures('vilnius')))")
        return dict(json.loads(out.strip().splitlines()[-1]))
    finally:
        database.drop()


def test_the_latest_backup_restores_every_figure_into_an_empty_database(
    club_setup: dict[str, Any], tmp_path: Path, settings: Any
) -> None:
    directory = tmp_path / "backups"
    settings.BACKUP_DIR = directory
    build_history(club_setup)
    more_history(club_setup)
    older = backups.backup_clubs(now=timezone.now() - timedelta(hours=1))
    assert older.failed == {} and len(older.written) == 2
    one_more_deal(club_setup)
    expected = read_figures("vilnius")
    assert all(expected[name] for name, _reader in FIGURES), [n for n, _r in FIGURES if not expected[n]]

    ran = run_backup_task(getattr(settings, "TEST_CELERY_BROKER_URL", ""))
    assert sorted(Path(path).name.split("-")[0] for path in ran["written"]) == ["kaunas", "vilnius"]
    files = backups.backups_of(directory, "vilnius")
    assert len(files) == 2 and backups.latest_backup(directory, "vilnius") == files[-1] != older.written[1]
    assert len(backups.backups_of(directory, "kaunas")) == 2

    restored = restore_into_empty_database(tmp_path, directory)
    differing = [name for name, _reader in FIGURES if restored.get(name) != expected[name]]
    assert differing == [], f"figures that differ after the restore: {differing}"
    assert restored == expected
