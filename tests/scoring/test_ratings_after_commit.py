"""Ratings rated after commit (``ratings.settle``) are exactly the ratings of the club's deals
rated one by one in finishing order, whatever happens in between.

Random evenings (seeded): several Velnias and Cheat tables of one club, with players in
common, finish deals, undo the entry that finished one, correct a finished deal's entry
(an older one too, under later deals). The rating steps the entries queue run as a worker
would: sometimes as soon as the entry commits, sometimes late and in a batch, sometimes
lost (the leaderboard asks again). At the end every stream must equal a from-scratch
rating of the results in (finished_at, deal) order, and ``recompute`` must agree.
"""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import TestCase

from referee import services
from referee.models import Deal, DealStatus
from referee.rules import GAMES, IllegalEntry
from scoring import background, selectors
from scoring.models import OVERALL, DealResult, Rating, RatingEvent, RatingPoint, RatingStream
from scoring.ratings import rating as ratings
from tests.conftest import is_postgres
from tests.scoring.helpers import start, velnias_end

NAMES = ["admin", "scorer", "member", "Petras", "Asta", "Tomas", "Eglė", "Marius"]


def in_order(club_id: int, stream: str) -> dict[int, tuple[float, float, int]]:
    """The stream's ratings computed from scratch: every deal's placements in finishing order."""
    rows = DealResult.objects.filter(club_id=club_id)
    if stream != OVERALL:
        rows = rows.filter(game=stream)
    deals: dict[int, dict[int, int]] = {}
    for deal, member, placement in rows.order_by("finished_at", "deal_id", "seat").values_list(
        "deal_id", "member_id", "placement"
    ):
        deals.setdefault(deal, {})[member] = placement
    current: dict[int, tuple[float, float]] = {}
    counts: dict[int, int] = {}
    for placements in deals.values():
        current.update(ratings.new_ratings(current, placements))
        for member in placements:
            counts[member] = counts.get(member, 0) + 1
    return {m: (mu, sigma, counts[m]) for m, (mu, sigma) in current.items()}


def history_in_order(club_id: int, stream: str) -> list[tuple[int, int, int, float, float]]:
    """The rating history from scratch: (seq, deal, member, mu, sigma) after each deal in order."""
    rows = DealResult.objects.filter(club_id=club_id)
    if stream != OVERALL:
        rows = rows.filter(game=stream)
    deals: dict[int, dict[int, int]] = {}
    for deal, member, placement in rows.order_by("finished_at", "deal_id", "seat").values_list(
        "deal_id", "member_id", "placement"
    ):
        deals.setdefault(deal, {})[member] = placement
    current: dict[int, tuple[float, float]] = {}
    points = []
    for seq, (deal, placements) in enumerate(deals.items(), start=1):
        after = ratings.new_ratings(current, placements)
        current.update(after)
        points += [(seq, deal, member, mu, sigma) for member, (mu, sigma) in sorted(after.items())]
    return points


def history(club_id: int, stream: str) -> list[tuple[int, int, int, float, float]]:
    return list(RatingPoint.objects.filter(stream__club_id=club_id, stream__game=stream).order_by(
        "seq", "member_id").values_list("seq", "deal_id", "member_id", "mu", "sigma"))


def stored(club_id: int, stream: str) -> dict[int, tuple[float, float, int]]:
    return {m: (mu, sigma, deals) for m, mu, sigma, deals in Rating.objects.filter(
        club_id=club_id, game=stream).values_list("member_id", "mu", "sigma", "deals")}


def velnias_finish(rng: random.Random, players: int) -> dict[str, Any]:
    winner = rng.randrange(players)
    counts = [0 if seat == winner else rng.randint(1, 35 // players) for seat in range(players)]
    return velnias_end("empty_hand", winner, counts)


def cheat_deal(rng: random.Random, deal: Deal) -> list[dict[str, Any]]:
    """Cards placed in turn, now and then by a random player, until a last card stands."""
    rules = GAMES["cheat"]
    state = rules.from_dict(deal.state)
    players = deal.session.seats.count()
    entries: list[dict[str, Any]] = []
    for n in range(500):
        try:
            rules.apply(state, {"type": "stands"})
        except IllegalEntry:
            entry = {"type": "place", "player": n % players if rng.random() < 0.8 else rng.randrange(players)}
            try:
                state = rules.apply(state, entry)
            except IllegalEntry:
                continue
            entries.append(entry)
        else:
            return [*entries, {"type": "stands"}]
    raise AssertionError("no last card in 500 places")


class Evening:
    """The club's tables, played at random; the rating steps run as a worker might run them."""

    def __init__(self, setup: dict[str, Any], rng: random.Random) -> None:
        self.setup, self.rng = setup, rng
        self.user = setup["users"]["scorer"]
        self.waiting: list[Callable[[], None]] = []
        self.tables = []
        for game in ("velnias", "velnias", "velnias", "cheat"):
            names = rng.sample(NAMES, rng.randint(3, 5))
            self.tables.append(start(setup, game, names))

    def commit(self, service: Callable[..., Any], **kwargs: Any) -> Any:
        """Run a service; then its after-commit work runs now, later, or is lost."""
        with TestCase.captureOnCommitCallbacks(execute=False) as callbacks:
            answer = service(**kwargs)
        fate = self.rng.random()
        if fate < 0.5:
            for callback in callbacks:
                callback()
        elif fate < 0.9:
            self.waiting.extend(callbacks)
        if self.waiting and self.rng.random() < 0.3:
            self.rng.shuffle(self.waiting)
            waiting, self.waiting = self.waiting, []
            for callback in waiting:
                callback()
        return answer

    def finish(self, table: Any) -> None:
        players = table.seats.count()
        running = table.deals.filter(status=DealStatus.RUNNING).first()
        deal = running or self.commit(services.deal_start, session=table, user=self.user)
        entries = ([velnias_finish(self.rng, players)] if table.game == "velnias"
                   else cheat_deal(self.rng, Deal.objects.get(pk=deal.pk)))
        for entry in entries:
            self.commit(services.entry_add, deal_id=deal.pk, payload=entry, user=self.user)

    def undo(self, table: Any) -> None:
        last = table.deals.order_by("-number").first()
        if last is not None and last.status == DealStatus.FINISHED:
            self.commit(services.entry_undo, deal_id=last.pk, user=self.user)

    def correct(self, table: Any) -> None:
        """A Velnias deal's only entry replaced: the deal finishes again with other placements."""
        finished = list(table.deals.filter(status=DealStatus.FINISHED))
        if table.game != "velnias" or not finished:
            return
        deal: Deal = self.rng.choice(finished)
        self.commit(services.entry_correct, deal_id=deal.pk, seq=1, payload=velnias_finish(
            self.rng, table.seats.count()), user=self.user)

    def play(self, steps: int) -> None:
        for _ in range(steps):
            table = self.rng.choice(self.tables)
            action = self.rng.choices([self.finish, self.undo, self.correct], weights=[6, 2, 2])[0]
            action(table)
        self.rng.shuffle(self.waiting)
        for callback in self.waiting:
            callback()
        # Lost steps: the leaderboard finds the streams waiting and asks again.
        club = self.setup["club"]
        for stream in ("velnias", "cheat", None):
            selectors.leaderboard(club, game=stream, min_deals=0)


@pytest.mark.django_db
@pytest.mark.parametrize("seed", range(6))
def test_ratings_after_commit_equal_the_ratings_in_order(club_setup, django_capture_on_commit_callbacks, seed):
    evening = Evening(club_setup, random.Random(seed))
    with django_capture_on_commit_callbacks(execute=True):
        evening.play(40)
    club = club_setup["club"]
    assert not RatingEvent.objects.exists()
    assert DealResult.objects.values("deal").distinct().count() >= 5
    for stream in ("velnias", "cheat", OVERALL):
        expected = in_order(club.pk, stream)
        assert stored(club.pk, stream) == expected, stream
        # The rating history: a point per member per rated deal, for the whole history.
        points = history_in_order(club.pk, stream)
        assert history(club.pk, stream) == points, stream
        board = selectors.leaderboard(club, game=None if stream == OVERALL else stream, min_deals=0)
        assert (board["ratings_pending"], board["ratings_stale"]) == (False, False)
        ratings.recompute(club_id=club.pk, game=stream)
        assert stored(club.pk, stream) == expected, stream
        assert history(club.pk, stream) == points, stream


@pytest.mark.django_db
def test_the_leaderboard_says_when_ratings_are_being_updated(club_setup):
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    user = club_setup["users"]["scorer"]
    deal = services.deal_start(session=session, user=user)
    with TestCase.captureOnCommitCallbacks(execute=False) as callbacks:
        services.entry_add(deal_id=deal.pk, payload=velnias_end("empty_hand", 0, [0, 4, 2]), user=user)
    club = club_setup["club"]
    board = selectors.leaderboard(club, game="velnias", min_deals=0)
    # The totals are already there (same transaction); the ratings are not yet.
    assert [row["deals"] for row in board["ranked"]] == [1, 1, 1]
    assert {row["rating"]["deals"] for row in board["ranked"]} == {0}
    assert (board["ratings_pending"], board["ratings_stale"]) == (True, False)
    assert selectors.leaderboard(club, game="cheat", min_deals=0)["ratings_pending"] is False
    for callback in callbacks:
        callback()
    board = selectors.leaderboard(club, game="velnias", min_deals=0)
    assert board["ratings_pending"] is False
    assert {row["rating"]["deals"] for row in board["ranked"]} == {1}


@pytest.mark.django_db
def test_a_settled_stream_is_left_as_it_is(club_setup):
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    user = club_setup["users"]["scorer"]
    with TestCase.captureOnCommitCallbacks(execute=True):
        deal = services.deal_start(session=session, user=user)
        services.entry_add(deal_id=deal.pk, payload=velnias_end("empty_hand", 0, [0, 4, 2]), user=user)
    club = club_setup["club"].pk
    before = stored(club, "velnias"), list(RatingStream.objects.values_list("game", "last_seq", "stale"))
    assert ratings.settle(club_id=club, game="velnias") == 0
    assert (stored(club, "velnias"), list(RatingStream.objects.values_list("game", "last_seq", "stale"))) == before


@pytest.mark.django_db(transaction=True)
def test_finishing_a_deal_takes_no_lock_on_the_clubs_rating_stream(club_setup, require_postgres, monkeypatch):
    """A worker holds the club's rating stream (as while it rates); a table still finishes its
    deal and commits at once: the entry's transaction never waits for the stream."""
    assert is_postgres()
    monkeypatch.setattr(background, "after_commit", lambda *args, **kwargs: None)  # the worker is the thread
    session = start(club_setup, "velnias", ["admin", "scorer", "member"])
    user = club_setup["users"]["scorer"]
    club = club_setup["club"]
    RatingStream.objects.create(club=club, game="velnias")
    RatingStream.objects.create(club=club, game=OVERALL)
    deal = services.deal_start(session=session, user=user)
    held, release = threading.Event(), threading.Event()

    def worker() -> None:
        try:
            with transaction.atomic():
                list(RatingStream.objects.select_for_update().filter(club=club))
                held.set()
                release.wait(10)
        finally:
            connection.close()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        assert held.wait(10)
        with connection.cursor() as cursor:
            cursor.execute("SET lock_timeout = '2s'")
        try:
            services.entry_add(deal_id=deal.pk, payload=velnias_end("empty_hand", 0, [0, 4, 2]), user=user)
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = 0")
        assert DealResult.objects.filter(deal=deal).count() == 3
    finally:
        release.set()
        thread.join(10)
