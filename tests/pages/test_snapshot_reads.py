"""How often the recording screen reads a deal's snapshot into the engine: once per
deal version, for the view and, on a finished deal, the next deal's dealer. A long Mičiganas
deal's snapshot (its whole chip ledger) costs milliseconds to read."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.cache import cache
from django.db import transaction

from referee import screen_views, selectors, services
from referee.models import Deal
from referee.rules import GAMES
from web.pages.deal_screen import engine_view

from .conftest import record

pytestmark = pytest.mark.django_db

SEED_END = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}


def count_reads(monkeypatch: Any, game: str) -> list[int]:
    """Counts the game's ``from_dict`` calls from now on (one item per call)."""
    rules = type(GAMES[game])
    calls: list[int] = []
    original = rules.from_dict

    def counted(self: Any, data: Any) -> Any:
        calls.append(1)
        return original(self, data)

    monkeypatch.setattr(rules, "from_dict", counted)
    return calls


def test_a_finished_deal_is_read_once_per_version_and_names_the_next_dealer(
    page: Any, start: Any, club_setup: dict, monkeypatch: Any
) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    record(deal, club_setup["users"]["scorer"], SEED_END)
    deal = Deal.objects.get(pk=deal.pk)
    rules = GAMES["velnias"]
    expected = rules.next_dealer(rules.from_dict(deal.state))
    client = page(club_setup["users"]["scorer"])
    first = client.get(f"/deals/{deal.pk}/").content.decode()
    reads = count_reads(monkeypatch, "velnias")
    again = client.get(f"/deals/{deal.pk}/").content.decode()
    fragment = client.get(f"/deals/{deal.pk}/?fragment=1").content.decode()
    assert reads == []  # the view and the next dealer come from the version's one reading
    for html in (first, again, fragment):
        checked = re.findall(r'name="dealer" value="(\d+)" checked', html)
        assert checked == [str(expected)]


def test_a_running_long_deal_is_read_once_per_version(
    page: Any, start: Any, club_setup: dict, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    deal = start("michigan", ["admin", "scorer", "member", "Petras"])
    scorer = club_setup["users"]["scorer"]
    record(deal, scorer, *[{"type": "misplay", "player": seat % 4} for seat in range(30)])
    client = page(scorer)
    client.get(f"/deals/{deal.pk}/")  # the offline templates, rendered once per deal and process
    reads = count_reads(monkeypatch, "michigan")
    services.entry_undo(deal_id=deal.pk, user=scorer)  # a version no entry made: read once
    for _ in range(3):
        assert client.get(f"/deals/{deal.pk}/").status_code == 200
    assert len(reads) == 1
    with django_capture_on_commit_callbacks(execute=True):  # as the entry's commit would
        record(deal, scorer, {"type": "misplay", "player": 1})  # the entry reads its deal once
    reads.clear()
    for _ in range(3):
        assert client.get(f"/deals/{deal.pk}/").status_code == 200
    assert reads == []  # the entry kept its version's view for the screens


def _screen(html: str) -> str:
    """The screen without what is personal to one response: the CSRF token, the entry's key and
    the other devices recording the deal (emptying the cache forgets this one's earlier GET)."""
    html = re.sub(r'name="(csrfmiddlewaretoken|idempotency_key)" value="[^"]*"', "", html)
    html = re.sub(r'(data-version="[^"~]*)~[0-9a-f]+"', r'\1"', html)
    return re.sub(r"<div data-presence-box>.*?</div>", "", html, flags=re.S)


@pytest.mark.parametrize("game", ["michigan", "velnias"])
def test_the_view_an_entry_keeps_draws_the_screen_a_reading_draws(
    page: Any, start: Any, club_setup: dict, game: str, django_capture_on_commit_callbacks: Any
) -> None:
    """The view an entry keeps for its version (running, and finished with the next dealer)
    draws the same screen as the snapshot read afresh."""
    deal = start(game, ["admin", "scorer", "member", "Petras"])
    scorer = club_setup["users"]["scorer"]
    # Mičiganas: 20 misplays, 60 chip movements after the antes (the screen lists the latest 40).
    entries = [SEED_END] if game == "velnias" else [{"type": "misplay", "player": n % 4} for n in range(20)]
    record(deal, scorer, *entries[:-1])
    with django_capture_on_commit_callbacks(execute=True):
        record(deal, scorer, entries[-1])
    deal = Deal.objects.select_related("session").get(pk=deal.pk)
    version = selectors.deal_version(deal)
    found = screen_views.kept(deal, version)
    assert found is not None
    if game == "michigan":  # kept without the older movements, counting them all
        ledger = GAMES["michigan"].view(GAMES["michigan"].from_dict(deal.state))["movements"]
        assert found[0]["movements"] == ledger[-40:] and found[0]["movements_total"] == len(ledger) > 60
    client = page(scorer)
    kept = _screen(client.get(f"/deals/{deal.pk}/").content.decode())
    if game == "michigan":
        assert f"Chip movements this deal ({len(ledger)})" in kept
    cache.clear()
    read = _screen(client.get(f"/deals/{deal.pk}/").content.decode())
    assert kept == read


def test_a_rolled_back_entry_keeps_no_view(
    start: Any, club_setup: dict, django_capture_on_commit_callbacks: Any
) -> None:
    """A version's view is kept once the entry commits: a rolled-back entry's version number
    comes back with other content."""
    deal = start("michigan", ["admin", "scorer", "member", "Petras"])
    scorer = club_setup["users"]["scorer"]
    with (django_capture_on_commit_callbacks(execute=True) as kept, pytest.raises(RuntimeError),
          transaction.atomic()):
        record(deal, scorer, {"type": "misplay", "player": 2})
        rolled_back = Deal.objects.select_related("session").get(pk=deal.pk)
        raise RuntimeError
    assert kept == []
    assert rolled_back.revision == 1
    assert screen_views.kept(rolled_back, selectors.deal_version(rolled_back)) is None
    with django_capture_on_commit_callbacks(execute=True):
        record(deal, scorer, {"type": "misplay", "player": 3})
    stored = Deal.objects.select_related("session").get(pk=deal.pk)
    view, _dealer = screen_views.kept(stored, selectors.deal_version(stored)) or ({}, None)
    assert view["misplays"] == [0, 0, 0, 1]


def test_a_cache_that_is_down_fails_neither_the_entry_nor_the_view(
    start: Any, club_setup: dict, monkeypatch: Any, django_capture_on_commit_callbacks: Any
) -> None:
    """The entry has committed when it keeps its version's view: a cache that fails then is
    logged, and the screen's view is read from the snapshot instead."""
    deal = start("michigan", ["admin", "scorer", "member", "Petras"])
    scorer = club_setup["users"]["scorer"]

    def down(*_args: Any, **_kwargs: Any) -> Any:
        raise ConnectionError("cache down")

    monkeypatch.setattr(screen_views.cache, "get", down)
    monkeypatch.setattr(screen_views.cache, "set", down)
    with django_capture_on_commit_callbacks(execute=True) as kept:
        record(deal, scorer, {"type": "misplay", "player": 2})
    assert len(kept) >= 1 and Deal.objects.get(pk=deal.pk).seq == 1
    stored = Deal.objects.select_related("session").get(pk=deal.pk)
    view, next_dealer = engine_view(stored, selectors.deal_version(stored))
    assert view["misplays"] == [0, 0, 1, 0] and next_dealer is None
