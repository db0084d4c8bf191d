"""Pages for tablets, phones and the wall screen (server-rendered; small JavaScript enhances).

Every page works without JavaScript: the recording forms post here and the same services
decide. With JavaScript the forms drive the JSON API instead (idempotency keys, retries,
live updates); see static/js/table.js. Views stay thin: selectors read, services write.
"""

from __future__ import annotations

import json
import secrets
from decimal import Decimal, InvalidOperation
from typing import Any

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.db.models import Count, Max
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from referee.games import PAGES
from referee.rules import GAMES, IllegalEntry
from referee.rules.cards import SUITS

from . import presenters, selectors, services
from .errors import NotAllowed, NotFound, Refusal
from .models import GAME_CHOICES, ROLE_RANK, Club, Deal, DealStatus, Entry, Member, Role, Session, SessionStatus
from .permissions import club_role
from .services import refusal_from

#: How many of the deal's latest entries the recording screen lists.
RECENT_ENTRIES = 6


# -- small helpers -------------------------------------------------------------------------------


def _can_record(role: str | None) -> bool:
    return role is not None and ROLE_RANK[Role(role)] >= ROLE_RANK[Role.SCORER]


def _club_or_404(user: Any, slug: str) -> tuple[Club, str]:
    club = Club.objects.filter(slug=slug).first()
    role = club_role(user, club) if club is not None else None
    if club is None or role is None:
        raise Http404(_("Not found."))
    return club, role


def _json_refusal(error: Refusal) -> JsonResponse:
    return JsonResponse({"error": error.message, **error.extra}, status=error.status)


def new_key() -> str:
    """An idempotency key for a form rendered without JavaScript (a double submit is stored once)."""
    return "page-" + secrets.token_urlsafe(18)


def payload_from_form(data: Any) -> dict[str, Any]:
    """Build an entry from form fields named ``f:<field>:<kind>[:<index>]`` (table.js reads the
    same names): ``str``, ``int`` (empty is null), ``ints``/``strs`` (repeated fields, in order)
    and ``round`` (a list of lists; an empty card is null, as Elgeta's E1 records it)."""
    payload: dict[str, Any] = {}
    rounds: dict[str, dict[int, list[Any]]] = {}
    for name in data:
        if not name.startswith("f:"):
            continue
        parts = name.split(":")
        if len(parts) < 3:
            continue
        field, kind = parts[1], parts[2]
        values = data.getlist(name)
        if kind == "str":
            payload[field] = values[-1].strip()
        elif kind == "int":
            payload[field] = _int_or_text(values[-1])
        elif kind == "ints":
            payload[field] = [_int_or_text(value) for value in values]
        elif kind == "strs":
            payload[field] = [value.strip() for value in values]
        elif kind == "round" and len(parts) == 4 and parts[3].isdigit():
            rounds.setdefault(field, {})[int(parts[3])] = [value.strip() or None for value in values]
    for field, by_index in rounds.items():
        payload[field] = [by_index[index] for index in sorted(by_index)]
    return payload


def _int_or_text(value: str) -> Any:
    text = value.strip()
    if text == "":
        return None
    try:
        return int(text)
    except ValueError:
        return text  # the referee refuses it with a message naming the field


# -- home, club ----------------------------------------------------------------------------------


@login_required
def home(request: HttpRequest) -> HttpResponse:
    clubs = list(selectors.clubs_for(request.user))
    roles = dict(Member.objects.filter(user=request.user, active=True).values_list("club_id", "role"))
    rows = [{"club": club, "role": roles.get(club.pk, Role.ADMIN if request.user.is_superuser else None)}
            for club in clubs]
    return render(request, "referee/home.html", {"rows": rows})


@login_required
def club_page(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = _club_or_404(request.user, slug)
    sessions = (
        Session.objects.filter(club=club)
        .prefetch_related("seats__member")
        .annotate(deal_count=Count("deals"), last_deal=Max("deals__id"))
        .order_by("-created_at", "-id")[:30]
    )
    open_sessions = [s for s in sessions if s.status == SessionStatus.OPEN]
    closed_sessions = [s for s in sessions if s.status != SessionStatus.OPEN]
    return render(request, "referee/club.html", {
        "club": club, "role": role, "can_record": _can_record(role),
        "open_sessions": open_sessions, "closed_sessions": closed_sessions,
    })


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness and database check for the load balancer and docker-compose."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


# -- starting a session --------------------------------------------------------------------------

#: House rules the start form offers, per game: (option key, kind, choices), as the engine
#: declares them; defaults come from its ``option_defaults`` so the form can never disagree
#: with the referee.
RULE_FIELDS: dict[str, list[tuple[str, str, tuple[Any, ...]]]] = {
    slug: [(rule.key, rule.kind, rule.choices) for rule in game.house_rules] for slug, game in GAMES.items()
}


def _rules_context(values: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    games = []
    for slug, label in GAME_CHOICES:
        defaults = dict(GAMES[slug].option_defaults)
        texts = PAGES[slug].rule_texts()
        fields = []
        for key, kind, choices in RULE_FIELDS[slug]:
            default = defaults.get(key)
            value = values.get(slug, {}).get(key, default)
            text = texts[key]
            field: dict[str, Any] = {
                "key": key, "kind": kind, "name": f"opt_{slug}_{key}", "label": text.label, "help": text.help,
                "value": value, "default": default,
            }
            if kind == "choice":
                field["choices"] = [{"value": c, "label": text.choices[c]} for c in choices]
                field["default_label"] = text.choices.get(default, default)
            elif kind == "prizes":
                prizes = value if isinstance(value, list) and len(value) == 4 else ["AS", "KC", "QD", "JH"]
                field["prizes"] = [
                    {"rank": rank, "name": f"opt_{slug}_prize_{rank}", "label": rank_label,
                     "suit": next((p[-1] for p in prizes if p[:-1] == rank), "S")}
                    for rank, rank_label in (("A", _("Ace of")), ("K", _("King of")), ("Q", _("Queen of")),
                                             ("J", _("Jack of")))
                ]
                field["default_label"] = " ".join(presenters.show_card(p, "en") for p in (default or []))
            elif kind == "suits":
                field["value"] = " ".join(value) if isinstance(value, list) else ""
                field["default_label"] = _("by the number of players")
            elif kind == "bool":
                field["default_label"] = _("on") if default else _("off")
            else:
                field["default_label"] = default
            fields.append(field)
        games.append({"slug": slug, "label": label, "fields": fields, "game": GAMES[slug]})
    return games


def _read_options(post: Any, game: str) -> tuple[dict[str, Any], dict[str, str]]:
    """The house rules as the engine's options, and any field errors (by field name)."""
    options: dict[str, Any] = {}
    errors: dict[str, str] = {}
    for key, kind, choices in RULE_FIELDS.get(game, []):
        name = f"opt_{game}_{key}"
        raw = post.getlist(name)
        value = raw[-1].strip() if raw else ""
        if kind == "bool":
            options[key] = value in ("1", "on", "true")
        elif kind == "choice":
            wanted = next((c for c in choices if str(c) == value), None)
            if wanted is None:
                errors[name] = _("Choose one of the options.")
            else:
                options[key] = wanted
        elif kind == "chips":
            try:
                number = int(value)
            except ValueError:
                errors[name] = _("Give a whole number of chips, 0 or more.")
                continue
            if number < 0:
                errors[name] = _("Give a whole number of chips, 0 or more.")
            else:
                options[key] = number
        elif kind == "prizes":
            suits = {rank: post.get(f"opt_{game}_prize_{rank}", "") for rank in ("A", "K", "Q", "J")}
            options[key] = [rank + suit for rank, suit in suits.items()]
        elif kind == "suits" and value:
            options[key] = [part.upper() for part in value.replace(",", " ").split()]
    return options, errors


def _read_players(post: Any, members: list[Member]) -> list[Member]:
    """Checked members in seat order: by the seat number given, then in list order."""
    chosen = []
    for index, member in enumerate(members):
        if post.get(f"play_{member.pk}") in ("1", "on"):
            raw = post.get(f"seat_{member.pk}", "").strip()
            seat = int(raw) if raw.isdigit() else 10_000 + index
            chosen.append((seat, index, member))
    return [member for _seat, _index, member in sorted(chosen, key=lambda item: (item[0], item[1]))]


@login_required
def session_new(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = _club_or_404(request.user, slug)
    if not _can_record(role):
        return render(request, "referee/session_new.html", {
            "club": club, "can_record": False,
            "errors": {"form": _("Only the club's scorers and admins can record or change play.")},
        }, status=403 if request.method == "POST" else 200)
    members = list(club.members.filter(active=True).order_by("name"))
    errors: dict[str, str] = {}
    form: dict[str, Any] = {"game": request.GET.get("game", "velnias"), "notation": "lt", "stake": "0", "coin": ""}
    option_values: dict[str, dict[str, Any]] = {}
    chosen_ids: dict[int, int] = {}
    status = 200
    if request.method == "POST":
        post = request.POST
        form = {key: post.get(key, "").strip() for key in ("game", "notation", "stake", "coin")}
        game = form["game"]
        players = _read_players(post, members)
        chosen_ids = {member.pk: seat for seat, member in enumerate(players, start=1)}
        if game not in GAMES:
            errors["game"] = _("Choose a game.")
        if form["notation"] not in ("en", "lt"):
            errors["notation"] = _("Choose how cards are written.")
        stake = _decimal(form["stake"] or "0")
        if stake is None or stake < 0:
            errors["stake"] = _("Give an amount of 0 or more, e.g. 0.10.")
        coin = _decimal(form["coin"]) if form["coin"] else None
        if form["coin"] and (coin is None or coin <= 0):
            errors["coin"] = _("Give the smallest coin as an amount above 0, e.g. 0.05, or leave it empty.")
        options: dict[str, Any] = {}
        if game in GAMES:
            options, option_errors = _read_options(post, game)
            errors.update(option_errors)
            option_values[game] = options
            low, high = GAMES[game].min_players, GAMES[game].max_players
            if not low <= len(players) <= high:
                errors["players"] = _("%(game)s is played by %(low)s to %(high)s players; %(count)s chosen.") % {
                    "game": dict(GAME_CHOICES)[game], "low": low, "high": high, "count": len(players),
                }
        if not errors:
            options["notation"] = form["notation"]
            try:
                session = services.session_start(
                    club=club, game=game, players=players, user=request.user, options=options,
                    stake=stake or Decimal("0"), coin=coin,
                )
            except Refusal as error:
                errors["form"] = error.message
                status = error.status if error.status != 404 else 400
            else:
                return redirect("deal-new", pk=session.pk)
        else:
            status = 400
    return render(request, "referee/session_new.html", {
        "club": club, "role": role, "can_record": _can_record(role), "members": members, "errors": errors,
        "form": form, "games": _rules_context(option_values), "chosen": chosen_ids,
    }, status=status)


def _decimal(text: str) -> Decimal | None:
    try:
        value = Decimal(text.replace(",", "."))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


# -- starting a deal -----------------------------------------------------------------------------


def _next_dealer(session: Session, players: int) -> int:
    previous = session.deals.order_by("-number").first()
    if previous is None:
        return players - 1
    rules = GAMES[session.game]
    return rules.next_dealer(rules.from_dict(previous.state))


@login_required
def deal_new(request: HttpRequest, pk: int) -> HttpResponse:
    """Start the next deal, with its dealer shown (and changeable)."""
    session = selectors.session_for_page(request.user, pk)
    if session is None:
        raise Http404(_("Not found."))
    role = club_role(request.user, session.club)
    names = selectors.seat_names_of(session)
    error = None
    status = 200
    running = selectors.running_deal(session)
    if request.method == "POST":
        raw = request.POST.get("dealer", "")
        dealer = int(raw) if raw.isdigit() else None
        try:
            deal = services.deal_start(session=session, user=request.user, dealer=dealer)
        except Refusal as refusal:
            error, status = refusal.message, refusal.status
        else:
            return redirect("deal", pk=deal.pk)
    elif running is not None:
        return redirect("deal", pk=running.pk)
    dealer = _next_dealer(session, len(names))
    return render(request, "referee/deal_new.html", {
        "session": session, "club": session.club, "names": names, "dealer": dealer,
        "first_player": (dealer + 1) % len(names), "error": error, "can_record": _can_record(role),
        "number": session.deals.count() + 1, "seats": list(enumerate(names)),
    }, status=status)


# -- the recording screen -------------------------------------------------------------------------


def deal_context(
    deal: Deal, user: Any, role: str | None, *, errors: dict[str, str] | None = None,
    redraw: dict[str, Any] | None = None, entered: dict[str, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """Everything the recording screen shows, from the stored snapshot (never a replay).

    ``redraw`` is the typed form when the scorer asked for the screen again without storing
    anything (one of the game's ``redraw_actions``)."""
    session = deal.session
    names = selectors.seat_names_of(session)
    rules = GAMES[session.game]
    pages = PAGES[session.game]
    version = _deal_version(deal)
    view = _engine_view(deal, version)
    notation = session.notation
    finished = deal.status == DealStatus.FINISHED
    session_open = session.status == SessionStatus.OPEN
    can_record = _can_record(role) and session_open
    entries = selectors.recent_entries(deal, RECENT_ENTRIES)
    last_entry = entries[0] if entries else None
    later_deal = finished and session.deals.filter(number__gt=deal.number).exists()
    totals = selectors.running_totals(session, len(names))
    outcome = view.get("outcome")
    players = [
        {
            "seat": seat, "name": name, "total": totals[seat],
            "dealer": seat == deal.dealer, "first": seat == (deal.dealer + 1) % len(names),
            "points": outcome["points"][seat] if outcome else None,
            "place": outcome["placements"][seat] if outcome else None,
        }
        for seat, name in enumerate(names)
    ]
    context: dict[str, Any] = {
        "deal": deal, "session": session, "club": session.club, "game": session.game, "view": view,
        "game_template": pages.template,
        "names": names, "notation": notation, "players": players, "finished": finished,
        "can_record": can_record, "role": role, "session_open": session_open,
        "last_sentences": pages.explain_last(view, names, notation),
        "undo_label": (
            pages.describe_entry(last_entry.payload, last_entry.result, names, notation)
            if last_entry is not None and not later_deal else None
        ),
        "entries": [
            {"seq": e.seq, "text": pages.describe_entry(e.payload, e.result, names, notation)} for e in entries
        ],
        "errors": errors or {},
        # A refused form (without JavaScript) comes back holding what was typed, never a default.
        "entered": entered or {},
        "key": new_key(),
        "version": version,
        "rank_pad": presenters.rank_pad(notation),
        "suits": [{"letter": s, "symbol": presenters.SUIT_SYMBOLS[s], "name": presenters.suit_name(s)}
                  for s in SUITS],
        "unit": pages.unit_label(),
        "next_dealer": rules.next_dealer(rules.from_dict(deal.state)) if finished else None,
        "later_deal": later_deal,
        "stake": session.stake,
        "js_text": _js_text(names),
    }
    context.update(pages.screen(view, names, notation, state=deal.state, finished=finished, redraw=redraw))
    return context


def _js_text(names: list[str]) -> dict[str, Any]:
    """The few sentences table.js says, in the reader's language."""
    return {
        "saving": _("Saving…"),
        "saved": _("Saved."),
        "undoing": _("Undoing…"),
        "undone": _("Undone."),
        "retrying": _("Not saved yet: the connection failed. Retrying… (the entry is kept on this device)"),
        "offline": _("Offline: the entry is kept on this device and will be sent when the connection returns."),
        "resending": _("Sending the entry kept from before the reload…"),
        "server_error": _("The server could not save the entry (error %(status)s). Retrying…"),
        "updated": _("Updated from another device."),
        "changed_elsewhere": _("Another device recorded in this deal: the screen shows the latest state."),
        "already_played": _("%(name)s has already played %(rank)s this deal."),
        "not_allowed": _("%(rank)s is not possible for %(name)s here: %(reason)s"),
        "all_filled": _("Every card is filled in: confirm, or tap a card to change it."),
        "preview_error": _("The referee would refuse this:"),
        "starting": _("Starting the next deal…"),
        "tie_round": _("Tie-break round %(n)s"),
        "no_card": _("no card to add"),
        "names": names,
    }


def _engine_view(deal: Deal, version: str) -> dict[str, Any]:
    """The engine's view of the deal's snapshot, cached per deal version: every phone watching
    the table re-renders after each entry, and a long deal's snapshot (Mičiganas keeps its
    whole chip ledger) costs more to read than the page does to render."""
    # The creation time keeps keys apart should a database ever be rebuilt with the same ids.
    key = f"deal-view:{deal.pk}:{deal.created_at.timestamp()}:{version}"
    view = cache.get(key)
    if view is None:
        rules = GAMES[deal.session.game]
        view = rules.view(rules.from_dict(deal.state))
        cache.set(key, view, timeout=600)
    return view


def _deal_version(deal: Deal) -> str:
    """Changes with every entry, undo or correction (undo then re-record keeps seq, not the last id)."""
    last = Entry.objects.filter(deal=deal).aggregate(last=Max("id"))["last"] or 0
    return f"{deal.seq}.{last}.{deal.status}"


def _deal_or_404(user: Any, pk: int) -> tuple[Deal, str | None]:
    found = selectors.deal_for_page(user, pk)
    if found is None:
        raise Http404(_("Not found."))
    return found


@login_required
def deal_page(request: HttpRequest, pk: int) -> HttpResponse:
    deal, role = _deal_or_404(request.user, pk)
    if request.method == "POST":
        return _deal_post(request, deal, role)
    context = deal_context(deal, request.user, role)
    if request.GET.get("fragment"):
        response = render(request, "referee/deal_live.html", context)
        response["X-Deal-Version"] = context["version"]
        return response
    return render(request, "referee/deal.html", context)


def _deal_post(request: HttpRequest, deal: Deal, role: str | None) -> HttpResponse:
    """The recording forms without JavaScript: the same services, then back to the screen."""
    action = request.POST.get("action", "entry")
    form_id = request.POST.get("form", "entry")
    expected = request.POST.get("expected_seq", "")
    expected_seq = int(expected) if expected.isdigit() else None
    if action in PAGES[deal.session.game].redraw_actions:
        # The screen again from what was typed (e.g. one more tie-break round): nothing is written.
        context = deal_context(deal, request.user, role, redraw=payload_from_form(request.POST))
        return render(request, "referee/deal.html", context)
    payload = payload_from_form(request.POST)
    try:
        if action == "undo":
            services.entry_undo(deal_id=deal.pk, user=request.user, expected_seq=expected_seq)
        else:
            services.entry_add(
                deal_id=deal.pk, payload=payload, user=request.user,
                idempotency_key=request.POST.get("idempotency_key") or None, expected_seq=expected_seq,
            )
    except Refusal as error:
        deal.refresh_from_db()
        context = deal_context(
            deal, request.user, role, errors={form_id: error.message}, entered={form_id: payload},
        )
        return render(request, "referee/deal.html", context, status=error.status)
    return redirect("deal", pk=deal.pk)


@login_required
def deal_live(request: HttpRequest, pk: int) -> HttpResponse:
    """Polling for watchers and a second tablet: 204 while nothing changed (two small queries),
    else the live part of the screen. ``X-Running-Deal`` names the session's running deal, so a
    finished deal's watchers follow the table to the next one."""
    found = selectors.deal_for_poll(request.user, pk)
    if found is None:
        raise Http404(_("Not found."))
    deal, role = found
    version = _deal_version(deal)
    running = Deal.objects.filter(session_id=deal.session_id, status=DealStatus.RUNNING).values_list("pk", flat=True)
    running_id = next(iter(running), None)
    if request.GET.get("v") == version:
        response = HttpResponse(status=204)
    else:
        deal, role = _deal_or_404(request.user, pk)
        response = render(request, "referee/deal_live.html", deal_context(deal, request.user, role))
    response["X-Deal-Version"] = version
    response["X-Running-Deal"] = str(running_id or "")
    response["Cache-Control"] = "no-store"
    return response


@login_required
@require_POST
def deal_preview(request: HttpRequest, pk: int) -> JsonResponse:
    """What the referee would conclude from an entry, without storing it (the points shown
    before the scorer confirms). Same checks, same messages; nothing is written."""
    deal, role = _deal_or_404(request.user, pk)
    session = deal.session
    try:
        if not _can_record(role):
            raise NotAllowed(_("Only the club's scorers and admins can record or change play."))
        try:
            payload = json.loads(request.body or b"{}")
        except ValueError as bad:
            raise Refusal(_("The entry must be a JSON object with a “type”.")) from bad
        if not isinstance(payload, dict):
            raise Refusal(_("The entry must be a JSON object with a “type”."))
        payload.pop("idempotency_key", None)
        payload.pop("expected_seq", None)
        rules = GAMES[session.game]
        pages = PAGES[session.game]
        names = selectors.seat_names_of(session)
        try:
            state = rules.apply(rules.from_dict(deal.state), payload)
        except IllegalEntry as error:
            refusal = refusal_from(error, session, names)
            refusal.extra.update(pages.refusal_hint(deal.state, session.notation, error.params, payload))
            raise refusal from error
    except Refusal as error:
        return _json_refusal(error)
    view = rules.view(state)
    outcome = view.get("outcome")
    html = render_to_string("referee/preview.html", {
        "names": names, "outcome": outcome, "view": view, "game": session.game,
        "sentences": pages.explain_last(view, names, session.notation),
        **pages.preview(view, names),
        "rows": [
            {"name": name, "points": outcome["points"][seat] if outcome else None}
            for seat, name in enumerate(names)
        ],
    }, request=request)
    return JsonResponse({"html": html, "points": outcome["points"] if outcome else None})


# -- the session (standings, ledger, settlement, summary) ---------------------------------------------


@login_required
@require_POST
def session_close(request: HttpRequest, pk: int) -> HttpResponse:
    session = selectors.session_for_page(request.user, pk)
    if session is None:
        raise Http404(_("Not found."))
    try:
        services.session_close(session=session, user=request.user)
    except (Refusal, NotFound) as error:
        from .session_pages import session_page_response

        return session_page_response(request, session, error=error.message, status=error.status)
    return redirect(reverse("session", args=[session.pk]))
