"""Elgeta: the seed's worked examples, one test per rule and house rule, and every refusal.

Mid-deal positions are written as snapshots (``from_dict`` without a "projection" works the
forecast out), always holding every card of the deal so that they could really occur.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee.rules import GAMES, InvalidSetup
from referee.rules.cards import Card
from referee.rules.elgeta import ElgetaState, ExpectedCard, trick_taker
from referee.rules.elgeta_forecast import Cycle, Ending, Forecast, play_out
from tests.rules.refusals import refusal

G = GAMES["elgeta"]
SEED_OPTIONS = {"suits": ["S", "D", "H", "C"]}
RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]


def seed_deal() -> ElgetaState:
    """The seed's table: seats A B C D = 0 1 2 3 holding S D H C, dealer 3, so A leads."""
    return G.new_deal(players=4, dealer=3, options=SEED_OPTIONS)


def trick(*rounds: list[str | None]) -> dict[str, Any]:
    return {"type": "trick", "rounds": [list(r) for r in rounds]}


def suit(letter: str) -> list[str]:
    return [rank + letter for rank in RANKS]


def position(
    piles: list[list[str]],
    *,
    suits: list[str],
    fill: int,
    leader: int = 0,
    out_at: list[int | None] | None = None,
    initial: list[list[str]] | None = None,
    tricks: int = 40,
    **options: Any,
) -> ElgetaState:
    """A mid-deal position: ``piles[seat]`` are captured cards in order (top first); every card
    of the deal not listed anywhere goes, in deck order, under seat ``fill``'s pile."""
    players = len(piles)
    initial = initial or [[] for _ in piles]
    listed = {card for pile in piles + initial for card in pile}
    rest = [card for letters in suits for letter in letters for card in suit(letter) if card not in listed]
    piles = [list(pile) for pile in piles]
    piles[fill] += rest
    data = {
        "game": "elgeta", "version": 1, "players": players, "dealer": (leader - 1) % players,
        "options": {"suits": suits, "all_aces": True, "strict_order": True, "notation": "en", **options},
        "piles": [{"initial": sorted(initial[seat]), "captured": piles[seat]} for seat in range(players)],
        "leader": leader, "tricks": tricks,
        "out_at": out_at or [None] * players,
        "table": [], "last": None, "result": None,
    }
    return G.from_dict(data)


def refused(state: ElgetaState, entry: object, message: str) -> None:
    assert refusal(G, state, entry) == message


def play(state: ElgetaState, *entries: dict[str, Any]) -> ElgetaState:
    for entry in entries:
        state = G.apply(state, entry)
    return state


# -- the seed's worked examples -------------------------------------------------------------------


def test_seed_example_a_ace_takes() -> None:
    """QS 10D 4H AC -> D takes."""
    state = G.apply(seed_deal(), trick(["QS", "10D", "4H", "AC"]))
    view = G.view(state)
    assert view["last"]["taker"] == 3
    assert view["last"]["text"] == "Seat 3 takes 4 cards with the AC."
    assert view["leader"] == view["turn"] == 3
    assert view["counts"] == [12, 12, 12, 16]
    assert state.piles[3].captured == tuple(Card(r, s) for r, s in [(12, "S"), (10, "D"), (4, "H"), (14, "C")])


def test_seed_example_b_tie_below_the_top_does_not_matter() -> None:
    """9S 9D 5H QC -> D takes: a tie that is not for the highest rank changes nothing."""
    state = G.apply(seed_deal(), trick(["9S", "9D", "5H", "QC"]))
    assert G.view(state)["last"]["taker"] == 3
    assert G.view(state)["last"]["rounds"] == [["9S", "9D", "5H", "QC"]]


def test_seed_example_c_tie_of_aces_then_queen_takes_all_eight() -> None:
    """JS AD AH 4C, tie of aces, then 6S 7D 9H QC -> D takes all eight."""
    state = G.apply(seed_deal(), trick(["JS", "AD", "AH", "4C"], ["6S", "7D", "9H", "QC"]))
    view = G.view(state)
    assert view["last"]["taker"] == 3
    assert view["last"]["cards"] == 8
    assert view["last"]["text"] == "Seat 3 takes 8 cards after a tie of aces."
    assert view["counts"] == [11, 11, 11, 19]
    assert [card.text for card in state.piles[3].captured] == ["JS", "AD", "AH", "4C", "6S", "7D", "9H", "QC"]


# -- one test per rule --------------------------------------------------------------------------


def test_first_player_leads_the_first_trick() -> None:
    """The first player (the seat after the dealer) leads the first trick."""
    state = G.new_deal(players=3, dealer=1)
    view = G.view(state)
    assert view["first_player"] == view["leader"] == view["turn"] == 2
    refused(state, trick(["2S", "2C", "2D"]), "The 2S is not in seat 2's pile.")
    state = G.apply(state, trick(["2D", "3S", "4C"]))
    assert G.view(state)["last"]["order"] == [2, 0, 1]
    assert G.view(state)["leader"] == 1


def test_suits_never_matter_only_ranks() -> None:
    """The highest rank takes; between equal ranks no suit is better."""
    assert trick_taker([[Card(13, "S"), Card(12, "H")]]) == 0
    assert trick_taker([[Card(9, "S"), Card(9, "D"), Card(5, "H")]]) is None
    state = G.apply(seed_deal(), trick(["KS", "KD", "2H", "3C"], ["2S", "3D", "4H", "5C"]))
    assert G.view(state)["last"]["taker"] == 3


def test_tie_break_every_player_still_in_adds_a_card() -> None:
    """In a tie for the highest rank every player still in, not only the tied ones, adds a card."""
    state = seed_deal()
    refused(
        state, trick(["JS", "AD", "AH", "4C"], ["7D", "9H"]),
        "Round 2 has no card from seat 2, seat 3: it needs one per player still in, in play order "
        "seat 0, seat 1, seat 2, seat 3.",
    )
    refused(
        state, trick(["JS", "AD", "AH", "4C"]),
        "Round 1 is a tie (AD, AH), so every player still in adds one more card: round 2 is missing.",
    )


def test_highest_new_card_takes_all_even_if_lower_than_the_tie() -> None:
    """Repeated ties: only the last round counts; its highest card takes everything on the table."""
    state = G.apply(seed_deal(), trick(["AS", "AD", "2H", "3C"], ["KS", "4D", "KH", "5C"], ["2S", "3D", "4H", "6C"]))
    view = G.view(state)
    assert view["last"]["taker"] == 3
    assert view["last"]["cards"] == 12
    assert view["last"]["ties"] == [14, 13]
    assert view["last"]["text"] == "Seat 3 takes 12 cards after ties of aces and kings."


def test_captured_cards_come_back_in_play_order() -> None:
    """Captured cards go under the taker's pile round by round, each round from the leader,
    and come back exactly in that order once the player's own pile is played through."""
    order = ["JS", "AD", "AH", "4C", "6S", "7D", "9H", "QC"]
    state = position([[], [], [], order], suits=["S", "D", "H", "C"], fill=0, leader=3,
                     out_at=[None, 39, 39, None])
    assert G.expected(state)[3] == ExpectedCard(Card(11, "S"), frozenset({Card(11, "S")}))
    refused(
        state, trick(["AD", "2S"]),
        "seat 3's next card is the JS, not the AD: captured cards come back in the order they were played.",
    )
    state = G.apply(state, trick(["JS", "2S"]))
    assert G.view(state)["expected"][3] == {"exact": "AD"}


def test_players_out_are_skipped() -> None:
    """A player with no cards after a trick is out; later tricks skip them."""
    state = position([["3S", "AS"], ["2C"], ["KD"]], suits=["S", "C", "D"], fill=0, leader=1)
    state = G.apply(state, trick(["2C", "KD", "3S"]))
    view = G.view(state)
    assert view["in"] == [0, 2]
    assert view["last"]["out"] == [1]
    assert view["last"]["text"] == "Seat 2 takes 3 cards with the KD. Seat 1 is out."
    assert state.out_at == (None, 41, None)
    refused(
        state, trick(["2D", "x", "AS"]),
        "Round 1 lists 3 cards, but only 2 players are still in, in play order seat 2, seat 0.",
    )
    state = G.apply(state, trick(["2C", "AS"]))
    assert G.view(state)["leader"] == 0


def test_last_player_holding_cards_wins() -> None:
    """The last player holding cards wins; players out earlier are ranked by when they went out."""
    state = position([["KS", "AS"], ["2C"], []], suits=["S", "C", "D"], fill=0, leader=0, out_at=[None, None, 30])
    state = G.apply(state, trick(["KS", "2C"]))
    outcome = G.outcome(state)
    assert outcome is not None
    assert outcome.points == (1, 0, 0)
    assert outcome.placements == (1, 2, 3)
    assert outcome.winners == (0,)
    assert G.view(state)["last"]["text"] == "Seat 0 takes 2 cards with the KS. Seat 1 is out. " \
        "Seat 0 holds every card and wins the deal."
    refused(state, trick(["AS"]), "This deal has ended; nothing more can be recorded in it.")


def test_players_out_in_the_same_trick_share_a_place() -> None:
    """Players out in the same trick share a place (competition ranking: 1, 2, 3, 3)."""
    state = position([["AS", "KS"], ["2C"], ["3D"], ["4H", "QH"]], suits=["S", "C", "D", "H"], fill=0, all_aces=False)
    state = G.apply(state, trick(["AS", "2C", "3D", "4H"]))
    assert G.view(state)["last"]["out"] == [1, 2]
    assert G.view(state)["last"]["text"].endswith("Seat 1 and seat 2 are out.")
    state = G.apply(state, trick(["KS", "QH"]))
    outcome = G.outcome(state)
    assert outcome is not None
    assert outcome.placements == (1, 3, 3, 2)
    assert outcome.points == (1, 0, 0, 0)


def test_e1_drop_a_player_with_no_card_adds_null() -> None:
    """E1: a player with nothing to add in a tie-break round adds null; the added cards decide."""
    state = position([["AS"], ["AH", "5H"], [], []], suits=["S", "C", "D", "H"], fill=1, out_at=[None, None, 3, 3])
    refused(
        state, trick(["AS", "AH"], ["2S", "5H"]),
        "seat 0 has no cards left to add in round 2: write null for them.",
    )
    state = G.apply(state, trick(["AS", "AH"], [None, "5H"]))
    outcome = G.outcome(state)
    assert outcome is not None and outcome.winners == (1,)
    assert G.view(state)["last"]["rounds"] == [["AS", "AH"], [None, "5H"]]


def test_e1_null_only_for_a_player_with_no_cards() -> None:
    """E1: null is refused from a player who still has cards (in any round)."""
    state = seed_deal()
    refused(
        state, trick(["JS", None, "AH", "4C"]),
        "seat 1 still has cards, so they add one in round 1; null is only for a player with nothing left to add.",
    )


def test_e1_all_null_round_is_a_draw_among_players_still_in() -> None:
    """E1: if nobody can add a card the trick ends with an all-null round and the deal is a draw
    among the players still in; the cards stay on the table."""
    state = G.new_deal(players=2, dealer=1, options={"suits": ["SC", "HD"]})
    black = [card for rank in RANKS for card in (rank + "S", rank + "C")]
    red = [card for rank in RANKS for card in (rank + "H", rank + "D")]
    rounds = [[b, r] for b, r in zip(black, red, strict=True)]
    refused(
        state, trick(*rounds),
        "Round 26 is a tie (AC, AD), so every player still in adds one more card: round 27 is missing.",
    )
    refused(
        state, trick(*rounds, [None, None], [None, None]),
        "Nobody added a card in round 27, so the trick ended there; round 28 cannot follow.",
    )
    state = G.apply(state, trick(*rounds, [None, None]))
    outcome = G.outcome(state)
    assert outcome is not None
    assert outcome.points == (0, 0)
    assert outcome.placements == (1, 1)
    assert outcome.winners == (0, 1)
    view = G.view(state)
    assert view["last"]["taker"] is None
    assert view["last"]["text"] == (
        "Nobody could add a card after 26 tied rounds. The deal is a draw between seat 0 and seat 1."
    )
    assert len(view["table"]) == 52
    assert view["counts"] == [0, 0]


def _all_aces_position(**options: Any) -> ElgetaState:
    # Seat 0 holds three aces; the fourth comes to it through a tie-break.
    return position(
        [["AS", "KS", "AH", "AD"], ["AC", "2C", "3C", "4C", "5C"], ["3D", "4D", "5D"], ["4H", "5H"]],
        suits=["S", "C", "D", "H"], fill=3, **options,
    )


def test_e2_all_aces_ends_the_deal_at_once() -> None:
    """E2 (default on): a player holding every ace in play after a trick wins at once; the others
    still in are ranked by the cards they hold (more is better)."""
    state = G.apply(_all_aces_position(), trick(["AS", "AC", "3D", "4H"], ["KS", "2C", "4D", "5H"]))
    outcome = G.outcome(state)
    assert outcome is not None
    assert outcome.points == (1, 0, 0, 0)
    assert outcome.winners == (0,)
    counts = G.view(state)["counts"]
    assert counts[3] > counts[1] > counts[2]
    assert outcome.placements == (1, 3, 4, 2)
    assert G.view(state)["ending"] == "all_aces"
    assert G.view(state)["last"]["text"].endswith("Seat 0 holds every ace and wins the deal.")


def test_e2_off_play_goes_on() -> None:
    """E2 off: holding every ace ends nothing; play goes on."""
    state = G.apply(_all_aces_position(all_aces=False), trick(["AS", "AC", "3D", "4H"], ["KS", "2C", "4D", "5H"]))
    assert G.outcome(state) is None
    assert G.view(state)["turn"] == 0


def test_e2_counts_only_the_aces_in_play() -> None:
    """E2 with 3 players: the left-out suit's ace is not in play, so three aces are every ace."""
    state = position([["AS", "KS", "AH"], ["AD", "2D", "3D"], ["3H", "4H"]], suits=["S", "D", "H"], fill=2)
    state = G.apply(state, trick(["AS", "AD", "3H"], ["KS", "2D", "4H"]))
    outcome = G.outcome(state)
    assert outcome is not None and outcome.winners == (0,)


# -- E3: a proven cycle --------------------------------------------------------------------------

# Three players, seat 2 already out, seat 1 holding one ace: seat 0 leads the low card of a
# pair, the ace takes it; seat 1 leads that card back and seat 0's higher card takes it. Seat 0's
# pile turns by two cards every two tricks, so the position recurs after 38 tricks.
PAIRS = [("2", "3")] * 3 + [("4", "5")] * 3 + [("6", "7")] * 3 + [("8", "9")] * 3 + [("10", "J")] * 3 \
    + [("Q", "K")] * 2 + [("Q", "A"), ("K", "A")]


def cycle_position() -> ElgetaState:
    seen: dict[str, int] = {}
    cards = []
    for low, high in PAIRS:
        for rank in (low, high):
            letter = "SCD"[seen.get(rank, 0)] if rank != "A" else "SC"[seen.get(rank, 0)]
            seen[rank] = seen.get(rank, 0) + 1
            cards.append(rank + letter)
    return position([cards, ["AD"], []], suits=["S", "C", "D"], fill=0, out_at=[None, None, 12], tricks=50)


def test_e3_cycle_is_proven_and_finish_closes_it_as_a_draw() -> None:
    """E3: when the same piles and leader recur the deal never ends; the forecast shows the cycle and
    `finish` closes the deal as a draw among the players still in (the others ranked by when out)."""
    state = cycle_position()
    forecast = G.forecast(state)
    assert forecast == Forecast(Ending.CYCLE, None, (0, 1), 38, Cycle(38, 0), (1, 1, 3))
    assert G.view(state)["forecast"] == {
        "determined": True, "settled": True, "ending": "cycle", "winner": None, "winners": [0, 1], "tricks": 38,
        "cycle": {"length": 38, "starts_after": 0}, "placements": [1, 1, 3],
    }
    finished = G.apply(state, {"type": "finish"})
    outcome = G.outcome(finished)
    assert outcome is not None
    assert outcome.points == (0, 0, 0)
    assert outcome.placements == (1, 1, 3)
    assert outcome.winners == (0, 1)
    assert G.view(finished)["last"] == {
        "kind": "finish", "ending": "cycle", "winner": None,
        "text": "Finished from the forecast. The deal repeats for ever: a draw between seat 0 and seat 1.",
    }


def test_e3_cycle_recurs_when_played_through_the_referee() -> None:
    """E3: playing the forced tricks through `apply` brings back exactly the same piles and leader."""
    start = cycle_position()
    state = start
    for _ in range(38):
        expected = G.expected(state)
        order = [state.leader, 1 - state.leader]
        state = G.apply(state, trick([expected[seat].exact.text for seat in order]))  # type: ignore[union-attr]
        forecast = G.forecast(state)
        assert forecast is not None and forecast.cycle == Cycle(38, 0)
    assert state.piles == start.piles and state.leader == start.leader
    assert state.tricks == start.tricks + 38


def test_forecast_of_a_cycle_with_a_lead_in() -> None:
    """A cycle reached after some tricks: the forecast says after how many it starts, and the
    players who go out before it are ranked by when."""
    piles = [bytearray([8, 5, 6, 5]), bytearray([2]), bytearray([3, 7])]
    projection = play_out(piles, 0, [None, None, None], 20, all_aces=False, aces=3)
    assert projection.result is not None
    assert projection.result.ending is Ending.CYCLE
    assert projection.result.first == (0, 2)
    assert projection.result.placements == (1, 3, 1)
    assert (projection.cycle_start, projection.cycle_length, projection.until) == (21, 6, 27)


# -- E4: strict order off ------------------------------------------------------------------------


def test_e4_off_captured_cards_in_any_order() -> None:
    """E4 off: the referee only checks that a card is one the player holds, and offers no forecast."""
    state = G.new_deal(players=2, dealer=0, options={"strict_order": False})
    state = G.apply(state, trick(["AS", "2H"]))
    assert state.leader == 1
    refused(state, trick(["3D", "3H"]), "seat 1 does not hold the 3D.")
    refused(state, trick(["2H", "2H"]), "The 2H is already on the table in this trick.")
    blacks = frozenset(Card(rank, letter) for letter in "SC" for rank in range(2, 15))
    assert G.expected(state)[1].possible == blacks | {Card(2, "H")}
    # Seat 1 may turn its captured 2H while its own pile still has cards.
    state = G.apply(state, trick(["2H", "3H"]))
    assert G.view(state)["last"]["taker"] == 0
    assert G.forecast(state) is None
    refused(
        state, {"type": "finish"},
        "With strict order (E4) off the referee cannot foresee the rest of the deal, so it cannot be "
        "finished early: record its tricks.",
    )


def test_e4_off_refuses_a_card_already_turned() -> None:
    """E4 off: a player's own card already turned and not captured back is refused."""
    state = G.new_deal(players=2, dealer=0, options={"strict_order": False})
    state = G.apply(state, trick(["AS", "2H"]))
    refused(state, trick(["KS", "2H"]), "seat 0 has already turned the 2H.")


def test_e4_on_own_pile_before_captured_cards() -> None:
    """E4 on: while a player's own pile has cards, a captured card cannot come up yet."""
    state = G.new_deal(players=2, dealer=0)
    state = G.apply(state, trick(["AS", "2H"]))
    refused(
        state, trick(["2H", "3D"]),
        "seat 1 cannot turn the 2H yet: captured cards come up only after their own pile, which still holds "
        "25 cards.",
    )


# -- options -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("players", "suits"),
    [(2, ["HD", "SC"]), (3, ["S", "C", "D"]), (4, ["S", "C", "D", "H"])],
)
def test_suits_default_by_player_count(players: int, suits: list[str]) -> None:
    """Option suits defaults: 2 players HD/SC, 3 players S C D (hearts left out), 4 players S C D H."""
    state = G.new_deal(players=players, dealer=0)
    view = G.view(state)
    assert view["options"]["suits"] == suits
    assert view["counts"] == [52 // len(suits) if players != 3 else 13] * players
    assert view["initial_left"] == view["counts"]


def test_suits_option_custom() -> None:
    """Option suits: the table may choose who holds which suit(s)."""
    state = G.new_deal(players=3, dealer=2, options={"suits": ["H", "S", "C"]})
    assert G.expected(state)[0].possible == frozenset(Card(rank, "H") for rank in range(2, 15))
    refused(state, trick(["2D", "2S", "3C"]), "The 2D is not in this deal: its suit was left out.")
    state = G.new_deal(players=2, dealer=0, options={"suits": ["CS", "DH"]})
    assert G.view(state)["counts"] == [26, 26]


@pytest.mark.parametrize(
    ("players", "suits", "message"),
    [
        (4, "SCDH", "Option suits must be a list with one entry per seat, e.g. [\"S\", \"C\", \"D\", \"H\"]."),
        (4, ["S", "C", "D"], "Option suits must list 4 entries, one per seat; it lists 3."),
        (4, ["S", "C", "D", "S"], "Option suits: the S suit is given to both seat 0 and seat 3."),
        (3, ["S", "X", "D"], "Option suits: seat 1 must hold one suit written as a letter S, C, D or H, not 'X'."),
        (3, ["S", "♠", "D"], "Option suits: seat 1 must hold one suit written as a letter S, C, D or H, not '♠'."),
        (3, ["S", "CD", "H"], "Option suits: seat 1 must hold one suit written as a letter S, C, D or H, not 'CD'."),
        (3, ["S", 4, "H"], "Option suits: seat 1 must hold one suit written as a letter S, C, D or H, not 4."),
        (2, ["H", "SC"], "Option suits: seat 0 must hold two different suits written as letters S, C, D, H "
                         "(e.g. \"HD\"), not 'H'."),
        (2, ["HH", "SC"], "Option suits: seat 0 must hold two different suits written as letters S, C, D, H "
                          "(e.g. \"HD\"), not 'HH'."),
        (2, ["HS", "DC"], "Option suits: with 2 players one seat holds both red suits (HD) and the other both "
                          "black suits (SC)."),
        (2, ["HD", "HC"], "Option suits: the H suit is given to both seat 0 and seat 1."),
    ],
)
def test_suits_option_refused(players: int, suits: object, message: str) -> None:
    """Option suits: one entry per seat, suit letters, disjoint; 2 players hold two suits each, red/black."""
    with pytest.raises(InvalidSetup) as err:
        G.new_deal(players=players, dealer=0, options={"suits": suits})
    assert str(err.value) == message


@pytest.mark.parametrize("key", ["all_aces", "strict_order"])
def test_boolean_options_refuse_other_values(key: str) -> None:
    """Options all_aces (E2) and strict_order (E4) are true or false."""
    with pytest.raises(InvalidSetup) as err:
        G.new_deal(players=4, dealer=0, options={key: "yes"})
    assert str(err.value) == f"Option {key} must be true or false."


def test_unknown_option_and_player_counts() -> None:
    """2 to 4 players; options are suits, all_aces, strict_order and notation."""
    for players in (2, 3, 4):
        assert G.seats(G.new_deal(players=players, dealer=players - 1)) == (players, players - 1)
    for players in (1, 5):
        with pytest.raises(InvalidSetup) as err:
            G.new_deal(players=players, dealer=0)
        assert str(err.value) == f"Elgeta is played by 2 to 4 players, not {players}."
    with pytest.raises(InvalidSetup) as err:
        G.new_deal(players=4, dealer=0, options={"drop": True})
    assert str(err.value) == (
        "Unknown option drop for Elgeta; the valid options are all_aces, deck, notation, strict_order, suits."
    )


def test_option_defaults() -> None:
    """Defaults: E5 the full 52-card deck, E2 all_aces on, E4 strict_order on, English notation."""
    options = G.view(G.new_deal(players=4, dealer=0))["options"]
    assert options == {
        "deck": 52, "suits": ["S", "C", "D", "H"], "all_aces": True, "strict_order": True, "notation": "en",
    }


def test_lithuanian_notation() -> None:
    """notation lt: D is the queen (dama), T the ace (tūzas); suits as symbols or words."""
    state = G.new_deal(players=4, dealer=3, options={"suits": ["S", "D", "H", "C"], "notation": "lt"})
    state = G.apply(state, trick(["D♠", "10♦", "4 širdys", "♣T"]))
    view = G.view(state)
    assert view["last"]["rounds"] == [["QS", "10D", "4H", "AC"]]
    assert view["last"]["text"] == "Seat 3 takes 4 cards with the T♣."
    refused(
        state, trick(["QS", "2D", "2H", "2C"]),
        "'QS': in Lithuanian notation suits are written as symbols or words (♠ vynai, ♣ kryžiai, ♦ būgnai, "
        "♥ širdys), never as single letters.",
    )


# -- expected cards and the forecast ---------------------------------------------------------------


def test_expected_before_and_after_the_own_pile() -> None:
    """Before a player has played through their own pile the referee knows the set of cards they
    may turn; afterwards the exact next card."""
    state = seed_deal()
    expected = G.expected(state)
    assert expected[0] == ExpectedCard(None, frozenset(Card(rank, "S") for rank in range(2, 15)))
    state = G.apply(state, trick(["QS", "10D", "4H", "AC"]))
    assert Card(12, "S") not in G.expected(state)[0].possible
    assert G.view(state)["expected"][0]["possible"][:3] == ["2S", "3S", "4S"]
    # Seat 3 plays its own pile through, then its captured cards come back in order.
    state = position([["2S", "3S"], ["2D", "3D"], ["2H", "3H"], ["KC", "AC"]], suits=["S", "D", "H", "C"], fill=3,
                     leader=3, initial=[[], [], [], ["5C"]], all_aces=False)
    assert G.expected(state)[3] == ExpectedCard(Card(5, "C"), frozenset({Card(5, "C")}))
    assert G.forecast(state) is None
    state = G.apply(state, trick(["5C", "2S", "2D", "2H"]))
    assert G.expected(state)[3].exact == Card(13, "C")
    assert G.forecast(state) is not None


def test_expected_for_players_out_and_after_the_end() -> None:
    """Players out have no expected card (None in the view); a finished deal expects nothing."""
    state = position([["AS", "KS"], ["2C"], ["3D"], ["4H", "QH"]], suits=["S", "C", "D", "H"], fill=0, all_aces=False)
    state = G.apply(state, trick(["AS", "2C", "3D", "4H"]))
    assert G.view(state)["expected"][1] is None
    assert set(G.expected(state)) == {0, 3}
    state = G.apply(state, trick(["KS", "QH"]))
    assert G.expected(state) == {}
    assert G.view(state)["turn"] is None
    assert G.view(state)["forecast"] is None


def test_forecast_winner_and_tricks_then_finish() -> None:
    """Once every player still in has played through their own pile the referee forecasts the rest
    (winner, further tricks, placements); `finish` applies that forecast."""
    state = position([["KS", "AS"], ["2C"], ["3D"], ["4H"]], suits=["S", "C", "D", "H"], fill=0, all_aces=False)
    forecast = G.forecast(state)
    assert forecast is not None
    assert (forecast.ending, forecast.winner, forecast.tricks, forecast.cycle) == (Ending.LAST_PLAYER, 0, 1, None)
    assert forecast.placements == (1, 2, 2, 2)
    finished = G.apply(state, {"type": "finish"})
    played = G.apply(state, trick(["KS", "2C", "3D", "4H"]))
    assert G.outcome(finished) == G.outcome(played)
    assert G.view(finished)["last"]["text"] == (
        "Finished from the forecast. Seat 0 holds every card and wins the deal."
    )


def test_finish_refused_until_determined() -> None:
    """`finish` is refused while some player still in has their own pile to play through."""
    state = seed_deal()
    refused(
        state, {"type": "finish"},
        "The rest of the deal is not determined yet: seat 0, seat 1, seat 2, seat 3 must first play through "
        "their own pile.",
    )
    refused(state, {"type": "finish", "now": True}, "The finish entry does not take now.")


def test_finish_refused_beyond_the_horizon(monkeypatch: pytest.MonkeyPatch) -> None:
    """A forecast that neither ends nor repeats within its horizon cannot be finished yet."""
    from referee.rules import elgeta

    monkeypatch.setattr(elgeta, "FORECAST_HORIZON", 5)
    state = cycle_position()
    forecast = G.forecast(state)
    assert forecast is not None and not forecast.settled and forecast.tricks == 5
    assert G.view(state)["forecast"]["placements"] is None
    refused(
        state, {"type": "finish"},
        "The referee has simulated the next 5 tricks and the deal neither ends nor repeats within them, so "
        "it cannot be finished yet.",
    )
    # Once play reaches the horizon the referee looks again.
    for _ in range(5):
        expected = G.expected(state)
        order = [state.leader, 1 - state.leader]
        state = G.apply(state, trick([expected[seat].exact.text for seat in order]))  # type: ignore[union-attr]
    forecast = G.forecast(state)
    assert forecast is not None and forecast.tricks == 5 and not forecast.settled


# -- refusals --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("trick", "An entry must be an object with a \"type\"."),
        ({"type": "play"}, "Unknown entry type 'play'; this game records trick, finish."),
        ({"type": "trick"}, "The trick entry needs rounds."),
        ({"type": "trick", "rounds": [], "by": 1}, "The trick entry does not take by."),
        ({"type": "trick", "rounds": [], 1: 1}, "The fields of an entry must be named by text."),
        ({"type": "trick", "rounds": "QS 10D"}, "rounds must be a list."),
        ({"type": "trick", "rounds": []}, "A trick needs at least one round of cards."),
        ({"type": "trick", "rounds": ["QS"]}, "Round 1 must be a list of cards, one per player still in."),
        ({"type": "trick", "rounds": [[]]},
         "Round 1 has no card from seat 0, seat 1, seat 2, seat 3: it needs one per player still in, in play "
         "order seat 0, seat 1, seat 2, seat 3."),
        ({"type": "trick", "rounds": [["QS", "10D", "4H", "AC", "2S"]]},
         "Round 1 lists 5 cards, but only 4 players are still in, in play order seat 0, seat 1, seat 2, seat 3."),
        ({"type": "trick", "rounds": [["QS", 10, "4H", "AC"]]},
         "A card must be written as text (e.g. \"QS\"), not 10."),
        ({"type": "trick", "rounds": [["QS", "1D", "4H", "AC"]]},
         "'1' is not a rank; ranks are 2-10, J Q K A (T = ten)."),
        ({"type": "trick", "rounds": [["QS", "X", "4H", "AC"]]}, "There are no jokers in this deal."),
        ({"type": "trick", "rounds": [["QS", "QS", "4H", "AC"]]}, "The QS is already on the table in this trick."),
        ({"type": "trick", "rounds": [["QS", "10S", "4H", "AC"]]}, "The 10S is not in seat 1's pile."),
        ({"type": "trick", "rounds": [["QS", "10D", "4H", "AC"], ["2S", "3D", "5H", "6C"]]},
         "Round 1 is already decided (seat 3 takes with the AC), so round 2 cannot follow."),
    ],
)
def test_refusals_at_the_first_trick(entry: object, message: str) -> None:
    """Every malformed or impossible trick is refused with a message for the table; nothing changes."""
    refused(seed_deal(), entry, message)


def test_refused_card_already_turned() -> None:
    """A player's own card cannot be turned twice."""
    state = G.apply(seed_deal(), trick(["9S", "9D", "5H", "QC"]))
    refused(state, trick(["2C", "9S", "2D", "2H"]), "seat 0 has already turned the 9S.")


def test_refused_after_the_end() -> None:
    """Nothing can be recorded after the deal ended, not even `finish`."""
    state = G.apply(cycle_position(), {"type": "finish"})
    refused(state, {"type": "finish"}, "This deal has ended; nothing more can be recorded in it.")
    refused(state, trick(["2S", "AD"]), "This deal has ended; nothing more can be recorded in it.")


# -- view and snapshots ---------------------------------------------------------------------------


def test_view_keys() -> None:
    """The tablet's view names whose turn it is, who is in, counts, expected cards and the forecast."""
    view = G.view(seed_deal())
    assert {
        "game", "players", "dealer", "first_player", "finished", "turn", "outcome", "last", "leader", "in",
        "counts", "initial_left", "tricks", "expected", "forecast",
    } <= set(view)
    assert view["last"] is None and view["outcome"] is None and view["forecast"] is None
    assert view["in"] == [0, 1, 2, 3] and view["tricks"] == 0
    json.dumps(view)


def test_snapshot_round_trip() -> None:
    """to_dict is JSON-safe with game and version; from_dict gives back the same state."""
    for state in (seed_deal(), cycle_position(), G.apply(cycle_position(), {"type": "finish"})):
        data = json.loads(json.dumps(G.to_dict(state)))
        assert data["game"] == "elgeta" and data["version"] == 1
        assert G.from_dict(data) == state
    with pytest.raises(ValueError):
        G.from_dict({"game": "rukas", "version": 1})


def test_a_card_value_too_large_to_print_is_refused_cleanly() -> None:
    """A number with more digits than repr() will write is named, not crashed on."""
    refused(seed_deal(), {"type": "trick", "rounds": [[10**5000, "KD", "2H", "3C"]]},
            "A card must be written as text (e.g. \"QS\"), not an enormous number.")
