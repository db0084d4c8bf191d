"""A session's plan: how long the players agreed to play (RULES.md, common conventions).

The seeds leave the length to the table (Elgeta: "Galima iš anksto susitarti, kiek bus
žaidžiama"; Rūkas: "Iš anksto susitariama, kiek bus žaidžiama"; Velnias: "Žaidimo trukmę
nustato patys žaidėjai"). A plan is one of:

- ``None``: open-ended (the default);
- ``{"deals": N}``: N deals;
- ``{"target": T}``: the session ends after the first deal at whose end someone's total in
  the game's unit (``Game.unit``: points, tricks, deals won, chips; Cheat's losses, since its
  unit counts a loss as one) has reached T.

The referee never refuses a deal past the plan; this module only says where the session
stands against it, whether it is reached and by how many deals it has been exceeded. What
counts toward a target is the game's own fact (``Unit.of``), so nothing here names a game.

Sentences are :class:`Phrase` objects (a key of :data:`PHRASES`, a count for the plural
form, numbers and seats): the server renders them with Django's ``ngettext``, the tablet's
screen with the same forms sent in the page's text, so both say the same thing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from .base import Unit
from .errors import InvalidSetup, gettext_noop, message_repr

__all__ = [
    "MAX_PLAN", "PHRASES", "Phrase", "Plan", "PlanKind", "Progress", "Standing", "advance", "progress",
    "read_plan", "render", "standing",
]

PlanKind = Literal["deals", "target"]
KINDS: tuple[PlanKind, ...] = ("deals", "target")

#: A plan beyond this is a typing slip, not an agreement (a 200-deal evening is a long one).
MAX_PLAN = 100_000


@dataclass(frozen=True)
class Plan:
    """The agreed length: ``count`` deals, or a target of ``count`` in the game's unit."""

    kind: PlanKind
    count: int

    def as_json(self) -> dict[str, int]:
        return {self.kind: self.count}


def read_plan(value: object) -> Plan | None:
    """The plan in ``value`` (``None`` = open-ended), refusing anything else with a reason."""
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidSetup(
            gettext_noop("A plan must be {{\"deals\": N}} or {{\"target\": T}}, or none; not {value}."),
            value=message_repr(value),
        )
    keys = [key for key in value if key in KINDS]
    if len(value) != 1 or len(keys) != 1:
        raise InvalidSetup(
            gettext_noop("A plan names exactly one of \"deals\" or \"target\"; this one names {keys}."),
            keys=", ".join(message_repr(key) for key in value) or "nothing",
        )
    kind = keys[0]
    count = value[kind]
    if not isinstance(count, int) or isinstance(count, bool):
        raise InvalidSetup(
            gettext_noop("The plan's {kind} must be a whole number, not {value}."), kind=kind, value=message_repr(count)
        )
    if count < 1:
        raise InvalidSetup(gettext_noop("The plan's {kind} must be at least 1, not {value}."), kind=kind, value=count)
    if count > MAX_PLAN:
        raise InvalidSetup(
            gettext_noop("The plan's {kind} can be at most {most}, not {value}."), kind=kind, most=MAX_PLAN, value=count
        )
    return Plan(kind, count)


# -- the finished deals, folded ---------------------------------------------------------------


@dataclass(frozen=True)
class Progress:
    """The session's finished deals folded in order: how many, each seat's total in the unit,
    and after how many of them someone first reached the target (target plans only).

    Kept by the tablet with its deal, so that a deal finished offline advances it exactly as
    the server's fold of all the deals would."""

    deals: int = 0
    totals: tuple[int, ...] = ()
    reached_after: int | None = None

    def view(self) -> dict[str, Any]:
        return {"deals": self.deals, "totals": list(self.totals), "reached_after": self.reached_after}

    @classmethod
    def from_view(cls, data: Mapping[str, Any]) -> Progress:
        reached = data.get("reached_after")
        return cls(
            deals=int(data.get("deals") or 0),
            totals=tuple(int(total) for total in data.get("totals") or ()),
            reached_after=None if reached is None else int(reached),
        )


def advance(done: Progress, points: Sequence[int], plan: Plan | None, unit: Unit) -> Progress:
    """``done`` with one more finished deal (``points``: the deal's outcome, in game points)."""
    base = done.totals or (0,) * len(points)
    totals = tuple(total + unit.of(p) for total, p in zip(base, points, strict=True))
    deals = done.deals + 1
    reached = done.reached_after
    if reached is None and plan is not None and plan.kind == "target" and max(totals, default=0) >= plan.count:
        reached = deals
    return Progress(deals=deals, totals=totals, reached_after=reached)


def progress(deals: Iterable[Sequence[int]], plan: Plan | None, unit: Unit, players: int) -> Progress:
    """Every finished deal's outcome points, in deal order, folded."""
    done = Progress(totals=(0,) * players)
    for points in deals:
        done = advance(done, points, plan, unit)
    return done


# -- where the session stands ----------------------------------------------------------------


#: key -> (singular, plural) English template; ``%(name)s`` fields: ``n``, ``total``, ``over``
#: (numbers), ``names`` (the seats named, joined), ``goal`` (the target in the unit's words).
PHRASES: Mapping[str, tuple[str, str]] = {
    "plan_deals": (gettext_noop("Plan: %(total)s deal"), gettext_noop("Plan: %(total)s deals")),
    "plan_target": (gettext_noop("Target: %(goal)s"), gettext_noop("Target: %(goal)s")),
    "deal_of": (gettext_noop("Deal %(n)s of %(total)s"), gettext_noop("Deal %(n)s of %(total)s")),
    "deals_played": (gettext_noop("%(n)s of %(total)s deal played"), gettext_noop("%(n)s of %(total)s deals played")),
    "deals_reached": (gettext_noop("The planned deal is played"),
                      gettext_noop("All %(total)s planned deals are played")),
    "needs": (gettext_noop("%(names)s needs %(n)s more"), gettext_noop("%(names)s needs %(n)s more")),
    "needs_tied": (gettext_noop("%(names)s need %(n)s more"), gettext_noop("%(names)s need %(n)s more")),
    "target_reached": (gettext_noop("%(names)s reached %(goal)s"), gettext_noop("%(names)s reached %(goal)s")),
    "exceeded": (gettext_noop("Plan exceeded by %(n)s deal"), gettext_noop("Plan exceeded by %(n)s deals")),
}


@dataclass(frozen=True)
class Phrase:
    """One sentence: ``PHRASES[key]`` in the plural form for ``count``, with ``numbers``
    filled in, ``seats`` as the players' names and ``goal`` as the target in the unit's words."""

    key: str
    count: int
    numbers: Mapping[str, int] = field(default_factory=dict)
    seats: tuple[int, ...] = ()
    goal: int | None = None

    def view(self) -> dict[str, Any]:
        return {"key": self.key, "count": self.count, "numbers": dict(self.numbers), "seats": list(self.seats),
                "goal": self.goal}


@dataclass(frozen=True)
class Standing:
    """Where a session stands against its plan.

    ``deal`` is the running deal's number (None between deals). ``reached_after`` is the
    number of finished deals after which the plan was reached; ``deals_past`` counts the deals
    started after that (the running one included), so ``exceeded`` means someone played on.
    ``leaders`` (target plans) are the seats nearest the target, ``needs`` what they lack.
    ``played_on``: the scorer chose to play on past the reached plan (or a deal past it began);
    until then ``close_first``: closing and settling is the screens' main action."""

    plan: Plan
    deals_played: int
    deal: int | None
    reached_after: int | None
    deals_past: int
    leaders: tuple[int, ...]
    needs: int | None
    headline: Phrase
    phrases: tuple[Phrase, ...]
    played_on: bool = False

    @property
    def close_first(self) -> bool:
        return self.reached and not self.played_on

    @property
    def reached(self) -> bool:
        return self.reached_after is not None

    @property
    def exceeded(self) -> bool:
        return self.deals_past > 0

    def view(self) -> dict[str, Any]:
        return {
            "plan": self.plan.as_json(), "deals_played": self.deals_played, "deal": self.deal,
            "reached": self.reached, "reached_after": self.reached_after, "exceeded": self.exceeded,
            "deals_past": self.deals_past, "leaders": list(self.leaders), "needs": self.needs,
            "played_on": self.played_on, "close_first": self.close_first,
            "headline": self.headline.view(), "phrases": [phrase.view() for phrase in self.phrases],
        }


def standing(plan: Plan, done: Progress, *, running: int | None = None,
             played_on_after: int | None = None) -> Standing:
    """Where the session stands: ``done`` its finished deals folded (under this plan),
    ``running`` the number of the deal being played, if any; ``played_on_after`` the finished
    deals when the scorer chose to play on (a choice made before the plan was reached, under
    an earlier plan, does not count)."""
    if plan.kind == "deals":
        reached_after: int | None = plan.count if done.deals >= plan.count else None
    else:
        reached_after = done.reached_after
    started = done.deals + (1 if running is not None else 0)
    past = max(0, started - reached_after) if reached_after is not None else 0
    leaders: tuple[int, ...] = ()
    needs: int | None = None
    phrases: list[Phrase] = []
    if plan.kind == "deals":
        headline = Phrase("plan_deals", plan.count, {"total": plan.count})
        if reached_after is None:
            if running is not None:
                phrases.append(Phrase("deal_of", plan.count, {"n": running, "total": plan.count}))
            else:
                phrases.append(Phrase("deals_played", plan.count, {"n": done.deals, "total": plan.count}))
        elif not past:
            phrases.append(Phrase("deals_reached", plan.count, {"total": plan.count}))
    else:
        headline = Phrase("plan_target", plan.count, goal=plan.count)
        best = max(done.totals, default=0)
        leaders = tuple(seat for seat, total in enumerate(done.totals) if total == best)
        needs = max(0, plan.count - best)
        if reached_after is None:
            key = "needs_tied" if len(leaders) > 1 else "needs"
            phrases.append(Phrase(key, needs, {"n": needs}, seats=leaders))
        elif not past:
            phrases.append(Phrase("target_reached", plan.count, seats=leaders, goal=plan.count))
    if past:
        phrases.append(Phrase("exceeded", past, {"n": past}))
    chosen = reached_after is not None and played_on_after is not None and played_on_after >= reached_after
    return Standing(
        plan=plan, deals_played=done.deals, deal=running, reached_after=reached_after, deals_past=past,
        leaders=leaders, needs=needs, headline=headline, phrases=tuple(phrases), played_on=chosen or past > 0,
    )


def _english(singular: str, plural: str, count: int) -> str:
    return singular if count == 1 else plural


def _english_and(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def render(
    phrase: Phrase, names: Sequence[str], unit: Unit, *,
    ngettext: Callable[[str, str, int], str] = _english,
    and_list: Callable[[Sequence[str]], str] = _english_and,
) -> str:
    """The sentence for a person: through ``ngettext`` (the server passes Django's), seats as
    ``names`` joined by ``and_list``, the goal in the unit's counted words."""
    singular, plural = PHRASES[phrase.key]
    params: dict[str, object] = dict(phrase.numbers)
    if phrase.seats:
        params["names"] = and_list([names[seat] if 0 <= seat < len(names) else f"seat {seat}" for seat in phrase.seats])
    if phrase.goal is not None:
        params["goal"] = ngettext(*unit.counted, phrase.goal) % {"n": phrase.goal}
    return ngettext(singular, plural, phrase.count) % params

