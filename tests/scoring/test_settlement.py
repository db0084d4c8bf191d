"""Who pays whom: fewest transfers on exact decimals, and rounding to a smallest coin."""

from __future__ import annotations

from decimal import Decimal as D
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scoring.settlement.settlement import fewest_transfers, round_to_coin, zero_sum_groups


def applied(nets: list[tuple[str, D]], transfers: list) -> dict[str, D]:
    balance = {key: D(0) for key, _net in nets}
    for t in transfers:
        balance[t.payer] -= t.amount
        balance[t.payee] += t.amount
    return balance


def test_two_players_one_transfer():
    transfers = fewest_transfers([("Ona", D("-3.75")), ("Jonas", D("3.75"))])
    assert [(t.payer, t.payee, t.amount) for t in transfers] == [("Ona", "Jonas", D("3.75"))]


def test_everyone_square_needs_no_transfer():
    assert fewest_transfers([("Ona", D("0.00")), ("Jonas", D("0"))]) == []


def test_three_players_two_transfers():
    transfers = fewest_transfers([("A", D("5.50")), ("B", D("-2.25")), ("C", D("-3.25"))])
    assert [(t.payer, t.payee, t.amount) for t in transfers] == [("C", "A", D("3.25")), ("B", "A", D("2.25"))]


def test_exact_method_beats_largest_first_greedy():
    """Debts -4, -3, -3 and credits +6, +4: the greedy "largest pays largest" needs 4 transfers;
    the groups {-4, +4} and {-3, -3, +6} need 3."""
    nets = [("A", D("-4")), ("B", D("-3")), ("C", D("-3")), ("D", D("6")), ("E", D("4"))]
    transfers = fewest_transfers(nets)
    assert [(t.payer, t.payee, t.amount) for t in transfers] == [
        ("A", "E", D("4")), ("B", "D", D("3")), ("C", "D", D("3")),
    ]


def test_eight_players_exact_cents():
    nets = [("A", D("12.35")), ("B", D("-7.10")), ("C", D("-5.25")), ("D", D("3.40")), ("E", D("-3.40")),
            ("F", D("0.00")), ("G", D("1.05")), ("H", D("-1.05"))]
    transfers = fewest_transfers(nets)
    # Seven players owe or are owed; three zero-sum groups: 7 - 3 = 4 transfers.
    assert len(transfers) == 4
    assert sorted((t.payer, t.payee, t.amount) for t in transfers) == [
        ("B", "A", D("7.10")), ("C", "A", D("5.25")), ("E", "D", D("3.40")), ("H", "G", D("1.05")),
    ]


def test_nets_that_do_not_sum_to_zero_are_refused():
    with pytest.raises(ValueError, match="do not sum to zero"):
        fewest_transfers([("A", D("1.00")), ("B", D("-0.99"))])


def test_rounding_to_a_coin_keeps_the_sum_at_zero():
    """4.05, -1.35, -1.50, -1.20 to 0.50 coins: all down (4.00, -1.50, -1.50, -1.50) leaves one
    coin over, which goes to the largest remainder (-1.20 was 0.30 above -1.50)."""
    nets = [("A", D("4.05")), ("B", D("-1.35")), ("C", D("-1.50")), ("D", D("-1.20"))]
    rounded = round_to_coin(nets, D("0.50"))
    assert [(r.key, r.rounded, r.adjustment) for r in rounded] == [
        ("A", D("4.00"), D("-0.05")), ("B", D("-1.50"), D("-0.15")),
        ("C", D("-1.50"), D("0.00")), ("D", D("-1.00"), D("0.20")),
    ]


def test_rounding_ties_go_to_the_earlier_seat():
    rounded = round_to_coin([("A", D("0.10")), ("B", D("-0.05")), ("C", D("-0.05"))], D("0.10"))
    assert [r.rounded for r in rounded] == [D("0.10"), D("0.00"), D("-0.10")]


def test_no_coin_means_exact():
    rounded = round_to_coin([("A", D("0.01")), ("B", D("-0.01"))], None)
    assert [(r.rounded, r.adjustment) for r in rounded] == [(D("0.01"), D("0")), (D("-0.01"), D("0"))]


# -- properties --------------------------------------------------------------------------------


@st.composite
def nets(draw: st.DrawFn, low: int = 2, high: int = 8) -> list[tuple[str, D]]:
    """2-8 nets in whole cents that sum to zero (often with zero-sum subgroups)."""
    n = draw(st.integers(low, high))
    cents = draw(st.lists(st.integers(-5000, 5000), min_size=n - 1, max_size=n - 1))
    if draw(st.booleans()):
        cents = [c - c % 50 for c in cents]  # round numbers make zero-sum subgroups likely
    cents.append(-sum(cents))
    return [(f"p{i}", D(c) / 100) for i, c in enumerate(cents)]


def most_zero_groups(values: list[D]) -> int:
    """Brute force: the most disjoint zero-sum groups the non-zero values split into."""
    values = [v for v in values if v != 0]
    if not values:
        return 0
    first, rest = values[0], list(range(1, len(values)))
    best = 0
    for size in range(len(rest) + 1):
        for chosen in combinations(rest, size):
            if first + sum((values[i] for i in chosen), D(0)) == 0:
                others = [values[i] for i in rest if i not in chosen]
                best = max(best, 1 + most_zero_groups(others))
    return best


@settings(max_examples=300, deadline=None)
@given(nets())
def test_transfers_reproduce_every_net_exactly_with_at_most_n_minus_1(given_nets):
    transfers = fewest_transfers(given_nets)
    assert applied(given_nets, transfers) == {key: net for key, net in given_nets}
    assert len(transfers) <= len(given_nets) - 1
    assert all(t.amount > 0 and t.payer != t.payee for t in transfers)


@settings(max_examples=150, deadline=None)
@given(nets(high=7))
def test_transfers_are_the_fewest_possible(given_nets):
    nonzero = sum(1 for _key, net in given_nets if net != 0)
    assert len(fewest_transfers(given_nets)) == nonzero - most_zero_groups([net for _key, net in given_nets])
    assert len(zero_sum_groups(given_nets)) == most_zero_groups([net for _key, net in given_nets])


@settings(max_examples=300, deadline=None)
@given(nets(), st.sampled_from(["0.01", "0.05", "0.10", "0.20", "0.50", "1.00", "2.00"]))
def test_rounding_is_shown_and_never_lost(given_nets, coin_text):
    coin = D(coin_text)
    rounded = round_to_coin(given_nets, coin)
    assert sum((r.rounded for r in rounded), D(0)) == 0
    for r in rounded:
        assert r.rounded % coin == 0
        assert abs(r.adjustment) < coin
        assert r.exact + r.adjustment == r.rounded
    transfers = fewest_transfers([(r.key, r.rounded) for r in rounded])
    assert applied(given_nets, transfers) == {r.key: r.rounded for r in rounded}
