"""The club night's screens: starting one, the director's screen (who is here, the draw and its
costs, the tables of each round and which finished, the standings), the wall screen (this
round's seating in big type, then the standings) and a table's own address, which a tablet
keeps all evening: it opens whatever session that table plays now."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_POST

from evenings import selectors, services
from evenings.draw import TERMS
from evenings.models import ByeScore, Evening, EveningStatus, Round
from referee import selectors as referee_selectors
from referee.errors import Refusal
from referee.models import GAME_CHOICES, Member, SessionStatus, game_name
from referee.permissions import club_role
from referee.rules import GAMES
from referee.safe_input import read_int
from scoring.evening_standings import TIE_BREAKS, evening_standings
from scoring.ratings.rating import strengths
from web.pages.access import can_record, club_or_404

EVENINGS_SHOWN = 10


def term_labels() -> dict[str, str]:
    return {
        "apart": _("Pairs to keep apart seated together"),
        "opponents": _("Opponents met before"),
        "position": _("First dealer or first player again"),
        "strength": _("Spread of the tables' strength"),
        "bye": _("Sitting out again"),
    }


@login_required
def evening_new(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = club_or_404(request.user, slug)
    members = referee_selectors.active_members(club)
    errors: list[str] = []
    values: dict[str, Any] = {"game": request.GET.get("game") or GAME_CHOICES[0][0], "table_size": 4,
                              "rounds": "", "name": "", "stake": "0", "bye_score": ByeScore.HALF, "present": set()}
    status = 200 if can_record(role) else 403
    if not can_record(role):
        errors.append(_("Only the club's scorers and admins can record or change play."))
    elif request.method == "POST":
        values, arguments, errors = _read_form(request, club_members={m.pk: m for m in members})
        if not errors:
            try:
                evening = services.evening_open(club=club, user=request.user, **arguments)
            except Refusal as error:
                errors.append(error.message)
            else:
                return redirect("evening", pk=evening.pk)
        status = 400
    return render(request, "evenings/evening_new.html", {
        "club": club, "role": role, "can_record": can_record(role), "members": members, "errors": errors,
        "values": values, "games": [{"slug": slug, "label": label, "low": GAMES[slug].min_players,
                                     "high": GAMES[slug].max_players} for slug, label in GAME_CHOICES],
        "bye_choices": ByeScore.choices,
    }, status=status)


def _read_form(
    request: HttpRequest, *, club_members: dict[int, Member]
) -> tuple[dict[str, Any], dict[str, Any], list[str]]:
    post = request.POST
    errors = []
    values: dict[str, Any] = {key: post.get(key, "").strip() for key in ("game", "name", "rounds", "table_size",
                                                                         "stake", "bye_score")}
    present = {int(v) for v in post.getlist("present") if v.isascii() and v.isdigit() and int(v) in club_members}
    values["present"] = present
    game = values["game"] if values["game"] in GAMES else None
    if game is None:
        errors.append(_("Choose a game."))
    rounds = None
    if values["rounds"]:
        rounds = int(values["rounds"]) if values["rounds"].isascii() and values["rounds"].isdigit() else 0
        if not 1 <= rounds <= 50:
            errors.append(_("Rounds: a whole number from 1 to 50, or empty for an open-ended night."))
    size_text = values["table_size"]
    table_size = int(size_text) if size_text.isascii() and size_text.isdigit() and len(size_text) < 3 else 0
    try:
        stake = Decimal((values["stake"] or "0").replace(",", "."))
        if not stake.is_finite() or stake < 0 or stake >= 10**8:
            raise InvalidOperation
    except InvalidOperation:
        errors.append(_("The stake is an amount like 0.50."))
        stake = Decimal("0")
    arguments = {"game": game, "name": values["name"], "rounds": rounds, "table_size": table_size,
                 "stake": stake.quantize(Decimal("0.01")), "bye_score": values["bye_score"] or ByeScore.HALF,
                 "members": [club_members[pk] for pk in sorted(present)]}
    return values, arguments, errors


def _evening_or_404(request: HttpRequest, pk: int) -> tuple[Evening, str]:
    evening = selectors.with_rounds(selectors.evenings_for(request.user)).filter(pk=pk).first()
    role = club_role(request.user, evening.club) if evening is not None else None
    if evening is None or role is None:
        raise Http404(_("Not found."))
    return evening, role


def evening_context(evening: Evening) -> dict[str, Any]:
    """What every screen of the evening shows: the rounds with names, the present players, the
    round waiting to start with its costs and explanation, and the standings."""
    names = selectors.names(evening)
    rounds = list(evening.round_set.all())
    started = [r for r in rounds if r.started_at is not None]
    waiting = next((r for r in rounds if r.started_at is None), None)
    shown_rounds = [_round_view(r, names) for r in rounds]
    present = [p for p in evening.players.all() if p.left_at is None]
    gone = [p for p in evening.players.all() if p.left_at is not None]
    current = shown_rounds[len(started) - 1] if started else None
    return {
        "evening": evening, "game_name": game_name(evening.game), "rounds": shown_rounds, "current": current,
        "waiting": _round_view(waiting, names) if waiting else None,
        "waiting_round": waiting,
        "costs": _costs(waiting) if waiting else [],
        "explained": _explained(waiting, names) if waiting else [],
        "present": present, "gone": gone,
        "standings": evening_standings(evening), "tie_breaks": [str(t) for t in TIE_BREAKS],
        "planned": evening.rounds, "played": len(started),
        "can_draw": evening.status == EveningStatus.OPEN and (
            waiting is not None or evening.rounds is None or len(rounds) < evening.rounds),
    }


def _round_view(played: Round, names: dict[int, str]) -> dict[str, Any]:
    tables = []
    for table in played.tables.all():
        session = table.session
        tables.append({
            "number": table.number, "names": [names.get(m, "?") for m in table.seats], "seats": table.seats,
            "session": session, "finished": session is not None and session.status == SessionStatus.CLOSED,
        })
    finished = bool(tables) and all(t["finished"] for t in tables)
    # Everyone of the round, for the director's swap: "Ona (table 2)", "Jonas (sits out)".
    people = [{"id": m, "label": _("%(name)s (table %(n)s)") % {"name": names.get(m, "?"), "n": t["number"]}}
              for t in tables for m in t["seats"]]
    people += [{"id": m, "label": _("%(name)s (sits out)") % {"name": names.get(m, "?")}} for m in played.byes]
    return {"round": played, "number": played.number, "tables": tables, "started": played.started_at is not None,
            "finished": finished, "byes": [names.get(m, "?") for m in played.byes], "people": people}


def _costs(waiting: Round) -> list[dict[str, Any]]:
    labels = term_labels()
    rows = []
    for term in TERMS:
        drawn, now = waiting.drawn_costs.get(term, 0.0), waiting.costs.get(term, 0.0)
        rows.append({"label": labels[term], "drawn": drawn, "now": now, "change": round(now - drawn, 4)})
    return rows


def _explained(waiting: Round, names: dict[int, str]) -> list[str]:
    """Why the draw seated whom where, in a sentence each: pairs who met most and are now apart,
    and pairs seated together again (a draw that could not avoid it says so)."""
    together = {frozenset((a, b)) for table in waiting.tables.all() for a in table.seats for b in table.seats if a < b}
    counts: dict[frozenset[int], list[int]] = {}
    for index, key in enumerate(("tonight", "recently")):
        for a, b, n in waiting.facts.get(key, []):
            counts.setdefault(frozenset((a, b)), [0, 0])[index] += n
    lines = []
    ranked = sorted(counts.items(), key=lambda item: (-(item[1][0] * 2 + item[1][1]), sorted(item[0])))
    apart = [(pair, c) for pair, c in ranked if pair not in together][:3]
    again = [(pair, c) for pair, c in ranked if pair in together][:3]
    for pair, (tonight, recently) in apart + again:
        a, b = sorted(names.get(m, "?") for m in pair)
        when = _met(tonight, recently)
        if pair in together:
            lines.append(_("%(a)s and %(b)s %(met)s; this draw seats them together again.")
                         % {"a": a, "b": b, "met": when})
        else:
            lines.append(_("%(a)s and %(b)s %(met)s; this draw has them apart.") % {"a": a, "b": b, "met": when})
    return lines


def _met(tonight: int, recently: int) -> str:
    parts = []
    if tonight:
        parts.append(ngettext("once tonight", "%(n)s times tonight", tonight) % {"n": tonight})
    if recently:
        parts.append(ngettext("once this month", "%(n)s times this month", recently) % {"n": recently})
    when = parts[0] if len(parts) == 1 else _("%(first)s and %(second)s") % {"first": parts[0], "second": parts[1]}
    return _("met %(when)s") % {"when": when}


@login_required
def evening_page(request: HttpRequest, pk: int) -> HttpResponse:
    evening, role = _evening_or_404(request, pk)
    # A watching screen asks again with ``v`` and swaps in the live part alone.
    if request.GET.get("v") is not None:
        return render(request, "evenings/evening_live.html", {**evening_context(evening), "club": evening.club})
    return _director(request, evening, role)


def _director(request: HttpRequest, evening: Evening, role: str, *, error: str = "", status: int = 200) -> HttpResponse:
    context = {**evening_context(evening), "role": role, "can_record": can_record(role), "club": evening.club,
               "error": error, "others": _absent_members(evening)}
    return render(request, "evenings/evening.html", context, status=status if status != 404 else 400)


def _absent_members(evening: Evening) -> list[Member]:
    here = {p.member_id for p in evening.players.all() if p.left_at is None}
    return [m for m in referee_selectors.active_members(evening.club) if m.pk not in here]


@login_required
def evening_wall(request: HttpRequest, pk: int) -> HttpResponse:
    evening, role = _evening_or_404(request, pk)
    context = {**evening_context(evening), "role": role, "club": evening.club, "wall": True}
    template = "evenings/wall_board.html" if request.GET.get("v") is not None else "evenings/wall.html"
    return render(request, template, context)


@login_required
def evening_table(request: HttpRequest, pk: int, number: int) -> HttpResponse:
    """A tablet's remembered place: the session its table plays now (the latest started round).
    Once that session is closed, the screen waits for the next round and opens it by itself."""
    evening, _role = _evening_or_404(request, pk)
    try:
        session = services.table_session(evening=evening, number=number)
    except Refusal as error:
        return _waiting(request, evening, number, error.message, status=404)
    if session.status == SessionStatus.CLOSED and evening.status == EveningStatus.OPEN:
        return _waiting(request, evening, number, _("Table %(n)s has finished its round.") % {"n": number})
    return redirect("session", pk=session.pk)


def _waiting(request: HttpRequest, evening: Evening, number: int, message: str, *, status: int = 200) -> HttpResponse:
    return render(request, "evenings/table_waiting.html", {
        "evening": evening, "club": evening.club, "number": number, "message": message,
        "game_name": game_name(evening.game)}, status=status)


def _act(request: HttpRequest, pk: int, action: Any) -> HttpResponse:
    """Do what the director asked, then show the screen again (after a redirect); a refusal is
    shown on the screen, with its status, and nothing changed."""
    evening, role = _evening_or_404(request, pk)
    try:
        action(evening)
    except Refusal as error:
        evening, role = _evening_or_404(request, pk)
        return _director(request, evening, role, error=error.message, status=error.status)
    return redirect(reverse("evening", args=[evening.pk]))


def _member_from(request: HttpRequest, evening: Evening, field: str) -> Member:
    value = request.POST.get(field, "")
    member = Member.objects.filter(club=evening.club, pk=read_int(value) or 0).first()
    if member is None:
        raise Refusal(_("Choose a member of this club."))
    return member


def _ratings(evening: Evening) -> dict[int, float]:
    return strengths(club_id=evening.club_id, game=evening.game)


@login_required
@require_POST
def evening_arrive(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, lambda e: services.player_arrive(
        evening=e, member=_member_from(request, e, "member"), user=request.user, strengths=_ratings(e)))


@login_required
@require_POST
def evening_leave(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, lambda e: services.player_leave(
        evening=e, member=_member_from(request, e, "member"), user=request.user, strengths=_ratings(e)))


@login_required
@require_POST
def evening_draw(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, lambda e: services.round_draw(evening=e, user=request.user, strengths=_ratings(e)))


def _round_of(evening: Evening, request: HttpRequest) -> Round:
    value = request.POST.get("round", "")
    found = evening.round_set.filter(pk=read_int(value) or 0).first()
    if found is None:
        raise Refusal(_("That round is not of this club night."))
    return found


def _version(request: HttpRequest) -> int | None:
    return read_int(request.POST.get("version", ""))


@login_required
@require_POST
def evening_swap(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, lambda e: services.round_swap(
        round=_round_of(e, request), first=_member_from(request, e, "first"),
        second=_member_from(request, e, "second"), user=request.user, expected_version=_version(request)))


@login_required
@require_POST
def evening_start(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, lambda e: services.round_start(
        round=_round_of(e, request), user=request.user, expected_version=_version(request)))


@login_required
@require_POST
def evening_close(request: HttpRequest, pk: int) -> HttpResponse:
    return _act(request, pk, lambda e: services.evening_close(evening=e, user=request.user))


def club_evenings(club_id: int) -> list[Evening]:
    return selectors.club_evenings(club_id, limit=EVENINGS_SHOWN)
