"""A session's plan (RULES.md, common conventions, "How long a session runs"): one test per rule.

The seeds leave the length to the players: Elgeta "Galima iš anksto susitarti, kiek bus
žaidžiama"; Rūkas "Iš anksto susitariama, kiek bus žaidžiama"; Velnias "Žaidimo trukmę
nustato patys žaidėjai".
"""

from __future__ import annotations

import pytest

from referee.rules import GAMES, InvalidSetup
from referee.rules.plan import MAX_PLAN, Plan, Progress, advance, progress, read_plan, render, standing

NAMES = ["Ona", "Jonas", "Rūta"]


def texts(plan: Plan, done: Progress, game: str = "velnias", *, running: int | None = None) -> list[str]:
    found = standing(plan, done, running=running)
    unit = GAMES[game].unit
    return [render(found.headline, NAMES, unit)] + [render(p, NAMES, unit) for p in found.phrases]


# -- what a plan is ----------------------------------------------------------------------------


def test_no_plan_is_open_ended() -> None:
    """"Žaidimo trukmę nustato patys žaidėjai": without an agreement the session is open-ended."""
    assert read_plan(None) is None


def test_a_plan_of_deals_or_a_target() -> None:
    """"Iš anksto susitariama, kiek bus žaidžiama": N deals, or a target T in the game's unit."""
    assert read_plan({"deals": 10}) == Plan("deals", 10)
    assert read_plan({"target": 50}) == Plan("target", 50)
    assert Plan("target", 50).as_json() == {"target": 50}


@pytest.mark.parametrize(("plan", "message"), [
    ({}, "A plan names exactly one of \"deals\" or \"target\"; this one names nothing."),
    ({"deals": 3, "target": 5}, "A plan names exactly one of \"deals\" or \"target\"; "
                                    "this one names 'deals', 'target'."),
    ({"rounds": 3}, "A plan names exactly one of \"deals\" or \"target\"; this one names 'rounds'."),
    ({"deals": 0}, "The plan's deals must be at least 1, not 0."),
    ({"target": -5}, "The plan's target must be at least 1, not -5."),
    ({"deals": 2.5}, "The plan's deals must be a whole number, not 2.5."),
    ({"deals": "10"}, "The plan's deals must be a whole number, not '10'."),
    ({"target": True}, "The plan's target must be a whole number, not True."),
    ({"deals": MAX_PLAN + 1}, f"The plan's deals can be at most {MAX_PLAN}, not {MAX_PLAN + 1}."),
    ([10], "A plan must be {\"deals\": N} or {\"target\": T}, or none; not [10]."),
    (10, "A plan must be {\"deals\": N} or {\"target\": T}, or none; not 10."),
])
def test_a_bad_plan_is_refused_with_a_reason(plan: object, message: str) -> None:
    """A plan is positive whole numbers under exactly one key; anything else is refused, saying why."""
    with pytest.raises(InvalidSetup) as refused:
        read_plan(plan)
    assert str(refused.value) == message


# -- a plan of deals ---------------------------------------------------------------------------


def test_deals_plan_says_which_deal_of_how_many() -> None:
    """A deals plan shows the running deal against the plan: "deal 7 of 10"."""
    done = progress([[1, -1, 0]] * 6, Plan("deals", 10), GAMES["velnias"].unit, 3)
    assert texts(Plan("deals", 10), done, running=7) == ["Plan: 10 deals", "Deal 7 of 10"]
    assert texts(Plan("deals", 10), done) == ["Plan: 10 deals", "6 of 10 deals played"]
    found = standing(Plan("deals", 10), done, running=7)
    assert (found.reached, found.exceeded, found.deals_played) == (False, False, 6)


def test_deals_plan_is_reached_when_the_last_planned_deal_ends() -> None:
    """The session of N deals is reached once its N-th deal is finished, not when it starts."""
    plan = Plan("deals", 3)
    unit = GAMES["velnias"].unit
    two = progress([[1, -1, 0]] * 2, plan, unit, 3)
    assert not standing(plan, two, running=3).reached
    three = advance(two, [0, 1, -1], plan, unit)
    found = standing(plan, three)
    assert (found.reached, found.reached_after, found.exceeded) == (True, 3, False)
    assert texts(plan, three) == ["Plan: 3 deals", "All 3 planned deals are played"]
    assert texts(Plan("deals", 1), progress([[1, 0, -1]], Plan("deals", 1), unit, 3)) == [
        "Plan: 1 deal", "The planned deal is played"]


def test_playing_past_a_deals_plan_shows_it_exceeded() -> None:
    """The referee never refuses a deal past the plan; playing on shows the plan as exceeded."""
    plan = Plan("deals", 3)
    done = progress([[1, -1, 0]] * 3, plan, GAMES["velnias"].unit, 3)
    found = standing(plan, done, running=4)
    assert (found.reached, found.exceeded, found.deals_past) == (True, True, 1)
    assert texts(plan, done, running=4) == ["Plan: 3 deals", "Plan exceeded by 1 deal"]
    five = progress([[1, -1, 0]] * 5, plan, GAMES["velnias"].unit, 3)
    assert texts(plan, five) == ["Plan: 3 deals", "Plan exceeded by 2 deals"]


# -- a target ----------------------------------------------------------------------------------


def test_target_names_the_leader_and_what_they_need() -> None:
    """A target plan shows the player nearest to it and how much more they need: "Ona needs 4 more"."""
    plan = Plan("target", 10)
    done = progress([[3, -1, -2], [3, 0, -3]], plan, GAMES["velnias"].unit, 3)
    assert texts(plan, done, running=3) == ["Target: 10 points", "Ona needs 4 more"]
    found = standing(plan, done)
    assert (found.leaders, found.needs, found.reached) == ((0,), 4, False)


def test_target_tied_leaders_are_all_named() -> None:
    """Players level at the top share the lead: both are named."""
    plan = Plan("target", 10)
    done = progress([[4, 4, -8]], plan, GAMES["velnias"].unit, 3)
    assert texts(plan, done) == ["Target: 10 points", "Ona and Jonas need 6 more"]


def test_target_is_reached_after_the_first_deal_at_whose_end_someone_has_it() -> None:
    """"The session ends after the first deal at whose end someone has reached T": the deal
    counts even if the total falls back below T later (zero-sum points can)."""
    plan = Plan("target", 5)
    unit = GAMES["velnias"].unit
    done = progress([[2, -2, 0], [3, -3, 0], [-4, 4, 0]], plan, unit, 3)
    assert done.reached_after == 2
    assert done.totals == (1, -1, 0)
    found = standing(plan, done)
    assert (found.reached, found.reached_after, found.deals_past) == (True, 2, 1)
    assert texts(plan, done) == ["Target: 5 points", "Plan exceeded by 1 deal"]


def test_target_reached_mid_session_names_who_reached_it() -> None:
    """When the target is reached the screen says who reached it, before anyone plays on."""
    plan = Plan("target", 5)
    done = progress([[2, -2, 0], [4, -4, 0]], plan, GAMES["velnias"].unit, 3)
    assert texts(plan, done) == ["Target: 5 points", "Ona reached 5 points"]
    assert standing(plan, done, running=3).exceeded


def test_target_ties_at_the_target_name_everyone_on_it() -> None:
    """Two players reaching the target in the same deal both reached it."""
    plan = Plan("target", 3)
    done = progress([[3, 3, -6]], plan, GAMES["velnias"].unit, 3)
    assert texts(plan, done) == ["Target: 3 points", "Ona and Jonas reached 3 points"]


def test_cheat_target_counts_losses() -> None:
    """Cheat's target counts losses: the first to T losses ends it (a loss scores -1 point)."""
    plan = Plan("target", 2)
    unit = GAMES["cheat"].unit
    one = progress([[-1, 0, 0]], plan, unit, 3)
    assert one.totals == (1, 0, 0)
    assert texts(plan, one, "cheat", running=2) == ["Target: 2 losses", "Ona needs 1 more"]
    two = advance(one, [0, -1, 0], plan, unit)
    assert two.reached_after is None
    three = advance(two, [-1, 0, 0], plan, unit)
    assert three.reached_after == 3
    assert texts(plan, three, "cheat") == ["Target: 2 losses", "Ona reached 2 losses"]


@pytest.mark.parametrize(("game", "points", "text"), [
    ("elgeta", [1, 0, 0], "Target: 1 deal won"),
    ("rukas", [5, 2, 1], "Target: 1 trick"),
    ("michigan", [4, -1, -3], "Target: 1 chip"),
])
def test_target_counts_in_the_games_unit(game: str, points: list[int], text: str) -> None:
    """The target counts in the session's unit: deals won, tricks, chips (the game says which)."""
    plan = Plan("target", 1)
    done = progress([points], plan, GAMES[game].unit, 3)
    assert done.reached_after == 1
    assert texts(plan, done, game)[0] == text


def test_progress_from_the_tablet_round_trips() -> None:
    """The tablet keeps the progress as JSON and goes on from it exactly as the server's fold."""
    plan = Plan("target", 7)
    unit = GAMES["rukas"].unit
    deals = [[3, 2, 1], [4, 0, 2], [1, 1, 4]]
    whole = progress(deals, plan, unit, 3)
    kept = Progress.from_view(progress(deals[:2], plan, unit, 3).view())
    assert advance(kept, deals[2], plan, unit) == whole
    assert whole.reached_after == 2
