"""The pure facts each game carries for the rest of the house (RULES.md: units, money, dealers)."""

from __future__ import annotations

import pytest

from referee.rules import GAMES, MoneyRule


@pytest.mark.parametrize(("slug", "key", "label", "sign"), [
    ("elgeta", "deals_won", "deals won", 1), ("velnias", "points", "points", 1), ("rukas", "points", "tricks", 1),
    ("michigan", "chips", "chips", 1), ("cheat", "losses", "losses", -1),
])
def test_each_game_names_its_unit(slug: str, key: str, label: str, sign: int) -> None:
    unit = GAMES[slug].unit
    assert (unit.key, unit.label, unit.sign) == (key, label, sign)
    assert unit.of(-1) == -sign and unit.higher_is_better is (sign > 0)


def test_velnias_and_michigan_pay_as_played_the_others_settle_each_pair() -> None:
    as_played = {slug for slug, game in GAMES.items() if game.money_rule is MoneyRule.AS_PLAYED}
    assert as_played == {"velnias", "michigan"}
    assert GAMES["velnias"].money_units([27, -9, -10, -8]) == [27, -9, -10, -8]
    # Rūkas 5 players: every pair settles the difference, so the stakes sum to zero.
    assert GAMES["rukas"].money_units([4, 3, 3, 2, 1]) == [7, 2, 2, -3, -8]


def test_house_rules_are_the_options_with_defaults() -> None:
    for game in GAMES.values():
        assert {rule.key for rule in game.house_rules} <= set(game.option_defaults)
    michigan = [rule.key for rule in GAMES["michigan"].house_rules]
    assert michigan == ["prizes", "ante", "dealer_ante", "misplay_penalty", "live"]
    assert GAMES["velnias"].house_rules == ()


def test_only_cheat_chooses_the_next_dealer_by_the_outcome() -> None:
    assert [slug for slug, game in GAMES.items() if game.dealer_follows_outcome] == ["cheat"]


def test_michigan_carries_its_pot_and_shares_it_at_close() -> None:
    """M3: the chips left on the prize cards are shared out equally, the remainder one each from
    the seat after the last dealer, each card emptied in prize order."""
    game = GAMES["michigan"]
    state = game.new_deal(players=3, dealer=2, options={"pot": {"AS": 1, "KC": 0, "QD": 0, "JH": 0}})
    # Antes 1 each and 2 from the dealer on every card, over the 1 carried in on the A♠.
    assert game.carry_over(state) == {"pot": {"AS": 5, "KC": 4, "QD": 4, "JH": 4}}
    moves = game.close_movements(state)
    assert sum(m["chips"] for m in moves) == 17
    shares = [sum(m["chips"] for m in moves if m["to"] == seat) for seat in range(3)]
    assert shares == [6, 6, 5]  # 17 = 3 x 5 + 2: seats 0 and 1, after the dealer, get one more
    assert moves[:2] == [
        {"from": "AS", "to": 0, "chips": 5, "reason": "split"}, {"from": "KC", "to": 0, "chips": 1, "reason": "split"},
    ]
    for other in ("elgeta", "velnias", "rukas", "cheat"):
        rules = GAMES[other]
        assert rules.carry_over(rules.new_deal(players=4, dealer=0)) == {}
