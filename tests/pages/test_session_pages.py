"""Starting a session and a deal from the pages; the session page (standings, settlement,
ledger, summary), the club's leaderboard and a member's history."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import pytest

from referee import services
from referee.models import Deal, Seat, Session

from .conftest import record

pytestmark = pytest.mark.django_db

SEED_END = {"type": "end", "condition": "last_card", "player": 0, "hand_counts": [3, 2, 6, 1]}


def session_form(club_setup: dict[str, Any], game: str, seats: dict[str, str], **fields: Any) -> dict[str, Any]:
    """The start form as a browser posts it: ticked members with their seat numbers."""
    members = club_setup["members"]
    form: dict[str, Any] = {"game": game, "notation": "en", "stake": "0", "coin": ""}
    for key, seat in seats.items():
        form[f"play_{members[key].pk}"] = "1"
        form[f"seat_{members[key].pk}"] = seat
    form.update(fields)
    return form


def test_the_start_form_shows_every_house_rule_with_its_default(page: Any, club_setup: dict) -> None:
    html = page(club_setup["users"]["scorer"]).get("/clubs/vilnius/sessions/new/").content.decode()
    for label in ("R1 a 7 that beat an ace", "R2 a trick nobody takes", "M1 ante per prize card",
                  "M2 misplay penalty", "C1 jokers", "E2 all aces end the deal", "E4 strict order of captured cards"):
        assert label in html, label
    assert "Default: the 7 takes." in html
    assert "Default: void (no point)." in html
    assert "Default: A♠ K♣ Q♦ J♥." in html
    assert "V1 (fixed)" in html and "M3 (at session close)" in html


def test_a_session_starts_with_its_house_rules_and_seat_order(page: Any, club_setup: dict) -> None:
    form = session_form(club_setup, "rukas", {"Petras": "2", "member": "1", "scorer": "3"},
                        notation="lt", stake="0,20", opt_rukas_seven_after_ace="next_highest",
                        opt_rukas_void_trick="carry")
    response = page(club_setup["users"]["scorer"]).post("/clubs/vilnius/sessions/new/", form)
    session = Session.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/sessions/{session.pk}/deals/new/"
    assert session.options == {"seven_after_ace": "next_highest", "void_trick": "carry", "notation": "lt"}
    assert session.stake == Decimal("0.20")
    assert [s.member.name for s in Seat.objects.filter(session=session).order_by("number")] == [
        "Rūta", "Petras", "Jonas"]


def test_a_bad_start_form_says_what_to_fix_and_creates_nothing(page: Any, club_setup: dict) -> None:
    client = page(club_setup["users"]["scorer"])
    too_few = client.post("/clubs/vilnius/sessions/new/", session_form(club_setup, "velnias", {"admin": "1"}))
    assert too_few.status_code == 400
    assert "Pašėlęs Velnias is played by 3 to 8 players; 1 chosen." in too_few.content.decode()
    bad_money = client.post("/clubs/vilnius/sessions/new/", session_form(
        club_setup, "michigan", {"admin": "1", "scorer": "2", "member": "3"}, stake="-1", coin="0",
        opt_michigan_ante="x"))
    html = bad_money.content.decode()
    assert "Give an amount of 0 or more, e.g. 0.10." in html
    assert "Give the smallest coin as an amount above 0, e.g. 0.05, or leave it empty." in html
    assert "Give a whole number of chips, 0 or more." in html
    same_suit = client.post("/clubs/vilnius/sessions/new/", session_form(
        club_setup, "michigan", {"admin": "1", "scorer": "2", "member": "3"}, opt_michigan_prize_A="S",
        opt_michigan_prize_K="S", opt_michigan_prize_Q="D", opt_michigan_prize_J="H", opt_michigan_ante="1",
        opt_michigan_dealer_ante="2", opt_michigan_misplay_penalty="1", opt_michigan_live="0"))
    assert same_suit.status_code == 400
    assert "The prize cards must be of four different suits, not AS, KS, QD, JH." in same_suit.content.decode()
    member = page(club_setup["users"]["member"]).post("/clubs/vilnius/sessions/new/", session_form(
        club_setup, "cheat", {"admin": "1", "scorer": "2"}))
    assert member.status_code == 403
    assert "Only the club&#x27;s scorers and admins can record or change play." in member.content.decode()
    assert Session.objects.count() == 0


def test_each_deal_starts_with_its_dealer_shown(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("cheat", ["admin", "scorer", "member"])
    session = deal.session
    services.deal_discard(deal=deal, user=club_setup["users"]["scorer"])
    client = page(club_setup["users"]["scorer"])
    html = client.get(f"/sessions/{session.pk}/deals/new/").content.decode()
    assert re.search(r'value="2" checked>\s*<span class="face">Rūta', html)  # seat 0 plays first
    assert "First player: <strong>Ona</strong>" in html
    response = client.post(f"/sessions/{session.pk}/deals/new/", {"dealer": "1"})
    deal = Deal.objects.get(session=session)
    assert response["Location"] == f"/deals/{deal.pk}/" and deal.dealer == 1
    # A deal is running: the start page sends the scorer back to the table.
    assert client.get(f"/sessions/{session.pk}/deals/new/")["Location"] == f"/deals/{deal.pk}/"


def test_the_session_page_shows_standings_settlement_and_the_zero_sum_check(
    page: Any, start: Any, club_setup: dict
) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    session = deal.session
    session.stake = Decimal("0.10")
    session.save()
    record(deal, club_setup["users"]["scorer"], SEED_END)
    html = page(club_setup["users"]["member"]).get(f"/sessions/{session.pk}/").content.decode()
    assert "Rūta pays Ona 1.00 EUR" in html
    assert "Jonas pays Ona 0.90 EUR" in html
    assert "Petras pays Ona 0.80 EUR" in html
    assert "Zero-sum check: the players' nets add up to 0\n    ✓" in html
    assert f"/api/sessions/{session.pk}/settlement/?format=csv" in html
    assert "Go to the table" not in html  # a member has nothing to record


def test_a_phone_on_the_session_page_polls_for_changes(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    watcher = page(club_setup["users"]["member"])
    first = watcher.get(f"/sessions/{deal.session_id}/live/")
    assert first.status_code == 200
    assert watcher.get(f"/sessions/{deal.session_id}/live/?v={first['X-Version']}").status_code == 204
    record(deal, club_setup["users"]["scorer"], SEED_END)
    changed = watcher.get(f"/sessions/{deal.session_id}/live/?v={first['X-Version']}")
    assert changed.status_code == 200
    assert '<th scope="row">Ona</th><td class="num pos"><strong>+27</strong>' in changed.content.decode()


def test_closing_the_session_from_the_page(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    client = page(club_setup["users"]["scorer"])
    # Closing asks first: the page shows what becomes final; only the confirming POST closes.
    asked = client.get(f"/sessions/{deal.session_id}/close/")
    assert asked.status_code == 200 and "Yes, close the session" in asked.content.decode()
    assert client.post(f"/sessions/{deal.session_id}/close/").status_code == 200
    assert Session.objects.get(pk=deal.session_id).status == "open"
    refused = client.post(f"/sessions/{deal.session_id}/close/", {"confirm": "yes"})
    assert refused.status_code == 400
    assert ("Deal 1 is still running: finish it, or undo its entries and discard it, before closing."
            in refused.content.decode())
    record(deal, club_setup["users"]["scorer"], SEED_END)
    closed = client.post(f"/sessions/{deal.session_id}/close/", {"confirm": "yes"})
    assert closed["Location"] == f"/sessions/{deal.session_id}/"
    assert Session.objects.get(pk=deal.session_id).status == "closed"
    html = client.get(f"/sessions/{deal.session_id}/").content.decode()
    assert "closed" in html and "Summary" in html
    # Reopened from its page by a scorer; a member sees no such button and is refused.
    assert "Reopen the session" in html
    member = page(club_setup["users"]["member"])
    assert "Reopen the session" not in member.get(f"/sessions/{deal.session_id}/").content.decode()
    assert member.post(f"/sessions/{deal.session_id}/reopen/").status_code == 403
    assert client.post(f"/sessions/{deal.session_id}/reopen/")["Location"] == f"/sessions/{deal.session_id}/"
    assert Session.objects.get(pk=deal.session_id).status == "open"


def test_the_leaderboard_is_public_only_when_the_club_says_so(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    record(deal, club_setup["users"]["scorer"], SEED_END)
    assert page().get("/clubs/vilnius/leaderboard/")["Location"] == "/login/?next=/clubs/vilnius/leaderboard/"
    assert page(club_setup["users"]["outsider"]).get("/clubs/vilnius/leaderboard/").status_code == 404
    club = club_setup["club"]
    club.public_leaderboard = True
    club.save()
    public = page().get("/clubs/vilnius/leaderboard/?min_deals=1&game=velnias")
    html = public.content.decode()
    assert public.status_code == 200 and "Ona" in html
    assert "EUR" not in html  # money stays among members
    member = page(club_setup["users"]["member"]).get("/clubs/vilnius/leaderboard/?min_deals=1").content.decode()
    assert "EUR" in member
    bad = page(club_setup["users"]["member"]).get("/clubs/vilnius/leaderboard/?period=custom&start=2026-01-01")
    assert bad.status_code == 400
    assert "A custom period needs both start and end dates (YYYY-MM-DD)." in bad.content.decode()


def test_a_members_history_and_head_to_head(page: Any, start: Any, club_setup: dict) -> None:
    deal = start("velnias", ["admin", "scorer", "member", "Petras"])
    record(deal, club_setup["users"]["scorer"], SEED_END)
    ona = club_setup["members"]["admin"]
    jonas = club_setup["members"]["scorer"]
    html = page(club_setup["users"]["member"]).get(f"/clubs/vilnius/members/{ona.pk}/?vs={jonas.pk}").content.decode()
    assert "Ona and Jonas played 1 deals together: Ona placed higher 1 times, Jonas 0 times." in html
    assert page().get(f"/clubs/vilnius/members/{ona.pk}/").status_code == 302
    assert page(club_setup["users"]["outsider"]).get(f"/clubs/vilnius/members/{ona.pk}/").status_code == 404
