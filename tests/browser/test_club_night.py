"""A whole club night in Chromium: 18 members (16 at the start, two late, one leaving early),
three rounds of Pašėlęs Velnias. The director opens the night, draws and starts each round
and adds and removes players on the director's screen; table 1's tablet opens its table by
its own address every round and records its deal on the recording screen, offline for the
whole of round 2; the other tables are recorded through the services. The wall screen's
standings are checked against a computation by hand from the seats the draw gave."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

import pytest
from playwright.sync_api import expect

from evenings.models import Evening, Round
from referee import services
from referee.models import Deal, Entry, Member, Session, SessionStatus

from .conftest import shoot
from .offline_steps import ENGINE_KEPT

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

EXTRA = ("Vytas", "Lina", "Jurgis", "Aldona", "Kęstas", "Rasa", "Saulius", "Dalia", "Gintas", "Irma")


def ending(players: int) -> dict[str, Any]:
    """Every table's deal: seat 1 empties their hand, seat k holds k - 1 cards, so seat k places k-th."""
    return {"type": "end", "condition": "empty_hand", "player": 0, "hand_counts": list(range(players))}


def by_services(session: Session, user: Any) -> None:
    deal = services.deal_start(session=session, user=user)
    services.entry_add(deal_id=deal.pk, user=user, payload=ending(session.seats.count()))
    services.session_close(session=session, user=user)


def tablet_opens_its_table(tablet: Any, evening: Evening, last: Session | None) -> None:
    """The tablet's one address for the evening leads to the deal of its table's current session;
    from the last round's session page, the notice of the new round leads there too."""
    if last is None:
        tablet.goto(f"/evenings/{evening.pk}/tables/1/")
    elif "/tables/" in tablet.url:
        tablet.reload()  # what the waiting screen's refresh does every 15 s
    else:
        tablet.goto(f"/sessions/{last.pk}/")
        tablet.get_by_role("link", name="Open table 1 for the new round").click()
    tablet.get_by_role("link", name="Start deal 1").click()
    tablet.get_by_role("button", name="Start the deal").click()
    tablet.locator("form#form-end").wait_for()


def tablet_records(tablet: Any, names: list[str]) -> None:
    tablet.locator("label.tile", has_text="Emptied hand").click()
    tablet.locator("[data-caller]").get_by_role("radio", name=names[0], exact=True).check()
    for seat in range(1, len(names)):  # the caller's 0 is filled by the form
        tablet.locator(f"#count-{seat}").fill(str(seat))
    tablet.get_by_role("button", name="Record the end of the deal").click()
    tablet.get_by_role("heading", name="Deal 1 is over").wait_for()


def by_hand(rounds: list[Round], names: dict[int, str]) -> dict[str, float]:
    """Each deal: (n - place) / (n - 1) at a table of n; a round's score is its one deal's; the
    night's is the sum. No byes: 16, 18 and 17 players all fit tables of 3 to 8."""
    total: dict[str, float] = defaultdict(float)
    for played in rounds:
        for table in played.tables.all():
            n = len(table.seats)
            for seat, member in enumerate(table.seats):
                total[names[member]] += (n - (seat + 1)) / (n - 1)
    return dict(total)


def test_a_club_night_of_three_rounds(open_page: Any, club_setup: dict[str, Any], built_engine: dict[str, Any]) -> None:
    club, scorer = club_setup["club"], club_setup["users"]["scorer"]
    for name in EXTRA:
        Member.objects.create(club=club, name=name)
    everyone = list(Member.objects.filter(club=club).order_by("pk"))
    assert len(everyone) == 18
    late, leaver = everyone[-2:], everyone[3]
    names = {m.pk: m.name for m in everyone}

    director = open_page(scorer)
    director.goto("/clubs/vilnius/")
    director.get_by_role("link", name="Start a club night").click()
    director.locator("#game").select_option("velnias")
    director.locator("#name").fill("Penktadienis")
    director.locator("#rounds").fill("3")
    for member in everyone[:16]:
        director.get_by_role("checkbox", name=member.name, exact=True).check()
    director.get_by_role("button", name="Start the club night").click()
    director.wait_for_url(re.compile(r"/evenings/\d+/$"))
    evening = Evening.objects.get()
    assert director.locator(".deal-meta").inner_text().endswith("16 players here")

    tablet = open_page(scorer)
    last: Session | None = None
    for number in (1, 2, 3):
        if number == 2:  # the two late arrivals, before the second draw
            for member in late:
                director.locator("select[name=member]").select_option(str(member.pk))
                director.get_by_role("button", name="Add to the night").click()
                director.wait_for_load_state()
            expect(director.locator(".deal-meta")).to_contain_text("18 players here")
        if number == 3:  # one leaves before the last
            director.get_by_role("button", name=f"{leaver.name} leaves").click()
            expect(director.locator(".deal-meta")).to_contain_text("17 players here")
        director.get_by_role("button", name=f"Draw round {number}").click()
        director.get_by_role("heading", name=f"Round {number}: the draw").wait_for()
        if number == 1:
            shoot(director, "club-night-director-draw")
        director.get_by_role("button", name=f"Start round {number}").click()
        director.get_by_role("heading", name=re.compile(f"^Round {number}")).wait_for()
        played = Round.objects.get(evening=evening, number=number)
        tables = list(played.tables.order_by("number"))
        sizes = sorted((len(t.seats) for t in tables), reverse=True)
        assert sizes == {1: [4, 4, 4, 4], 2: [4, 4, 4, 3, 3], 3: [5, 4, 4, 4]}[number]
        present = {m for t in tables for m in t.seats}
        assert (leaver.pk in present) == (number < 3) and all((m.pk in present) == (number > 1) for m in late)
        for table in tables[1:]:
            by_services(Session.objects.get(pk=table.session_id), scorer)

        first = tables[0]
        tablet_opens_its_table(tablet, evening, last)
        if number == 2:
            # Round 2 at table 1 is recorded offline: the engine referees on the tablet.
            tablet.wait_for_selector("#deal[data-offline=ready]", state="attached", timeout=60_000)
            tablet.wait_for_function("navigator.serviceWorker && navigator.serviceWorker.controller !== null",
                                     timeout=30_000)
            tablet.wait_for_function(ENGINE_KEPT, timeout=60_000, polling=250)
            tablet.context.set_offline(True)
        tablet_records(tablet, [names[m] for m in first.seats])
        deal = Deal.objects.get(session_id=first.session_id)
        if number == 2:
            assert Entry.objects.filter(deal=deal).count() == 0  # kept on the tablet
            director.reload()
            assert "playing" in director.locator("#current-h").inner_text()
            tablet.context.set_offline(False)
            for _ in range(300):
                if Entry.objects.filter(deal=deal, active=True).count() == 1:
                    break
                tablet.wait_for_timeout(100)
        assert [e.payload for e in Entry.objects.filter(deal=deal)] == [ending(len(first.seats))]
        last = Session.objects.get(pk=first.session_id)
        services.session_close(session=last, user=scorer)
        if number == 1:
            # The tablet waits at its table's address: it opens the next round by itself.
            tablet.goto(f"/sessions/{last.pk}/")
            tablet.get_by_role("link", name="Wait here for table 1's next round").click()
            expect(tablet.locator(".notice")).to_contain_text("Table 1 has finished its round.")
        assert Session.objects.filter(evening_table__round=played, status=SessionStatus.OPEN).count() == 0
        director.reload()
        expect(director.locator("#current-h")).to_contain_text("every table finished")

    wall = open_page(scorer)
    wall.goto(f"/evenings/{evening.pk}/wall/")
    shoot(wall, "club-night-wall")
    expect(wall.get_by_role("heading", name="Round 3")).to_be_visible()
    rows = wall.locator("#standings-h ~ .table-wrap tbody tr")
    shown = {row.locator("th").inner_text(): float(row.locator("td").nth(1).inner_text())
             for row in rows.all()}
    expected = by_hand(list(Round.objects.filter(evening=evening).order_by("number")), names)
    assert shown.keys() == expected.keys() and len(shown) == 18
    for name, score in expected.items():
        assert shown[name] == round(score, 2), (name, shown[name], score)
    places = [int(row.locator("td").first.inner_text()) for row in rows.all()]
    scores = [float(row.locator("td").nth(1).inner_text()) for row in rows.all()]
    assert scores == sorted(scores, reverse=True) and places[0] == 1
    shoot(director, "club-night-director")
    assert director.js_errors == [] and tablet.js_errors == [] and wall.js_errors == []
