"""The recording screen: the deal page and its forms without JavaScript, the watchers' poll and
the preview of an entry before the scorer confirms it.

With JavaScript the forms drive the JSON API instead (idempotency keys, retries, live
updates; see static/js/table/, screen.js first); without it they post here and the same services decide.
"""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.cache import cache
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from referee import screen_views, selectors, services
from referee.errors import NotAllowed, Refusal
from referee.games import PAGES
from referee.models import Deal
from referee.rules import GAMES, IllegalEntry
from referee.safe_input import read_int, read_json
from referee.services import refusal_from
from web import poll_cache, presence
from web.pages.access import can_record, deal_or_404
from web.pages.conditional import not_modified_from_cache, poll_headers, unchanged
from web.pages.deal_screen import deal_context
from web.pages.entry_form import payload_from_form
from web.pages.offline_templates import offline_templates


def _json_refusal(error: Refusal) -> JsonResponse:
    return JsonResponse({"error": error.message, **error.extra}, status=error.status)


@login_required
def deal_page(request: HttpRequest, pk: int) -> HttpResponse:
    # A GET embeds the snapshot for the tablet as the database wrote it (``snapshot_text``).
    deal, role = deal_or_404(request.user, pk, snapshot_as_text=request.method == "GET")
    if request.method == "POST":
        return _deal_post(request, deal, role)
    context = deal_context(deal, request.user, role)
    new_device = None
    if can_record(role):  # a scorer's screen: this device is recording the deal
        context["presence"], new_device = presence.on_screen(request, deal.pk, deal.session.club_id)
        context["version"] = presence.versioned(str(context["version"]), context["presence"])
    if request.GET.get("fragment"):
        response = render(request, "referee/deal_live.html", context)
        response["X-Deal-Version"] = context["version"]
    else:
        if context["can_record"]:  # what the tablet draws a deal from offline
            context["offline_templates"] = offline_templates(
                request, deal, context["names"], context["base_totals"], context["key"])
        response = render(request, "referee/deal.html", context)
    if new_device:
        presence.remember_device(response, new_device)
    return response


def _deal_post(request: HttpRequest, deal: Deal, role: str | None) -> HttpResponse:
    """The recording forms without JavaScript: the same services, then back to the screen."""
    action = request.POST.get("action", "entry")
    form_id = request.POST.get("form", "entry")
    expected_seq = read_int(request.POST.get("expected_seq", ""))
    payload = payload_from_form(request.POST)
    pages = PAGES[deal.session.game]
    if action in pages.redraw_actions:
        # The screen again from what was typed (e.g. one more tie-break round): nothing is written.
        context = deal_context(deal, request.user, role, redraw=pages.redraw_form(action, payload))
        return render(request, "referee/deal.html", context)
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
        # The form comes back exactly as typed (every Elgeta round too), never a default.
        context = deal_context(
            deal, request.user, role, errors={form_id: error.message}, entered={form_id: payload}, redraw=payload,
        )
        return render(request, "referee/deal.html", context, status=error.status)
    return redirect("deal", pk=deal.pk)


def deal_live(request: HttpRequest, pk: int) -> HttpResponse:
    """Polling for watchers and a second tablet: 304 while nothing changed (the screen's
    version, sent back as ``If-None-Match``), else the live part of the screen. The 304 comes
    from the cache when a valid watch cookie and the deal's cached version allow it
    (``referee.poll_cache``: no session, user or database read), else from one statement with
    the access check. ``X-Running-Deal`` names the session's running deal, so a finished deal's
    watchers follow the table to the next one. ``?v=`` is the earlier screens' question
    (an older screen script kept by a tablet's cache), answered 204. A scorer's poll marks the device present
    on the deal, and its version names the other devices recording it (``referee.presence``)."""
    cached = not_modified_from_cache(request, pk)
    return cached if cached is not None else _deal_live(request, pk)


@login_required
def _deal_live(request: HttpRequest, pk: int) -> HttpResponse:
    user = request.user
    user_id = user.pk
    place = poll_cache.place_of(pk) if poll_cache.enabled() and user_id is not None else None
    club_id = place[0] if place else None
    # Read before the exact check, so a change committing after it is never taken as seen.
    found = poll_cache.stamps(pk, place[1], user_id, place[0]) if user_id is not None and place else None
    poll = selectors.deal_poll(user, pk)
    if poll is None:
        raise Http404(_("Not found."))
    if found is not None and place is not None:
        poll_cache.remember(pk, found, poll.version, poll.running_deal, place[0], place[1])
    devices: list[presence.Device] = []
    new_device = None
    if can_record(poll.role):
        devices, new_device = presence.on_screen(request, pk, club_id)
    version = presence.versioned(poll.version, devices)
    if not unchanged(request, version):
        html, version = _live_fragment(request, pk, poll, devices)
        response = HttpResponse(html)
    elif request.headers.get("If-None-Match"):
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(status=204)
    poll_headers(response, version, poll.running_deal)
    if new_device:
        presence.remember_device(response, new_device)
    if found is not None and user_id is not None and club_id is not None:
        poll_cache.keep_token(request, response, user_id, club_id, poll.role, found)
    return response


#: What only one reader's copy of the screen holds (a form's CSRF token, a new entry's key).
_PERSONAL = ('name="csrfmiddlewaretoken"', 'name="idempotency_key"')


def _live_fragment(request: HttpRequest, pk: int, poll: selectors.Poll,
                   devices: list[presence.Device]) -> tuple[str, str]:
    """The live part of the screen and its version. Watchers who cannot record share one
    rendering per version and language: after each entry every phone at the table asks at
    once, and one render serves them all. A scorer's copy holds a fresh entry key of its own
    and names the other devices recording, so it is never shared."""
    key = f"deal-live:{pk}:{poll.created}:{poll.version}:{poll.role}:{get_language()}"
    if not can_record(poll.role):
        shared: str | None = cache.get(key)
        if shared is not None:
            return shared, poll.version
    deal, role = deal_or_404(request.user, pk)
    context = deal_context(deal, request.user, role)
    if can_record(role):
        context["presence"] = devices
        context["version"] = presence.versioned(str(context["version"]), devices)
    html = render_to_string("referee/deal_live.html", context, request=request)
    # Only what the poll's version names is shared: the deal may have moved on since the poll read it.
    if context["version"] == poll.version and role == poll.role and not any(mark in html for mark in _PERSONAL):
        cache.set(key, html, timeout=screen_views.VIEW_CACHE_SECONDS)
    return html, str(context["version"])


@login_required
@require_POST
def deal_preview(request: HttpRequest, pk: int) -> JsonResponse:
    """What the referee would conclude from an entry, without storing it (the points shown
    before the scorer confirms). Same checks, same messages; nothing is written."""
    deal, role = deal_or_404(request.user, pk)
    session = deal.session
    try:
        if not can_record(role):
            raise NotAllowed(_("Only the club's scorers and admins can record or change play."))
        try:
            payload = read_json(request.body or b"{}")  # nesting, NUL, infinities refused
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
