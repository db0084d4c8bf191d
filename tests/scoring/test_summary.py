"""Session summaries, built in-process (eager Celery, as the default settings run them).

The worker tests (test_summary_worker.py) run the same task on a real worker and broker.
Figures come from the sessions in summary_sessions.py, whose docstrings derive them from
RULES.md by hand.
"""

from __future__ import annotations

import csv
import io
import random
from datetime import timedelta
from decimal import Decimal
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone, translation

from referee import services
from referee.errors import Refusal
from referee.models import Deal, Entry, Seat, Session
from referee.rules import GAMES
from scoring import tasks
from scoring.models import SessionSummary
from scoring.summaries import summary as build
from scoring.summaries.services import build_and_store, record_failure, request_summary, summary_status

from .summary_sessions import RUKAS_PLAN, close, play, reopen, rukas_deal, start, velnias_evening

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def english(settings: Any) -> None:
    """Summaries are written in the site's language; these tests read them in English."""
    settings.LANGUAGE_CODE = "en"


@pytest.fixture
def on_commit(django_capture_on_commit_callbacks: Any) -> Any:
    """Run what the closing transaction enqueues, as a commit would."""
    return lambda: django_capture_on_commit_callbacks(execute=True)


@pytest.fixture
def no_hooks() -> Any:
    yield
    tasks.progress_observer = None
    tasks.inject_failures(0)


def closed(setup: dict[str, Any], session: Session, on_commit: Any) -> SessionSummary:
    with on_commit():
        close(setup, session)
    return SessionSummary.objects.get(session=session)


# -- what a summary says ---------------------------------------------------------------------------


def test_closing_builds_the_summary_with_standings_settlement_and_deals(club_setup: Any, on_commit: Any) -> None:
    """Velnias, three deals (figures in summary_sessions.py): places by points, money at 0.50."""
    summary = closed(club_setup, velnias_evening(club_setup), on_commit)
    assert (summary.state, summary.progress, summary.attempts, summary.error) == ("done", 100, 1, "")
    data = summary.data
    assert data["deal_count"] == 3
    assert [(r["name"], r["total"], r["place"], r["deals_won"], r["average_place"], r["money"])
            for r in data["standings"]] == [
        ("Jonas", 17, 1, 2, "1.33", "8.50"),
        ("Ona", 2, 2, 2, "1.33", "1.00"),
        ("Rūta", -19, 3, 0, "3.00", "-9.50"),
    ]
    assert [(t["from"], t["to"], t["amount"]) for t in data["settlement"]["transfers"]] == [
        (2, 1, "8.50"), (2, 0, "1.00"),
    ]
    assert [(d["number"], d["dealer"], d["values"], d["winners"], d["running"]) for d in data["deals"]] == [
        (1, 2, [8, -3, -5], [0], [8, -3, -5]),
        (2, 0, [-8, 18, -10], [1], [0, 15, -15]),
        (3, 1, [2, 2, -4], [0, 1], [2, 17, -19]),
    ]
    assert data["running_totals"] == [[0, 0, 0], [8, -3, -5], [0, 15, -15], [2, 17, -19]]
    assert data["m3"] is None


def test_summary_figures_agree_with_the_results(club_setup: Any, on_commit: Any) -> None:
    """Each seat's total is the sum of its deal results; the settlement moves exactly the money."""
    session = velnias_evening(club_setup)
    summary = closed(club_setup, session, on_commit)
    from scoring.models import DealResult

    for row in summary.data["standings"]:
        results = DealResult.objects.filter(session=session, seat=row["seat"])
        assert row["total"] == sum(r.points for r in results)
        assert Decimal(row["money"]) == sum(r.points for r in results) * Decimal("0.50")
        paid = sum(Decimal(t["amount"]) for t in summary.data["settlement"]["transfers"] if t["from"] == row["seat"])
        got = sum(Decimal(t["amount"]) for t in summary.data["settlement"]["transfers"] if t["to"] == row["seat"])
        assert got - paid == Decimal(row["money"])


def test_velnias_highlights(club_setup: Any, on_commit: Any) -> None:
    summary = closed(club_setup, velnias_evening(club_setup), on_commit)
    # Stored without words; the reader's copy has each highlight's sentence.
    assert "text" not in summary.data["highlights"][0]
    assert build.for_reader(summary.data)["highlights"] == [
        {"kind": "most_stops", "seat": 0, "count": 1,
         "text": "Most “Stop!” calls: Ona emptied their hand first 1 time."},
        {"kind": "best_deal", "points": 18, "deal": 2, "seat": 1, "tied": [{"seat": 1, "deal": 2}],
         "text": "Best single deal: Jonas scored 18 in deal 2."},
        {"kind": "streak", "seat": 1, "deals": 2, "from": 2, "to": 3, "tied": [{"seat": 1, "from": 2, "to": 3}],
         "text": "Longest winning run: Jonas won 2 deals in a row (deals 2 to 3)."},
    ]


def test_csv_has_a_row_per_deal_then_totals_places_and_money(club_setup: Any, on_commit: Any) -> None:
    summary = closed(club_setup, velnias_evening(club_setup), on_commit)
    assert list(csv.reader(io.StringIO(summary.csv))) == [
        ["deal", "dealer", "Ona", "Jonas", "Rūta", "won by"],
        ["1", "Rūta", "8", "-3", "-5", "Ona"],
        ["2", "Ona", "-8", "18", "-10", "Jonas"],
        ["3", "Jonas", "2", "2", "-4", "Ona; Jonas"],
        ["total (points)", "", "2", "17", "-19", ""],
        ["place", "", "2", "1", "3", ""],
        ["money (EUR, decimal point)", "", "1.00", "8.50", "-9.50", ""],
    ]


def test_html_and_chart(club_setup: Any, on_commit: Any) -> None:
    session = velnias_evening(club_setup)
    summary = closed(club_setup, session, on_commit)
    html = summary.html
    assert ('<tr><td data-label="Place">1</td><td class="card-title" data-label="Player">Jonas</td>'
            '<td class="num" data-label="Total (points)">+17</td><td class="num" data-label="Deals won">2</td>'
            '<td class="num" data-label="Average place">1.33</td>'
            '<td class="num" data-label="Money (EUR)">8.50</td></tr>') in html
    assert "Rūta pays Jonas 8.50 EUR" in html
    assert "Best single deal: Jonas scored 18 in deal 2." in html
    assert f'src="/sessions/{session.pk}/summary/chart.svg"' in html
    svg = summary.chart_svg
    assert svg.startswith("<?xml") and svg.rstrip().endswith("</svg>")
    for name in ("Ona", "Jonas", "Rūta"):
        assert f">{name}</text>" in svg
    assert "<dc:date>" not in svg  # no build time inside: re-runs are byte-identical


def test_a_name_is_escaped_in_html_chart_and_csv(club_setup: Any, on_commit: Any) -> None:
    club_setup["members"]["Petras"].name = "=<b>Petras</b>"
    club_setup["members"]["Petras"].save()
    session = start(club_setup, "velnias", ["admin", "scorer", "Petras"])
    play(club_setup, session, [{"type": "end", "condition": "empty_hand", "player": 2, "hand_counts": [3, 2, 0]}])
    summary = closed(club_setup, session, on_commit)
    assert "<b>Petras" not in summary.html and "&lt;b&gt;Petras&lt;/b&gt;" in summary.html
    assert "<b>Petras" not in summary.chart_svg
    assert next(csv.reader(io.StringIO(summary.csv)))[4] == "'=<b>Petras</b>"  # never a spreadsheet formula


def test_rukas_lowest_card_taking_a_trick(club_setup: Any, on_commit: Any) -> None:
    """Trick 1 of RUKAS_PLAN: 2 3 4; the 3 takes from the 4 and the 2 from the 3, so Ona takes with a 2."""
    session = start(club_setup, "rukas", ["admin", "scorer", "member"], stake="1")
    rukas_deal(club_setup, session, RUKAS_PLAN)
    rukas_deal(club_setup, session, RUKAS_PLAN)
    summary = closed(club_setup, session, on_commit)
    highlight = build.for_reader(summary.data)["highlights"][0]
    # Both deals' trick 1 was taken with a 2: both are named (ties name everyone).
    assert highlight == {"kind": "lowest_taker", "deal": 1, "trick": 1, "seat": 0, "rank": "2",
                         "tied": [{"seat": 0, "deal": 1, "trick": 1}, {"seat": 0, "deal": 2, "trick": 1}],
                         "text": "Lowest card to take a trick: a 2, by Ona (trick 1 of deal 1) and "
                                 "Ona (trick 1 of deal 2)."}
    # Tricks: Ona 2, Jonas 1, Rūta 0 per deal; pairwise money: Ona gets (2-1)+(2-0) = 3 a deal.
    assert [(r["name"], r["total"], r["money"]) for r in summary.data["standings"]] == [
        ("Ona", 4, "6.00"), ("Jonas", 2, "0.00"), ("Rūta", 0, "-6.00"),
    ]


def test_michigan_biggest_prize_and_m3_share(club_setup: Any, on_commit: Any) -> None:
    """Three seats, antes 1 (dealer 2): 4 chips on each prize card per deal.

    Deal 1 (dealer Rūta): Ona takes AS (4), Jonas goes out, counts 3 0 2: nets -3, +1, -10.
    Deal 2 (dealer Ona): Jonas takes KC (4 + 4 carried = 8), Rūta out, counts 1 2 0: nets -9, +2, -1.
    Left on the cards: AS 4, QD 8, JH 8 = 20; M3: 6 each and the 2 over to Jonas and Rūta
    (after the last dealer, Ona): 6, 7, 7. Totals -6, 10, -4.
    """
    session = start(club_setup, "michigan", ["admin", "scorer", "member"], stake="0.10")
    play(club_setup, session, [{"type": "prize", "card": "AS", "player": 0},
                               {"type": "out", "player": 1, "hand_counts": [3, 0, 2]}])
    play(club_setup, session, [{"type": "prize", "card": "KC", "player": 1},
                               {"type": "out", "player": 2, "hand_counts": [1, 2, 0]}])
    summary = closed(club_setup, session, on_commit)
    data = summary.data
    assert data["m3"]["values"] == [6, 7, 7]
    assert [(r["name"], r["pot_share"], r["total"], r["place"], r["money"]) for r in data["standings"]] == [
        ("Jonas", 7, 10, 1, "1.00"), ("Rūta", 7, -4, 2, "-0.40"), ("Ona", 6, -6, 3, "-0.60"),
    ]
    assert data["running_totals"] == [[0, 0, 0], [-3, 1, -10], [-12, 3, -11], [-6, 10, -4]]
    assert build.for_reader(data)["highlights"][0] == {
        "kind": "biggest_prize", "deal": 2, "seat": 1, "card": "KC", "chips": 8,
        "text": "Biggest prize pot: Jonas took 8 chips on the prize card KC in deal 2."}
    assert ">M3</text>" in summary.chart_svg
    rows = list(csv.reader(io.StringIO(summary.csv)))
    assert rows[3] == ["prize card chips shared at close (M3)", "", "6", "7", "7", ""]


def recorded(setup: dict[str, Any], game: str, seats: int, deals: list[list[tuple[Any, Any]]]) -> Session:
    """A session whose finished deals hold exactly these (payload, conclusion) entries, written
    straight to the tables (for highlights of games whose deals are long to play through)."""
    session = Session.objects.create(club=setup["club"], game=game, options={"notation": "en"})
    names = ["admin", "scorer", "member", "Petras"][:seats]
    Seat.objects.bulk_create(Seat(session=session, number=n, member=setup["members"][name])
                             for n, name in enumerate(names))
    for number, entries in enumerate(deals, start=1):
        deal = Deal.objects.create(session=session, number=number, dealer=0, options={}, state={},
                                   status="finished", seq=len(entries))
        Entry.objects.bulk_create(Entry(deal=deal, seq=seq, payload=payload, result=result)
                                  for seq, (payload, result) in enumerate(entries, start=1))
    return session


def test_cheat_sharpest_challenger_from_the_referees_conclusions(club_setup: Any) -> None:
    """Challenges as the engine concludes them: Jonas catches Ona's lie (1 of 1); Rūta challenges
    Ona's true ace, then catches Ona's lie (1 of 2). Both caught one: the fewer challenges win."""
    cheat = GAMES["cheat"]
    state = cheat.new_deal(players=3, dealer=2)
    entries = []
    for payload in [
        {"type": "place", "player": 0}, {"type": "challenge", "challenger": 1, "revealed": "5H"},
        {"type": "place", "player": 0}, {"type": "challenge", "challenger": 2, "revealed": "AH"},
        {"type": "place", "player": 2}, {"type": "place", "player": 0},
        {"type": "challenge", "challenger": 2, "revealed": "KD"},
    ]:
        state = cheat.apply(state, payload)
        entries.append((payload, cheat.view(state)["last"]))
    facts = build.gather(recorded(club_setup, "cheat", 3, [entries]))
    assert facts["facts"] == {"challenges": [[1, 1, 0, True], [1, 2, 0, False], [1, 2, 0, True]]}
    assert build.highlights(facts) == [{"kind": "best_challenger", "seat": 1, "caught": 1, "challenges": 1}]


def test_elgeta_longest_tie_break(club_setup: Any) -> None:
    """The trick with the most tie-break rounds; an equally long one later is named beside it.
    Tricks without a tie-break, and entries that are not tricks, are not even read."""
    four = [["QS", "10D", "4H", "AC"], ["JS", "AD", "AH", "4C"], ["6S", "7D", "9H", "QC"]]
    ties = [["9S", "9D", "5H", "9C"], ["2S", "2D", "2H", "2C"]]
    session = recorded(club_setup, "elgeta", 4, [
        [({"type": "trick", "rounds": [four[0]]}, {"taker": 3}),
         ({"type": "trick", "rounds": [four[1], four[2]]}, {"taker": 3})],
        [({"type": "trick", "rounds": [["3S", "3D", "3H", "3C"]]}, {"taker": None})] * 4
        + [({"type": "trick", "rounds": [*ties, ["3S", None, "8H", "KC"]]}, {"taker": 3})],
        [({"type": "trick", "rounds": [*ties, ["3S", "8D", "8H", "KC"]]}, {"taker": 0}),
         ({"type": "finish"}, None)],
    ])
    facts = build.gather(session)
    assert facts["facts"] == {"tie_breaks": [[1, 2, 1, 8, 3], [2, 5, 2, 11, 3], [3, 1, 2, 12, 0]]}
    found = build.highlights(facts)
    assert found == [{"kind": "longest_tie_break", "deal": 2, "trick": 5, "rounds": 2, "cards": 11, "seat": 3,
                      "tied": [{"seat": 3, "deal": 2, "trick": 5, "cards": 11},
                               {"seat": 0, "deal": 3, "trick": 1, "cards": 12}]}]
    assert build.describe(found[0], ["A", "B", "C", "D"]) == (
        "Longest tie-break: 2 tie-break rounds, in trick 5 of deal 2 (D took all 11 cards) and "
        "trick 1 of deal 3 (A took all 12 cards).")


def test_elgeta_longest_tie_break_of_played_deals(club_setup: Any, on_commit: Any) -> None:
    """Two random legal deals recorded through the referee (tests/rules/playout_elgeta.py): the
    highlight is the trick with the most rounds, the earliest of equals, and its taker is the
    referee's."""
    from tests.rules.playout_elgeta import random_deal

    rng = random.Random(7)
    session = start(club_setup, "elgeta", ["admin", "scorer", "member", "Petras"])
    longest: tuple[int, int, int, int] | None = None  # (tie-break rounds, -deal, -trick, cards)
    for number in (1, 2):
        setup, entries = random_deal(rng, 4, {}, finish_early=True)
        deal = services.deal_start(session=session, user=club_setup["users"]["scorer"], dealer=setup["dealer"])
        for seq, entry in enumerate(entries, start=1):
            services.entry_add(deal_id=deal.pk, payload=entry, user=club_setup["users"]["scorer"])
            if entry["type"] == "trick" and len(entry["rounds"]) > 1:
                cards = sum(1 for round_ in entry["rounds"] for card in round_ if card is not None)
                candidate = (len(entry["rounds"]) - 1, -number, -seq, cards)
                longest = candidate if longest is None or candidate[:3] > longest[:3] else longest
    assert longest is not None, "pick another seed: these deals had no tie-break"
    rounds, deal_number, trick, cards = longest[0], -longest[1], -longest[2], longest[3]
    taker = Entry.objects.get(deal__session=session, deal__number=deal_number, seq=trick, active=True).result["taker"]
    summary = closed(club_setup, session, on_commit)
    assert summary.data["deal_count"] == 2
    assert build.for_reader(summary.data)["highlights"][0] == {
        "kind": "longest_tie_break", "deal": deal_number, "trick": trick, "rounds": rounds, "cards": cards,
        "seat": taker, "text": build.describe(summary.data["highlights"][0], summary.data["players"])}


def test_a_session_without_finished_deals_still_gets_a_summary(club_setup: Any, on_commit: Any) -> None:
    session = start(club_setup, "rukas", ["admin", "scorer"])
    summary = closed(club_setup, session, on_commit)
    assert summary.state == "done"
    assert summary.data["deal_count"] == 0 and summary.data["highlights"] == []
    assert "No deal was finished in this session." in summary.html


# -- progress, idempotence, retries ------------------------------------------------------------------


def test_progress_goes_through_each_step(club_setup: Any, on_commit: Any, no_hooks: None) -> None:
    seen: list[tuple[str, int]] = []

    def observe(session_id: int, percent: int) -> None:
        row = SessionSummary.objects.get(session_id=session_id)
        seen.append((row.state, row.progress))

    tasks.progress_observer = observe
    closed(club_setup, velnias_evening(club_setup), on_commit)
    assert seen == [("running", 5), ("running", 20), ("running", 40), ("running", 70), ("running", 90),
                    ("done", 100)]


def test_a_rerun_changes_nothing_and_a_forced_rebuild_is_byte_identical(club_setup: Any, on_commit: Any) -> None:
    session = velnias_evening(club_setup)
    first = closed(club_setup, session, on_commit)
    assert build_and_store(session_id=session.pk) == "unchanged"
    again = SessionSummary.objects.get(session=session)
    assert (again.data, again.html, again.csv, again.chart_svg, again.fingerprint) == (
        first.data, first.html, first.csv, first.chart_svg, first.fingerprint)
    with on_commit():
        request_summary(session=session, force=True)
    forced = SessionSummary.objects.get(session=session)
    assert forced.state == "done" and forced.attempts == 1
    assert (forced.html, forced.csv, forced.chart_svg, forced.fingerprint) == (
        first.html, first.csv, first.chart_svg, first.fingerprint)


def test_a_failed_attempt_is_retried(club_setup: Any, on_commit: Any, no_hooks: None, settings: Any) -> None:
    settings.SUMMARY_RETRY_BACKOFF = 0
    tasks.inject_failures(1)
    summary = closed(club_setup, velnias_evening(club_setup), on_commit)
    assert (summary.state, summary.attempts, summary.error) == ("done", 2, "")


def test_after_the_last_retry_the_summary_is_failed_with_the_error(
    club_setup: Any, on_commit: Any, no_hooks: None, settings: Any, api: Any
) -> None:
    settings.SUMMARY_RETRY_BACKOFF = 0
    settings.SUMMARY_MAX_RETRIES = 2
    tasks.inject_failures(5)
    session = velnias_evening(club_setup)
    summary = closed(club_setup, session, on_commit)
    assert (summary.state, summary.attempts, summary.data) == ("failed", 3, None)
    assert summary.error == "InjectedFailure: injected failure at 20%"
    body = api(club_setup["users"]["member"]).get(f"/api/sessions/{session.pk}/summary/").json()
    assert (body["state"], body["can_retry"], body["message"]) == (
        "failed", True, "Building the summary failed: InjectedFailure: injected failure at 20%")
    tasks.inject_failures(0)
    with on_commit():
        response = api(club_setup["users"]["scorer"]).post(f"/api/sessions/{session.pk}/summary/retry/")
    assert response.status_code == 202
    assert response.json()["state"] == "pending"  # as queued; the build ran on commit
    summary.refresh_from_db()
    assert (summary.state, summary.attempts, summary.error) == ("done", 1, "")


def test_a_task_for_a_session_that_is_gone_just_ends(club_setup: Any, on_commit: Any) -> None:
    session = velnias_evening(club_setup)
    closed(club_setup, session, on_commit)
    session_id = session.pk
    session.delete()
    assert build_and_store(session_id=session_id) == "gone"
    assert tasks.build_session_summary.apply(args=[session_id]).get() == "gone"


def test_reopening_waits_for_the_next_close_and_a_correction_rebuilds(
    club_setup: Any, on_commit: Any, api: Any
) -> None:
    session = velnias_evening(club_setup)
    first = closed(club_setup, session, on_commit)
    with on_commit():
        reopen(club_setup, session)
    assert build_and_store(session_id=session.pk) == "open"
    body = api(club_setup["users"]["member"]).get(f"/api/sessions/{session.pk}/summary/").json()
    assert (body["state"], body["outdated"], body["can_retry"], body["message"]) == (
        "done", True, False, "The session was reopened; its summary is built again when it is closed.")
    # Deal 3 was blocked at 1 1 3; the table meant 1 2 3: only Ona (1) wins, 1 from Jonas, 2 from Rūta.
    deal = session.deals.get(number=3)
    services.entry_correct(deal_id=deal.pk, seq=1, user=club_setup["users"]["scorer"],
                           payload={"type": "end", "condition": "blocked", "player": None, "hand_counts": [1, 2, 3]})
    summary = closed(club_setup, session, on_commit)
    assert summary.fingerprint != first.fingerprint
    assert [(r["name"], r["total"]) for r in summary.data["standings"]] == [("Jonas", 14), ("Ona", 3), ("Rūta", -17)]
    assert summary.data["deals"][2]["values"] == [3, -1, -2]


def test_closing_with_an_unreachable_broker_still_closes(
    club_setup: Any, on_commit: Any, monkeypatch: Any, api: Any
) -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise ConnectionRefusedError("Connection refused")

    monkeypatch.setattr(tasks.build_session_summary, "apply_async", refuse)
    session = velnias_evening(club_setup)
    summary = closed(club_setup, session, on_commit)
    session.refresh_from_db()
    assert session.status == "closed"
    assert (summary.state, summary.task_id) == ("pending", "")
    body = api(club_setup["users"]["member"]).get(f"/api/sessions/{session.pk}/summary/").json()
    assert (body["state"], body["can_retry"], body["message"]) == (
        "pending", True, "The summary could not be queued: the task queue is out of reach. Try again.")
    monkeypatch.undo()
    with on_commit():
        assert api(club_setup["users"]["scorer"]).post(f"/api/sessions/{session.pk}/summary/retry/").status_code == 202
    summary.refresh_from_db()
    assert summary.state == "done"


def test_between_attempts_the_state_says_a_retry_is_coming(club_setup: Any, on_commit: Any) -> None:
    session = velnias_evening(club_setup)
    summary = closed(club_setup, session, on_commit)
    record_failure(session_id=session.pk, task_id=summary.task_id, error=RuntimeError("disk full"), final=False)
    summary.refresh_from_db()
    session.refresh_from_db()
    status = summary_status(summary, session)
    assert (status["state"], status["can_retry"], status["outdated"], status["message"]) == (
        "pending", False, True, "Attempt 1 failed (RuntimeError: disk full); trying again shortly.")
    # A failure reported by a task that no longer owns the summary changes nothing.
    record_failure(session_id=session.pk, task_id="an-older-task", error=RuntimeError("late"), final=True)
    summary.refresh_from_db()
    assert (summary.state, summary.error) == ("pending", "RuntimeError: disk full")


def test_a_refused_close_asks_for_no_summary(club_setup: Any, on_commit: Any) -> None:
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    services.deal_start(session=session, user=club_setup["users"]["scorer"])
    with on_commit() as callbacks, pytest.raises(Refusal):
        close(club_setup, session)
    assert callbacks == []
    assert not SessionSummary.objects.filter(session=session).exists()


# -- the API and the chart -------------------------------------------------------------------------


def test_api_returns_state_progress_and_summary(club_setup: Any, on_commit: Any, api: Any) -> None:
    session = velnias_evening(club_setup)
    summary = closed(club_setup, session, on_commit)
    response = api(club_setup["users"]["member"]).get(f"/api/sessions/{session.pk}/summary/")
    assert response.status_code == 200
    body = response.json()
    assert {key: body[key] for key in ("session", "state", "progress", "attempts", "error", "outdated", "can_retry",
                                       "message")} == {
        "session": session.pk, "state": "done", "progress": 100, "attempts": 1, "error": "", "outdated": False,
        "can_retry": False, "message": "The summary is ready."}
    assert body["summary"] == build.for_reader(summary.data)
    assert body["links"] == {
        "csv": f"/api/sessions/{session.pk}/summary/?format=csv",
        "chart": f"/sessions/{session.pk}/summary/chart.svg",
        "retry": f"/api/sessions/{session.pk}/summary/retry/",
    }


def test_api_csv(club_setup: Any, on_commit: Any, api: Any) -> None:
    session = velnias_evening(club_setup)
    summary = closed(club_setup, session, on_commit)
    response = api(club_setup["users"]["member"]).get(f"/api/sessions/{session.pk}/summary/?format=csv")
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response.content.decode() == summary.csv


def test_api_refusals(club_setup: Any, on_commit: Any, api: Any) -> None:
    session = velnias_evening(club_setup)
    member, scorer = api(club_setup["users"]["member"]), api(club_setup["users"]["scorer"])
    url = f"/api/sessions/{session.pk}/summary/"
    assert member.get(url).status_code == 404
    assert member.get(url).json() == {
        "error": "This session has no summary yet: it is built when the session is closed.", "code": "not_found"}
    with on_commit():
        close(club_setup, session)
    assert api(club_setup["users"]["outsider"]).get(url).json() == {"error": "Not found.", "code": "not_found"}
    assert api().get(url).status_code == 401
    response = member.get(url + "?format=xml")
    assert (response.status_code, response.json()) == (
        400, {"error": "Unknown format “xml”; use json or csv.", "code": "invalid"})
    response = member.post(url + "retry/")
    assert (response.status_code, response.json()) == (
        403, {"error": "Only the club's scorers and admins can record or change play.", "code": "forbidden"})
    response = scorer.post(url + "retry/")
    assert (response.status_code, response.json()) == (
        409, {"error": "The summary is already built; there is nothing to retry.", "code": "conflict"})


def test_csv_before_the_summary_is_done(club_setup: Any, api: Any) -> None:
    session = velnias_evening(club_setup)
    close(club_setup, session)  # the commit never comes inside this test: the build stays queued
    SessionSummary.objects.filter(session=session).update(task_id="some-task")
    response = api(club_setup["users"]["member"]).get(f"/api/sessions/{session.pk}/summary/?format=csv")
    assert (response.status_code, response.json()) == (409, {
        "error": "The summary is not ready yet: Waiting for a worker to build the summary.",
        "state": "pending", "progress": 0, "code": "conflict"})
    response = api(club_setup["users"]["scorer"]).post(f"/api/sessions/{session.pk}/summary/retry/")
    assert (response.status_code, response.json()) == (409, {
        "error": "The summary is waiting for a worker; it will be built as soon as one runs.", "code": "conflict"})


def test_chart_is_served_to_members_only(club_setup: Any, on_commit: Any, client: Any) -> None:
    session = velnias_evening(club_setup)
    summary = closed(club_setup, session, on_commit)
    url = f"/sessions/{session.pk}/summary/chart.svg"
    assert client.get(url).status_code == 302  # to the sign-in page
    client.force_login(club_setup["users"]["member"])
    response = client.get(url)
    assert response.status_code == 200
    assert response["Content-Type"] == "image/svg+xml; charset=utf-8"
    assert response["Content-Security-Policy"] == "default-src 'none'; style-src 'unsafe-inline'"
    assert response.content.decode() == summary.chart_svg
    assert client.get(url, HTTP_IF_NONE_MATCH=response["ETag"]).status_code == 304
    client.force_login(club_setup["users"]["outsider"])
    assert client.get(url).status_code == 404


def test_summary_html_is_the_stored_fragment_or_rendered_for_another_language(
    club_setup: Any, on_commit: Any
) -> None:
    session = velnias_evening(club_setup)
    summary = closed(club_setup, session, on_commit)
    assert build.summary_html(session, language="en") == summary.html
    # Another language is rendered from the stored data, not taken from the stored page.
    SessionSummary.objects.filter(session=session).update(html="stored page")
    assert build.summary_html(session, language="en") == "stored page"
    lithuanian = build.summary_html(session, language="lt")
    assert lithuanian.startswith('<section class="session-summary"') and "8,50" in lithuanian
    assert build.summary_html(start(club_setup, "velnias", ["admin", "scorer", "member"])) == ""


def test_the_summary_is_written_in_the_sites_language_whoever_closes(
    club_setup: Any, on_commit: Any, api: Any, settings: Any
) -> None:
    """Closed from an English page, the stored summary is still Lithuanian (the site's language),
    so a re-run gives the same bytes; the API's own messages follow the request."""
    settings.LANGUAGE_CODE = "lt"
    session = velnias_evening(club_setup)
    scorer = api(club_setup["users"]["scorer"])
    with on_commit():
        assert scorer.post(f"/api/sessions/{session.pk}/close/", HTTP_ACCEPT_LANGUAGE="en").status_code == 200
    summary = SessionSummary.objects.get(session=session)
    assert '<h3 id="summary-standings-h">Rezultatai</h3>' in summary.html
    with translation.override("lt"):
        assert build.for_reader(summary.data)["highlights"][1]["text"] == (
            "Geriausias padalijimas: Jonas 2 padalijime surinko 18.")
    assert summary.csv.startswith("padalijimas,")
    body = scorer.get(f"/api/sessions/{session.pk}/summary/", HTTP_ACCEPT_LANGUAGE="en").json()
    assert body["message"] == "The summary is ready."
    # The stored summary has no words; an English reader gets every sentence in English.
    assert body["summary"]["highlights"][1]["text"] == "Best single deal: Jonas scored 18 in deal 2."
    assert body["summary"]["settlement"]["money_rule"] == (
        "Points x the stake: Velnias points are already who pays whom.")
    assert body["summary"]["settlement"]["transfers"][0]["explanation"].startswith("Rūta is down 9.50 EUR: deal 1 ")
    # The CSV too: the stored one is the site language's, each reader gets their own.
    response = scorer.get(f"/api/sessions/{session.pk}/summary/?format=csv", HTTP_ACCEPT_LANGUAGE="en")
    assert response.content.decode().startswith("deal,dealer,Ona,Jonas,Rūta,won by\r\n")
    assert build_and_store(session_id=session.pk) == "unchanged"


# -- the management command --------------------------------------------------------------------------


def test_regenerate_summaries_for_a_club_and_dates(club_setup: Any, on_commit: Any, capsys: Any) -> None:
    old = velnias_evening(club_setup)
    closed(club_setup, old, on_commit)
    Session.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(days=40))
    new = velnias_evening(club_setup)
    closed(club_setup, new, on_commit)
    still_open = start(club_setup, "velnias", ["admin", "scorer", "member"])
    SessionSummary.objects.update(html="stale")
    today = timezone.localdate().isoformat()
    with on_commit():
        call_command("regenerate_summaries", "--club", "vilnius", "--since", today, "--until", today)
    assert capsys.readouterr().out == f"Queued 1 summary: session {new.pk}.\n"
    assert SessionSummary.objects.get(session=new).html.startswith("<section")
    assert SessionSummary.objects.get(session=old).html == "stale"
    assert not SessionSummary.objects.filter(session=still_open).exists()
    with on_commit():
        call_command("regenerate_summaries", "--club", "vilnius")
    assert capsys.readouterr().out == f"Queued 2 summaries: sessions {old.pk}, {new.pk}.\n"
    assert SessionSummary.objects.get(session=old).html.startswith("<section")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([], "Say which summaries: --club SLUG, --since YYYY-MM-DD and/or --until YYYY-MM-DD."),
        (["--club", "nowhere"], "There is no club “nowhere”."),
        (["--since", "2024-13-01"], "--since must be a date written YYYY-MM-DD, not “2024-13-01”."),
        (["--since", "2024-05-02", "--until", "2024-05-01"], "--since (2024-05-02) is after --until (2024-05-01)."),
    ],
)
def test_regenerate_summaries_refuses_bad_input(club_setup: Any, args: list[str], message: str) -> None:
    with pytest.raises(CommandError) as refused:
        call_command("regenerate_summaries", *args)
    assert str(refused.value) == message
    assert not SessionSummary.objects.exists()
