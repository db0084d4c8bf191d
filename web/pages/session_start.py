"""Starting a session: the form (players in seat order, game, notation, stake, coin, house
rules), then the first deal's start page."""

from __future__ import annotations

import random
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import get_template
from django.utils.translation import gettext as _

from referee import presenters, selectors, services
from referee.errors import Refusal
from referee.games import PAGES
from referee.models import GAME_CHOICES
from referee.rules import GAMES
from web.pages.access import can_record, club_or_404
from web.pages.start_form import PRIZE_RANKS, SessionStartForm

#: What the prize-card choices show when the value read is not four cards.
DEFAULT_PRIZES = ["AS", "KC", "QD", "JH"]


@login_required
def session_new(request: HttpRequest, slug: str) -> HttpResponse:
    club, role = club_or_404(request.user, slug)
    if not can_record(role):
        return render(request, "referee/session_new.html", {
            "club": club, "can_record": False,
            "errors": {"form": _("Only the club's scorers and admins can record or change play.")},
        }, status=403 if request.method == "POST" else 200)
    members = selectors.active_members(club)
    status = 200
    lots: dict[str, list[dict[str, str]]] = {}
    if request.method == "POST" and request.POST.get("draw"):
        # A house rule drawn by lot: the form comes back with the draw in its field, nothing started.
        form = SessionStartForm(request.POST, members=members)
        values, lots, errors = draw_by_lot(form, request.POST["draw"])
        return render(request, "referee/session_new.html", {
            "club": club, "role": role, "can_record": True, "members": members, "errors": errors,
            "form": form.shown(), "games": house_rules(values, lots), "chosen": form.seats(),
        }, status=400 if errors else 200)
    if request.method == "POST":
        form = SessionStartForm(request.POST, members=members)
        if form.is_valid():
            try:
                session = services.session_start(club=club, user=request.user, **form.session_arguments())
            except Refusal as error:
                form.add_error(None, error.message)
                status = error.status if error.status != 404 else 400
            else:
                return redirect("deal-new", pk=session.pk)
        else:
            status = 400
    else:
        form = SessionStartForm(members=members, game=request.GET.get("game"))
    return render(request, "referee/session_new.html", {
        "club": club, "role": role, "can_record": True, "members": members, "errors": form.messages(),
        "form": form.shown(), "games": house_rules(form.option_values()), "chosen": form.seats(),
    }, status=status)


def draw_by_lot(
    form: SessionStartForm, name: str
) -> tuple[dict[str, dict[str, Any]], dict[str, list[dict[str, str]]], dict[str, str]]:
    """Draw the house rule whose field is ``name`` by lot for the players seated on the form
    ("galima tai nustatyti ir burtų keliu"): the values to show (the draw in its field, like a
    choice, so starting the session stores it), what was drawn per seat, and a refusal by field."""
    form.is_valid()  # reads the seats and the rules typed so far; the rest is judged at the start
    values = form.option_values()
    found = [(slug, rule) for slug in GAMES for rule in GAMES[slug].house_rules
             if rule.by_lot and f"opt_{slug}_{rule.key}" == name]
    if not found:
        return values, {}, {"form": _("There is nothing to draw by lot there.")}
    slug, rule = found[0]
    game = GAMES[slug]
    if form.cleaned_data.get("game") != slug:
        return values, {}, {name: _("Choose %(game)s as the game first.") % {"game": dict(GAME_CHOICES)[slug]}}
    players = form.players
    if not game.min_players <= len(players) <= game.max_players:
        return values, {}, {name: _(
            "Seat the players first: the draw is for the %(low)s to %(high)s players at the table; %(count)s chosen."
        ) % {"low": game.min_players, "high": game.max_players, "count": len(players)}}
    drawn = game.draw_by_lot(rule.key, len(players), random.SystemRandom())
    values = {slug: {**values.get(slug, {}), rule.key: drawn}}
    held = drawn if isinstance(drawn, list) else []
    lot = [
        {"name": member.name, "symbols": " ".join(presenters.SUIT_SYMBOLS[s] for s in suits),
         "words": ", ".join(presenters.suit_name(s) for s in suits)}
        for member, suits in zip(players, held, strict=False)
    ]
    return values, {name: lot}, {}


def house_rules(
    values: dict[str, dict[str, Any]], lots: dict[str, list[dict[str, str]]] | None = None
) -> list[dict[str, Any]]:
    """Every game's house-rule fields as the form shows them: label, explanation, choices, the
    value shown (``values[game][rule]`` when given, else the default), the default in words, and
    for a rule the table may draw by lot, what was just drawn (``lots`` by field name)."""
    rank_labels = {"A": _("Ace of"), "K": _("King of"), "Q": _("Queen of"), "J": _("Jack of")}
    games = []
    for slug, label in GAME_CHOICES:
        defaults = dict(GAMES[slug].option_defaults)
        texts = PAGES[slug].rule_texts()
        fields = []
        for rule in GAMES[slug].house_rules:
            key, kind = rule.key, rule.kind
            default = defaults.get(key)
            value = values.get(slug, {}).get(key, default)
            text = texts[key]
            field: dict[str, Any] = {
                "key": key, "kind": kind, "name": f"opt_{slug}_{key}", "label": text.label, "help": text.help,
                "value": value, "default": default, "by_lot": rule.by_lot,
                "lot": (lots or {}).get(f"opt_{slug}_{key}"),
            }
            if kind == "choice":
                field["choices"] = [{"value": c, "label": text.choices[c]} for c in rule.choices]
                field["default_label"] = text.choices.get(default, default)
            elif kind == "prizes":
                prizes = value if isinstance(value, list) and len(value) == 4 else DEFAULT_PRIZES
                field["prizes"] = [
                    {"rank": rank, "name": f"opt_{slug}_prize_{rank}", "label": rank_labels[rank],
                     "suit": next((p[-1] for p in prizes if p[:-1] == rank), "S")}
                    for rank in PRIZE_RANKS
                ]
                default_prizes = default if isinstance(default, list) else []
                field["default_label"] = " ".join(presenters.show_card(p, "en") for p in default_prizes)
            elif kind == "suits":
                field["value"] = " ".join(value) if isinstance(value, list) else ""
                field["default_label"] = _("by the number of players")
            elif kind == "bool":
                field["default_label"] = _("on") if default else _("off")
            else:
                field["default_label"] = default
            fields.append(field)
        games.append({"slug": slug, "label": label, "fields": fields, "game": GAMES[slug], "note": _start_note(slug)})
    return games


def _start_note(slug: str) -> str | None:
    """The game's own note of what is fixed in it, beside its house rules, if it has one
    (``referee/games/<slug>_start.html``, with the game's other templates)."""
    name = f"referee/games/{slug}_start.html"
    try:
        get_template(name)
    except TemplateDoesNotExist:
        return None
    return name
