"""Backup and move: ``export_club`` writes a club's history, ``import_club`` restores it elsewhere.

A club is played through the services (Velnias with a stake and a coin, Rūkas with an undo
and a correction, Mičiganas with a carried pot and M3 at close, Cheat still running, a
member without a user, another club that must not travel along). It is exported, imported
into a new database of the other engine (PostgreSQL -> SQLite file when the suite runs on
PostgreSQL, as in CI), exported again from there and imported into a new database of the
first engine (SQLite -> PostgreSQL). Every standings, ledger, settlement, audit, deal
view, summary, leaderboard (every game and period), head-to-head and member history reads
back identical at each step, and the two export files hold the same history.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.core.management import call_command
from django.test import TestCase

from referee import services
from referee.errors import Refusal
from tests.club_figures import figures
from tests.conftest import is_postgres
from tests.live_server import ROOT, Database, production_env, run_python
from tests.rules import playout_cheat, playout_michigan, playout_rukas
from web.club_export import import_club

pytestmark = pytest.mark.django_db



@pytest.fixture
def english() -> Any:
    """The refusals read in English here (the site's default language, Lithuanian, is tested
    by the catalogue's own tests)."""
    from django.utils import translation

    with translation.override("en"):
        yield

def build_history(setup: dict[str, Any]) -> None:
    # As in production, what the services queue for after commit (the rating steps) runs.
    with TestCase.captureOnCommitCallbacks(execute=True):
        _build_history(setup)


def _build_history(setup: dict[str, Any]) -> None:
    members, scorer = setup["members"], setup["users"]["scorer"]
    admin = setup["users"]["admin"]
    club = setup["club"]

    def start(game: str, names: list[str], **extra: Any) -> Any:
        return services.session_start(club=club, game=game, players=[members[n] for n in names], user=scorer,
                                      **extra)

    def play(session: Any, entries: list[dict[str, Any]], dealer: int | None = None, user: Any = scorer) -> Any:
        deal = services.deal_start(session=session, user=user, dealer=dealer)
        for number, entry in enumerate(entries):
            services.entry_add(deal_id=deal.pk, payload=entry, user=user, idempotency_key=f"{deal.pk}-{number}")
        return deal

    velnias = start("velnias", ["admin", "scorer", "member", "Petras", "Asta"], stake=Decimal("0.10"),
                    coin=Decimal("0.05"))
    play(velnias, [{"type": "end", "condition": "empty_hand", "player": 2, "hand_counts": [3, 1, 0, 7, 2]}])
    play(velnias, [{"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1, 4]}])
    play(velnias, [{"type": "end", "condition": "blocked", "player": None, "hand_counts": [1, 1, 3, 2, 3]}],
         user=admin)
    services.session_close(session=velnias, user=scorer)

    rukas = start("rukas", ["scorer", "member", "Tomas", "Eglė"], stake=Decimal("0.20"),
                  options={"notation": "lt", "void_trick": "carry"})
    kwargs, tricks = playout_rukas.random_deal(random.Random(3), 4, {"notation": "lt", "void_trick": "carry"})
    first = play(rukas, tricks[:12], dealer=kwargs["dealer"])
    services.entry_undo(deal_id=first.pk, user=scorer)
    services.entry_add(deal_id=first.pk, payload=tricks[11], user=admin, idempotency_key="again")
    services.entry_add(deal_id=first.pk, payload=tricks[12], user=scorer)
    services.entry_correct(deal_id=first.pk, seq=13, payload=tricks[12], user=admin)
    kwargs, tricks = playout_rukas.random_deal(random.Random(4), 4, {"notation": "lt", "void_trick": "carry"})
    play(rukas, tricks, dealer=kwargs["dealer"])
    services.session_close(session=rukas, user=scorer)

    michigan = start("michigan", ["admin", "member", "Petras", "Marius"], stake=Decimal("0.05"))
    for seed in (11, 12):
        sim = playout_michigan.simulate(random.Random(seed), 4, {})
        play(michigan, sim.manual_entries, dealer=sim.dealer)
    services.session_close(session=michigan, user=scorer)

    cheat = start("cheat", ["scorer", "Asta", "Tomas"], options={"jokers": 2})
    kwargs, entries = playout_cheat.random_deal(random.Random(5), 3, {"jokers": 2})
    play(cheat, entries, dealer=kwargs["dealer"])
    services.deal_start(session=cheat, user=scorer, dealer=None)  # running, nothing recorded yet

    # The other club plays too: none of it may travel with the export.
    other = setup["other"]
    darius = members["outsider"]
    extra = [services.member_add(club=other, name=name, user=setup["users"]["outsider"]) for name in ("Vytas", "Ieva")]
    theirs = services.session_start(club=other, game="velnias", players=[darius, *extra],
                                    user=setup["users"]["outsider"])
    deal = services.deal_start(session=theirs, user=setup["users"]["outsider"])
    services.entry_add(deal_id=deal.pk, user=setup["users"]["outsider"],
                       payload={"type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 4, 5]})


def export_file(tmp_path: Path, name: str) -> Path:
    path = tmp_path / name
    call_command("export_club", "vilnius", output=str(path))
    return path


def restore_elsewhere(tmp_path: Path, file: Path, postgres: bool, name: str) -> tuple[dict[str, Any], Path]:
    """Import into a new database (PostgreSQL or a SQLite file); its figures and its own export."""
    folder = tmp_path / name
    folder.mkdir()
    database = Database(folder, settings.DATABASES["default"] if postgres else None)
    env = production_env(database.url)
    try:
        subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v", "0"], cwd=ROOT, env=env,
                       check=True, timeout=600)
        result = subprocess.run([sys.executable, "manage.py", "import_club", str(file)], cwd=ROOT, env=env,
                                capture_output=True, text=True, timeout=600)
        assert result.returncode == 0, result.stderr
        assert "Imported Vilniaus klubas (vilnius)" in result.stderr
        again = tmp_path / f"{name}.json"
        subprocess.run([sys.executable, "manage.py", "export_club", "vilnius", "-o", str(again)], cwd=ROOT,
                       env=env, check=True, timeout=600, capture_output=True)
        seen = json.loads(run_python(env, "import json\nfrom tests.club_figures import figures\n"
                                          "print(json.dumps(figures('vilnius')))").strip().splitlines()[-1])
        return seen, again
    finally:
        database.drop()


def comparable(path: Path) -> dict[str, Any]:
    data = json.loads(path.read_text(encoding="utf-8"))
    data.pop("exported_at")
    return dict(data)


@pytest.mark.slow
def test_export_and_import_across_engines_reads_back_identical(club_setup: dict[str, Any], tmp_path: Path) -> None:
    from referee.models import Entry

    build_history(club_setup)
    expected = figures("vilnius")
    file1 = export_file(tmp_path, "vilnius.json")
    exported = comparable(file1)
    assert {m["name"] for m in exported["members"]} == {"Ona", "Jonas", "Rūta", "Petras", "Asta", "Tomas", "Eglė",
                                                        "Marius"}
    assert "Darius" not in file1.read_text(encoding="utf-8") and "kaunas" not in file1.read_text(encoding="utf-8")
    assert len(exported["entries"]) == Entry.objects.filter(deal__session__club=club_setup["club"]).count()
    assert any(not e["active"] for e in exported["entries"])
    assert {c["kind"] for c in exported["changes"]} == {"undo", "correction"}
    # The audit chain travels; each import verifies it against the rows it restored (PostgreSQL's
    # hashes read back by Python on SQLite, and the other way).
    assert exported["chain"]["head"]["seq"] == len(exported["chain"]["records"]) > 0

    here_postgres = is_postgres()
    # Across: to the other engine (PostgreSQL -> SQLite file in CI) ...
    seen, file2 = restore_elsewhere(tmp_path, file1, postgres=False, name="across")
    assert seen == expected
    assert comparable(file2) == exported
    # ... and back (SQLite -> PostgreSQL in CI).
    seen, file3 = restore_elsewhere(tmp_path, file2, postgres=here_postgres, name="back")
    assert seen == expected
    assert comparable(file3) == exported


def test_passwords_travel_hashed_or_not_at_all(club_setup: dict[str, Any], tmp_path: Path) -> None:
    from django.contrib.auth.hashers import check_password

    path = export_file(tmp_path, "with.json")
    users = {u["username"]: u for u in json.loads(path.read_text(encoding="utf-8"))["users"]}
    assert set(users) == {"admin", "scorer", "member"}
    assert check_password("pass-word-123", users["scorer"]["password"])
    assert "pass-word-123" not in path.read_text(encoding="utf-8")
    assert all("is_superuser" not in u and "is_staff" not in u for u in users.values())
    call_command("export_club", "vilnius", output=str(tmp_path / "without.json"), without_passwords=True)
    without = json.loads((tmp_path / "without.json").read_text(encoding="utf-8"))["users"]
    assert [u["password"] for u in without] == [None, None, None]


def test_import_refuses_a_database_that_has_the_club_and_changes_nothing(
    club_setup: dict[str, Any], tmp_path: Path, english: None
) -> None:
    from referee.models import Club, Member

    data = json.loads(export_file(tmp_path, "vilnius.json").read_text(encoding="utf-8"))
    counts = (Club.objects.count(), Member.objects.count())
    with pytest.raises(Refusal) as refused:
        import_club(data)
    assert refused.value.message == "A club with the address “vilnius” already exists here; nothing was imported."
    data["club"]["slug"] = "vilnius-2"
    with pytest.raises(Refusal) as refused:
        import_club(data)
    assert refused.value.message == (
        f"This database already holds clubs with the ids {club_setup['club'].pk} of the file; import into a new "
        "database. Nothing was imported."
    )
    assert (Club.objects.count(), Member.objects.count()) == counts


@pytest.mark.parametrize(("data", "message"), [
    ({"format": "something-else"}, "The file is not a club export of this application."),
    ([1, 2], "The file is not a club export of this application."),
    ({"format": "kortos-club-export", "version": 9}, "The file is export version 9; this application reads version 2."),
    ({"format": "kortos-club-export", "version": 1, "club": {"slug": "x"}},
     "The file is not a club export: “users” is missing or not a list."),
])
def test_import_refuses_files_that_are_not_exports(data: Any, message: str, english: None) -> None:
    with pytest.raises(Refusal) as refused:
        import_club(data)
    assert refused.value.message == message


def test_the_command_reports_refusals_plainly(club_setup: dict[str, Any], tmp_path: Path, english: None) -> None:
    from django.core.management.base import CommandError

    path = export_file(tmp_path, "vilnius.json")
    with pytest.raises(CommandError, match="A club with the address “vilnius” already exists here"):
        call_command("import_club", str(path))
    with pytest.raises(CommandError, match="There is no club “nowhere”."):
        call_command("export_club", "nowhere")


def test_rebuilding_a_club_gives_back_exactly_what_the_incremental_updates_keep(club_setup: dict[str, Any]) -> None:
    from scoring.models import AGGREGATES, Rating
    from scoring.services import rebuild_club

    build_history(club_setup)

    def derived() -> list[Any]:
        tables = [sorted(model.objects.values_list("club_id", "game", "member_id", "deals", "wins", "points", "money",
                                                   *([bucket] if bucket else [])))
                  for model, bucket in AGGREGATES]
        return [*tables, sorted(Rating.objects.values_list("club_id", "game", "member_id", "mu", "sigma", "deals"))]

    before = derived()
    assert all(before), "every aggregate table and the ratings have rows"
    rebuild_club(club=club_setup["club"])
    assert derived() == before
