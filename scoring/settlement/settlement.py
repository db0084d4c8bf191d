"""Who pays whom: the fewest transfers that settle a set of nets, and rounding to a coin.

Pure functions on exact decimals (no Django), so they can be tested on their own.

Fewest transfers. Finding the fewest transfers is NP-hard in general, but exact for a
card table: if the players (with a non-zero net) can be split into at most ``g`` groups
that each sum to zero, every group settles internally with ``size - 1`` transfers, and no
settlement can do better than ``m - g`` (the transfers form a forest whose trees are
zero-sum groups). So the minimum is ``m - g_max``, and ``g_max`` is found by a dynamic
programme over subsets (``O(2^m x m)``; m <= 8 seats at a table, so at most 2,048 steps):
``best[mask] = max over i in mask of best[mask - i] + (1 if sum(mask) == 0)``. Within a
group, the largest debtor pays the largest creditor until all are square; each transfer
clears at least one of them, and the last clears both, so a group of ``k`` needs ``k - 1``.

Rounding. With a smallest coin, every net is rounded to a whole number of coins, each down
or up by less than one coin: all are rounded down, then the coins still missing (there is
always a whole number of them, since the exact nets sum to zero) go to the largest
remainders (Hamilton's method; ties to the earlier seat). The rounded nets still sum to
zero, and each adjustment is reported, never silently dropped.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from decimal import ROUND_FLOOR, Decimal
from typing import Generic, TypeVar

K = TypeVar("K", bound=Hashable)

#: Above this many players the subset programme would be slow; the greedy method (at most
#: n - 1 transfers, not always the fewest) is used instead. A table seats at most 8.
EXACT_LIMIT = 16


@dataclass(frozen=True)
class Transfer(Generic[K]):
    payer: K
    payee: K
    amount: Decimal


def zero_sum_groups(nets: Sequence[tuple[K, Decimal]]) -> list[list[tuple[K, Decimal]]]:
    """Split the non-zero nets into the most groups that each sum to zero (keeping the given order)."""
    items = [(key, net) for key, net in nets if net != 0]
    m = len(items)
    if sum((net for _key, net in items), Decimal(0)) != 0:
        raise ValueError("the nets do not sum to zero")
    if m == 0:
        return []
    if m > EXACT_LIMIT:
        return [items]
    full = (1 << m) - 1
    total = [Decimal(0)] * (full + 1)
    best = [0] * (full + 1)
    for mask in range(1, full + 1):
        low = mask & -mask
        total[mask] = total[mask ^ low] + items[low.bit_length() - 1][1]
        zero = 1 if total[mask] == 0 else 0
        best[mask] = max(best[mask ^ (1 << i)] for i in range(m) if mask >> i & 1) + zero
    # Walk back from the full set, removing one player at a time along a best path; the
    # zero-sum prefixes of the reversed path cut it into the groups.
    order: list[int] = []
    mask = full
    while mask:
        zero = 1 if total[mask] == 0 else 0
        i = next(i for i in range(m) if mask >> i & 1 and best[mask ^ (1 << i)] == best[mask] - zero)
        order.append(i)
        mask ^= 1 << i
    order.reverse()
    groups: list[list[int]] = []
    current: list[int] = []
    running = Decimal(0)
    for i in order:
        current.append(i)
        running += items[i][1]
        if running == 0:
            groups.append(sorted(current))
            current = []
    assert not current and len(groups) == best[full]
    # Present the groups in the order of the players (by each group's first player).
    return [[items[i] for i in group] for group in sorted(groups)]


def settle_group(group: Sequence[tuple[K, Decimal]]) -> list[Transfer[K]]:
    """Transfers that square a zero-sum group: largest debtor pays largest creditor (k - 1 at most)."""
    position = {key: index for index, (key, _net) in enumerate(group)}
    balance = {key: net for key, net in group}
    transfers: list[Transfer[K]] = []
    while True:
        debtors = [key for key in balance if balance[key] < 0]
        creditors = [key for key in balance if balance[key] > 0]
        if not debtors:
            assert not creditors
            return transfers
        payer = min(debtors, key=lambda k: (balance[k], position[k]))
        payee = max(creditors, key=lambda k: (balance[k], -position[k]))
        amount = min(-balance[payer], balance[payee])
        transfers.append(Transfer(payer, payee, amount))
        balance[payer] += amount
        balance[payee] -= amount


def fewest_transfers(nets: Sequence[tuple[K, Decimal]]) -> list[Transfer[K]]:
    """The fewest transfers that settle everyone (exact up to ``EXACT_LIMIT`` players)."""
    return [transfer for group in zero_sum_groups(nets) for transfer in settle_group(group)]


@dataclass(frozen=True)
class Rounded(Generic[K]):
    key: K
    exact: Decimal
    rounded: Decimal

    @property
    def adjustment(self) -> Decimal:
        return self.rounded - self.exact


def round_to_coin(nets: Sequence[tuple[K, Decimal]], coin: Decimal | None) -> list[Rounded[K]]:
    """Each net as a whole number of coins, still summing to zero (see the module docstring)."""
    if sum((net for _key, net in nets), Decimal(0)) != 0:
        raise ValueError("the nets do not sum to zero")
    if coin is None:
        return [Rounded(key, net, net) for key, net in nets]
    if coin <= 0:
        raise ValueError("the coin must be more than zero")
    floors = [(net / coin).to_integral_value(rounding=ROUND_FLOOR) * coin for _key, net in nets]
    remainders = [net - floor for (_key, net), floor in zip(nets, floors)]
    missing = int(sum(remainders, Decimal(0)) / coin)
    up = sorted(range(len(nets)), key=lambda i: (-remainders[i], i))[:missing]
    return [
        Rounded(key, net, floors[i] + (coin if i in up else 0))
        for i, (key, net) in enumerate(nets)
    ]
