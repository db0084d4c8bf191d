"""Apgaudinėjimas (Cheat): one test per rule of RULES.md section 5, driven through GAMES."""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee.rules import GAMES, IllegalEntry, InvalidSetup
from referee.rules.cheat import CheatState
from tests.rules.refusals import refusal

GAME = GAMES["cheat"]
STANDS: dict[str, Any] = {"type": "stands"}


def place(player: int) -> dict[str, Any]:
    return {"type": "place", "player": player}


def challenge(challenger: int, revealed: object) -> dict[str, Any]:
    return {"type": "challenge", "challenger": challenger, "revealed": revealed}


def deal(players: int = 3, dealer: int | None = None, **options: Any) -> CheatState:
    """A new deal; by default the dealer is the last seat, so seat 0 is the first player."""
    return GAME.new_deal(players=players, dealer=players - 1 if dealer is None else dealer, options=options)


def play(state: CheatState, *entries: dict[str, Any]) -> CheatState:
    for entry in entries:
        state = GAME.apply(state, entry)
    return state


def places(state: CheatState, count: int) -> CheatState:
    """``count`` cards placed, each by the seat whose turn it is."""
    for _ in range(count):
        state = GAME.apply(state, place(GAME.turn(state)))
    return state


def refused(state: CheatState, entry: object) -> str:
    return refusal(GAME, state, entry)


def endgame(players: int = 4) -> CheatState:
    """4 players of 13 cards, no left-over: after 48 places everyone holds one card, seat 0 to play."""
    state = places(deal(players), 12 * players)
    assert GAME.view(state)["counts"] == [1] * players
    return state


# -- setup --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "jokers", "hand", "pile"),
    [
        (2, 0, 26, 0), (3, 0, 17, 1), (4, 0, 13, 0), (5, 0, 10, 2),
        (6, 0, 17, 2), (7, 0, 14, 6), (8, 0, 13, 0),
        (2, 2, 27, 0), (3, 2, 18, 0), (4, 2, 13, 2), (5, 4, 11, 1),
        (6, 2, 17, 4), (7, 4, 15, 3), (8, 4, 13, 4),
    ],
)
def test_all_cards_are_dealt_and_the_left_over_start_the_pile(players: int, jokers: int, hand: int, pile: int) -> None:
    """Each seat gets deck // n cards; the deck % n left over lie face down and start the pile."""
    view = GAME.view(deal(players, jokers=jokers))
    assert view["counts"] == [hand] * players
    assert view["pile"] == pile
    assert sum(view["counts"]) + view["pile"] == view["deck"]


@pytest.mark.parametrize(("players", "deck"), [(2, 52), (5, 52), (6, 104), (8, 104)])
def test_one_deck_up_to_five_players_two_decks_from_six(players: int, deck: int) -> None:
    """52 cards for 2-5 players, a double deck of 104 for 6 or more."""
    assert GAME.view(deal(players))["deck"] == deck


@pytest.mark.parametrize(("jokers", "deck"), [(0, 52), (2, 54), (4, 56)])
def test_option_jokers_adds_jokers_to_the_deck(jokers: int, deck: int) -> None:
    """C1: 0 (default), 2 or 4 jokers join the deck."""
    assert GAME.view(deal(4, jokers=jokers))["deck"] == deck
    assert GAME.view(deal(6, jokers=jokers))["deck"] == deck + 52


def test_jokers_default_to_none() -> None:
    """C1 default: no jokers."""
    assert GAME.view(GAME.new_deal(players=4, dealer=0))["jokers"] == 0


@pytest.mark.parametrize("value", [1, 3, 6, -2, "2", 2.0, True, None])
def test_other_joker_counts_are_refused(value: object) -> None:
    """Only 0, 2 or 4 jokers are allowed."""
    with pytest.raises(InvalidSetup) as caught:
        deal(4, jokers=value)
    assert str(caught.value) == f"Option jokers must be 0, 2 or 4, not {value!r}."


def test_unknown_options_are_refused() -> None:
    """new_deal accepts only jokers and notation."""
    with pytest.raises(InvalidSetup) as caught:
        deal(4, wild=True)
    assert str(caught.value) == "Unknown option wild for Cheat; the valid options are jokers, notation."


@pytest.mark.parametrize("players", [1, 9])
def test_two_to_eight_players(players: int) -> None:
    """Cheat is played by 2 to 8 players."""
    with pytest.raises(InvalidSetup) as caught:
        GAME.new_deal(players=players, dealer=0)
    assert str(caught.value) == f"Cheat is played by 2 to 8 players, not {players}."


def test_the_first_player_sits_after_the_dealer_and_announces_an_ace() -> None:
    """The seat after the dealer places first, announcing an ace."""
    state = deal(5, dealer=2)
    view = GAME.view(state)
    assert view["first_player"] == 3
    assert GAME.turn(state) == view["turn"] == 3
    assert GAME.announced_rank(state) == view["announce"] == "A"


# -- placing ------------------------------------------------------------------------------------


def test_announcements_follow_the_cycle_ace_two_to_king_and_again() -> None:
    """Each placer announces the next rank of A 2 3 ... 10 J Q K A 2 ... (the seed: Tūzas, Dviakė, Triakė ...)."""
    state = deal(3)
    announced = []
    for _ in range(15):
        announced.append(GAME.announced_rank(state))
        state = places(state, 1)
    assert announced == ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]
    assert GAME.view(state)["last_announced"] == "2"


def test_players_place_in_turn_clockwise() -> None:
    """From the first player, clockwise; every place adds one card to the pile."""
    state = deal(4, dealer=1)
    turns = []
    for _ in range(6):
        turns.append(GAME.turn(state))
        state = places(state, 1)
    assert turns == [2, 3, 0, 1, 2, 3]
    view = GAME.view(state)
    assert view["counts"] == [12, 12, 11, 11]
    assert view["pile"] == 6


def test_a_place_out_of_turn_is_refused_naming_whose_turn_and_the_rank() -> None:
    """The referee knows whose turn it is and what they must announce; anyone else is refused."""
    state = places(deal(3), 4)
    assert refused(state, place(0)) == "It is seat 1's turn to place a card and announce 5, not seat 0's."


def test_the_refusal_names_the_rank_in_the_session_notation() -> None:
    """Ranks in messages are cards, so the service can show them as the table writes them (T = tūzas)."""
    state = deal(3, notation="lt")
    with pytest.raises(IllegalEntry) as caught:
        GAME.apply(state, place(2))
    assert caught.value.render(notation="lt") == "It is seat 0's turn to place a card and announce T, not seat 2's."
    assert caught.value.render(names=["Ona", "Jonas", "Rūta"]) == (
        "It is Ona's turn to place a card and announce A, not Rūta's."
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (3, "player must be a seat from 0 to 2, not 3."),
        (-1, "player must be a seat from 0 to 2, not -1."),
        ("0", "player must be a seat from 0 to 2, not '0'."),
        (True, "player must be a seat from 0 to 2, not True."),
        (None, "player must be a seat from 0 to 2, not None."),
        (10**30, "player must be a seat from 0 to 2, not an enormous number."),
    ],
)
def test_a_place_needs_a_seat(value: object, message: str) -> None:
    """``player`` is a seat number."""
    assert refused(deal(3), place(value)) == message  # type: ignore[arg-type]


def test_passing_is_not_possible() -> None:
    """Passing is not allowed: the only entries are place, challenge and stands."""
    assert refused(deal(3), {"type": "pass", "player": 0}) == (
        "Unknown entry type 'pass'; this game records place, challenge, stands."
    )


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("place", "An entry must be an object with a \"type\"."),
        (None, "An entry must be an object with a \"type\"."),
        ([], "An entry must be an object with a \"type\"."),
        ({}, "Unknown entry type None; this game records place, challenge, stands."),
        ({"type": "place"}, "The place entry needs player."),
        ({"type": "place", "player": 0, "card": "AS"}, "The place entry does not take card."),
        ({"type": "challenge", "challenger": 1}, "The challenge entry needs revealed."),
        ({"type": "challenge", "revealed": "A"}, "The challenge entry needs challenger."),
        (
            {"type": "challenge", "challenger": 1, "revealed": "A", "player": 0},
            "The challenge entry does not take player.",
        ),
        ({"type": "stands", "player": 0}, "The stands entry does not take player."),
    ],
)
def test_malformed_entries_are_refused(entry: object, message: str) -> None:
    """Wrong shapes, missing and superfluous fields are refused, never ignored."""
    assert refused(places(deal(3), 1), entry) == message


# -- challenges ---------------------------------------------------------------------------------


def test_a_true_card_makes_the_challenger_take_the_whole_pile() -> None:
    """If the turned card matches the announced rank, the challenger takes all the cards, left-over ones too."""
    state = places(deal(3), 2)  # seat 0 announces A, seat 1 announces 2; the left-over card is under them
    state = play(state, challenge(0, "2H"))
    view = GAME.view(state)
    assert view["counts"] == [16 + 3, 16, 17]
    assert view["pile"] == 0
    assert view["last"]["taker"] == 0
    assert view["last"]["truthful"] is True
    assert view["last"]["text"] == (
        "Seat 0 challenged seat 1, who told the truth (announced 2, was a 2H); seat 0 takes 3 cards. "
        "Seat 0 starts again, announcing A."
    )


def test_a_lie_makes_the_placer_take_the_whole_pile() -> None:
    """If the turned card does not match, the placer takes the pile (the seed: "sumelavęs žaidėjas")."""
    state = places(deal(3), 7)
    state = play(state, challenge(1, "9"))
    view = GAME.view(state)
    assert view["counts"] == [14 + 8, 15, 15]
    assert view["last"]["text"] == (
        "Seat 0 lied (announced 7, was a 9) and takes 8 cards. Seat 0 starts again, announcing A."
    )
    assert view["last"]["truthful"] is False


def test_the_taker_starts_again_announcing_an_ace() -> None:
    """After a pickup the taker places next (whoever's turn it would have been), announcing an ace."""
    state = places(deal(4), 5)  # seat 0 placed the 5th card; seat 1 would be next
    state = play(state, challenge(2, "5"))
    assert GAME.turn(state) == 2
    assert GAME.announced_rank(state) == "A"
    assert refused(state, place(1)) == "It is seat 2's turn to place a card and announce A, not seat 1's."
    state = play(state, place(2))
    assert GAME.view(state)["last_announced"] == "A"


def test_only_the_last_card_can_be_challenged() -> None:
    """A challenge always turns the last card placed: its announced rank decides."""
    state = places(deal(3), 3)  # seat 0 announced A, seat 1 announced 2, seat 2 announced 3
    state = play(state, challenge(0, "3"))
    assert GAME.view(state)["last"]["player"] == 2
    assert GAME.view(state)["last"]["taker"] == 0


def test_any_other_player_still_in_may_challenge_out_of_turn() -> None:
    """Any player still holding cards may challenge at any time, not only the next in turn."""
    state = places(deal(5), 1)
    view = GAME.view(state)
    assert view["challengers"] == [1, 2, 3, 4]
    assert view["can_challenge"] is True
    state = play(state, challenge(3, "K"))
    assert GAME.turn(state) == 0


def test_a_joker_is_a_true_card() -> None:
    """C1: a joker stands for any card, so a revealed joker makes the challenger take the pile."""
    state = places(deal(4, jokers=2), 3)
    state = play(state, challenge(0, "X"))
    assert GAME.view(state)["last"]["taker"] == 0
    assert GAME.view(state)["last"]["revealed"] == "X"
    assert GAME.view(state)["last"]["text"].startswith(
        "Seat 0 challenged seat 2, who told the truth (announced 3, was a joker)"
    )


@pytest.mark.parametrize("jokers", [2, 4])
def test_a_joker_may_be_written_as_x_or_joker(jokers: int) -> None:
    """X (or "joker", "džokeris") is a joker when the deal has jokers."""
    for text in ("X", "x", "joker", "Džokeris"):
        state = play(places(deal(3, jokers=jokers), 1), challenge(1, text))
        assert GAME.view(state)["last"]["revealed"] == "X"


def test_a_joker_is_refused_without_jokers() -> None:
    """X only when the deal has jokers."""
    assert refused(places(deal(3), 1), challenge(1, "X")) == "There are no jokers in this deal."


@pytest.mark.parametrize(
    ("notation", "text", "revealed"),
    [
        ("en", "Q", "Q"), ("en", "QD", "QD"), ("en", "q♦", "QD"), ("en", "♦Q", "QD"), ("en", "T", "10"),
        ("en", "10", "10"), ("lt", "D", "Q"), ("lt", "D būgnai", "QD"), ("lt", "♠D", "QS"), ("lt", "T", "A"),
        ("lt", "V", "J"),
    ],
)
def test_the_revealed_card_may_be_a_bare_rank_in_the_session_notation(notation: str, text: str, revealed: str) -> None:
    """Suits do not matter: a bare rank is accepted; cards are read in the session's notation."""
    state = play(places(deal(3, notation=notation), 1), challenge(1, text))
    assert GAME.view(state)["last"]["revealed"] == revealed


@pytest.mark.parametrize(
    ("notation", "text", "message"),
    [
        ("en", "D", "'D' is ambiguous here: in English notation D means diamonds and a queen is Q "
                   "(D is the queen, dama, only in Lithuanian notation)."),
        ("en", "V", "'V' is a Lithuanian rank letter, but this session writes cards in English notation: "
                    "use J, Q, K, A (or switch the session to Lithuanian notation)."),
        ("lt", "QS", "'QS': in Lithuanian notation suits are written as symbols or words "
                     "(♠ vynai, ♣ kryžiai, ♦ būgnai, ♥ širdys), never as single letters."),
        ("en", "1", "'1' is not a rank; ranks are 2-10, J Q K A (T = ten)."),
        ("en", "", "A card is missing (empty text)."),
        ("en", 7, "revealed must be a card or a rank written as text, not 7."),
        ("en", None, "revealed must be a card or a rank written as text, not None."),
        ("en", ["7H"], "revealed must be a card or a rank written as text, not ['7H']."),
    ],
)
def test_a_revealed_card_that_cannot_be_read_is_refused(notation: str, text: object, message: str) -> None:
    """Text that is not a card in the session's notation is refused with the reason."""
    assert refused(places(deal(3, notation=notation), 1), challenge(1, text)) == message


def test_a_challenge_with_nothing_placed_yet_is_refused() -> None:
    """A challenge needs a card placed since the start (the left-over cards are not a placed card)."""
    assert refused(deal(3), challenge(1, "A")) == (
        "No card has been placed since the start or the last pickup; there is nothing to challenge."
    )


def test_a_challenge_right_after_a_pickup_is_refused() -> None:
    """Once the pile is taken nothing is left to turn over until the next card is placed."""
    state = play(places(deal(3), 1), challenge(1, "A"))
    assert GAME.view(state)["can_challenge"] is False
    assert GAME.view(state)["challengers"] == []
    assert refused(state, challenge(2, "A")) == (
        "No card has been placed since the start or the last pickup; there is nothing to challenge."
    )


def test_nobody_challenges_their_own_card() -> None:
    """Only other players may turn the last card over."""
    state = places(deal(3), 2)
    assert refused(state, challenge(1, "2")) == "seat 1 placed the last card and cannot challenge it."


def test_a_challenger_must_be_a_seat() -> None:
    """``challenger`` is a seat number."""
    assert refused(places(deal(3), 1), challenge(5, "A")) == "challenger must be a seat from 0 to 2, not 5."


# -- going out ----------------------------------------------------------------------------------


def test_a_last_card_is_pending_until_it_stands() -> None:
    """A player who places their last card is not out yet: the card may still be challenged."""
    state = places(endgame(), 1)
    view = GAME.view(state)
    assert view["counts"] == [0, 1, 1, 1]
    assert view["pending_last"] == 0
    assert view["out"] == []
    assert view["can_stand"] is True
    assert view["challengers"] == [1, 2, 3]
    assert view["last"]["text"] == (
        "Seat 0 places a card and announces 10. That is seat 0's last card: it stands unless someone challenges it."
    )


def test_a_last_card_stands_when_the_next_card_is_placed() -> None:
    """The next place lets the pending last card stand: its owner is out."""
    state = places(endgame(), 2)
    view = GAME.view(state)
    assert view["out"] == [0]
    assert view["pending_last"] == 1
    assert view["last"]["went_out"] == [0]
    assert view["last"]["text"].startswith(
        "Seat 0's last card stands: seat 0 is out. Seat 1 places a card and announces J."
    )


def test_stands_confirms_that_nobody_challenges_a_last_card() -> None:
    """C2: the scorer may record that the last card stands; its owner is out at once."""
    state = play(places(endgame(), 1), STANDS)
    view = GAME.view(state)
    assert view["out"] == [0]
    assert view["pending_last"] is None
    assert view["can_stand"] is False
    assert view["turn"] == 1
    assert view["last"]["text"] == "Nobody challenges seat 0's last card: seat 0 is out."


def test_stands_is_refused_when_no_last_card_is_pending() -> None:
    """``stands`` is only for a player's last card."""
    message = "No last card is waiting; \"stands\" only records that nobody challenges a player's last card."
    assert refused(places(deal(3), 1), STANDS) == message
    assert refused(deal(3), STANDS) == message
    assert refused(play(places(endgame(), 1), STANDS), STANDS) == message


def test_a_last_card_that_stands_can_no_longer_be_challenged() -> None:
    """Once a last card stands (C2), its owner is out and the card stays."""
    state = play(places(endgame(), 1), STANDS)
    assert refused(state, challenge(1, "10")) == (
        "seat 0's last card already stands (seat 0 is out); it can no longer be challenged."
    )


def test_a_true_last_card_challenged_puts_its_owner_out() -> None:
    """Challenged and true: the challenger takes the pile and the placer is out."""
    state = play(places(endgame(), 1), challenge(2, "10S"))
    view = GAME.view(state)
    assert view["out"] == [0]
    assert view["counts"] == [0, 1, 1 + 49, 1]
    assert view["turn"] == 2
    assert view["last"]["text"] == (
        "Seat 2 challenged seat 0, who told the truth (announced 10, was a 10S); seat 2 takes 49 cards. "
        "That was seat 0's last card: seat 0 is out. Seat 2 starts again, announcing A."
    )


def test_a_lying_last_card_challenged_sends_its_owner_back_into_play() -> None:
    """Challenged and a lie: the placer takes the pile and plays on, starting with an ace."""
    state = play(places(endgame(), 1), challenge(2, "4"))
    view = GAME.view(state)
    assert view["out"] == []
    assert view["counts"] == [49, 1, 1, 1]
    assert view["turn"] == 0
    assert view["announce"] == "A"


def test_players_without_cards_are_skipped() -> None:
    """Play goes clockwise over the players still holding cards."""
    state = play(places(endgame(), 1), STANDS)  # seat 0 is out
    state = play(state, place(1), challenge(2, "J"))  # seat 1's last card was true: seat 1 is out, seat 2 takes
    state = places(state, 1)  # seat 2 announces A
    assert GAME.view(state)["out"] == [0, 1]
    assert refused(state, place(0)) == "seat 0 has no cards left; it is seat 3's turn to place a card and announce 2."
    state = places(state, 1)  # seat 3 places its last card
    assert GAME.turn(state) == 2  # seats 0 and 1 are skipped


def test_a_player_who_is_out_cannot_challenge() -> None:
    """Only players still in the deal may challenge."""
    state = places(play(places(endgame(), 1), STANDS), 1)
    assert refused(state, challenge(0, "J")) == "seat 0 is out of this deal and cannot challenge."


# -- the end ------------------------------------------------------------------------------------


def test_with_one_other_holder_a_pending_last_card_must_be_challenged_or_stand() -> None:
    """While a last card is pending and only one other player holds cards, that player may not place."""
    state = places(deal(2), 51)  # seat 0 placed 26, seat 1 placed 25 and holds one card; seat 0's last is pending
    view = GAME.view(state)
    assert view["pending_last"] == 0
    assert view["turn"] == 1
    assert view["can_place"] is False
    assert view["challengers"] == [1]
    assert view["last"]["text"].endswith("Seat 1 may only challenge it or let it stand.")
    message = (
        "seat 0's last card is waiting: seat 1, the only other player with cards, "
        "may only challenge it or let it stand."
    )
    assert refused(state, place(1)) == message
    assert refused(state, place(0)) == message


def test_the_last_player_holding_cards_loses() -> None:
    """When no last card is pending and only one player holds cards, that player is the apgavikas."""
    state = play(places(deal(2), 51), STANDS)
    view = GAME.view(state)
    assert view["finished"] is True
    assert view["loser"] == 1
    assert view["turn"] is None
    assert GAME.turn(state) is None
    assert view["can_challenge"] is False
    assert view["can_place"] is False
    assert view["last"]["text"] == (
        "Nobody challenges seat 0's last card: seat 0 is out. "
        "Seat 1 is left holding cards: the apgavikas, who loses the deal."
    )
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.points == (0, -1)
    assert outcome.placements == (1, 2)
    assert outcome.winners == (0,)


def test_a_true_last_card_challenged_by_the_only_other_holder_ends_the_deal() -> None:
    """The last other player challenges a true last card: they take the pile and lose."""
    state = play(places(deal(2), 51), challenge(1, "Q"))  # the 51st card announced a queen
    assert GAME.view(state)["loser"] == 1
    assert GAME.view(state)["counts"] == [0, 52]


def test_a_lying_last_card_caught_by_the_only_other_holder_plays_on() -> None:
    """The last other player catches a lie: the placer takes the pile and the deal goes on."""
    state = play(places(deal(2), 51), challenge(1, "3"))
    view = GAME.view(state)
    assert view["finished"] is False
    assert view["counts"] == [51, 1]
    assert view["turn"] == 0


def test_placement_is_by_order_of_going_out_and_the_loser_is_last() -> None:
    """1st out is placed 1st, and so on; the loser is last; -1 to the loser, 0 to the others."""
    state = places(endgame(), 1)  # seat 0's last card pending
    state = play(state, challenge(1, "3"))  # a lie: seat 0 takes 49 cards and starts again
    state = places(state, 1)  # seat 0 announces A; seat 1 places its last card (2), pending
    state = places(state, 1)
    state = play(state, STANDS)  # seat 1 out
    state = places(state, 2)  # seat 2 places its last card (3), seat 3 lets it stand by placing its last (4)
    state = play(state, challenge(0, "4"))  # true: seat 0 takes, seat 3 is out
    view = GAME.view(state)
    assert view["out"] == [1, 2, 3]
    assert view["loser"] == 0
    outcome = GAME.outcome(state)
    assert outcome is not None
    assert outcome.placements == (4, 1, 2, 3)
    assert outcome.points == (-1, 0, 0, 0)
    assert sum(outcome.points) == -1


def test_the_loser_deals_the_next_deal() -> None:
    """The apgavikas deals next (not the rotation)."""
    state = play(places(deal(2, dealer=1), 51), STANDS)
    assert GAME.view(state)["loser"] == 1
    assert GAME.next_dealer(state) == 1
    state = play(places(endgame(), 1), challenge(1, "3"), place(0), place(1), STANDS, place(2), place(3),
                 challenge(0, "4"))
    assert GAME.next_dealer(state) == 0
    assert GAME.view(state)["dealer"] == 3


def test_nothing_can_be_recorded_after_the_deal_ended() -> None:
    """Every entry after the end is refused."""
    state = play(places(deal(2), 51), STANDS)
    message = "This deal has ended; nothing more can be recorded in it."
    for entry in (place(1), place(0), challenge(1, "K"), STANDS):
        assert refused(state, entry) == message


def test_outcome_is_none_while_the_deal_runs() -> None:
    """No outcome before the loser is known."""
    assert GAME.outcome(places(deal(3), 10)) is None


# -- what the referee knows about revealed cards ------------------------------------------------------


def test_a_revealed_card_is_followed_to_the_seat_that_took_it() -> None:
    """Single deck: a card shown and taken by one seat cannot turn up from a seat that never got it since."""
    state = play(places(deal(3), 1), challenge(1, "9H"))  # seat 0 lied and takes the 9H
    state = places(state, 2)  # seat 0 (A), seat 1 (2)
    assert refused(state, challenge(2, "9H")) == (
        "9H cannot be the card seat 1 placed: it was shown earlier and since then only seat 0 can have held it."
    )
    state = play(state, challenge(2, "9S"))  # seat 1 lied with another nine and takes the pile
    state = places(state, 1)
    assert GAME.apply(state, challenge(2, "♥9")) is not None  # the 9H can have come to seat 1 with that pile


def test_a_bare_rank_whose_four_cards_are_all_elsewhere_is_refused() -> None:
    """Single deck: if all four cards of a rank were shown and none can have reached the placer, it is refused."""
    state = deal(3)
    placer, other = 0, 2
    for suit in "SHDC":
        # The placer lies and takes the nine shown, places an ace and the other seat takes that pile:
        # seat 1 never takes a pile, so no nine can reach it.
        state = play(state, place(placer), challenge(1, "9" + suit), place(placer), challenge(other, "A"))
        placer, other = other, placer
    state = places(state, 2)  # seat 0 (A), seat 1 (2)
    assert refused(state, challenge(2, "9")) == (
        "No 9 can be the card seat 1 placed: all four were shown earlier and none can have reached seat 1 since."
    )
    assert GAME.apply(state, challenge(2, "8")) is not None


def test_with_two_decks_the_twin_of_a_followed_card_may_turn_up_anywhere() -> None:
    """With a double deck every card has a twin: one copy followed says nothing of the other."""
    state = play(places(deal(6), 1), challenge(1, "9H"), place(0), place(1))
    assert GAME.view(play(state, challenge(2, "9H")))["last"]["revealed"] == "9H"


def test_with_two_decks_a_card_both_of_whose_copies_are_elsewhere_is_refused() -> None:
    """Both copies shown, neither able to reach the placer since: that card cannot be the one placed."""
    state = play(places(deal(6), 1), challenge(1, "AS"))  # true: seat 1 takes the AS
    state = play(state, place(1), place(2), challenge(3, "AS"))  # the other AS, a lie: seat 2 takes it back
    state = play(state, place(2), place(3))
    assert refused(state, challenge(4, "AS")) == (
        "AS cannot be the card seat 3 placed: both of its copies were shown earlier and since then only seat 1, "
        "seat 2 can have held them."
    )
    assert GAME.apply(state, challenge(4, "AC")) is not None
    # Seat 2 placed one card since it took the pile, so an AS can be in the pile seat 3 takes now.
    state = play(state, challenge(4, "KD"))
    state = places(state, 1)
    assert GAME.view(play(state, challenge(4, "AS")))["last"]["revealed"] == "AS"


def test_with_two_decks_a_bare_rank_all_eight_of_which_are_elsewhere_is_refused() -> None:
    """All eight cards of a rank followed, none able to reach the placer: a bare rank is refused too."""
    data = GAME.to_dict(places(deal(6), 1))
    data["seen"] = [{"card": "A" + suit, "seats": [1, 2]} for suit in "SCDH" for _ in range(2)]
    state = GAME.from_dict(data)
    assert refused(state, challenge(1, "A")) == (
        "No A can be the card seat 0 placed: all eight (two decks) were shown earlier and none can have reached "
        "seat 0 since."
    )
    assert refused(state, challenge(1, "AH")) == (
        "AH cannot be the card seat 0 placed: both of its copies were shown earlier and since then only seat 1, "
        "seat 2 can have held them."
    )
    assert GAME.apply(state, challenge(1, "K")) is not None


def test_one_joker_followed_says_nothing_of_the_other() -> None:
    """With two jokers, one shown and taken still leaves the other free to turn up anywhere."""
    state = play(places(deal(3, jokers=2), 1), challenge(1, "X"), place(1), place(2))
    assert GAME.view(play(state, challenge(0, "X")))["last"]["taker"] == 0


def test_a_joker_when_every_joker_is_elsewhere_is_refused() -> None:
    """Both jokers shown and neither able to reach the placer since: the card placed is no joker."""
    state = play(places(deal(3, jokers=2), 1), challenge(1, "X"))  # true: seat 1 takes the first joker
    state = play(state, place(1), place(2), challenge(0, "X"))  # the second, from seat 2: seat 0 takes the pile
    state = places(state, 3)  # seat 0 (A), seat 1 (2), seat 2 (3)
    assert refused(state, challenge(0, "X")) == (
        "No joker can be the card seat 2 placed: all 2 jokers were shown earlier and since then only seat 0, "
        "seat 1 can have held them."
    )
    assert GAME.apply(state, challenge(0, "3")) is not None


def test_a_joker_one_of_several_followed_copies_may_have_been() -> None:
    """When the placer could hold either followed joker, the one shown goes to the taker and the other can be
    wherever either could: a later joker from any of those seats stands."""
    state = play(places(deal(3, jokers=2), 1), challenge(1, "X"))  # J1 with seat 1
    state = play(state, place(1), place(2), challenge(0, "X"))  # J2 with seat 0; J1 with seat 0 or 1
    state = play(state, place(0), challenge(1, "X"))  # seat 0 shows one of them; seat 1 takes it
    state = play(state, place(1), place(2), place(0))
    assert GAME.view(play(state, challenge(1, "X")))["last"]["revealed"] == "X"


# -- snapshots and the tablet's view ---------------------------------------------------------------


def test_snapshot_round_trip_is_json_and_exact() -> None:
    """to_dict is JSON-safe, carries game and version, and from_dict restores the same state."""
    state = play(places(deal(3, jokers=2, notation="lt"), 1), challenge(1, "9 širdys"), place(0), place(1))
    data = json.loads(json.dumps(GAME.to_dict(state)))
    assert data["game"] == "cheat"
    assert data["version"] == 1
    assert GAME.from_dict(data) == state


def test_view_lists_what_the_tablet_needs() -> None:
    """The view carries whose turn, the rank to announce, counts, pile, who is out and who may challenge."""
    view = GAME.view(places(deal(3), 2))
    assert json.loads(json.dumps(view)) == view
    assert view == {
        "game": "cheat", "players": 3, "dealer": 2, "first_player": 0, "finished": False, "turn": 2,
        "outcome": None,
        "last": {
            "type": "place", "text": "Seat 1 places a card and announces 2.", "player": 1, "announced": "2",
            "challenger": None, "revealed": None, "truthful": None, "taker": None, "taken": 0, "went_out": [],
            "loser": None,
        },
        "jokers": 0, "deck": 52, "announce": "3", "last_announced": "2", "last_placer": 1,
        "counts": [16, 16, 17], "pile": 3, "out": [], "pending_last": None, "can_place": True,
        "can_stand": False, "can_challenge": True, "challengers": [0, 2], "loser": None,
    }


def test_view_of_a_finished_deal_has_the_outcome() -> None:
    """A finished deal shows points, placements and winners."""
    view = GAME.view(play(places(deal(2), 51), STANDS))
    assert view["outcome"] == {"points": [0, -1], "placements": [1, 2], "winners": [0]}


def test_a_revealed_value_too_large_to_print_is_refused_cleanly() -> None:
    """A number with more digits than repr() will write is named, not crashed on."""
    state = places(deal(3), 1)
    assert refused(state, challenge(1, 10**5000)) == (
        "revealed must be a card or a rank written as text, not an enormous number."
    )
