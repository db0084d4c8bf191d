"""Scoring listens to the referee's signals (connected in ``ScoringConfig.ready``), records a
deal once however often it is reported, and its modules import each other without a cycle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.db import transaction

from referee import signals
from referee.models import DealStatus
from referee.rules import GAMES
from scoring.models import ChipMovement, DealResult, MemberTotal, Rating
from tests.scoring.helpers import aggregates, close, play, start, velnias_end

pytestmark = pytest.mark.django_db

SCORING = Path(__file__).resolve().parents[2] / "scoring"


def test_every_referee_signal_has_a_scoring_receiver():
    for signal, uid in (
        (signals.deal_finished, "scoring.deal_finished"), (signals.deal_reopened, "scoring.deal_reopened"),
        (signals.session_closed, "scoring.session_closed"), (signals.session_reopened, "scoring.session_reopened"),
    ):
        # Each entry starts with its lookup key, (dispatch_uid, sender). Scoring's receiver is
        # there exactly once; other apps may listen too (the watchers' poll cache does).
        uids = [entry[0][0] for entry in signal.receivers]
        assert uids.count(uid) == 1, uids


def test_a_deal_reported_twice_is_recorded_once(club_setup):
    """While the referee both calls scoring and sends its signal, a deal still has one result per seat."""
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    deal = play(club_setup, session, [velnias_end("empty_hand", 0, [0, 4, 2])])
    assert deal.status == DealStatus.FINISHED
    before = (aggregates(), sorted(Rating.objects.values_list("game", "member_id", "mu", "sigma", "deals")))
    state = GAMES["velnias"].from_dict(deal.state)
    with transaction.atomic():
        signals.deal_finished.send(sender=type(deal), deal=deal, state=state)
    assert DealResult.objects.filter(deal=deal).count() == 3
    assert set(MemberTotal.objects.values_list("deals", flat=True)) == {1}
    after = (aggregates(), sorted(Rating.objects.values_list("game", "member_id", "mu", "sigma", "deals")))
    assert after == before


def test_a_reopened_deal_reaches_scoring_through_the_signal(club_setup):
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    deal = play(club_setup, session, [velnias_end("empty_hand", 0, [0, 4, 2])])
    with transaction.atomic():
        signals.deal_reopened.send(sender=type(deal), deal=deal)
    assert not DealResult.objects.filter(deal=deal).exists()
    assert not MemberTotal.objects.exists()


def test_a_close_reported_twice_settles_once(club_setup):
    """Mičiganas M3: the chips left on the prize cards are shared out once, however often the close is reported."""
    session = start(club_setup, "michigan", ["admin", "scorer", "member"])
    play(club_setup, session, [
        {"type": "prize", "card": "AS", "player": 0},
        {"type": "out", "player": 2, "hand_counts": [3, 4, 0]},
    ])
    session = close(club_setup, session)
    shared = sorted(ChipMovement.objects.filter(deal__isnull=True).values_list("source_prize", "target_seat", "chips"))
    before = aggregates()
    assert sum(chips for _card, _seat, chips in shared) == 12  # KC, QD and JH kept their 4 antes each
    with transaction.atomic():
        signals.session_closed.send(sender=type(session), session=session)
    assert sorted(ChipMovement.objects.filter(deal__isnull=True).values_list(
        "source_prize", "target_seat", "chips")) == shared
    assert aggregates() == before


def imports_of(module: Path) -> set[str]:
    """The scoring modules a module imports, at its top or inside functions alike."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level == 1:
                names = [base] if base else [alias.name for alias in node.names]
            elif base.startswith("scoring."):
                names = [base.removeprefix("scoring.")]
            elif base == "scoring":
                names = [alias.name for alias in node.names]
            else:
                continue
            found |= {name.split(".")[0] for name in names}
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("scoring.")}
    return found & {path.stem for path in SCORING.glob("*.py")}


def test_no_import_cycle_in_scoring_lazy_imports_included():
    graph = {path.stem: imports_of(path) for path in SCORING.glob("*.py")}
    # The app's wiring imports everything and is imported by nothing.
    graph.pop("apps")
    visiting: list[str] = []
    done: set[str] = set()

    def visit(name: str) -> None:
        assert name not in visiting, "import cycle: " + " -> ".join([*visiting[visiting.index(name):], name])
        if name in done:
            return
        visiting.append(name)
        for other in sorted(graph.get(name, ())):
            visit(other)
        visiting.pop()
        done.add(name)

    for name in sorted(graph):
        visit(name)


def test_services_never_import_the_task_modules():
    for path in SCORING.glob("*.py"):
        if path.stem not in ("apps", "tasks", "rating_tasks"):
            assert not imports_of(path) & {"tasks", "rating_tasks"}, path.name
