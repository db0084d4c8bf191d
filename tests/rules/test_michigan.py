"""Mičiganas: one test per rule of RULES.md section 4, per option, and per refusal."""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee.rules import GAMES, IllegalEntry, InvalidSetup
from referee.rules.cards import Card
from referee.rules.michigan import (
    Michigan,
    MichiganState,
    PlayKind,
    classify_play,
    deal_sizes,
    dealing_sizes,
    next_card,
    split_pot,
)
from tests.rules.refusals import refusal

_GAME = GAMES["michigan"]
assert isinstance(_GAME, Michigan)
GAME: Michigan = _GAME


def deal(players: int = 4, dealer: int = 3, **options: Any) -> MichiganState:
    state: MichiganState = GAME.new_deal(players=players, dealer=dealer, options=options)
    return state


def live(players: int = 4, dealer: int = 3, **options: Any) -> MichiganState:
    return deal(players, dealer, live=True, **options)


def run(state: MichiganState, *entries: dict[str, Any]) -> MichiganState:
    for entry in entries:
        before = GAME.to_dict(state)
        state = GAME.apply(state, entry)
        assert GAME.from_dict(json.loads(json.dumps(GAME.to_dict(state)))) == state
        json.dumps(GAME.view(state))
        assert before != GAME.to_dict(state)
    return state


def refused(state: MichiganState, entry: object) -> str:
    return refusal(GAME, state, entry)


def setup_refused(players: int = 4, dealer: int = 3, **options: Any) -> str:
    with pytest.raises(InvalidSetup) as info:
        GAME.new_deal(players=players, dealer=dealer, options=options)
    return str(info.value)


def play(player: int, card: str) -> dict[str, Any]:
    return {"type": "play", "player": player, "card": card}


def prize(player: int, card: str) -> dict[str, Any]:
    return {"type": "prize", "card": card, "player": player}


def misplay(player: int) -> dict[str, Any]:
    return {"type": "misplay", "player": player}


def exchange(player: int) -> dict[str, Any]:
    return {"type": "exchange", "player": player}


def out(player: int, counts: list[int]) -> dict[str, Any]:
    return {"type": "out", "player": player, "hand_counts": counts}


def moves(state: MichiganState, reason: str) -> list[tuple[Any, Any, int]]:
    return [(m["from"], m["to"], m["chips"]) for m in GAME.view(state)["movements"] if m["reason"] == reason]


def zero_sum(state: MichiganState) -> int:
    view = GAME.view(state)
    return int(sum(view["net"]) + sum(view["pot"].values()) - sum(view["pot_before"].values()))


# -- RULES.md worked examples, verbatim ------------------------------------------------------------


def test_rules_example_pot_carried_in() -> None:
    """RULES.md: `pot` is the chips on each prize card carried in, e.g. {"AS": 3, "KC": 0, "QD": 5, "JH": 0}."""
    state = deal(pot={"AS": 3, "KC": 0, "QD": 5, "JH": 0})
    assert GAME.pot_before(state) == {"AS": 3, "KC": 0, "QD": 5, "JH": 0}
    # Four players, dealer 3: 1 + 1 + 1 + 2 = 5 chips of antes on each prize card.
    assert GAME.view(state)["pot"] == {"AS": 8, "KC": 5, "QD": 10, "JH": 5}


def test_rules_example_n4_hand_sizes_follow_the_formula() -> None:
    """RULES.md: "the first 52 % (n+1) hands in that order get one card more".

    Its n=4 example ("the extra hand and the first two players get 11, the others 10") would
    need 53 cards; 52 % 5 == 2, so only the extra hand and the first player get 11.
    """
    example = [11, 11, 11, 10, 10]
    assert sum(example) == 53
    assert dealing_sizes(4) == (11, 11, 10, 10, 10)
    state = deal(players=4, dealer=3)
    assert GAME.view(state)["extra_hand_size"] == 11
    assert GAME.view(state)["hand_sizes"] == [11, 10, 10, 10]


# -- setup -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "sizes"),
    [
        (3, (13, 13, 13, 13)),
        (4, (11, 11, 10, 10, 10)),
        (5, (9, 9, 9, 9, 8, 8)),
        (6, (8, 8, 8, 7, 7, 7, 7)),
        (7, (7, 7, 7, 7, 6, 6, 6, 6)),
        (8, (6, 6, 6, 6, 6, 6, 6, 5, 5)),
    ],
)
def test_hand_sizes_by_player_count(players: int, sizes: tuple[int, ...]) -> None:
    """52 cards are dealt into n+1 hands (extra, first, ..., dealer); the first 52 % (n+1) get one more."""
    assert dealing_sizes(players) == sizes
    assert sum(sizes) == 52
    assert len(sizes) == players + 1


def test_hand_sizes_are_counted_from_the_first_player() -> None:
    """The extra hand lies to the dealer's left: dealing goes extra, first player, ..., dealer."""
    assert deal_sizes(5, 1) == (9, (8, 8, 9, 9, 9))
    state = deal(players=5, dealer=1)
    assert GAME.view(state)["hand_sizes"] == [8, 8, 9, 9, 9]
    assert GAME.view(state)["first_player"] == 2


def test_antes_default() -> None:
    """Each player puts 1 chip on each prize card, the dealer 2 (M1 default)."""
    state = deal(players=4, dealer=3)
    view = GAME.view(state)
    assert view["pot"] == {"AS": 5, "KC": 5, "QD": 5, "JH": 5}
    assert view["net"] == [-4, -4, -4, -8]
    assert moves(state, "ante")[:4] == [(0, "AS", 1), (1, "AS", 1), (2, "AS", 1), (3, "AS", 2)]
    assert len(moves(state, "ante")) == 16
    assert GAME.outcome(state) is None
    assert zero_sum(state) == 0


def test_option_ante() -> None:
    """Option `ante`: chips each player (not the dealer) puts on each prize card; 0 moves nothing."""
    state = deal(ante=3)
    assert GAME.view(state)["pot"]["AS"] == 3 * 3 + 2
    assert GAME.view(state)["net"] == [-12, -12, -12, -8]
    state = deal(ante=0)
    assert moves(state, "ante") == [(3, "AS", 2), (3, "KC", 2), (3, "QD", 2), (3, "JH", 2)]


def test_option_dealer_ante() -> None:
    """Option `dealer_ante`: chips the dealer puts on each prize card instead of `ante`."""
    state = deal(players=3, dealer=0, dealer_ante=5)
    assert GAME.view(state)["net"] == [-20, -4, -4]
    assert GAME.view(state)["pot"]["JH"] == 7


def test_option_misplay_penalty() -> None:
    """Option `misplay_penalty` (M2): chips a misplayer pays each other player."""
    state = run(deal(misplay_penalty=3), misplay(1))
    assert moves(state, "misplay") == [(1, 2, 3), (1, 3, 3), (1, 0, 3)]
    assert GAME.view(state)["net"] == [-1, -13, -1, -5]


def test_option_misplay_penalty_zero_still_bars_prizes() -> None:
    """A penalty of 0 moves no chips, but the misplayer still takes no prize."""
    state = run(deal(misplay_penalty=0), misplay(1), prize(1, "AS"))
    assert moves(state, "misplay") == []
    assert GAME.view(state)["pot"]["AS"] == 5
    assert GAME.view(state)["misplayed"] == [1]


def test_option_prizes() -> None:
    """Option `prizes`: any ace, king, queen and jack of four different suits, in canonical text."""
    state = deal(prizes=["AH", "KD", "QS", "JC"])
    assert GAME.view(state)["prizes"] == ["AH", "KD", "QS", "JC"]
    assert GAME.view(state)["pot"] == {"AH": 5, "KD": 5, "QS": 5, "JC": 5}
    state = run(state, prize(2, "QS"))
    assert GAME.view(state)["net"] == [-4, -4, 1, -8]
    assert refused(state, prize(2, "AS")) == "AS is not a prize card; the prize cards are AH, KD, QS, JC."


def test_option_pot_with_custom_prizes() -> None:
    """Option `pot` names exactly the prize cards; without it nothing is carried in."""
    state = deal(prizes=["AH", "KD", "QS", "JC"], pot={"AH": 1, "KD": 2, "QS": 3, "JC": 4})
    assert GAME.view(state)["pot"] == {"AH": 6, "KD": 7, "QS": 8, "JC": 9}
    assert GAME.pot_before(deal(prizes=["AH", "KD", "QS", "JC"])) == {"AH": 0, "KD": 0, "QS": 0, "JC": 0}


def test_option_live_default_off() -> None:
    """Option `live` (default false): manual mode records prizes, misplays and who went out."""
    state = deal()
    assert GAME.view(state)["live"] is False
    assert GAME.view(state)["turn"] is None
    assert GAME.view(state)["sequence"] is None
    assert GAME.view(state)["cards_left"] is None


def test_option_notation_lt() -> None:
    """Option `notation`: prize cards are read in the session's notation (T = ace, D = queen in lt)."""
    state = run(deal(notation="lt"), prize(0, "T♠"), prize(1, "D būgnai"))
    assert [p["card"] for p in GAME.view(state)["prizes_played"]] == ["AS", "QD"]
    assert GAME.view(state)["last"]["text"] == "Seat 1 takes the 5 chips on the prize card D♦."
    assert refused(state, prize(2, "KC")) == (
        "'KC': in Lithuanian notation suits are written as symbols or words (♠ vynai, ♣ kryžiai, ♦ būgnai, "
        "♥ širdys), never as single letters."
    )


def test_option_notation_en_refuses_lithuanian_letters() -> None:
    """In English notation D is diamonds, so a Lithuanian queen is refused with the reason."""
    state = deal()
    assert refused(state, prize(0, "V♥")) == (
        "'V' is a Lithuanian rank letter, but this session writes cards in English notation: use J, Q, K, A "
        "(or switch the session to Lithuanian notation)."
    )
    assert GAME.view(run(state, prize(0, "J♥")))["prizes_played"][0]["card"] == "JH"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"prizes": ["AS", "KC", "QD"]},
         "Option prizes must list four cards, e.g. [\"AS\", \"KC\", \"QD\", \"JH\"], not ['AS', 'KC', 'QD']."),
        ({"prizes": "AS KC QD JH"},
         "Option prizes must list four cards, e.g. [\"AS\", \"KC\", \"QD\", \"JH\"], not 'AS KC QD JH'."),
        ({"prizes": ["AS", "KC", "QD", "J♥"]},
         "Option prizes: 'J♥' is not a card in canonical text (rank, then S, C, D or H)."),
        ({"prizes": ["AS", "KC", "QD", 11]},
         "Option prizes: 11 is not a card in canonical text (rank, then S, C, D or H)."),
        ({"prizes": ["AS", "KC", "QD", "10H"]},
         "The prize cards must be an ace, a king, a queen and a jack, not AS, KC, QD, 10H."),
        ({"prizes": ["AS", "KS", "QD", "JH"]}, "The prize cards must be of four different suits, not AS, KS, QD, JH."),
        ({"ante": -1}, "Option ante must be a whole number of chips, 0 or more, not -1."),
        ({"ante": True}, "Option ante must be a whole number of chips, 0 or more, not True."),
        ({"dealer_ante": 1.5}, "Option dealer_ante must be a whole number of chips, 0 or more, not 1.5."),
        ({"misplay_penalty": "1"}, "Option misplay_penalty must be a whole number of chips, 0 or more, not '1'."),
        ({"live": "yes"}, "Option live must be true or false."),
        ({"pot": {"AS": 1}},
         "Option pot must give the chips on each prize card (AS, KC, QD, JH) and nothing else, not {'AS': 1}."),
        ({"pot": [0, 0, 0, 0]},
         "Option pot must give the chips on each prize card (AS, KC, QD, JH) and nothing else, not [0, 0, 0, 0]."),
        ({"pot": {"AS": 0, "KC": 0, "QD": -2, "JH": 0}},
         "Option pot[QD] must be a whole number of chips, 0 or more, not -2."),
        ({"prizes": ["AH", "KD", "QS", "JC"], "pot": {"AS": 0, "KC": 0, "QD": 0, "JH": 0}},
         "Option pot must give the chips on each prize card (AH, KD, QS, JC) and nothing else, "
         "not {'AS': 0, 'KC': 0, 'QD': 0, 'JH': 0}."),
        ({"notation": "de"}, "Option notation must be \"en\" or \"lt\", not 'de'."),
        ({"stake": 1},
         "Unknown option stake for Michigan; the valid options are ante, dealer_ante, live, misplay_penalty, "
         "notation, pot, prizes."),
    ],
)
def test_invalid_options_are_refused(options: dict[str, Any], message: str) -> None:
    """Every option value is checked; the refusal says what is valid."""
    assert setup_refused(**options) == message


@pytest.mark.parametrize("players", [2, 9])
def test_player_count(players: int) -> None:
    """Michigan is for 3 to 8 players."""
    assert setup_refused(players=players, dealer=0) == f"Michigan is played by 3 to 8 players, not {players}."


# -- the swap with the extra hand ------------------------------------------------------------------


def test_exchange_swaps_hand_sizes() -> None:
    """A player may swap their hand for the extra hand; the sizes swap with it."""
    state = run(deal(players=4, dealer=3), exchange(1))
    view = GAME.view(state)
    assert view["hand_sizes"] == [11, 11, 10, 10]
    assert view["extra_hand_size"] == 10
    assert view["exchanged"] == 1
    assert view["can_exchange"] is False
    assert view["last"]["text"] == (
        "Seat 1 swapped their hand for the extra hand: they now hold 11 cards, the extra hand 10."
    )


def test_exchange_by_the_dealer() -> None:
    """The offer goes round from the first player, so even the dealer may take the extra hand."""
    state = run(deal(players=5, dealer=4), exchange(4))
    assert GAME.view(state)["hand_sizes"] == [9, 9, 9, 8, 9]
    assert GAME.view(state)["extra_hand_size"] == 8


def test_second_exchange_refused() -> None:
    """At most one swap per deal."""
    state = run(deal(), exchange(0))
    message = "Only one swap with the extra hand is allowed per deal; seat 0 has already swapped."
    assert refused(state, exchange(2)) == message
    assert refused(state, exchange(0)) == message


@pytest.mark.parametrize("first", [prize(0, "AS"), misplay(2)])
def test_exchange_after_play_began_refused(first: dict[str, Any]) -> None:
    """The swap happens before play: refused once a prize, misplay or card is recorded."""
    state = run(deal(), first)
    assert refused(state, exchange(1)) == "Too late to swap with the extra hand: play has already begun in this deal."
    assert GAME.view(state)["can_exchange"] is False


def test_exchange_after_first_card_refused_live() -> None:
    """Live mode: the swap must come before the first card."""
    state = run(live(), play(0, "5D"))
    assert refused(state, exchange(1)) == "Too late to swap with the extra hand: play has already begun in this deal."


# -- prizes, misplays, the end (manual mode) -------------------------------------------------------


def test_prize_taken() -> None:
    """Whoever plays a card equal to a prize card takes the chips on it."""
    state = run(deal(), prize(2, "KC"))
    view = GAME.view(state)
    assert view["pot"] == {"AS": 5, "KC": 0, "QD": 5, "JH": 5}
    assert view["net"] == [-4, -4, 1, -8]
    assert moves(state, "prize") == [("KC", 2, 5)]
    assert view["prizes_played"] == [{"card": "KC", "player": 2, "chips": 5, "taken": True}]
    assert view["last"]["prize"] == {"card": "KC", "player": 2, "chips": 5, "taken": True}
    assert view["last"]["text"] == "Seat 2 takes the 5 chips on the prize card KC."


def test_prize_twice_refused() -> None:
    """A prize card can be played only once per deal."""
    state = run(deal(), prize(2, "KC"))
    assert refused(state, prize(1, "KC")) == "KC has already been played this deal, by seat 2."
    assert refused(state, prize(2, "K♣")) == "KC has already been played this deal, by seat 2."


def test_prize_must_be_a_prize_card() -> None:
    """Only the four prize cards pay out."""
    assert refused(deal(), prize(0, "QS")) == "QS is not a prize card; the prize cards are AS, KC, QD, JH."


def test_misplayer_cannot_take_a_prize() -> None:
    """After a misplay, a prize card that player plays counts as played and its chips stay on it."""
    state = run(deal(), misplay(1), prize(1, "QD"))
    view = GAME.view(state)
    assert view["pot"]["QD"] == 5
    assert view["prizes_played"] == [{"card": "QD", "player": 1, "chips": 5, "taken": False}]
    assert moves(state, "prize") == []
    assert view["last"]["text"] == (
        "Seat 1 has misplayed this deal, so the prize card QD counts as played and its 5 chips stay on it."
    )
    assert refused(state, prize(0, "QD")) == "QD has already been played this deal, by seat 1."


def test_prize_taken_before_a_misplay_is_kept() -> None:
    """Prizes taken earlier in the deal are kept after a misplay."""
    state = run(deal(), prize(1, "AS"), misplay(1))
    assert GAME.view(state)["net"] == [-3, -2, -3, -7]
    assert moves(state, "prize") == [("AS", 1, 5)]


def test_misplay_pays_every_other_player() -> None:
    """A misplayer pays the penalty (default 1) to every other player."""
    state = run(deal(), misplay(2))
    view = GAME.view(state)
    assert moves(state, "misplay") == [(2, 3, 1), (2, 0, 1), (2, 1, 1)]
    assert view["net"] == [-3, -3, -7, -7]
    assert view["misplayed"] == [2]
    assert view["last"]["text"] == (
        "Seat 2 misplayed: they pay 1 chip to each other player and take no more prizes this deal."
    )


def test_each_misplay_pays_again() -> None:
    """Every wrong play costs the penalty again."""
    state = run(deal(), misplay(2), misplay(2))
    assert GAME.view(state)["misplays"] == [0, 0, 2, 0]
    assert GAME.view(state)["net"] == [-2, -2, -10, -6]


def test_out_payout() -> None:
    """The deal ends when a player plays their last card: the others pay 1 chip per card left."""
    state = run(deal(), out(2, [3, 1, 0, 7]))
    view = GAME.view(state)
    assert view["finished"] is True
    assert moves(state, "payout") == [(3, 2, 7), (0, 2, 3), (1, 2, 1)]
    assert view["net"] == [-7, -5, 7, -15]
    assert view["cards_left"] == [3, 1, 0, 7]
    assert view["out_player"] == 2
    assert view["last"]["text"] == (
        "Seat 2 went out: the others pay 1 chip per card left, 11 chips in all. The deal is over."
    )
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.points == (-7, -5, 7, -15)
    assert outcome.placements == (3, 2, 1, 4)
    assert outcome.winners == (2,)
    assert zero_sum(state) == 0


def test_placements_share_ties() -> None:
    """Placements by net chips, ties sharing a place (competition ranking)."""
    state = run(deal(players=3, dealer=2), out(0, [0, 2, 2]))
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.points == (0, -6, -10)
    assert outcome.placements == (1, 2, 3)
    state = run(deal(players=3, dealer=2, dealer_ante=1), out(0, [0, 2, 2]))
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.points == (0, -6, -6)
    assert outcome.placements == (1, 2, 2)


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([1, 2, 3, 4], "seat 0 went out, so they hold 0 cards, not 1."),
        ([0, 0, 3, 4], "seat 1 holds between 1 and 10 cards at the end of this deal, not 0."),
        ([0, 11, 3, 4], "seat 1 holds between 1 and 10 cards at the end of this deal, not 11."),
        ([0, 1, 3], "hand_counts must list 4 values, one per seat; it lists 3."),
        ([0, "1", 3, 4], "hand_counts[1] must be a whole number, not '1'."),
        ([0, True, 3, 4], "hand_counts[1] must be a whole number, not True."),
        ([0, 10**40, 3, 4], "seat 1 holds between 1 and 10 cards at the end of this deal, not an enormous number."),
        ("0 1 3 4", "hand_counts must be a list."),
    ],
)
def test_out_counts_checked(counts: object, message: str) -> None:
    """The out player's count is 0; every other is between 1 and that seat's hand size."""
    assert refused(deal(), {"type": "out", "player": 0, "hand_counts": counts}) == message


def test_out_counts_use_swapped_sizes() -> None:
    """After a swap the hand-size limit is the swapped size."""
    state = run(deal(players=4, dealer=3), exchange(1))
    message = "seat 1 holds between 1 and 11 cards at the end of this deal, not 12."
    assert refused(state, out(0, [0, 12, 1, 1])) == message
    state = run(state, out(0, [0, 11, 1, 1]))
    assert GAME.view(state)["net"][0] == -4 + 13


def test_out_counts_less_a_prize_card_played() -> None:
    """With 3 players every hand is 13 cards: a seat that played the AS holds at most 12."""
    state = run(deal(players=3, dealer=2), prize(1, "AS"))
    assert refused(state, out(0, [0, 13, 5])) == (
        "seat 1 played the AS this deal: at most 12 of their 13 cards left, not 13."
    )
    state = run(state, out(0, [0, 12, 5]))
    assert GAME.view(state)["cards_left"] == [0, 12, 5]


def test_out_counts_less_every_prize_card_played() -> None:
    """8 players: a seat of 5 cards that played all four prize cards holds at most 1."""
    state = deal(players=8, dealer=7)
    assert state.hand_sizes[6] == 5
    state = run(state, prize(6, "AS"), prize(6, "KC"), prize(6, "QD"), prize(6, "JH"))
    counts = [0, 1, 1, 1, 1, 1, 5, 1]
    assert refused(state, out(0, counts)) == (
        "seat 6 played 4 prize cards this deal (AS, KC, QD, JH): at most 1 of their 5 cards left, not 5."
    )
    assert refused(state, out(0, [0, 1, 1, 1, 1, 1, 2, 1])) == (
        "seat 6 played 4 prize cards this deal (AS, KC, QD, JH): at most 1 of their 5 cards left, not 2."
    )
    run(state, out(0, [0, 1, 1, 1, 1, 1, 1, 1]))


def test_out_counts_less_prize_cards_after_a_swap() -> None:
    """After a swap, the bound is the hand the seat now holds less the prize cards it played."""
    state = run(deal(players=4, dealer=3), exchange(1), prize(1, "KC"))
    assert state.hand_sizes[1] == 11
    assert refused(state, out(0, [0, 11, 1, 1])) == (
        "seat 1 played the KC this deal: at most 10 of their 11 cards left, not 11."
    )
    run(state, out(0, [0, 10, 1, 1]))


def test_out_counts_less_a_prize_card_played_after_a_misplay() -> None:
    """A prize card played after a misplay is not taken, but it has still left the hand."""
    state = run(deal(players=3, dealer=2), misplay(2), prize(2, "QD"))
    assert refused(state, out(0, [0, 5, 13])) == (
        "seat 2 played the QD this deal: at most 12 of their 13 cards left, not 13."
    )
    assert refused(state, out(0, [0, 5, 10**40])) == (
        "seat 2 played the QD this deal: at most 12 of their 13 cards left, not an enormous number."
    )
    assert refused(state, out(0, [0, 5, 0])) == "seat 2 holds between 1 and 12 cards at the end of this deal, not 0."


def test_out_counts_of_other_seats_keep_their_whole_hand() -> None:
    """Only the seat that played a prize card loses it from its bound; the out player's prizes bind nobody."""
    state = run(deal(players=3, dealer=2), prize(0, "AS"), prize(1, "KC"))
    run(state, out(0, [0, 12, 13]))
    assert refused(state, out(0, [0, 12, 14])) == "seat 2 holds between 1 and 13 cards at the end of this deal, not 14."


def test_prize_card_refusal_names_the_player_and_the_card() -> None:
    """The service renders the seat as the player's name and the card in the session's notation."""
    state = run(deal(players=3, dealer=2, notation="lt"), prize(1, "T♠"))
    with pytest.raises(IllegalEntry) as caught:
        GAME.apply(state, out(0, [0, 13, 5]))
    assert caught.value.render(names=["Ona", "Jonas", "Rūta"], notation="lt") == (
        "Jonas played the T♠ this deal: at most 12 of their 13 cards left, not 13."
    )


def test_nothing_after_the_end() -> None:
    """Once a player is out the deal is over: every entry is refused."""
    state = run(deal(), out(0, [0, 1, 1, 1]))
    for entry in (misplay(1), prize(1, "AS"), exchange(1), out(1, [1, 0, 1, 1])):
        assert refused(state, entry) == "This deal has ended; nothing more can be recorded in it."
    assert GAME.view(state)["turn"] is None


def test_carry_over_via_pot() -> None:
    """Chips left on prize cards stay for the next deal, and everyone antes again on all four."""
    first = run(deal(players=4, dealer=3), prize(0, "AS"), misplay(1), prize(1, "KC"), out(0, [0, 2, 3, 4]))
    left = GAME.pot_after(first)
    assert left == {"AS": 0, "KC": 5, "QD": 5, "JH": 5}
    second = deal(players=4, dealer=0, pot=left)
    assert GAME.view(second)["pot"] == {"AS": 5, "KC": 10, "QD": 10, "JH": 10}
    second = run(second, prize(3, "QD"))
    assert GAME.view(second)["net"][3] == -4 + 10
    # The session's ledger stays zero-sum across both deals, counting what remains on the cards.
    nets = [sum(pair) for pair in zip(GAME.view(first)["net"], GAME.view(second)["net"])]
    assert sum(nets) + sum(GAME.pot_after(second).values()) == 0


def test_entry_order_matters_for_prizes() -> None:
    """Entries are taken in the order they happened: a misplay after a prize does not undo it."""
    before = run(deal(), prize(1, "JH"), misplay(1))
    after = run(deal(), misplay(1), prize(1, "JH"))
    assert GAME.view(before)["pot"]["JH"] == 0
    assert GAME.view(after)["pot"]["JH"] == 5


# -- live mode -------------------------------------------------------------------------------------


def test_live_first_start_and_continuation() -> None:
    """The first player starts a sequence; whoever holds the next higher card of the suit plays it."""
    state = live(players=4, dealer=3)
    assert GAME.view(state)["turn"] == 0
    state = run(state, play(0, "5D"))
    view = GAME.view(state)
    assert view["last"]["play"] == "start"
    assert view["sequence"] == {"suit": "D", "card": "5D", "starter": 0, "next": "6D"}
    assert view["turn"] is None
    assert view["last"]["text"] == "Seat 0 plays 5D. It starts the first sequence, in diamonds."
    state = run(state, play(2, "6D"), play(2, "7D"))
    view = GAME.view(state)
    assert view["last"]["play"] == "continue"
    assert view["sequence"] == {"suit": "D", "card": "7D", "starter": 2, "next": "8D"}
    assert view["cards_left"] == [10, 10, 8, 10]


def test_live_stop_by_the_last_player() -> None:
    """A new start by the player who played last is a stop; it starts the new sequence."""
    state = run(live(), play(0, "5D"), play(1, "6D"), play(1, "9C"))
    view = GAME.view(state)
    assert view["last"]["play"] == "stop"
    assert view["sequence"] == {"suit": "C", "card": "9C", "starter": 1, "next": "10C"}
    assert view["last"]["text"] == "Seat 1 plays 9C. Stop: Seat 1 starts a new sequence in clubs."
    assert view["misplays"] == [0, 0, 0, 0]


def test_live_misplay_out_of_sequence() -> None:
    """A card from anyone else that does not continue the sequence is a misplay; the sequence goes on."""
    state = run(live(), play(0, "5D"), play(1, "6D"), play(2, "3H"))
    view = GAME.view(state)
    assert view["last"]["play"] == "misplay"
    assert view["last"]["penalties"] == 1
    assert view["misplayed"] == [2]
    assert moves(state, "misplay") == [(2, 3, 1), (2, 0, 1), (2, 1, 1)]
    assert view["sequence"] == {"suit": "D", "card": "6D", "starter": 1, "next": "7D"}
    assert view["cards_left"] == [10, 9, 9, 10]
    assert view["last"]["text"] == (
        "Seat 2 plays 3H. It does not continue the sequence: a misplay. They pay 1 chip to each other player "
        "and take no more prizes this deal."
    )
    state = run(state, play(3, "7D"))
    assert GAME.view(state)["last"]["play"] == "continue"


def test_live_first_card_out_of_turn_is_a_misplay() -> None:
    """The first player always starts; a first card from anyone else is a misplay."""
    state = run(live(players=4, dealer=3), play(2, "5D"))
    assert GAME.view(state)["last"]["play"] == "misplay"
    assert GAME.view(state)["sequence"] is None
    assert GAME.view(state)["turn"] == 0
    state = run(state, play(0, "6D"))
    assert GAME.view(state)["last"]["play"] == "start"


def test_live_turn_after_an_ace() -> None:
    """Nothing follows an ace: the player who played it starts again (turn)."""
    state = run(live(), play(0, "QS"), play(3, "KS"), play(1, "AS"))
    view = GAME.view(state)
    assert view["turn"] == 1
    assert view["sequence"]["next"] is None


def test_live_turn_when_next_card_already_played() -> None:
    """When the next card was already played (the highest remaining card), the last player starts again."""
    state = run(live(), play(2, "7D"), play(0, "5D"), play(1, "6D"))
    assert GAME.view(state)["turn"] == 1
    assert GAME.view(state)["sequence"]["next"] is None


def test_live_prize_derived() -> None:
    """A prize card played in sequence by a player who has not misplayed takes the chips."""
    state = run(live(), play(0, "QS"), play(3, "KS"), play(1, "AS"))
    view = GAME.view(state)
    assert view["prizes_played"] == [{"card": "AS", "player": 1, "chips": 5, "taken": True}]
    assert view["pot"]["AS"] == 0
    assert view["net"] == [-4, 1, -4, -8]
    assert view["last"]["text"] == (
        "Seat 1 plays AS. It continues the sequence. Seat 1 takes the 5 chips on the prize card AS."
    )


def test_live_prize_by_a_misplayer_stays() -> None:
    """A prize card played in sequence by a player who misplayed earlier: its chips stay on it."""
    state = run(live(), play(0, "9C"), play(1, "3H"), play(2, "10C"), play(1, "JC"), play(1, "QC"), play(1, "KC"))
    view = GAME.view(state)
    assert view["prizes_played"] == [{"card": "KC", "player": 1, "chips": 5, "taken": False}]
    assert view["pot"]["KC"] == 5


def test_live_prize_played_as_a_misplay_stays() -> None:
    """A prize card played out of sequence counts as played by a misplayer; its chips stay."""
    state = run(live(), play(0, "5D"), play(2, "JH"))
    view = GAME.view(state)
    assert view["last"]["play"] == "misplay"
    assert view["prizes_played"] == [{"card": "JH", "player": 2, "chips": 5, "taken": False}]
    assert view["pot"]["JH"] == 5
    assert refused(state, play(3, "JH")) == "JH has already been played this deal."


def test_live_not_lowest_flagged_when_a_lower_card_follows() -> None:
    """A start that was not the player's lowest is flagged when they later play a lower card of that suit, once."""
    state = run(live(), play(0, "9H"), play(1, "10H"), play(1, "2H"), play(2, "3H"), play(0, "4H"))
    view = GAME.view(state)
    assert view["last"]["play"] == "continue"
    assert view["last"]["flagged"] == "9H"
    assert view["last"]["penalties"] == 1
    assert moves(state, "misplay") == [(0, 1, 1), (0, 2, 1), (0, 3, 1)]
    assert view["last"]["text"] == (
        "Seat 0 plays 4H, so they held it when they started hearts with 9H: that start was not their lowest. "
        "They pay 1 chip to each other player and take no more prizes this deal. It continues the sequence."
    )
    state = run(state, play(0, "5H"))
    assert GAME.view(state)["last"]["flagged"] is None
    assert GAME.view(state)["misplays"] == [1, 0, 0, 0]


def test_live_not_lowest_flagged_by_a_lower_start() -> None:
    """Starting the same suit again lower than before also proves the earlier start was not the lowest."""
    state = run(live(), play(0, "9H"), play(0, "4H"))
    view = GAME.view(state)
    assert view["last"]["play"] == "stop"
    assert view["last"]["flagged"] == "9H"
    assert view["misplays"] == [1, 0, 0, 0]


def test_live_higher_cards_after_a_start_are_fine() -> None:
    """Cards higher than the player's start in that suit prove nothing."""
    state = run(live(), play(0, "4H"), play(1, "5H"), play(1, "2C"), play(2, "3C"), play(0, "4C"), play(0, "9H"))
    assert GAME.view(state)["misplays"] == [0, 0, 0, 0]


def test_live_flag_before_the_prize() -> None:
    """The wrong start came first: a prize card that reveals it is not taken."""
    state = run(live(), play(0, "KD"), play(1, "AD"), play(1, "10D"), play(2, "JD"), play(0, "QD"))
    view = GAME.view(state)
    assert view["last"]["flagged"] == "KD"
    assert view["prizes_played"] == [{"card": "QD", "player": 0, "chips": 5, "taken": False}]
    assert view["pot"]["QD"] == 5


def test_live_misplay_and_flag_in_one_card() -> None:
    """A card out of sequence that also proves an earlier wrong start pays twice."""
    state = run(live(), play(0, "9H"), play(1, "10H"), play(0, "4H"))
    view = GAME.view(state)
    assert view["last"]["play"] == "misplay"
    assert view["last"]["flagged"] == "9H"
    assert view["last"]["penalties"] == 2
    assert view["misplays"] == [2, 0, 0, 0]


def test_live_misplay_entry_for_an_unseen_wrong_play() -> None:
    """Live mode: a misplay entry records what the referee cannot see, and settles that player's starts."""
    state = run(live(), play(0, "9H"), misplay(0), play(0, "3S"), play(1, "4S"), play(1, "2H"), play(2, "3H"))
    state = run(state, play(0, "4H"))
    view = GAME.view(state)
    assert view["last"]["flagged"] is None
    assert view["misplays"] == [1, 0, 0, 0]


def test_live_out_derived() -> None:
    """When a player has played their whole hand the deal ends: the others pay 1 chip per card left."""
    state = live(players=8, dealer=7)
    assert GAME.view(state)["hand_sizes"] == [6, 6, 6, 6, 6, 6, 5, 5]
    state = run(state, play(0, "2S"), play(7, "3S"), play(7, "4S"), play(7, "5S"), play(7, "6S"))
    assert GAME.outcome(state) is None
    state = run(state, play(7, "7S"))
    view = GAME.view(state)
    assert view["finished"] is True
    assert view["out_player"] == 7
    assert view["cards_left"] == [5, 6, 6, 6, 6, 6, 5, 0]
    assert moves(state, "payout") == [(0, 7, 5), (1, 7, 6), (2, 7, 6), (3, 7, 6), (4, 7, 6), (5, 7, 6), (6, 7, 5)]
    assert view["last"]["out"] is True
    assert view["last"]["text"] == (
        "Seat 7 plays 7S. It continues the sequence. Seat 7 went out: the others pay 1 chip per card left, "
        "40 chips in all. The deal is over."
    )
    assert refused(state, play(0, "8S")) == "This deal has ended; nothing more can be recorded in it."
    assert zero_sum(state) == 0


def test_live_exchange_changes_when_a_player_is_out() -> None:
    """After a swap the player's hand size is the extra hand's: they go out after that many cards."""
    state = run(live(players=8, dealer=7), exchange(7))
    assert GAME.view(state)["hand_sizes"][7] == 6
    state = run(state, play(0, "2S"), *(play(7, f"{rank}S") for rank in range(3, 8)))
    assert GAME.view(state)["finished"] is False
    state = run(state, play(7, "8S"))
    assert GAME.view(state)["out_player"] == 7


def test_live_misplayed_last_card_ends_the_deal() -> None:
    """A misplayed card has left the hand too: playing the last card that way still ends the deal."""
    state = run(live(players=8, dealer=7), play(0, "2S"), *(play(7, f"{rank}S") for rank in range(3, 7)))
    state = run(state, play(6, "7S"), play(7, "9D"))
    view = GAME.view(state)
    assert view["last"]["play"] == "misplay"
    assert view["finished"] is True
    assert view["cards_left"] == [5, 6, 6, 6, 6, 6, 4, 0]
    assert view["net"][7] == -8 - 7 + 39  # dealer ante, penalty, payout


def test_live_duplicate_card_refused() -> None:
    """Every card is known once played: it cannot be played again."""
    state = run(live(), play(0, "5D"))
    assert refused(state, play(1, "5D")) == "5D has already been played this deal."
    assert refused(state, play(0, "5♦")) == "5D has already been played this deal."


def test_live_refuses_manual_entries() -> None:
    """Live mode derives prizes and the end of the deal from the cards."""
    message = (
        "This deal is recorded card by card (live mode): the referee works out prizes and who went out from the "
        "cards, so record each card with a play entry."
    )
    assert refused(live(), prize(0, "AS")) == message
    assert refused(live(), out(0, [0, 1, 1, 1])) == message


def test_manual_refuses_play_entries() -> None:
    """Manual mode does not take card-by-card entries."""
    assert refused(deal(), play(0, "5D")) == (
        "This deal is not recorded card by card (live mode is off): record prizes, misplays and who went out instead."
    )


# -- entry shapes ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("misplay", "An entry must be an object with a \"type\"."),
        (None, "An entry must be an object with a \"type\"."),
        ({"type": "trick"}, "Unknown entry type 'trick'; this game records exchange, prize, misplay, out, play."),
        ({}, "Unknown entry type None; this game records exchange, prize, misplay, out, play."),
        ({"type": ["prize"]}, "Unknown entry type ['prize']; this game records exchange, prize, misplay, out, play."),
        ({"type": "prize", "player": 0}, "The prize entry needs card."),
        ({"type": "misplay", "player": 0, "card": "AS"}, "The misplay entry does not take card."),
        ({"type": "misplay", 1: 0, "player": 0}, "The fields of an entry must be named by text."),
        ({"type": "misplay", "player": 4}, "player must be a seat from 0 to 3, not 4."),
        ({"type": "misplay", "player": -1}, "player must be a seat from 0 to 3, not -1."),
        ({"type": "misplay", "player": "0"}, "player must be a seat from 0 to 3, not '0'."),
        ({"type": "misplay", "player": False}, "player must be a seat from 0 to 3, not False."),
        ({"type": "misplay", "player": 10**5000}, "player must be a seat from 0 to 3, not an enormous number."),
        ({"type": "prize", "player": 0, "card": 14}, "A card must be written as text, not 14."),
        ({"type": "prize", "player": 0, "card": ""}, "A card is missing (empty text)."),
        ({"type": "prize", "player": 0, "card": "X"}, "There are no jokers in this deal."),
        ({"type": "prize", "player": 0, "card": "A"},
         "'A' has no suit; write the suit as a letter or a symbol, e.g. QS or Q♠."),
    ],
)
def test_malformed_entries_refused(entry: object, message: str) -> None:
    """Wrong shapes and types are refused with a message a person understands."""
    assert refused(deal(), entry) == message


def test_live_bad_card_refused() -> None:
    """Live mode: card text is read in the session's notation."""
    assert refused(live(), play(0, "ZZ")) == "'ZZ' is not a rank; ranks are 2-10, J Q K A (T = ten)."
    assert refused(live(notation="lt"), play(0, "QD")) == "'QD' is not a rank; ranks are 2-10, V D K T (T = tūzas)."


# -- helpers and snapshots -------------------------------------------------------------------------


def test_next_card() -> None:
    """A sequence continues with the next higher card of its suit; nothing follows an ace."""
    assert next_card(Card(10, "H")) == Card(11, "H")
    assert next_card(Card(14, "H")) is None


def test_classify_play() -> None:
    """Continuation beats everything; else the starter starts (a stop), anyone else misplays."""
    assert classify_play(Card(6, "D"), 2, Card(5, "D"), 1) is PlayKind.CONTINUE
    assert classify_play(Card(6, "D"), 1, Card(5, "D"), 1) is PlayKind.CONTINUE
    assert classify_play(Card(9, "C"), 1, Card(5, "D"), 1) is PlayKind.STOP
    assert classify_play(Card(9, "C"), 2, Card(5, "D"), 1) is PlayKind.MISPLAY
    assert classify_play(Card(9, "C"), 1, None, 1) is PlayKind.START


def test_split_pot_at_session_close() -> None:
    """M3: chips left on the prize cards are shared; the remainder one each from after the last dealer."""
    assert split_pot(20, 4, 3) == (5, 5, 5, 5)
    assert split_pot(23, 4, 1) == (6, 5, 6, 6)
    assert sum(split_pot(23, 4, 1)) == 23


def test_snapshot_shape() -> None:
    """to_dict is JSON-safe, names the game and version, and from_dict restores it exactly."""
    state = run(live(notation="lt", pot={"AS": 1, "KC": 2, "QD": 3, "JH": 4}), exchange(2), play(0, "D♠"),
                play(1, "K♠"), play(1, "T♠"), play(1, "9♦"), play(3, "3♣"))
    data = GAME.to_dict(state)
    assert data["game"] == "michigan"
    assert data["version"] == 1
    assert json.loads(json.dumps(data)) == data
    assert GAME.from_dict(json.loads(json.dumps(data))) == state
    assert GAME.seats(state) == (4, 3)
    with pytest.raises(ValueError):
        GAME.from_dict({**data, "game": "rukas"})


def test_view_keys() -> None:
    """The tablet's view has the shared keys and Michigan's own."""
    view = GAME.view(live())
    for key in (
        "game", "players", "dealer", "first_player", "finished", "turn", "outcome", "last", "pot", "prizes_played",
        "misplayed", "hand_sizes", "cards_left", "exchanged", "sequence", "movements",
    ):
        assert key in view
    assert view["last"] is None
    assert view["outcome"] is None
    assert view["cards_left"] == [11, 10, 10, 10]


def test_a_count_left_empty_names_whose_count_is_missing() -> None:
    """A count field left empty on the tablet arrives as null: the refusal says whose count is
    missing, not "hand_counts[1] must be a whole number, not None"."""
    state = GAME.new_deal(players=4, dealer=3)
    assert refused(state, {"type": "out", "player": 0, "hand_counts": [0, None, 3, 3]}) == (
        "The hand count of seat 1 is missing: give the number of cards they hold."
    )
