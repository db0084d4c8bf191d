"""High card: a sixth game that exists only for the tests, to prove that a game is one room.

Rules: 2 to 6 players; each trick, every player turns one card (ranks only, in seat order);
the single highest rank takes the trick, and when the highest rank is turned by two or more
players nobody does. A deal is ``tricks`` tricks (3 or 5, a house rule; default 3). A deal's
points are the tricks each player took; every pair of players settles the difference.

Everything the house needs to know about it is here: the engine (:class:`HighCard`) and its
presentation (:class:`HighCardPages`), plus its recording partial under ``templates/``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from referee.games.base import GamePages, RuleText
from referee.presenters import name_of, show_rank
from referee.rules import CardError, Game, HouseRule, IllegalEntry, MoneyRule, Outcome, Unit, parse_rank
from referee.rules.cards import RANK_TEXT_EN

SLUG = "highcard"
_RANK_BY_TEXT = {text: value for value, text in RANK_TEXT_EN.items()}


@dataclass(frozen=True)
class HighCardState:
    players: int
    dealer: int
    tricks: int
    notation: str
    taken: tuple[int, ...]
    played: int = 0
    #: The last trick's ranks by seat, and who took it (None: a tie at the top).
    last_ranks: tuple[int, ...] | None = None
    last_taker: int | None = None

    @property
    def finished(self) -> bool:
        return self.played == self.tricks


def trick_taker(ranks: Sequence[int]) -> int | None:
    """The seat of the single highest rank; None when the highest rank is shared."""
    top = max(ranks)
    return ranks.index(top) if ranks.count(top) == 1 else None


class HighCard(Game[HighCardState]):
    slug = SLUG
    name = "High card"
    name_lt = "Aukščiausia korta"
    min_players = 2
    max_players = 6
    option_defaults: ClassVar[Mapping[str, object]] = {"tricks": 3}
    house_rules = (HouseRule("tricks", "choice", (3, 5)),)
    unit = Unit("points", "tricks")
    money_rule = MoneyRule.PAIR_DIFFERENCE

    def new_deal(self, *, players: int, dealer: int, options: Mapping[str, Any] | None = None) -> HighCardState:
        opts = self.check_setup(players, dealer, options)
        if opts["tricks"] not in (3, 5):
            raise IllegalEntry("A deal is 3 or 5 tricks, not {tricks}.", tricks=str(opts["tricks"]))
        return HighCardState(players, dealer, opts["tricks"], opts["notation"], (0,) * players)

    def apply(self, state: HighCardState, entry: object) -> HighCardState:
        if not isinstance(entry, Mapping) or entry.get("type") != "trick" or set(entry) != {"type", "cards"}:
            raise IllegalEntry('An entry is {{"type": "trick", "cards": [one rank per seat]}}.')
        if state.finished:
            raise IllegalEntry("The deal is over.")
        cards = entry["cards"]
        if not isinstance(cards, list) or len(cards) != state.players:
            raise IllegalEntry("Give one card per player ({count}).", count=str(state.players))
        try:
            ranks = tuple(parse_rank(card, state.notation) for card in cards)  # type: ignore[arg-type]
        except CardError as error:
            raise IllegalEntry(error.template, **error.params) from error
        taker = trick_taker(ranks)
        taken = list(state.taken)
        if taker is not None:
            taken[taker] += 1
        return replace(state, taken=tuple(taken), played=state.played + 1, last_ranks=ranks, last_taker=taker)

    def outcome(self, state: HighCardState) -> Outcome | None:
        return Outcome.by_points(state.taken) if state.finished else None

    def seats(self, state: HighCardState) -> tuple[int, int]:
        return state.players, state.dealer

    def to_dict(self, state: HighCardState) -> dict[str, Any]:
        return {
            "game": SLUG, "version": 1, "players": state.players, "dealer": state.dealer,
            "options": {"tricks": state.tricks, "notation": state.notation},
            "taken": list(state.taken), "played": state.played,
            "last_ranks": None if state.last_ranks is None else [RANK_TEXT_EN[r] for r in state.last_ranks],
            "last_taker": state.last_taker,
        }

    def from_dict(self, data: Mapping[str, Any]) -> HighCardState:
        last = data["last_ranks"]
        return HighCardState(
            players=data["players"], dealer=data["dealer"], tricks=data["options"]["tricks"],
            notation=data["options"]["notation"], taken=tuple(data["taken"]), played=data["played"],
            last_ranks=None if last is None else tuple(_RANK_BY_TEXT[text] for text in last),
            last_taker=data["last_taker"],
        )

    def view(self, state: HighCardState) -> Any:
        outcome = self.outcome(state)
        last = None
        if state.last_ranks is not None:
            cards = [RANK_TEXT_EN[r] for r in state.last_ranks]
            taker = state.last_taker
            last = {
                "cards": cards, "taker": taker,
                "text": f"Seat {taker} takes the trick." if taker is not None else "Nobody takes the trick.",
            }
        return {
            "game": SLUG, "players": state.players, "dealer": state.dealer,
            "first_player": (state.dealer + 1) % state.players, "finished": state.finished,
            "turn": None, "last": last, "outcome": None if outcome is None else {
                "points": list(outcome.points), "placements": list(outcome.placements),
                "winners": list(outcome.winners),
            },
            "options": {"tricks": state.tricks, "notation": state.notation},
            "taken": list(state.taken), "tricks_played": state.played, "tricks": state.tricks,
        }


class HighCardPages(GamePages):
    slug = SLUG

    def rule_texts(self) -> Mapping[str, RuleText]:
        return {"tricks": RuleText("Tricks per deal", "How many tricks a deal lasts.", {3: "3", 5: "5"})}

    def screen(
        self, view: Mapping[str, Any], names: Sequence[str], notation: str, *,
        state: Mapping[str, Any], finished: bool, redraw: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        return {
            "trick_number": view["tricks_played"] + 1,
            "seats_taken": [{"seat": seat, "name": name, "taken": view["taken"][seat]}
                            for seat, name in enumerate(names)],
        }

    def explain(
        self, view: Mapping[str, Any], last: Mapping[str, Any], names: Sequence[str], notation: str
    ) -> list[str]:
        taker = last["taker"]
        if taker is None:
            return ["Nobody takes the trick: the highest card is shared."]
        return [f"{name_of(names, taker)} takes the trick with {show_rank(last['cards'][taker], notation)}."]

    def describe_entry(
        self, payload: Mapping[str, Any], result: Mapping[str, Any] | None, names: Sequence[str], notation: str
    ) -> str:
        return "the trick " + " ".join(str(card) for card in payload.get("cards", []))


ENGINE = HighCard()
PAGES = HighCardPages()
