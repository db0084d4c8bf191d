"""Rūkas: the seed's examples, each rule and house rule, every refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee.rules import GAMES, IllegalEntry, InvalidSetup
from referee.rules.rukas import Basis, CardStatus, TrickResult, trick_taker
from tests.rules.refusals import refusal

GAME = GAMES["rukas"]
ALL_RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def trick(*cards: str) -> dict[str, Any]:
    return {"type": "trick", "cards": list(cards)}


def first_trick_taker(cards: str, **options: Any) -> int | None:
    """The seat taking the first trick of a deal with as many players as cards, dealer the last seat."""
    ranks = cards.split()
    players = len(ranks)
    state = GAME.new_deal(players=players, dealer=players - 1, options={"notation": "lt", **options})
    state = GAME.apply(state, trick(*ranks))
    taker: int | None = GAME.view(state)["last"]["taker"]
    return taker


def play(players: int, tricks: list[list[str]], dealer: int | None = None, **options: Any) -> Any:
    state = GAME.new_deal(players=players, dealer=players - 1 if dealer is None else dealer, options=options)
    for cards in tricks:
        state = GAME.apply(state, trick(*cards))
    return state


def play_by_seat(players: int, tricks: list[list[str]], dealer: int | None = None, **options: Any) -> Any:
    """Play tricks given as each seat's card (seat 0 first), written in reveal order from the leader."""
    state = GAME.new_deal(players=players, dealer=players - 1 if dealer is None else dealer, options=options)
    for by_seat in tricks:
        leader = GAME.view(state)["leader"]
        state = GAME.apply(state, trick(*(by_seat[(leader + step) % players] for step in range(players))))
    return state


def refused(state: Any, entry: object) -> str:
    return refusal(GAME, state, entry)


# -- the seed's examples (RULES.md section 3), verbatim -----------------------------------------


def test_seed_example_a() -> None:
    """a) 3 9 9 V 4 -> V: the nines cancel; suits play no part."""
    assert first_trick_taker("3 9 9 V 4") == 3


def test_seed_example_b() -> None:
    """b) 5 K D 6 V -> V: the queen takes from the king, the jack from the queen."""
    assert first_trick_taker("5 K D 6 V") == 4


def test_seed_example_c() -> None:
    """c) 7 9 T 5 T -> 9: the two aces cancel each other."""
    assert first_trick_taker("7 9 T 5 T") == 1


def test_seed_example_d() -> None:
    """d) K 7 6 K K -> 6: the three kings cancel; the six is one below the seven."""
    assert first_trick_taker("K 7 6 K K") == 2


def test_seed_example_e() -> None:
    """e) 2 T 7 7 4 -> 4: the first seven beats the ace, the second cancels the first."""
    assert first_trick_taker("2 T 7 7 4") == 4


def test_seed_example_f_first() -> None:
    """f) 7 T 7 4 -> T: the sevens cancel, and the first came before the ace anyway."""
    assert first_trick_taker("7 T 7 4") == 1


def test_seed_example_f_second() -> None:
    """f) 5 7 7 T -> T: the sevens cancel each other before the ace is revealed."""
    assert first_trick_taker("5 7 7 T") == 3


# -- trick_taker, the pure adjudication ----------------------------------------------------------


def test_trick_taker_statuses_and_reasons_example_e() -> None:
    """The per-card status and the reason of example e."""
    result = trick_taker([2, 14, 7, 7, 4])
    assert result == TrickResult(
        taker=4,
        status=(CardStatus.LIVE, CardStatus.BEATEN, CardStatus.CANCELLED, CardStatus.CANCELLED, CardStatus.TAKER),
        cancelled=(7,),
        beaten_ace=1,
        beater=2,
        basis=Basis.HIGHEST,
        chain=(4,),
    )


def test_trick_taker_chain_example_b() -> None:
    """The one-lower chain of example b runs king, queen, jack."""
    result = trick_taker([5, 13, 12, 6, 11])
    assert result.chain == (1, 2, 4)
    assert result.taker == 4
    assert result.basis is Basis.HIGHEST


def test_trick_taker_void() -> None:
    """No live card: nobody takes, every card is cancelled."""
    result = trick_taker([9, 9])
    assert result.taker is None
    assert result.basis is Basis.VOID
    assert result.status == (CardStatus.CANCELLED, CardStatus.CANCELLED)
    assert result.chain == ()


# -- the rules ------------------------------------------------------------------------------------


def test_all_same_named_cards_cancel() -> None:
    """Step 1: every card of a repeated rank is cancelled, not only the pair."""
    assert trick_taker([10, 10, 10, 3]).taker == 3


def test_cancel_by_a_later_card_of_the_same_rank() -> None:
    """Step 1: a later card of a rank cancels the earlier live one (Q is live until the second Q)."""
    assert first_trick_taker("D 5 D") == 1


def test_seven_beats_an_earlier_ace() -> None:
    """Step 2: a 7 revealed while a live ace lies on the table beats it; the 7 then takes (R1 default)."""
    assert first_trick_taker("T 7 K") == 1


def test_seven_does_not_beat_a_later_ace() -> None:
    """Step 2: a 7 does not beat an ace revealed after it."""
    assert first_trick_taker("7 T K") == 1


def test_ace_cannot_be_taken_by_a_king() -> None:
    """Step 3: nothing takes from an ace by the one-lower rule."""
    assert first_trick_taker("K T") == 1


def test_live_ace_takes_over_higher_looking_cards() -> None:
    """Step 3: a live ace is the would-be taker, whatever else is live."""
    assert first_trick_taker("D T 3") == 1


def test_one_lower_chain_runs_down_to_the_end() -> None:
    """Step 3: the chain continues while a live card exactly one rank lower exists."""
    assert first_trick_taker("K D V 10 9 7") == 4


def test_one_lower_chain_skips_cancelled_cards() -> None:
    """Step 3: a cancelled card does not take from the card above it."""
    assert first_trick_taker("K D D 2") == 0


def test_beaten_ace_stays_dead_after_a_second_ace() -> None:
    """Steps 1-2: a second ace is cancelled but cannot revive or cancel the beaten one; the 7 takes."""
    assert trick_taker([14, 7, 14]).status == (CardStatus.BEATEN, CardStatus.TAKER, CardStatus.CANCELLED)


def test_r1_seven_takes_default() -> None:
    """R1 seven_takes (default): a live 7 that beat an ace is the would-be taker, above a live king."""
    assert first_trick_taker("T 7 K") == 1
    assert first_trick_taker("T 7 K", seven_after_ace="seven_takes") == 1


def test_r1_seven_takes_chain_from_the_seven() -> None:
    """R1 seven_takes: a live 6 takes from the 7 that beat the ace."""
    assert first_trick_taker("T 7 K 6") == 3


def test_r1_next_highest() -> None:
    """R1 next_highest: the beaten ace just leaves and the 7 is an ordinary card; the king takes."""
    assert first_trick_taker("T 7 K", seven_after_ace="next_highest") == 2
    assert first_trick_taker("T 7 K 6", seven_after_ace="next_highest") == 2


def test_r1_next_highest_seven_may_still_be_highest() -> None:
    """R1 next_highest: the 7 still takes as an ordinary card when it is the highest live card."""
    assert first_trick_taker("T 7 4", seven_after_ace="next_highest") == 1


def test_first_player_reveals_first() -> None:
    """The first player (seat after the dealer) leads the first trick."""
    state = play(4, [["K", "2", "3", "4"]], dealer=1)
    last = GAME.view(state)["last"]
    assert last["reveal_order"] == [2, 3, 0, 1]
    assert last["taker"] == 2


def test_taker_reveals_first_next() -> None:
    """The taker of a trick reveals first in the next."""
    state = play(3, [["2", "K", "3"]], dealer=2)
    view = GAME.view(state)
    assert view["leader"] == 1
    assert view["turn"] == 1
    state = GAME.apply(state, trick("A", "2", "3"))
    assert GAME.view(state)["last"]["reveal_order"] == [1, 2, 0]
    assert GAME.view(state)["tricks"] == [0, 2, 0]


def test_suits_are_ignored_and_full_cards_accepted() -> None:
    """A full card is accepted as its rank: KS and K♥ are the same rank and cancel."""
    state = play(3, [["KS", "K♥", "2"]])
    assert GAME.view(state)["last"]["taker"] == 2
    assert GAME.view(state)["last"]["cards"] == ["K", "K", "2"]


def test_lithuanian_notation() -> None:
    """In lt, D is the queen (dama), V the jack, T the ace; suits by symbol or word."""
    state = play(3, [["D vynai", "V♠", "T"]], notation="lt")
    assert GAME.view(state)["last"]["cards"] == ["Q", "J", "A"]


def test_english_notation_t_is_ten() -> None:
    """In en, T is the ten."""
    state = play(2, [["T", "9"]])
    assert GAME.view(state)["last"]["cards"] == ["10", "9"]
    assert GAME.view(state)["last"]["taker"] == 1


def test_thirteen_tricks_finish_the_deal() -> None:
    """13 tricks a deal; a trick is worth a point; placements by points, ties shared."""
    state = GAME.new_deal(players=3, dealer=2)
    for index, rank in enumerate(ALL_RANKS):
        assert GAME.outcome(state) is None
        # Seats 0 and 1 always cancel each other, so seat 2 takes every trick.
        by_seat = [rank, rank, ALL_RANKS[(index + 1) % 13]]
        leader = GAME.view(state)["leader"]
        state = GAME.apply(state, trick(*(by_seat[(leader + step) % 3] for step in range(3))))
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.points == (0, 0, 13)
    assert outcome.placements == (2, 2, 1)
    assert outcome.winners == (2,)
    view = GAME.view(state)
    assert view["finished"] is True
    assert view["turn"] is None
    assert view["tricks_played"] == 13
    assert view["played"] == [ALL_RANKS, ALL_RANKS, ALL_RANKS]


def test_r2_void_default() -> None:
    """R2 void (default): a trick with no live card gives no point; the same leader reveals first next."""
    state = play(2, [["5", "5"]], dealer=0)
    view = GAME.view(state)
    assert view["last"]["taker"] is None
    assert view["tricks"] == [0, 0]
    assert view["leader"] == 1
    assert view["pending"] == 0
    assert view["void_tricks"] == 1
    assert view["last"]["text"] == (
        "Nobody takes the trick: the two fives cancel each other; no card is left in play. "
        "No point; seat 1 reveals first again."
    )
    state = GAME.apply(state, trick("2", "4"))
    assert GAME.view(state)["tricks"] == [1, 0]


def test_r2_void_points_sum_to_thirteen_minus_void() -> None:
    """R2 void: the deal's points are 13 minus the void tricks."""
    state = play(2, [[r, r] for r in ALL_RANKS])
    assert GAME.outcome(state).points == (0, 0)
    assert GAME.outcome(state).placements == (1, 1)
    assert GAME.outcome(state).winners == (0, 1)
    assert GAME.view(state)["void_tricks"] == 13


def test_r2_carry_next_taker_gets_the_pending_point() -> None:
    """R2 carry: the next trick's taker also gets the void trick's point."""
    state = play(2, [["5", "5"]], dealer=1, void_trick="carry")
    assert GAME.view(state)["pending"] == 1
    assert GAME.view(state)["last"]["text"].endswith("Its point waits for the next taker (1 pending).")
    state = GAME.apply(state, trick("2", "4"))
    view = GAME.view(state)
    assert view["tricks"] == [0, 2]
    assert view["pending"] == 0
    assert view["last"]["points"] == 2
    assert view["last"]["carried"] == 1


def test_r2_carry_consecutive_voids_add_up() -> None:
    """R2 carry: consecutive void tricks add up for the next taker."""
    state = play(2, [["5", "5"], ["6", "6"], ["7", "7"], ["2", "K"]], dealer=1, void_trick="carry")
    view = GAME.view(state)
    assert view["tricks"] == [0, 4]
    assert view["last"]["text"].endswith("Seat 1 also collects 3 carried point(s).")


def test_r2_carry_points_pending_after_the_last_trick_are_lost() -> None:
    """R2 carry: points still pending after the 13th trick are lost."""
    tricks = [[a, b] for a, b in zip(ALL_RANKS[:10], ALL_RANKS[1:10] + ["2"])]
    tricks += [["Q", "Q"], ["K", "K"], ["A", "A"]]
    state = play_by_seat(2, tricks, void_trick="carry")
    view = GAME.view(state)
    assert view["finished"]
    assert view["lost"] == 3
    assert view["pending"] == 0
    assert sum(view["tricks"]) == 13 - 3
    assert view["last"]["text"].endswith("The 3 pending point(s) are lost: no trick is left to take them.")


def test_r2_carry_two_voids_in_the_middle() -> None:
    """R2 carry: nothing is lost when the carried points are taken before the end."""
    tricks = [["2", "2"], ["3", "3"]] + [[a, b] for a, b in zip(ALL_RANKS[2:], ALL_RANKS[3:] + ["4"])]
    state = play_by_seat(2, tricks, void_trick="carry")
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert sum(outcome.points) == 13
    assert GAME.view(state)["lost"] == 0


# -- options --------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", range(2, 9))
def test_every_player_count_from_two_to_eight(players: int) -> None:
    """Rūkas is played by 2 to 8 players."""
    state = GAME.new_deal(players=players, dealer=0)
    assert GAME.seats(state) == (players, 0)
    assert GAME.view(state)["first_player"] == 1 % players


@pytest.mark.parametrize("players", [1, 9])
def test_player_count_out_of_range(players: int) -> None:
    """Fewer than 2 or more than 8 players are refused."""
    with pytest.raises(InvalidSetup) as err:
        GAME.new_deal(players=players, dealer=0)
    assert str(err.value) == f"Rūkas is played by 2 to 8 players, not {players}."


@pytest.mark.parametrize("value", ["seven_takes", "next_highest"])
def test_seven_after_ace_values(value: str) -> None:
    """Option seven_after_ace takes seven_takes or next_highest."""
    state = GAME.new_deal(players=2, dealer=0, options={"seven_after_ace": value})
    assert GAME.view(state)["options"]["seven_after_ace"] == value


@pytest.mark.parametrize("value", ["void", "carry"])
def test_void_trick_values(value: str) -> None:
    """Option void_trick takes void or carry."""
    state = GAME.new_deal(players=2, dealer=0, options={"void_trick": value})
    assert GAME.view(state)["options"]["void_trick"] == value


def test_option_defaults() -> None:
    """Defaults: seven_takes, void, en."""
    state = GAME.new_deal(players=2, dealer=0)
    assert GAME.view(state)["options"] == {"seven_after_ace": "seven_takes", "void_trick": "void", "notation": "en"}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"seven_after_ace": "ace"}, "Option seven_after_ace must be one of seven_takes, next_highest, not 'ace'."),
        ({"void_trick": True}, "Option void_trick must be one of void, carry, not True."),
        ({"notation": "de"}, "Option notation must be \"en\" or \"lt\", not 'de'."),
        (
            {"jokers": 2},
            "Unknown option jokers for Rūkas; the valid options are notation, seven_after_ace, void_trick.",
        ),
    ],
)
def test_bad_options(options: dict[str, Any], message: str) -> None:
    """Bad option values and unknown keys are refused with a message naming what is valid."""
    with pytest.raises(InvalidSetup) as err:
        GAME.new_deal(players=3, dealer=0, options=options)
    assert str(err.value) == message


# -- refusals -------------------------------------------------------------------------------------


@pytest.fixture
def started() -> Any:
    return play(3, [["7", "2", "3"]], dealer=2)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (["7", "8", "9"], "An entry must be an object with a \"type\"."),
        (None, "An entry must be an object with a \"type\"."),
        ({"type": "play", "cards": []}, "Unknown entry type 'play'; this game records trick."),
        ({"cards": ["2", "3", "4"]}, "Unknown entry type None; this game records trick."),
        ({"type": 10**5000}, "Unknown entry type an enormous number; this game records trick."),
        ({"type": "trick", 1: 2}, "The fields of an entry must be named by text."),
        ({"type": "trick"}, "The trick entry needs cards."),
        ({"type": "trick", "cards": ["4", "5", "6"], "player": 1}, "The trick entry does not take player."),
        ({"type": "trick", "cards": "4 5 6"}, "cards must be a list."),
        ({"type": "trick", "cards": ["4", "5"]}, "cards must list 3 values, one per seat; it lists 2."),
        ({"type": "trick", "cards": ["4", 5, "6"]}, "A card must be written as text, not 5."),
        ({"type": "trick", "cards": ["4", 10**5000, "6"]}, "A card must be written as text, not an enormous number."),
        ({"type": "trick", "cards": ["4", None, "6"]}, "A card must be written as text, not None."),
        ({"type": "trick", "cards": ["4", "Z", "6"]}, "'Z' is not a rank; ranks are 2-10, J Q K A (T = ten)."),
        ({"type": "trick", "cards": ["4", "", "6"]}, "seat 1's card is missing."),
        ({"type": "trick", "cards": ["4", "X", "6"]}, "There are no jokers in this deal."),
        (
            {"type": "trick", "cards": ["4", "D", "6"]},
            "'D' is ambiguous here: in English notation D means diamonds and a queen is Q "
            "(D is the queen, dama, only in Lithuanian notation).",
        ),
        (
            {"type": "trick", "cards": ["4", "V", "6"]},
            "'V' is a Lithuanian rank letter, but this session writes cards in English notation: "
            "use J, Q, K, A (or switch the session to Lithuanian notation).",
        ),
    ],
)
def test_malformed_entries(started: Any, entry: object, message: str) -> None:
    """Every malformed entry is refused with a message for the table and changes nothing."""
    assert refused(started, entry) == message


def test_rank_played_twice_in_a_deal(started: Any) -> None:
    """A player cannot play a rank twice in a deal; the message names what they still hold."""
    # Seat 0 played the 7 and took the first trick, so it reveals first again.
    message = refused(started, trick("7", "4", "5"))
    assert message == (
        "seat 0 has already played their 7 this deal; they still hold 2, 3, 4, 5, 6, 8, 9, 10, J, Q, K, A."
    )


def test_rank_played_twice_names_the_right_seat(started: Any) -> None:
    """The refusal names the seat in reveal order: the second card is seat 1's."""
    assert refused(started, trick("4", "2", "5")).startswith("seat 1 has already played their 2 this deal")


def test_rank_twice_message_in_lithuanian_notation() -> None:
    """The rank in the refusal is a Card, so the service can render it in the session's notation."""
    state = play(2, [["D", "2"]], notation="lt")
    with pytest.raises(IllegalEntry) as err:
        GAME.apply(state, trick("D", "3"))
    assert err.value.render(names=["Ona", "Rūta"], notation="lt").startswith(
        "Ona has already played their D this deal; they still hold 2, 3, 4"
    )


def test_lithuanian_notation_refuses_english_letters() -> None:
    """In lt, Q is refused with a hint."""
    state = GAME.new_deal(players=2, dealer=0, options={"notation": "lt"})
    assert refused(state, trick("Q", "2")) == (
        "'Q' is an English rank letter, but this session writes cards in Lithuanian notation: "
        "use V (valetas), D (dama), K (karalius), T (tūzas)."
    )


def test_nothing_after_the_deal_ended() -> None:
    """After the 13th trick nothing more can be recorded."""
    state = play(2, [[r, r] for r in ALL_RANKS])
    assert refused(state, trick("2", "3")) == "This deal has ended; nothing more can be recorded in it."


def test_apply_does_not_mutate(started: Any) -> None:
    """apply returns a new state and leaves its input as it was."""
    before = GAME.to_dict(started)
    after = GAME.apply(started, trick("8", "4", "5"))
    assert GAME.to_dict(started) == before
    assert after != started


# -- view and snapshots ---------------------------------------------------------------------------


def test_view_of_a_new_deal() -> None:
    """The view before any trick: the first player leads, nothing played, no last trick."""
    view = GAME.view(GAME.new_deal(players=3, dealer=1))
    assert view == {
        "game": "rukas",
        "players": 3,
        "dealer": 1,
        "first_player": 2,
        "finished": False,
        "turn": 2,
        "outcome": None,
        "last": None,
        "options": {"seven_after_ace": "seven_takes", "void_trick": "void", "notation": "en"},
        "leader": 2,
        "tricks_played": 0,
        "tricks_left": 13,
        "tricks": [0, 0, 0],
        "played": [[], [], []],
        "pending": 0,
        "void_tricks": 0,
        "lost": 0,
    }


def test_view_last_explains_the_trick() -> None:
    """view["last"]: taker, cards, reveal order, per-card status, structured reason and text."""
    state = GAME.new_deal(players=5, dealer=4, options={"notation": "lt"})
    state = GAME.apply(state, trick("K", "7", "6", "K", "K"))
    last = GAME.view(state)["last"]
    assert last == {
        "taker": 2,
        "cards": ["K", "7", "6", "K", "K"],
        "reveal_order": [0, 1, 2, 3, 4],
        "status": ["cancelled", "live", "taker", "cancelled", "cancelled"],
        "reason": {
            "basis": "highest",
            "cancelled": [{"rank": "K", "seats": [0, 3, 4]}],
            "beaten": None,
            "chain": [1, 2],
        },
        "points": 1,
        "carried": 0,
        "text": "Seat 2 takes the trick with the six: the three kings cancel each other; "
        "the seven is the highest card in play; the six, one rank lower, takes from the seven; "
        "no five is in play to take from the six.",
    }


def test_view_last_beaten_ace() -> None:
    """The reason names the ace beaten by a seven, even when that seven is later cancelled."""
    state = GAME.new_deal(players=5, dealer=4, options={"notation": "lt"})
    state = GAME.apply(state, trick("2", "T", "7", "7", "4"))
    last = GAME.view(state)["last"]
    assert last["reason"]["beaten"] == {"ace": 1, "by": 2}
    assert last["status"] == ["live", "beaten", "cancelled", "cancelled", "taker"]
    assert last["text"] == (
        "Seat 4 takes the trick with the four: the seven of seat 2 beat the ace of seat 1; "
        "the two sevens cancel each other; the four is the highest card in play; "
        "no three is in play to take from the four."
    )


def test_view_last_seven_takes_text() -> None:
    """Under seven_takes the text says the beating seven takes."""
    state = play(3, [["A", "7", "K"]])
    last = GAME.view(state)["last"]
    assert last["reason"]["basis"] == "seven_beat_ace"
    assert last["text"] == (
        "Seat 1 takes the trick with the seven: the seven of seat 1 beat the ace of seat 0; "
        "the seven that beat the ace would take the trick; no six is in play to take from the seven."
    )


def test_view_last_ace_text() -> None:
    """A live ace takes and nothing takes from it."""
    state = play(2, [["K", "A"]])
    assert GAME.view(state)["last"]["text"] == (
        "Seat 1 takes the trick with the ace: the ace stands, since no seven was revealed after it."
    )


def test_view_played_and_tricks() -> None:
    """view: ranks played per seat (canonical, sorted) and points per seat."""
    state = play_by_seat(2, [["K", "A"], ["Q", "2"]])
    view = GAME.view(state)
    assert view["played"] == [["Q", "K"], ["2", "A"]]
    assert view["tricks"] == [1, 1]
    assert view["tricks_played"] == 2


def test_snapshot_round_trip() -> None:
    """to_dict is JSON-safe, carries game and version, and from_dict restores the state exactly."""
    tricks = [["T", "7", "7", "2"], ["K", "K", "3", "4"], ["5", "5", "5", "5"]]
    state = play(4, tricks, void_trick="carry", notation="lt")
    assert GAME.view(state)["pending"] == 1
    data = GAME.to_dict(state)
    assert data["game"] == "rukas"
    assert data["version"] == 1
    assert GAME.from_dict(json.loads(json.dumps(data))) == state
    assert GAME.from_dict(GAME.to_dict(GAME.new_deal(players=2, dealer=0))) == GAME.new_deal(players=2, dealer=0)


def test_from_dict_refuses_another_game() -> None:
    """from_dict of another game's snapshot raises ValueError."""
    data = GAME.to_dict(GAME.new_deal(players=2, dealer=0))
    with pytest.raises(ValueError):
        GAME.from_dict({**data, "game": "velnias"})


def test_from_dict_refuses_an_inconsistent_snapshot() -> None:
    """from_dict checks that every seat played one rank per trick (a ValueError)."""
    data = GAME.to_dict(play(2, [["K", "A"]]))
    data["played"][0] = []
    with pytest.raises(ValueError):
        GAME.from_dict(data)
