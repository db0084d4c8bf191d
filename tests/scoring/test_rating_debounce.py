"""With a worker (not eager), the deals a club's tables finish within ``SETTLE_DELAY`` share one
rating task, sent with that countdown; none is left without a task that runs after it committed."""

from __future__ import annotations

from typing import Any

import pytest
from celery import current_app

from scoring import background


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = False
    monkeypatch.setattr(background, "_scheduled", {})
    calls: list[dict[str, Any]] = []

    def receiver(sender: object, **kwargs: Any) -> None:
        calls.append({key: value for key, value in kwargs.items() if key != "signal"})

    # Replace the task's receiver for this test: nothing reaches a broker.
    receivers = background.ratings_due.receivers
    monkeypatch.setattr(background.ratings_due, "receivers", [])
    background.ratings_due.connect(receiver, weak=False)
    monkeypatch.setattr(background.ratings_due, "sender_receivers_cache", {})
    yield calls
    background.ratings_due.receivers = receivers
    current_app.conf.task_always_eager = eager


def clock(monkeypatch: pytest.MonkeyPatch, now: float) -> None:
    monkeypatch.setattr(background.time, "time", lambda: now)


def test_deals_finishing_within_the_delay_share_one_task(sent, monkeypatch):
    clock(monkeypatch, 1000.0)
    background._send_ratings_due(club_id=1, games=["velnias", "all"])
    clock(monkeypatch, 1000.0 + background.SETTLE_DELAY / 2)
    background._send_ratings_due(club_id=1, games=["velnias", "all"])  # the first task runs after this commit
    background._send_ratings_due(club_id=1, games=["rukas", "all"])  # a stream no task is on its way for
    background._send_ratings_due(club_id=2, games=["velnias", "all"])  # another club
    assert sent == [
        {"club_id": 1, "games": ["velnias", "all"], "countdown": background.SETTLE_DELAY},
        {"club_id": 1, "games": ["rukas"], "countdown": background.SETTLE_DELAY},
        {"club_id": 2, "games": ["velnias", "all"], "countdown": background.SETTLE_DELAY},
    ]
    # Once the first task's time has come, it may already have read the events: a new deal sends again.
    clock(monkeypatch, 1000.0 + background.SETTLE_DELAY)
    background._send_ratings_due(club_id=1, games=["velnias", "all"])
    assert sent[-1] == {"club_id": 1, "games": ["velnias", "all"], "countdown": background.SETTLE_DELAY}
    assert len(sent) == 4


def test_a_failed_send_leaves_the_next_deal_to_send(sent, monkeypatch):
    clock(monkeypatch, 1000.0)

    def broker_down(sender: object, **kwargs: Any) -> None:
        raise ConnectionError("broker down")

    background.ratings_due.connect(broker_down, weak=False)
    with pytest.raises(ConnectionError):
        background._send_ratings_due(club_id=1, games=["velnias", "all"])
    background.ratings_due.disconnect(broker_down)
    background._send_ratings_due(club_id=1, games=["velnias", "all"])
    assert [call["games"] for call in sent] == [["velnias", "all"], ["velnias", "all"]]


def test_eager_runs_at_once_without_a_countdown(sent, monkeypatch):
    current_app.conf.task_always_eager = True
    background._send_ratings_due(club_id=1, games=["velnias", "all"])
    background._send_ratings_due(club_id=1, games=["velnias", "all"])
    assert sent == [{"club_id": 1, "games": ["velnias", "all"]}] * 2
