"""Session standings per game, with figures computed by hand from RULES.md and the money rules
of ``scoring.results`` (Velnias and Mičiganas paid as played; the others pair by pair)."""

from __future__ import annotations

from decimal import Decimal as D
from typing import Any

import pytest
from django.utils import timezone

from referee.models import Deal, DealStatus, Seat, Session
from referee.rules import GAMES, Outcome
from scoring import selectors, services
from scoring.models import ChipMovement, DealResult, MemberDay, MemberMonth, MemberTotal
from tests.scoring.helpers import aggregates, close, play, reopen, start, undo, velnias_end

pytestmark = pytest.mark.django_db


def fresh(session: Session) -> Session:
    return Session.objects.get(pk=session.pk)


def money_units(game: str, points: list[int]) -> list[int]:
    return GAMES[game].money_units(points)


def test_money_units_each_pair_settles_the_difference():
    # Rūkas, 3 players with 6, 4 and 2 tricks: A gets 2 from B and 4 from C; B gets 2 from C.
    assert money_units("rukas", [6, 4, 2]) == [6, 0, -6]
    # Apgaudinėjimas: the apgavikas pays each of the 3 others one stake.
    assert money_units("cheat", [0, -1, 0, 0]) == [1, -3, 1, 1]
    # Elgeta: each of the 3 beggars pays the winner one stake.
    assert money_units("elgeta", [0, 0, 1, 0]) == [-1, -1, 3, -1]
    # Velnias and Mičiganas are paid as played.
    assert money_units("velnias", [27, -9, -10, -8]) == [27, -9, -10, -8]
    assert money_units("michigan", [-2, -10, 0]) == [-2, -10, 0]


def test_velnias_points_running_totals_money_and_rounding(club_setup):
    """The seed's last-card example (A 3, B 2, C 6, D 1 -> +27, -9, -10, -8), then an empty hand
    by C with A 3, B 2, D 1 (C +6; A -3, B -2, D -1). Stake 0.15 per point, coin 0.50."""
    session = start(club_setup, "velnias", ["admin", "scorer", "member", "Petras"], stake="0.15", coin="0.50")
    play(club_setup, session, [velnias_end("last_card", 0, [3, 2, 6, 1])])
    play(club_setup, session, [velnias_end("empty_hand", 2, [3, 2, 0, 1])])
    data = selectors.standings(fresh(session))
    assert data["unit"] == "points"
    assert [(d["deal"], d["values"], d["running"], d["placements"]) for d in data["deals"]] == [
        (1, [27, -9, -10, -8], [27, -9, -10, -8], [1, 3, 4, 2]),
        (2, [-3, -2, 6, -1], [24, -11, -4, -9], [4, 3, 1, 2]),
    ]
    assert [(t["name"], t["total"], t["place"], t["money"]) for t in data["totals"]] == [
        ("Ona", 24, 1, "3.60"), ("Jonas", -11, 4, "-1.65"), ("Rūta", -4, 2, "-0.60"), ("Petras", -9, 3, "-1.35"),
    ]
    settle = selectors.settlement(fresh(session))
    # 3.60, -1.65, -0.60, -1.35 in 0.50 coins: all down gives 3.50, -2.00, -1.00, -1.50 (-1.00 short);
    # the two coins go to the largest remainders: Rūta (0.40) and Jonas (0.35).
    assert [(n["exact"], n["rounded"], n["rounding"]) for n in settle["nets"]] == [
        ("3.60", "3.50", "-0.10"), ("-1.65", "-1.50", "0.15"), ("-0.60", "-0.50", "0.10"), ("-1.35", "-1.50", "-0.15"),
    ]
    assert settle["rounding_total"] == "0.00"
    assert [(t["from_name"], t["to_name"], t["amount"]) for t in settle["transfers"]] == [
        ("Jonas", "Ona", "1.50"), ("Petras", "Ona", "1.50"), ("Rūta", "Ona", "0.50"),
    ]
    first = settle["transfers"][0]["explanation"]
    # A story that adds up: every deal named is in the sum, the rounding says from what to what.
    assert first == (
        "Jonas is down 1.50 EUR: deal 1 −1.35, deal 2 −0.30; together −1.65, rounded to −1.50 (the 0.50 coin). "
        "Ona is up 3.50 EUR: deal 1 +4.05, deal 2 −0.45; together +3.60, rounded to +3.50 (the 0.50 coin). "
        "Ona collects 3.50 in all: Jonas 1.50, Petras 1.50, Rūta 0.50."
    )


def rukas_deal() -> list[dict[str, Any]]:
    """Two players; seat 0 leads. Tricks (leader's card first), and who takes:
    A-2, K-3, Q-4, J-5, 10-6 (seat 0, highest), 9-7 (seat 0), 8-9 (seat 0: the 8 is one below the 9),
    2-10, then seat 1 leads: J-3, Q-4, K-5, A-6 (seat 1), 8-7 (seat 0: the 7 is one below the 8).
    Seat 0: 8 tricks, seat 1: 5."""
    cards = [["A", "2"], ["K", "3"], ["Q", "4"], ["J", "5"], ["10", "6"], ["9", "7"], ["8", "9"], ["2", "10"],
             ["J", "3"], ["Q", "4"], ["K", "5"], ["A", "6"], ["8", "7"]]
    return [{"type": "trick", "cards": trick} for trick in cards]


def test_rukas_tricks_are_points_and_each_pair_settles_the_difference(club_setup):
    session = start(club_setup, "rukas", ["admin", "member"], stake="0.50")
    play(club_setup, session, rukas_deal())
    # Second deal: both play the same rank every trick; all cancel, every trick is void (R2).
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    play(club_setup, session, [{"type": "trick", "cards": [r, r]} for r in ranks])
    data = selectors.standings(fresh(session))
    assert data["unit"] == "points"
    assert [(d["values"], d["running"]) for d in data["deals"]] == [([8, 5], [8, 5]), ([0, 0], [8, 5])]
    assert [(t["total"], t["place"], t["money"]) for t in data["totals"]] == [(8, 1, "1.50"), (5, 2, "-1.50")]
    ledger = selectors.ledger(fresh(session))
    assert [(m["deal"], m["from"], m["to"], m["chips"]) for m in ledger["movements"]] == [(1, 1, 0, 3)]
    assert ledger["zero_sum_check"] == {"players_net": 0, "on_prize_cards": 0, "total": 0, "ok": True}


def cheat_deal() -> list[dict[str, Any]]:
    """Three players, 17 cards each (one card starts the pile); nobody challenges. Seat 0's last
    card (the 49th placed) stands when seat 1 places its last; seat 2 lets seat 1's last card
    stand and, the only one with cards, is the apgavikas."""
    return [{"type": "place", "player": i % 3} for i in range(50)] + [{"type": "stands"}]


def test_cheat_counts_losses_and_the_apgavikas_pays_everyone(club_setup):
    session = start(club_setup, "cheat", ["admin", "scorer", "member"], stake="1.00")
    first = play(club_setup, session, cheat_deal())
    assert first.status == DealStatus.FINISHED
    second = play(club_setup, session, cheat_deal())  # the loser (seat 2) deals; seat 0 leads again
    assert second.dealer == 2
    data = selectors.standings(fresh(session))
    assert data["unit"] == "losses"
    assert [(d["values"], d["running"], d["placements"]) for d in data["deals"]] == [
        ([0, 0, 1], [0, 0, 1], [1, 2, 3]), ([0, 0, 1], [0, 0, 2], [1, 2, 3]),
    ]
    # Fewer losses rank higher.
    assert [(t["total"], t["place"], t["money"]) for t in data["totals"]] == [
        (0, 1, "2.00"), (0, 1, "2.00"), (2, 3, "-4.00"),
    ]
    settle = selectors.settlement(fresh(session))
    assert [(t["from_name"], t["to_name"], t["amount"]) for t in settle["transfers"]] == [
        ("Rūta", "Ona", "2.00"), ("Rūta", "Jonas", "2.00"),
    ]
    # The leaderboard and the history count Apgaudinėjimas in losses too.
    board = selectors.leaderboard(club_setup["club"], game="cheat", min_deals=0)
    assert board["unit"] == "losses"
    assert sorted((row["name"], row["total"], row["points"]) for row in board["ranked"]) == [
        ("Jonas", 0, 0), ("Ona", 0, 0), ("Rūta", 2, -2),
    ]
    history = selectors.member_history(club_setup["members"]["member"])
    assert (history["games"]["cheat"]["unit"], history["games"]["cheat"]["total"]) == ("losses", 2)


class FakeElgeta(type(GAMES["elgeta"])):  # type: ignore[misc]
    """The Elgeta engine with a given outcome, to reach a draw (E3) without playing a cycle."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__()
        self._outcome = outcome

    def outcome(self, state: Any) -> Outcome:
        return self._outcome


def test_elgeta_counts_deals_won_and_beggars_pay_the_winner(club_setup, monkeypatch):
    from referee import rules

    setup = club_setup
    session = Session.objects.create(club=setup["club"], game="elgeta", stake=D("0.20"), currency="EUR")
    names = ["admin", "scorer", "member", "Petras"]
    for number, name in enumerate(names):
        Seat.objects.create(session=session, number=number, member=setup["members"][name])
    outcomes = [
        Outcome(points=(0, 0, 1, 0), placements=(3, 2, 1, 4), winners=(2,)),
        Outcome(points=(1, 0, 0, 0), placements=(1, 4, 2, 2), winners=(0,)),
        Outcome(points=(0, 0, 0, 0), placements=(1, 1, 3, 4), winners=(0, 1)),  # a draw (E3): nobody wins
        Outcome(points=(0, 0, 1, 0), placements=(2, 3, 1, 4), winners=(2,)),
    ]
    for number, outcome in enumerate(outcomes, start=1):
        deal = Deal.objects.create(session=session, number=number, dealer=(number + 2) % 4, state={},
                                   status=DealStatus.FINISHED, finished_at=timezone.now())
        monkeypatch.setitem(rules.GAMES, "elgeta", FakeElgeta(outcome))
        services.deal_finished(deal=deal, state=None)
    data = selectors.standings(session)
    assert data["unit"] == "deals_won"
    assert [d["running"] for d in data["deals"]] == [[0, 0, 1, 0], [1, 0, 1, 0], [1, 0, 1, 0], [1, 0, 2, 0]]
    # Per deal the winner gets 3 stakes, each beggar pays 1: Ona +3 -1 -1 = 1 stake, Rūta +3 -1 +3 = 5.
    assert [(t["total"], t["place"], t["money"]) for t in data["totals"]] == [
        (1, 2, "0.20"), (0, 3, "-0.60"), (2, 1, "1.00"), (0, 3, "-0.60"),
    ]


def michigan_session(setup: dict[str, Any], stake: str = "0.10", coin: str | None = None) -> Session:
    """Two deals, 3 players (default antes: 1 a card, the dealer 2), computed by hand:

    Deal 1 (dealer Rūta): antes put 4 on each prize card (16). Ona takes AS (+4); Jonas misplays
    (pays 1 to each); Rūta goes out, Ona holding 3 and Jonas 4. Nets: Ona -4+4+1-3 = -2,
    Jonas -4-2-4 = -10, Rūta -8+1+7 = 0. Left on the cards: KC 4, QD 4, JH 4 (12).
    Deal 2 (dealer Ona): antes add 4 a card (AS 4, KC 8, QD 8, JH 8). Ona misplays (-2), then plays
    KC: after a misplay it is not taken and its 8 stay. Jonas takes QD (+8) and goes out, Ona
    holding 5, Rūta 2. Nets: Ona -8-2-5 = -15, Jonas -4+1+8+7 = 12, Rūta -4+1-2 = -5.
    Left: AS 4, KC 8, JH 8 (20).
    """
    session = start(setup, "michigan", ["admin", "scorer", "member"], stake=stake, coin=coin)
    play(setup, session, [
        {"type": "prize", "card": "AS", "player": 0},
        {"type": "misplay", "player": 1},
        {"type": "out", "player": 2, "hand_counts": [3, 4, 0]},
    ])
    play(setup, session, [
        {"type": "misplay", "player": 0},
        {"type": "prize", "card": "KC", "player": 0},
        {"type": "prize", "card": "QD", "player": 1},
        {"type": "out", "player": 1, "hand_counts": [5, 0, 2]},
    ])
    return session


def test_michigan_chips_carry_over_on_the_prize_cards(club_setup):
    session = michigan_session(club_setup)
    data = selectors.standings(fresh(session))
    assert data["unit"] == "chips"
    assert [(d["values"], d["running"]) for d in data["deals"]] == [([-2, -10, 0], [-2, -10, 0]),
                                                                    ([-15, 12, -5], [-17, 2, -5])]
    ledger = selectors.ledger(fresh(session))
    assert ledger["on_prize_cards"] == {"AS": 4, "KC": 8, "QD": 0, "JH": 8}
    assert [n["chips"] for n in ledger["nets"]] == [-17, 2, -5]
    assert ledger["zero_sum_check"] == {"players_net": -20, "on_prize_cards": 20, "total": 0, "ok": True}
    deal2 = [(m["from"], m["to"], m["chips"], m["reason"]) for m in ledger["movements"] if m["deal"] == 2]
    assert deal2[12:] == [
        (0, 1, 1, "misplay"), (0, 2, 1, "misplay"), ("QD", 1, 8, "prize"), (2, 1, 2, "payout"), (0, 1, 5, "payout"),
    ]
    # While open, the standings preview M3 (20 chips: 6 each, the 2 left over to Jonas and Rūta,
    # the seats after the last dealer Ona).
    assert data["m3"] == {"values": [6, 7, 7], "running": [-11, 9, 2], "provisional": True,
                          "text": "Chips left on the prize cards shared at close (M3)"}


def test_michigan_running_deal_is_in_the_ledger_and_still_zero_sum(club_setup):
    session = michigan_session(club_setup)
    from referee import services as referee_services

    referee_services.deal_start(session=session, user=club_setup["users"]["scorer"])  # dealer Jonas: 1, 2, 1
    ledger = selectors.ledger(fresh(session))
    assert [n["chips"] for n in ledger["nets"]] == [-21, -6, -9]
    assert ledger["on_prize_cards"] == {"AS": 8, "KC": 12, "QD": 4, "JH": 12}
    assert ledger["zero_sum_check"]["ok"] is True
    assert {m["final"] for m in ledger["movements"] if m["deal"] == 3} == {False}
    assert selectors.settlement(fresh(session))["note"] == (
        "Deal in progress: the settlement counts finished deals only."
    )


def test_michigan_m3_at_close_and_reopen_reverses_it_exactly(club_setup):
    session = michigan_session(club_setup, stake="0.10")
    before = aggregates()
    session = close(club_setup, session)
    splits = list(ChipMovement.objects.filter(session=session, deal__isnull=True).order_by("order").values_list(
        "source_prize", "target_seat", "chips", "reason"))
    # Jonas (7): AS 4 + KC 3; Rūta (7): KC 5 + JH 2; Ona (6): JH 6.
    assert splits == [("AS", 1, 4, "split"), ("KC", 1, 3, "split"), ("KC", 2, 5, "split"), ("JH", 2, 2, "split"),
                      ("JH", 0, 6, "split")]
    ledger = selectors.ledger(fresh(session))
    assert ledger["on_prize_cards"] == {"AS": 0, "KC": 0, "QD": 0, "JH": 0}
    assert [n["chips"] for n in ledger["nets"]] == [-11, 9, 2]
    assert ledger["zero_sum_check"] == {"players_net": 0, "on_prize_cards": 0, "total": 0, "ok": True}
    data = selectors.standings(fresh(session))
    assert data["m3"]["provisional"] is False
    assert [(t["total"], t["place"], t["money"]) for t in data["totals"]] == [(-11, 3, "-1.10"), (9, 1, "0.90"),
                                                                              (2, 2, "0.20")]
    settle = selectors.settlement(fresh(session))
    assert settle["provisional"] is False
    assert [(t["from_name"], t["to_name"], t["amount"]) for t in settle["transfers"]] == [
        ("Ona", "Jonas", "0.90"), ("Ona", "Rūta", "0.20"),
    ]
    assert settle["transfers"][0]["explanation"].startswith(
        "Ona is down 1.10 EUR: deal 1 −0.20, deal 2 −1.50, prize card chips shared at close +0.60. ")
    assert settle["transfers"][0]["explanation"].endswith(
        "Chips: Ona antes −12, prizes +4, misplays −1, payouts −8, M3 share +6; "
        "Jonas antes −8, prizes +8, misplays −1, payouts +3, M3 share +7."
    )
    jonas = club_setup["members"]["scorer"]
    # Jonas's +2 chips in the deals and his M3 share of 7, in the month's, the day's and all-time totals.
    for model in (MemberMonth, MemberDay, MemberTotal):
        assert dict(model.objects.filter(member=jonas).values_list("game", "points")) == {"michigan": 9}
    history = selectors.member_history(jonas)
    assert [(h["points"], h["money"]) for h in history["sessions"]] == [(9, "0.90")]
    reopen(club_setup, session)
    assert not ChipMovement.objects.filter(session=session, deal__isnull=True).exists()
    history = selectors.member_history(jonas)
    assert [(h["points"], h["money"]) for h in history["sessions"]] == [(2, "0.20")]
    assert aggregates() == before


def test_undo_of_a_finished_deal_restores_the_previous_standings(club_setup):
    session = michigan_session(club_setup)
    before = selectors.standings(fresh(session))
    ledger_before = selectors.ledger(fresh(session))
    deal = play(club_setup, session, [{"type": "out", "player": 0, "hand_counts": [0, 3, 3]}])
    assert len(selectors.standings(fresh(session))["deals"]) == 3
    undo(club_setup, deal)
    assert selectors.standings(fresh(session))["deals"] == before["deals"]
    ledger_now = selectors.ledger(fresh(session))
    # The reopened deal is running again: its antes are in the ledger, marked not final.
    assert [m for m in ledger_now["movements"] if m["final"]] == ledger_before["movements"]
    assert DealResult.objects.filter(deal=deal).count() == 0


def test_elgeta_through_the_referee(club_setup):
    """Four players holding spades, clubs, diamonds, hearts. Deal 1 (seat 0 leads): four aces tie,
    every player adds a card, Ona's king takes all eight and holds every ace: she wins at once (E2),
    the others share second place (11 cards each). Deal 2 (Jonas leads): the same with Jonas's king."""
    session = start(club_setup, "elgeta", ["admin", "scorer", "member", "Petras"], stake="0.50")
    play(club_setup, session, [{"type": "trick", "rounds": [["AS", "AC", "AD", "AH"], ["KS", "2C", "2D", "2H"]]}])
    play(club_setup, session, [{"type": "trick", "rounds": [["AC", "AD", "AH", "AS"], ["KC", "3D", "3H", "2S"]]}])
    data = selectors.standings(fresh(session))
    assert data["unit"] == "deals_won"
    assert [(d["dealer"], d["values"], d["placements"]) for d in data["deals"]] == [
        (3, [1, 0, 0, 0], [1, 2, 2, 2]), (0, [0, 1, 0, 0], [2, 1, 2, 2]),
    ]
    # Each deal the winner gets one stake from each of the three others.
    assert [(t["total"], t["place"], t["money"]) for t in data["totals"]] == [
        (1, 1, "1.00"), (1, 1, "1.00"), (0, 3, "-1.00"), (0, 3, "-1.00"),
    ]
