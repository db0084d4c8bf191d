"""Starting the next deal of a session, with its dealer shown (and changeable)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from referee import selectors, services
from referee.errors import Refusal
from referee.models import Session
from referee.permissions import club_role
from referee.rules import GAMES
from referee.safe_input import read_int
from web.pages.access import can_record, session_or_404


def next_dealer(session: Session, players: int) -> int:
    """Who deals next: the last seat deals first, then as the previous deal's rules say."""
    previous = selectors.last_deal(session)
    if previous is None:
        return players - 1
    rules = GAMES[session.game]
    return rules.next_dealer(rules.from_dict(previous.state))


@login_required
def deal_new(request: HttpRequest, pk: int) -> HttpResponse:
    """Start the next deal, with its dealer shown (and changeable)."""
    session = session_or_404(request.user, pk)
    role = club_role(request.user, session.club)
    names = selectors.seat_names_of(session)
    error = None
    status = 200
    running = selectors.running_deal(session)
    if request.method == "POST":
        raw = request.POST.get("dealer", "")
        dealer = read_int(raw)
        try:
            deal = services.deal_start(session=session, user=request.user, dealer=dealer)
        except Refusal as refusal:
            error, status = refusal.message, refusal.status
        else:
            return redirect("deal", pk=deal.pk)
    elif running is not None:
        return redirect("deal", pk=running.pk)
    dealer = next_dealer(session, len(names))
    return render(request, "referee/deal_new.html", {
        "session": session, "club": session.club, "names": names, "dealer": dealer,
        "first_player": (dealer + 1) % len(names), "error": error, "can_record": can_record(role),
        "number": selectors.deal_count(session) + 1, "seats": list(enumerate(names)),
    }, status=status)
