"""Pašėlęs Velnias: the seed's examples, each ending's scoring, the counts' validation, every refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee.rules import GAMES, IllegalEntry, InvalidSetup
from referee.rules.velnias import Payment, deal_payments, hand_size, leftovers, score_deal
from tests.rules.refusals import refusal

GAME = GAMES["velnias"]


def end(condition: object, player: object, counts: object) -> dict[str, Any]:
    return {"type": "end", "condition": condition, "player": player, "hand_counts": counts}


def finish(condition: str, player: int | None, counts: list[int], dealer: int = 0) -> Any:
    state = GAME.new_deal(players=len(counts), dealer=dealer)
    return GAME.apply(state, end(condition, player, counts))


def points(condition: str, player: int | None, counts: list[int]) -> tuple[int, ...]:
    outcome = GAME.outcome(finish(condition, player, counts))
    assert outcome is not None
    return outcome.points


def refused(state: Any, entry: object) -> str:
    return refusal(GAME, state, entry)


# -- the seed's examples (RULES.md section 2), verbatim -----------------------------------------


def test_seed_example_last_card() -> None:
    """last_card: A (player) 3, B 2, C 6, D 1 -> A +27, B -9, C -10, D -8."""
    assert points("last_card", 0, [3, 2, 6, 1]) == (27, -9, -10, -8)


def test_seed_example_blocked() -> None:
    """blocked: A 1, B 1, C 3, D 2, E 3 -> A +5, B +5, C -4, D -2, E -4 (V1 each)."""
    assert points("blocked", None, [1, 1, 3, 2, 3]) == (5, 5, -4, -2, -4)


# -- scoring --------------------------------------------------------------------------------------


def test_empty_hand_scoring() -> None:
    """empty_hand: the caller gains the sum of the other counts; every other player loses their own count."""
    assert points("empty_hand", 2, [3, 5, 0, 1]) == (-3, -5, 9, -1)


def test_last_card_nobody_holds_fewer() -> None:
    """last_card: each other player loses 10, the caller gains 10 per other player."""
    assert points("last_card", 1, [4, 2, 5]) == (-10, 20, -10)


def test_last_card_equal_counts_gain_nothing() -> None:
    """last_card: only players holding strictly fewer cards than the caller gain the difference."""
    assert points("last_card", 0, [3, 3, 4]) == (20, -10, -10)


def test_last_card_can_leave_the_caller_at_zero() -> None:
    """last_card: with 3 players of 11 cards, a caller at 11 against two at 1 ends level."""
    assert points("last_card", 0, [11, 1, 1]) == (0, 0, 0)


def test_blocked_single_winner() -> None:
    """blocked: the player with the fewest cards collects the difference from every other player."""
    assert points("blocked", None, [2, 4, 7]) == (7, -2, -5)


def test_blocked_all_level() -> None:
    """blocked: when all hold the same number, nobody pays."""
    assert points("blocked", None, [3, 3, 3, 3]) == (0, 0, 0, 0)


def test_blocked_tied_winners_each_collect_in_full() -> None:
    """V1 each (fixed): tied winners each collect the full difference from every other player."""
    assert points("blocked", None, [2, 2, 2, 5]) == (3, 3, 3, -9)


def test_score_deal_is_zero_sum_and_pure() -> None:
    """score_deal: the pure scoring function, zero-sum."""
    assert score_deal("empty_hand", 0, [0, 1, 2]) == (3, -1, -2)
    assert score_deal("last_card", 0, [3, 2, 6, 1]) == (27, -9, -10, -8)
    assert score_deal("blocked", None, (1, 1, 3, 2, 3)) == (5, 5, -4, -2, -4)


def test_deal_payments_itemise_the_points() -> None:
    """deal_payments: who pays whom what and why, adding up to score_deal."""
    payments = deal_payments("last_card", 0, [3, 2, 6, 1])
    assert payments == (
        Payment(1, 0, 10, "last_card"),
        Payment(0, 1, 1, "fewer_cards"),
        Payment(2, 0, 10, "last_card"),
        Payment(3, 0, 10, "last_card"),
        Payment(0, 3, 2, "fewer_cards"),
    )
    net = [0, 0, 0, 0]
    for payment in payments:
        net[payment.payer] -= payment.points
        net[payment.payee] += payment.points
    assert tuple(net) == score_deal("last_card", 0, [3, 2, 6, 1])


def test_placements_and_winners() -> None:
    """Placements by points, ties shared; winners are the caller, or the fewest cards in a blocked deal."""
    outcome = GAME.outcome(finish("blocked", None, [1, 1, 3, 2, 3]))
    assert outcome is not None
    assert outcome.placements == (1, 1, 4, 3, 4)
    assert outcome.winners == (0, 1)
    outcome = GAME.outcome(finish("empty_hand", 3, [1, 2, 2, 0]))
    assert outcome is not None
    assert outcome.placements == (2, 3, 3, 1)
    assert outcome.winners == (3,)


# -- setup ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "hand", "over"), [(3, 11, 2), (4, 8, 3), (5, 7, 0), (6, 5, 5), (7, 5, 0), (8, 4, 3)]
)
def test_hand_size_and_table_cards(players: int, hand: int, over: int) -> None:
    """hand = 35 // n; the 35 % n left over lie face up with the 4 table cards; 13 lie face down."""
    assert hand_size(players) == hand
    assert leftovers(players) == over
    view = GAME.view(GAME.new_deal(players=players, dealer=0))
    assert view["hand_size"] == hand
    assert view["table_cards"] == {"face_down": 13, "face_up": 4 + over, "leftovers": over}


@pytest.mark.parametrize("players", [2, 9])
def test_player_count_out_of_range(players: int) -> None:
    """Pašėlęs Velnias is played by 3 to 8 players."""
    with pytest.raises(InvalidSetup) as err:
        GAME.new_deal(players=players, dealer=0)
    assert str(err.value) == f"Pašėlęs Velnias is played by 3 to 8 players, not {players}."


@pytest.mark.parametrize("notation", ["en", "lt"])
def test_notation_option(notation: str) -> None:
    """The only option is notation."""
    state = GAME.new_deal(players=3, dealer=1, options={"notation": notation})
    assert GAME.view(state)["options"] == {"notation": notation}


def test_v1_is_not_an_option() -> None:
    """V1 has only its default: there is no option for it."""
    with pytest.raises(InvalidSetup) as err:
        GAME.new_deal(players=3, dealer=0, options={"blocked_winners": "split"})
    assert str(err.value) == (
        "Unknown option blocked_winners for Pašėlęs Velnias; the valid options are notation."
    )


def test_bad_dealer() -> None:
    """The dealer must be one of the seats."""
    with pytest.raises(InvalidSetup) as err:
        GAME.new_deal(players=4, dealer=4)
    assert str(err.value) == "The dealer must be a seat from 0 to 3."


# -- refusals -------------------------------------------------------------------------------------


@pytest.fixture
def four() -> Any:
    return GAME.new_deal(players=4, dealer=3)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("end", "An entry must be an object with a \"type\"."),
        ({"type": "stop"}, "Unknown entry type 'stop'; this game records end."),
        ({"type": -(10**5000)}, "Unknown entry type an enormous number; this game records end."),
        ({"type": "end", 0: 1}, "The fields of an entry must be named by text."),
        ({"type": "end", "condition": "blocked", "hand_counts": [1, 1, 1, 1]}, "The end entry needs player."),
        ({"type": "end", "player": None, "hand_counts": [1, 1, 1, 1]}, "The end entry needs condition."),
        ({"type": "end", "condition": "blocked", "player": None}, "The end entry needs hand_counts."),
        (
            {**end("blocked", None, [1, 1, 1, 1]), "stake": 2},
            "The end entry does not take stake.",
        ),
        (end("stop", 0, [0, 1, 1, 1]), "condition must be one of empty_hand, last_card, blocked, not 'stop'."),
        (end(["blocked"], None, [1, 1, 1, 1]),
         "condition must be one of empty_hand, last_card, blocked, not ['blocked']."),
        (end("blocked", 2, [1, 1, 1, 1]), "Nobody calls stop in a blocked deal, so player must be null, not 2."),
        (end("empty_hand", None, [0, 1, 1, 1]), "An empty_hand ending needs the player who placed their last card."),
        (
            end("last_card", None, [1, 1, 1, 1]),
            "A last_card ending needs the player who turned the last face-down card.",
        ),
        (end("empty_hand", 4, [0, 1, 1, 1]), "player must be a seat from 0 to 3, not 4."),
        (end("empty_hand", True, [0, 1, 1, 1]), "player must be a seat from 0 to 3, not True."),
        (end("empty_hand", 10**5000, [0, 1, 1, 1]), "player must be a seat from 0 to 3, not an enormous number."),
        (end("empty_hand", "0", [0, 1, 1, 1]), "player must be a seat from 0 to 3, not '0'."),
        ({**end("blocked", None, []), "hand_counts": "1 1 1 1"}, "hand_counts must be a list."),
        (end("blocked", None, [1, 1, 1]), "hand_counts must list 4 values, one per seat; it lists 3."),
        (end("blocked", None, [1, 1.5, 1, 1]), "The hand count of seat 1 must be a whole number, not 1.5."),
        (end("blocked", None, [1, 1, True, 1]), "The hand count of seat 2 must be a whole number, not True."),
        (end("blocked", None, [1, 1, "3", 1]), "The hand count of seat 2 must be a whole number, not '3'."),
        # A count left empty on the tablet reads as missing, not as "not None".
        (
            end("blocked", None, [1, None, 1, 1]),
            "The hand count of seat 1 is missing: give the number of cards they hold.",
        ),
        (
            end("empty_hand", 1, [1, 2, 1, 1]),
            "seat 1 placed their last card and called stop, so they hold 0 cards, not 2.",
        ),
        (end("blocked", None, [1, -1, 1, 1]), "seat 1 cannot hold -1 cards; a hand count is at least 1."),
        (
            end("blocked", None, [1, 1, 1, -(10**5000)]),
            "seat 3 cannot hold less than -1000000000000 cards; a hand count is at least 1.",
        ),
        (
            end("empty_hand", 0, [0, 0, 1, 1]),
            "seat 1 holds 0 cards, but a player with an empty hand calls stop at once: "
            "record an empty_hand ending for them, or give their count (at least 1).",
        ),
        (
            end("blocked", None, [1, 1, 0, 1]),
            "seat 2 holds 0 cards, but a player with an empty hand calls stop at once: "
            "record an empty_hand ending for them, or give their count (at least 1).",
        ),
        (
            end("last_card", 3, [1, 1, 1, 0]),
            "seat 3 turned the last face-down card and could not place it, so they hold at least 1 card; "
            "with an empty hand, record an empty_hand ending.",
        ),
        (end("blocked", None, [1, 1, 9, 1]), "seat 2 holds 9 cards, but a hand in a 4-player deal has only 8."),
        (
            end("last_card", 0, [1, 1, 10**40, 1]),
            "seat 2 holds more than 1000000000000 cards, but a hand in a 4-player deal has only 8.",
        ),
    ],
)
def test_refusals(four: Any, entry: object, message: str) -> None:
    """Every malformed or impossible ending is refused with a message for the table and changes nothing."""
    assert refused(four, entry) == message


def test_refusal_renders_names(four: Any) -> None:
    """Seats in messages are rendered by the service as the players' names."""
    with pytest.raises(IllegalEntry) as err:
        GAME.apply(four, end("blocked", None, [1, 1, 9, 1]))
    assert err.value.render(names=["Ona", "Jonas", "Rūta", "Tomas"]) == (
        "Rūta holds 9 cards, but a hand in a 4-player deal has only 8."
    )


def test_hand_size_is_the_bound_for_each_player_count() -> None:
    """A count equal to the hand size is accepted; one more is refused."""
    for players in range(3, 9):
        hand = hand_size(players)
        state = GAME.new_deal(players=players, dealer=0)
        GAME.apply(state, end("blocked", None, [hand] * players))
        message = refused(state, end("blocked", None, [hand + 1] + [1] * (players - 1)))
        assert message == f"seat 0 holds {hand + 1} cards, but a hand in a {players}-player deal has only {hand}."


def test_the_end_entry_ends_the_deal() -> None:
    """The single end entry finishes the deal; nothing more can be recorded."""
    state = finish("empty_hand", 0, [0, 1, 1])
    assert GAME.view(state)["finished"] is True
    assert refused(state, end("blocked", None, [1, 1, 1])) == (
        "This deal has ended; nothing more can be recorded in it."
    )


# -- view and snapshots ---------------------------------------------------------------------------


def test_view_before_the_end() -> None:
    """view of a running deal: no turn (the race has none), no outcome, no last."""
    view = GAME.view(GAME.new_deal(players=4, dealer=3))
    assert view == {
        "game": "velnias",
        "players": 4,
        "dealer": 3,
        "first_player": 0,
        "finished": False,
        "turn": None,
        "outcome": None,
        "last": None,
        "options": {"notation": "en"},
        "hand_size": 8,
        "table_cards": {"face_down": 13, "face_up": 7, "leftovers": 3},
        "conditions": ["empty_hand", "last_card", "blocked"],
    }


def test_view_last_explains_every_seat() -> None:
    """view["last"]: the ending, the points, the payments and one line per seat."""
    view = GAME.view(finish("last_card", 0, [3, 2, 6, 1]))
    assert view["outcome"] == {"points": [27, -9, -10, -8], "placements": [1, 3, 4, 2], "winners": [0]}
    last = view["last"]
    assert last["condition"] == "last_card"
    assert last["player"] == 0
    assert last["hand_counts"] == [3, 2, 6, 1]
    assert last["points"] == [27, -9, -10, -8]
    assert last["winners"] == [0]
    assert last["payments"][:2] == [
        {"from": 1, "to": 0, "points": 10, "why": "last_card"},
        {"from": 0, "to": 1, "points": 1, "why": "fewer_cards"},
    ]
    assert last["seats"][1] == {
        "seat": 1,
        "points": -9,
        "text": "Seat 1: -9 (2 cards in hand): pays 10 to seat 0 (the penalty for losing to seat 0's last-card stop); "
        "gets 1 from seat 0 (seat 1 holds 1 card fewer than seat 0).",
    }
    assert last["text"] == (
        "Seat 0 turned the last face-down card, could not place it and called stop. "
        "Points: seat 0 +27, seat 1 -9, seat 2 -10, seat 3 -8."
    )


def test_view_last_blocked_and_empty_hand_texts() -> None:
    """The explanation of the other two endings."""
    blocked = GAME.view(finish("blocked", None, [1, 1, 3, 2, 3]))["last"]
    assert blocked["seats"][3]["text"] == (
        "Seat 3: -2 (2 cards in hand): pays 1 to seat 0 (seat 3 holds 1 card more than seat 0); "
        "pays 1 to seat 1 (seat 3 holds 1 card more than seat 1)."
    )
    assert blocked["text"].startswith("Nobody could place a card; the fewest cards in hand win. Points: seat 0 +5")
    empty = GAME.view(finish("empty_hand", 1, [2, 0, 1]))["last"]
    assert empty["seats"][1]["text"] == (
        "Seat 1: +3 (0 cards in hand): gets 2 from seat 0 (seat 0 has 2 cards left); "
        "gets 1 from seat 2 (seat 2 has 1 card left)."
    )
    level = GAME.view(finish("blocked", None, [2, 2, 2]))["last"]
    assert level["seats"][0]["text"] == "Seat 0: +0 (2 cards in hand): pays and gets nothing."


def test_snapshot_round_trip() -> None:
    """to_dict is JSON-safe, carries game and version; from_dict restores the state exactly."""
    for state in (GAME.new_deal(players=5, dealer=2, options={"notation": "lt"}),
                  finish("blocked", None, [1, 1, 3, 2, 3]), finish("empty_hand", 0, [0, 4, 4])):
        data = GAME.to_dict(state)
        assert data["game"] == "velnias" and data["version"] == 1
        assert GAME.from_dict(json.loads(json.dumps(data))) == state


def test_from_dict_refuses_another_game() -> None:
    """from_dict of another game's snapshot raises ValueError."""
    data = GAME.to_dict(GAME.new_deal(players=3, dealer=0))
    with pytest.raises(ValueError):
        GAME.from_dict({**data, "game": "rukas"})


def test_seats_and_next_dealer() -> None:
    """The dealer rotates clockwise."""
    state = GAME.new_deal(players=3, dealer=2)
    assert GAME.seats(state) == (3, 2)
    assert GAME.next_dealer(state) == 0


def test_from_dict_refuses_an_impossible_ending() -> None:
    """from_dict checks a stored ending as the entry was checked (a ValueError)."""
    data = GAME.to_dict(finish("empty_hand", 0, [0, 4, 4]))
    data["ending"]["player"] = None
    with pytest.raises(ValueError):
        GAME.from_dict(data)
