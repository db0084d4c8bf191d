"""Web processes share their rating tasks through the broker's Redis (``rating_tasks._claim``):
a deal that finishes while another process's task for its streams has not run yet sends none."""

from __future__ import annotations

import random
import time
from typing import Any

import pytest

from scoring.ratings import tasks as rating_tasks
from tests.conftest import need

COUNTDOWN = 0.25


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, list[str]]]:
    calls: list[tuple[int, list[str]]] = []

    def apply_async(args: tuple[int, list[str]], countdown: float | None = None) -> None:
        calls.append(args)

    monkeypatch.setattr(rating_tasks.settle_ratings, "apply_async", apply_async)
    rating_tasks._redis.cache_clear()
    yield calls
    rating_tasks._redis.cache_clear()


@pytest.fixture
def redis_broker(settings: Any) -> None:
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/15"
    rating_tasks._redis.cache_clear()
    try:
        rating_tasks._redis().ping()
    except Exception:  # noqa: BLE001
        need(False, "needs Redis at 127.0.0.1:6379 (as .ci/run starts it)")


def club() -> int:
    return random.randrange(10**9, 2 * 10**9)  # no claim of another run


def test_a_task_on_its_way_takes_the_deals_of_every_process(sent, redis_broker):
    one, two = club(), club()
    rating_tasks.request_settle(None, club_id=one, games=["velnias", "all"], countdown=COUNTDOWN)
    rating_tasks.request_settle(None, club_id=one, games=["velnias", "all"], countdown=COUNTDOWN)
    rating_tasks.request_settle(None, club_id=one, games=["rukas", "all"], countdown=COUNTDOWN)
    rating_tasks.request_settle(None, club_id=two, games=["velnias", "all"], countdown=COUNTDOWN)
    assert sent == [(one, ["velnias", "all"]), (one, ["rukas"]), (two, ["velnias", "all"])]
    # The claim ends before the task runs: a deal finishing after that sends a task of its own.
    time.sleep(COUNTDOWN * rating_tasks.CLAIM_SHARE + 0.02)
    rating_tasks.request_settle(None, club_id=one, games=["velnias", "all"], countdown=COUNTDOWN)
    assert sent[-1] == (one, ["velnias", "all"])


def test_a_failed_send_leaves_the_next_deal_to_send(sent, redis_broker, monkeypatch):
    one = club()

    def broker_down(args: Any, countdown: float | None = None) -> None:
        raise ConnectionError("broker down")

    with monkeypatch.context() as patch:
        patch.setattr(rating_tasks.settle_ratings, "apply_async", broker_down)
        with pytest.raises(ConnectionError):
            rating_tasks.request_settle(None, club_id=one, games=["velnias", "all"], countdown=COUNTDOWN)
    rating_tasks.request_settle(None, club_id=one, games=["velnias", "all"], countdown=COUNTDOWN)
    assert sent == [(one, ["velnias", "all"])]


def test_without_a_redis_broker_every_request_sends(sent, settings):
    settings.CELERY_BROKER_URL = "memory://"
    one = club()
    for _ in range(2):
        rating_tasks.request_settle(None, club_id=one, games=["velnias", "all"], countdown=COUNTDOWN)
    assert sent == [(one, ["velnias", "all"])] * 2


def test_a_request_without_countdown_always_sends(sent, redis_broker):
    one = club()
    for _ in range(2):
        rating_tasks.request_settle(None, club_id=one, games=["velnias", "all"])
    assert sent == [(one, ["velnias", "all"])] * 2
