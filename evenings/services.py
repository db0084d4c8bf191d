"""Club nights' writes: open an evening, arrivals and departures, draw a round, the director's
changes to it, start it (one ordinary session per table), close the evening.

Only a round not yet started changes: a redraw, a swap or an arrival never touches a round
whose tables are playing or played. Keyword-only, atomic, the evening's row locked where two
directors' screens could race.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from referee import services as referee
from referee.errors import Conflict, NotFound, Refusal
from referee.models import Club, Member, Role, Session, SessionStatus
from referee.permissions import require_role
from referee.rules import GAMES, IllegalEntry

from . import facts as evening_facts
from .draw import BYE, DrawImpossible, draw, seat_cost
from .models import ByeScore, Evening, EveningPlayer, EveningStatus, KeptApart, Round, RoundTable


def evening_open(
    *,
    club: Club,
    user: Any,
    game: str,
    name: str = "",
    rounds: int | None = None,
    table_size: int = 4,
    options: Mapping[str, Any] | None = None,
    stake: Decimal = Decimal("0"),
    coin: Decimal | None = None,
    bye_score: str = ByeScore.HALF,
    members: Iterable[Member] = (),
) -> Evening:
    require_role(user, club, Role.SCORER)
    if game not in GAMES:
        raise Refusal(
            _("Unknown game “%(game)s”; choose one of %(games)s.") % {"game": game, "games": ", ".join(GAMES)}
        )
    rules = GAMES[game]
    if not rules.min_players <= table_size <= rules.max_players:
        raise Refusal(
            _("%(game)s tables seat %(low)s to %(high)s players, not %(count)s.")
            % {"game": rules.name, "low": rules.min_players, "high": rules.max_players, "count": table_size}
        )
    if rounds is not None and rounds < 1:
        raise Refusal(_("An evening plays at least one round."))
    if bye_score not in ByeScore.values:
        raise Refusal(_("Unknown rule for a round sat out."))
    if stake < 0:
        raise Refusal(_("The stake cannot be negative."))
    try:  # the house rules are checked now, so no table of the evening is refused later
        rules.new_deal(players=rules.min_players, dealer=0, options=dict(options or {}))
    except IllegalEntry as error:
        raise Refusal(error.render(translate=_)) from error
    with transaction.atomic():
        evening = Evening.objects.create(
            club=club,
            game=game,
            name=name.strip()[:80],
            rounds=rounds,
            table_size=table_size,
            options=dict(options or {}),
            stake=stake,
            coin=coin,
            bye_score=bye_score,
            created_by=user,
        )
        for member in members:
            _arrive(evening, member)
    return evening


def _lock(evening: Evening) -> Evening:
    locked = Evening.objects.select_for_update().select_related("club").get(pk=evening.pk)
    if locked.status != EveningStatus.OPEN:
        raise Refusal(_("This club night is closed."), code="closed")
    return locked


def _arrive(evening: Evening, member: Member) -> None:
    if member.club_id != evening.club_id:
        raise Refusal(_("%(name)s is not a member of this club.") % {"name": member.name})
    if not member.active:
        raise Refusal(
            _("%(name)s is deactivated; reactivate them first.") % {"name": member.name}, code="inactive_member"
        )
    EveningPlayer.objects.update_or_create(
        evening=evening, member=member, defaults={"left_at": None, "arrived_at": timezone.now()}
    )


def player_arrive(
    *, evening: Evening, member: Member, user: Any, strengths: Mapping[int, float] | None = None
) -> Evening:
    """A member arrives: seated from the next round not yet started (a drawn one is redrawn)."""
    require_role(user, evening.club, Role.SCORER)
    with transaction.atomic():
        evening = _lock(evening)
        _arrive(evening, member)
        _redraw_waiting(evening, user, strengths)
    return evening


def player_leave(
    *, evening: Evening, member: Member, user: Any, strengths: Mapping[int, float] | None = None
) -> Evening:
    """A member leaves: taken out of the rounds not yet started; their played rounds stand."""
    require_role(user, evening.club, Role.SCORER)
    with transaction.atomic():
        evening = _lock(evening)
        updated = EveningPlayer.objects.filter(evening=evening, member=member, left_at__isnull=True).update(
            left_at=timezone.now()
        )
        if not updated:
            raise Refusal(_("%(name)s is not at this club night.") % {"name": member.name})
        _redraw_waiting(evening, user, strengths)
    return evening


def _redraw_waiting(evening: Evening, user: Any, strengths: Mapping[int, float] | None) -> None:
    waiting = evening.round_set.filter(started_at__isnull=True).first()
    if waiting is not None:
        present = set(evening_facts.present(evening))
        fixed = {int(m): tuple(seat) for m, seat in waiting.fixed.items() if int(m) in present}
        _draw_into(
            evening,
            waiting,
            seed=waiting.seed,
            strengths=strengths or waiting.facts.get("strength_in", {}),
            fixed=fixed,
        )


def round_draw(
    *, evening: Evening, user: Any, strengths: Mapping[int, float] | None = None, seed: int | None = None
) -> Round:
    """Draw the next round (or draw again the one not yet started, keeping the seats the director
    fixed)."""
    require_role(user, evening.club, Role.SCORER)
    with transaction.atomic():
        evening = _lock(evening)
        waiting = evening.round_set.filter(started_at__isnull=True).first()
        if waiting is None:
            last = evening.round_set.order_by("-number").first()
            number = last.number + 1 if last else 1
            if evening.rounds is not None and number > evening.rounds:
                raise Refusal(
                    _("All %(rounds)s rounds of this club night have been drawn.") % {"rounds": evening.rounds},
                    code="rounds_done",
                )
            waiting = Round(evening=evening, number=number, seed=0)
            fixed: dict[int, tuple[int, int]] = {}
        else:
            present = set(evening_facts.present(evening))
            fixed = {int(m): (s[0], s[1]) for m, s in waiting.fixed.items() if int(m) in present}
        _draw_into(
            evening,
            waiting,
            seed=seed if seed is not None else secrets.randbelow(2**31),
            strengths=strengths or {},
            fixed=fixed,
        )
    return waiting


def _draw_into(
    evening: Evening, waiting: Round, *, seed: int, strengths: Mapping[Any, float], fixed: Mapping[int, tuple[int, int]]
) -> None:
    strengths = {int(member): value for member, value in strengths.items()}
    facts, meetings = evening_facts.gather(evening, seed=seed, strengths=strengths, fixed=fixed)
    try:
        result = draw(facts)
    except DrawImpossible as error:
        raise Refusal(_draw_refusal(error, facts), code="draw_impossible") from error
    waiting.seed = seed
    waiting.facts = {**evening_facts.to_json(facts), "strength_in": {str(m): v for m, v in strengths.items()},
                     **meetings}
    waiting.costs = dict(result.costs)
    waiting.drawn_costs = dict(result.costs)
    waiting.byes = list(result.byes)
    waiting.fixed = {str(m): list(seat) for m, seat in fixed.items()}
    waiting.drawn_at = timezone.now()
    waiting.version = waiting.version + 1 if waiting.pk else 1
    waiting.save()
    waiting.tables.all().delete()
    RoundTable.objects.bulk_create(
        RoundTable(round=waiting, number=number, seats=list(table)) for number, table in enumerate(result.tables, 1)
    )


def _draw_refusal(error: DrawImpossible, facts: Any) -> str:
    if len(facts.players) < facts.low:
        return _("%(count)s players present; a table needs at least %(low)s.") % {
            "count": len(facts.players),
            "low": facts.low,
        }
    if "apart" in str(error):
        return _("The pairs to keep apart cannot all be kept apart at these tables.")
    return _("A seat fixed by the director is not in this draw; move them again.")


def _seating(waiting: Round) -> tuple[list[list[int]], list[int]]:
    return [list(table.seats) for table in waiting.tables.order_by("number")], list(waiting.byes)


def _where(tables: Sequence[Sequence[int]], byes: Sequence[int], member_id: int) -> tuple[int, int]:
    for t, table in enumerate(tables):
        if member_id in table:
            return t, table.index(member_id)
    if member_id in byes:
        return BYE, byes.index(member_id)
    raise Refusal(_("That member is not in this round's draw."))


def round_swap(*, round: Round, first: Member, second: Member, user: Any, expected_version: int | None = None) -> Round:
    """The director swaps two players (seats, tables or a bye); both stay where they were put
    if the round is drawn again. The round's costs are measured again, so the screen shows
    what the change costs against the draw."""
    require_role(user, round.evening.club, Role.SCORER)
    with transaction.atomic():
        _lock(round.evening)
        waiting = _waiting(round, expected_version)
        tables, byes = _seating(waiting)
        (t1, s1), (t2, s2) = _where(tables, byes, first.pk), _where(tables, byes, second.pk)
        here, there = (byes if t1 == BYE else tables[t1]), (byes if t2 == BYE else tables[t2])
        here[s1], there[s2] = there[s2], here[s1]
        for member, (t, s) in ((first.pk, (t2, s2)), (second.pk, (t1, s1))):
            if t == BYE:
                waiting.fixed.pop(str(member), None)
            else:
                waiting.fixed[str(member)] = [t, s]
        facts = evening_facts.from_json(waiting.facts)
        waiting.costs = {k: round_to(v) for k, v in seat_cost(facts, tables, byes).items()}
        waiting.byes = byes
        waiting.version += 1
        waiting.save(update_fields=["costs", "byes", "fixed", "version"])
        for number, table in enumerate(tables, 1):
            RoundTable.objects.filter(round=waiting, number=number).update(seats=table)
    return waiting


def round_to(value: float) -> float:
    return round(value, 4)


def _waiting(round_: Round, expected_version: int | None = None) -> Round:
    waiting = Round.objects.select_for_update().get(pk=round_.pk)
    if expected_version is not None and expected_version != waiting.version:
        raise Conflict(_("The round was changed on another screen; look at it again before changing it."),
                       code="stale_round", version=waiting.version)
    if waiting.started_at is not None:
        raise Refusal(
            _("Round %(number)s has started; only rounds not yet played change.") % {"number": waiting.number},
            code="round_started",
        )
    return waiting


def round_start(*, round: Round, user: Any, expected_version: int | None = None) -> Round:
    """Start the round: one session per table, its seats in the drawn order, the evening's house
    rules and stake. The round before must be finished (every table's session closed)."""
    require_role(user, round.evening.club, Role.SCORER)
    with transaction.atomic():
        evening = _lock(round.evening)
        waiting = _waiting(round, expected_version)
        before = (
            evening.round_set.filter(number__lt=waiting.number, started_at__isnull=False).order_by("-number").first()
        )
        if before is not None:
            playing = [
                t.number
                for t in before.tables.select_related("session")
                if t.session is not None and t.session.status == SessionStatus.OPEN
            ]
            if playing:
                raise Refusal(
                    _("Round %(number)s is still playing at table %(tables)s; close its sessions first.")
                    % {"number": before.number, "tables": ", ".join(str(n) for n in playing)},
                    code="round_playing",
                )
        present = set(evening_facts.present(evening))
        members = {m.pk: m for m in Member.objects.filter(club=evening.club)}
        for table in waiting.tables.order_by("number"):
            gone = [members[m].name for m in table.seats if m not in present]
            if gone:
                raise Refusal(_("%(names)s left after the draw; draw the round again.") % {"names": ", ".join(gone)})
            table.session = referee.session_start(
                club=evening.club,
                game=evening.game,
                players=[members[m] for m in table.seats],
                user=user,
                options=evening.options,
                stake=evening.stake,
                coin=evening.coin,
            )
            table.save(update_fields=["session"])
        waiting.started_at = timezone.now()
        waiting.started_by = user
        waiting.version += 1
        waiting.save(update_fields=["started_at", "started_by", "version"])
    return waiting


def evening_close(*, evening: Evening, user: Any) -> Evening:
    """Close the night: a round drawn but not started is dropped; the tables' sessions close on
    their own screens (their money is settled there)."""
    require_role(user, evening.club, Role.SCORER)
    with transaction.atomic():
        evening = _lock(evening)
        evening.round_set.filter(started_at__isnull=True).delete()
        evening.status = EveningStatus.CLOSED
        evening.save(update_fields=["status"])
    return evening


def keep_apart(*, club: Club, first: Member, second: Member, user: Any) -> KeptApart:
    """Two members the draw never seats together (both of the club, not the same person)."""
    require_role(user, club, Role.SCORER)
    if first.pk == second.pk:
        raise Refusal(_("Choose two different members."))
    if first.club_id != club.pk or second.club_id != club.pk:
        raise Refusal(_("Both must be members of this club."))
    low, high = sorted((first, second), key=lambda m: m.pk)
    kept, _created = KeptApart.objects.get_or_create(club=club, first=low, second=high, defaults={"created_by": user})
    return kept


def table_session(*, evening: Evening, number: int) -> Session:
    """The session a table plays now: the latest started round's table of that number (what a
    tablet that remembers its table opens)."""
    table = (
        RoundTable.objects.filter(round__evening=evening, round__started_at__isnull=False, number=number)
        .select_related("session")
        .order_by("-round__number")
        .first()
    )
    if table is None or table.session is None:
        raise NotFound(_("No table %(number)s is playing at this club night yet.") % {"number": number})
    return table.session
