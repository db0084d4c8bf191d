"""How often the recording screen reads a deal's snapshot into the engine (issue 15): once per
deal version, for the view and, on a finished deal, the next deal's dealer. A long Mičiganas
deal's snapshot (its whole chip ledger) costs milliseconds to read."""

from __future__ import annotations

import re
from typing import Any

import pytest

from referee.models import Deal
from referee.rules import GAMES

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
    page: Any, start: Any, club_setup: dict, monkeypatch: Any
) -> None:
    deal = start("michigan", ["admin", "scorer", "member", "Petras"])
    scorer = club_setup["users"]["scorer"]
    record(deal, scorer, *[{"type": "misplay", "player": seat % 4} for seat in range(30)])
    client = page(scorer)
    client.get(f"/deals/{deal.pk}/")  # the offline templates, rendered once per deal and process
    reads = count_reads(monkeypatch, "michigan")
    record(deal, scorer, {"type": "misplay", "player": 1})  # a new version (the entry reads it once)
    reads.clear()
    for _ in range(3):
        assert client.get(f"/deals/{deal.pk}/").status_code == 200
    assert len(reads) == 1
