"""Random sessions played through the referee's services, checking the scoring invariants:

* the ledger is zero-sum at every moment (players' nets + chips on the prize cards = 0);
* the settlement's transfers reproduce every (rounded) net exactly, with at most n - 1 of them,
  and the rounding adds up to zero;
* undoing the entry that finished a deal restores the standings, ledger, aggregates and
  ratings exactly as they were before it; closing and reopening does the same for M3.
"""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee import services as referee
from referee.models import Session
from referee.rules import GAMES
from scoring import selectors
from scoring.models import ChipMovement, Rating, RatingEvent
from scoring.ratings import rating as ratings
from tests.scoring.helpers import aggregates, close, reopen, start, undo

pytestmark = pytest.mark.django_db

NAMES = ["admin", "scorer", "member", "Petras", "Asta", "Tomas"]
PRIZES = ["AS", "KC", "QD", "JH"]


class Rollback(Exception):
    """Ends one example, undoing everything it stored."""


def velnias_entries(data: st.DataObject, players: int) -> list[dict[str, Any]]:
    hand = 35 // players
    condition = data.draw(st.sampled_from(["empty_hand", "last_card", "blocked"]))
    counts = data.draw(st.lists(st.integers(1, hand), min_size=players, max_size=players))
    player = None
    if condition != "blocked":
        player = data.draw(st.integers(0, players - 1))
        if condition == "empty_hand":
            counts[player] = 0
    return [{"type": "end", "condition": condition, "player": player, "hand_counts": counts}]


def michigan_entries(data: st.DataObject, players: int, hand_sizes: list[int]) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    # A prize card played is a card out of that seat's hand: the out counts must leave room for it.
    played = [0] * players
    for card in data.draw(st.lists(st.sampled_from(PRIZES), unique=True, max_size=4)):
        if data.draw(st.booleans()):
            entries.append({"type": "misplay", "player": data.draw(st.integers(0, players - 1))})
        player = data.draw(st.integers(0, players - 1))
        played[player] += 1
        entries.append({"type": "prize", "card": card, "player": player})
    out = data.draw(st.integers(0, players - 1))
    counts = [0 if seat == out else data.draw(st.integers(1, max(1, hand_sizes[seat] - played[seat])))
              for seat in range(players)]
    entries.append({"type": "out", "player": out, "hand_counts": counts})
    return entries


def snapshot(session: Session) -> dict[str, Any]:
    # The ratings once the worker has taken every deal waiting for its rating step (after commit).
    for club, stream in RatingEvent.objects.values_list("club_id", "game").distinct():
        ratings.settle(club_id=club, game=stream)
    session = Session.objects.get(pk=session.pk)
    ledger = selectors.ledger(session)
    return {
        "standings": selectors.standings(session),
        "ledger": ledger,
        "aggregates": aggregates(),
        "ratings": sorted(Rating.objects.values_list("member_id", "game", "mu", "sigma", "deals")),
        "splits": sorted(ChipMovement.objects.filter(deal__isnull=True).values_list("target_seat", "chips")),
    }


def check_money(session: Session) -> None:
    session = Session.objects.get(pk=session.pk)
    ledger = selectors.ledger(session)
    check = ledger["zero_sum_check"]
    assert check["ok"] is True and check["total"] == 0
    assert check["players_net"] == sum(n[ledger["unit"]] for n in ledger["nets"])
    settle = selectors.settlement(session)
    n = len(settle["nets"])
    assert sum(D(x["exact"]) for x in settle["nets"]) == 0
    assert sum(D(x["rounded"]) for x in settle["nets"]) == 0
    assert D(settle["rounding_total"]) == 0
    coin = D(settle["coin"]) if settle["coin"] else None
    balance = [D(0)] * n
    for t in settle["transfers"]:
        assert D(t["amount"]) > 0
        balance[t["from"]] -= D(t["amount"])
        balance[t["to"]] += D(t["amount"])
        if coin:
            assert D(t["amount"]) % coin == 0
    assert balance == [D(x["rounded"]) for x in settle["nets"]]
    assert len(settle["transfers"]) <= n - 1
    standings = selectors.standings(session)
    assert [D(t["money"]) for t in standings["totals"]] == [D(x["exact"]) for x in settle["nets"]]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(data=st.data())
def test_random_sessions_keep_the_books(club_setup, data):
    game = data.draw(st.sampled_from(["velnias", "michigan"]), label="game")
    players = data.draw(st.integers(3, 6), label="players")
    stake = data.draw(st.sampled_from(["0.00", "0.05", "0.10", "0.25", "1.00", "1.35"]), label="stake")
    coin = data.draw(st.sampled_from([None, "0.05", "0.10", "0.50", "1.00"]), label="coin")
    user = club_setup["users"]["scorer"]
    try:
        with transaction.atomic():
            session = start(club_setup, game, NAMES[:players], stake=stake, coin=coin)
            for _deal in range(data.draw(st.integers(1, 4), label="deals")):
                deal = referee.deal_start(session=session, user=user)
                check_money(session)  # a running Mičiganas deal's antes are already on the prize cards
                if game == "velnias":
                    entries = velnias_entries(data, players)
                else:
                    sizes = GAMES["michigan"].view(GAMES["michigan"].from_dict(deal.state))["hand_sizes"]
                    entries = michigan_entries(data, players, sizes)
                for entry in entries[:-1]:
                    referee.entry_add(deal_id=deal.pk, payload=entry, user=user)
                    check_money(session)
                before = snapshot(session)
                referee.entry_add(deal_id=deal.pk, payload=entries[-1], user=user)
                check_money(session)
                if data.draw(st.booleans(), label="undo the finishing entry"):
                    undo(club_setup, deal)
                    assert snapshot(session) == before
                    referee.entry_add(deal_id=deal.pk, payload=entries[-1], user=user)
                    check_money(session)
            if data.draw(st.booleans(), label="close"):
                before = snapshot(session)
                session = close(club_setup, session)
                check_money(session)
                if game == "michigan":
                    assert selectors.ledger(Session.objects.get(pk=session.pk))["zero_sum_check"] == {
                        "players_net": 0, "on_prize_cards": 0, "total": 0, "ok": True}
                session = reopen(club_setup, session)
                assert snapshot(session) == before
            raise Rollback
    except Rollback:
        pass
