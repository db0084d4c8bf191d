"""Who may open which page and post which form, as five people.

``anon`` is sent to sign in (the club's existence is not revealed), ``outsider`` (admin of
another club) gets 404, a ``member`` reads every page but every recording form refuses
them (403, nothing stored), ``scorer`` and ``admin`` record. A page about one club never
shows a name from the other; the other club's public leaderboard is open to anyone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date
from decimal import Decimal
from typing import Any

import pytest
from django.core.cache import cache
from django.test import Client

from referee import services
from scoring import seasons
from scoring.settlement import debts
from tests.conftest import build_club_setup, shared_by_the_module
from tests.evenings.world import drawn_evening

pytestmark = pytest.mark.django_db

ROLES = ("anon", "outsider", "member", "scorer", "admin")
VILNIUS_NAMES = ("Ona", "Jonas", "Rūta", "Petras", "Vilniaus klubas")
KAUNAS_NAMES = ("Darius", "Vytautas", "Ieva", "Kauno klubas")
LOGIN = 302


@dataclass(frozen=True)
class Page:
    method: str
    url: Callable[[dict[str, Any]], str]
    body: Callable[[dict[str, Any]], dict[str, Any]] | None
    expect: tuple[int, int, int, int, int]  # anon, outsider, member, scorer, admin

    def id(self) -> str:
        fake = {key: f"<{key}>" for key in ("velnias", "rukas", "idle", "running", "ona", "evening", "payment",
                                             "season")}
        return f"{self.method} {self.url(fake)}"


def read(url: Callable[[dict[str, Any]], str]) -> Page:
    return Page("GET", url, None, (LOGIN, 404, 200, 200, 200))


def record(url: Callable[[dict[str, Any]], str], body: Callable[[dict[str, Any]], dict[str, Any]], ok: int) -> Page:
    return Page("POST", url, body, (LOGIN, 404, 403, ok, ok))


PAGES: list[Page] = [
    Page("GET", lambda w: "/", None, (LOGIN, 200, 200, 200, 200)),
    read(lambda w: "/clubs/vilnius/"),
    read(lambda w: "/clubs/vilnius/sessions/new/"),
    read(lambda w: "/clubs/vilnius/leaderboard/"),
    read(lambda w: f"/clubs/vilnius/members/{w['ona']}/"),
    read(lambda w: f"/sessions/{w['velnias']}/"),
    # Watchers poll it with fetch: a signed-out phone gets 403, not a sign-in page to parse.
    Page("GET", lambda w: f"/sessions/{w['velnias']}/live/", None, (403, 404, 200, 200, 200)),
    read(lambda w: f"/sessions/{w['rukas']}/audit/"),
    read(lambda w: f"/sessions/{w['velnias']}/summary/chart.svg"),
    read(lambda w: f"/sessions/{w['idle']}/deals/new/"),
    read(lambda w: f"/deals/{w['running']}/"),
    read(lambda w: f"/deals/{w['running']}/live/"),
    # The correction screen: members read it (without its form); a correction needs a scorer.
    read(lambda w: f"/deals/{w['running']}/entries/1/correct/"),
    record(lambda w: "/clubs/vilnius/sessions/new/", lambda w: {
        "game": "velnias", "notation": "en", "stake": "0", "coin": "",
        **{f"play_{pk}": "on" for pk in (w["ona"], w["jonas"], w["petras"])}}, 302),
    record(lambda w: f"/sessions/{w['idle']}/deals/new/", lambda w: {"dealer": "0"}, 302),
    record(lambda w: f"/sessions/{w['idle']}/close/", lambda w: {"confirm": "yes"}, 302),
    record(lambda w: f"/sessions/{w['velnias']}/reopen/", lambda w: {}, 302),
    record(lambda w: f"/deals/{w['running']}/", lambda w: {
        "action": "entry", "f:type:str": "trick", "f:cards:strs": ["3", "4", "5", "6"], "expected_seq": "1",
        "idempotency_key": "page-1"}, 302),
    record(lambda w: f"/deals/{w['running']}/", lambda w: {"action": "undo", "expected_seq": "1"}, 302),
    # The club's own administration: everyone in the club reads the list, only admins change it.
    read(lambda w: "/clubs/vilnius/members/"),
    Page("GET", lambda w: f"/clubs/vilnius/members/{w['ona']}/manage/", None, (LOGIN, 404, 403, 403, 200)),
    # The audit chain's verification: the club's admins only.
    Page("GET", lambda w: "/clubs/vilnius/chain/", None, (LOGIN, 404, 403, 403, 200)),
    Page("POST", lambda w: "/clubs/vilnius/chain/", lambda w: {"anchor": ""}, (LOGIN, 404, 403, 403, 200)),
    Page("POST", lambda w: "/clubs/vilnius/members/", lambda w: {"name": "Gintarė", "role": "member"},
         (LOGIN, 404, 403, 403, 302)),
    Page("POST", lambda w: f"/clubs/vilnius/members/{w['ona']}/manage/", lambda w: {"name": "Ona", "role": "admin"},
         (LOGIN, 404, 403, 403, 302)),
    Page("POST", lambda w: f"/clubs/vilnius/members/{w['ona']}/manage/active/", lambda w: {"active": "1"},
         (LOGIN, 404, 403, 403, 302)),
    # Ona already signs in: the admin is told so (409), nobody else gets that far.
    Page("POST", lambda w: f"/clubs/vilnius/members/{w['ona']}/manage/invitation/", lambda w: {"action": "make"},
         (LOGIN, 404, 403, 403, 409)),
    # Opening an invitation needs no sign-in (the invited person has none yet).
    Page("GET", lambda w: "/invitation/", None, (200, 200, 200, 200, 200)),
    Page("GET", lambda w: "/invitation/AAAAA-AAAAA/", None, (404, 404, 404, 404, 404)),
    # A club night: everyone in the club follows it; the director's forms need a scorer.
    Page("GET", lambda w: "/clubs/vilnius/evenings/new/", None, (LOGIN, 404, 403, 200, 200)),
    read(lambda w: f"/evenings/{w['evening']}/"),
    read(lambda w: f"/evenings/{w['evening']}/wall/"),
    # No round has started: the table's address says so (and waits) for everyone of the club.
    Page("GET", lambda w: f"/evenings/{w['evening']}/tables/1/", None, (LOGIN, 404, 404, 404, 404)),
    record(lambda w: "/clubs/vilnius/evenings/new/", lambda w: {
        "game": "velnias", "table_size": "4", "present": [w["ona"], w["jonas"], w["petras"]]}, 302),
    record(lambda w: f"/evenings/{w['evening']}/arrive/", lambda w: {"member": w["marius"]}, 302),
    record(lambda w: f"/evenings/{w['evening']}/leave/", lambda w: {"member": w["petras"]}, 302),
    record(lambda w: f"/evenings/{w['evening']}/draw/", lambda w: {}, 302),
    record(lambda w: f"/evenings/{w['evening']}/swap/", lambda w: {
        "round": w["round"], "first": w["ona"], "second": w["petras"]}, 302),
    record(lambda w: f"/evenings/{w['evening']}/start/", lambda w: {"round": w["round"]}, 302),
    record(lambda w: f"/evenings/{w['evening']}/close/", lambda w: {}, 302),
    record(lambda w: f"/sessions/{w['idle']}/seats/", lambda w: {"seat": "0", "member": w["marius"]}, 302),
    record(lambda w: f"/sessions/{w['idle']}/plan/", lambda w: {"plan_kind": "deals", "plan_count": "5"}, 302),
    # The idle session has no plan to play on past: its scorer is told so (400), nobody else gets that far.
    record(lambda w: f"/sessions/{w['idle']}/play-on/", lambda w: {}, 400),
    # Debts: the club reads them; a payment is marked by its payer, its payee or an admin.
    read(lambda w: "/clubs/vilnius/debts/"),
    Page("POST", lambda w: "/clubs/vilnius/debts/pay/", lambda w: {
        "payer": w["petras"], "payee": w["ona"], "session": w["velnias"]}, (LOGIN, 404, 403, 403, 302)),
    Page("POST", lambda w: f"/clubs/vilnius/debts/payments/{w['payment']}/reverse/", lambda w: {},
         (LOGIN, 404, 403, 403, 302)),
    # Seasons: everyone in the club reads the tables; admins start and close seasons.
    read(lambda w: "/clubs/vilnius/seasons/"),
    read(lambda w: f"/seasons/{w['season']}/"),
    Page("POST", lambda w: "/clubs/vilnius/seasons/", lambda w: {
        "name": "Pavasaris", "start": "2026-03-01", "end": "2026-05-31", "unit": "session",
        "below_minimum": "unranked", "min_results": "0"}, (LOGIN, 404, 403, 403, 302)),
    Page("POST", lambda w: f"/seasons/{w['season']}/division/", lambda w: {"member": w["ona"], "division": "1"},
         (LOGIN, 404, 403, 403, 302)),
    Page("POST", lambda w: f"/seasons/{w['season']}/close/", lambda w: {}, (LOGIN, 404, 403, 403, 302)),
    Page("POST", lambda w: "/clubs/vilnius/leaderboard/settings/", lambda w: {"idle_sigma_per_week": "0.5"},
         (LOGIN, 404, 403, 403, 302)),
    # The installable app: the same for everyone, naming no one.
    Page("GET", lambda w: "/sw.js", None, (200, 200, 200, 200, 200)),
    Page("GET", lambda w: "/manifest.webmanifest", None, (200, 200, 200, 200, 200)),
    Page("GET", lambda w: "/offline/", None, (200, 200, 200, 200, 200)),
]


@pytest.fixture(scope="module")
def shared_world(django_db_setup: Any, django_db_blocker: Any) -> Iterator[dict[str, Any]]:
    """Built once for the module; each test runs in a savepoint and is rolled back to it."""
    yield from shared_by_the_module(django_db_blocker, build_world)


@pytest.fixture
def world(shared_world: dict[str, Any], db: Any) -> dict[str, Any]:
    cache.clear()  # what an earlier test left in the cache (a throttle, a poll's stamp) goes with its rows
    return shared_world


def build_world() -> dict[str, Any]:
    from django.test import TestCase

    club_setup = build_club_setup()
    members, users = club_setup["members"], club_setup["users"]
    scorer = users["scorer"]
    four = [members[name] for name in ("admin", "scorer", "member", "Petras")]
    velnias = services.session_start(club=club_setup["club"], game="velnias", players=four, user=scorer,
                                     stake=Decimal("0.10"))
    deal = services.deal_start(session=velnias, user=scorer)
    services.entry_add(deal_id=deal.pk, user=scorer, payload={
        "type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 5, 2, 4]})
    with TestCase.captureOnCommitCallbacks(execute=True):
        services.session_close(session=velnias, user=scorer)  # the summary is built in-process
    rukas = services.session_start(club=club_setup["club"], game="rukas", players=four, user=scorer)
    running = services.deal_start(session=rukas, user=scorer, dealer=3)
    services.entry_add(deal_id=running.pk, user=scorer, payload={"type": "trick", "cards": ["2", "3", "4", "5"]})
    idle = services.session_start(club=club_setup["club"], game="cheat", players=four[:3], user=scorer)

    other, outsider = club_setup["other"], users["outsider"]
    other.public_leaderboard = True
    other.save()
    theirs = [members["outsider"], *(services.member_add(club=other, name=name, user=outsider)
                                     for name in ("Vytautas", "Ieva"))]
    kaunas = services.session_start(club=other, game="velnias", players=theirs, user=outsider)
    their_deal = services.deal_start(session=kaunas, user=outsider)
    services.entry_add(deal_id=their_deal.pk, user=outsider, payload={
        "type": "end", "condition": "empty_hand", "player": 1, "hand_counts": [6, 0, 3]})
    evening, drawn = drawn_evening(club_setup)
    # Petras (no user of his own) pays Ona toward his balance: only an admin may reverse it.
    paid = debts.payment_mark(club=club_setup["club"], payer=members["Petras"], payee=members["admin"],
                              amount=Decimal("0.10"), user=users["admin"])
    cache.clear()
    winter = seasons.season_create(club=club_setup["club"], user=users["admin"], name="Žiema",
                                   start=date(2026, 12, 1), end=date(2027, 2, 28), divisions=2)
    return {**club_setup, "evening": evening.pk, "payment": paid.pk, "season": winter.pk, "round": drawn.pk,
            "marius": members["Marius"].pk,
            "velnias": velnias.pk, "rukas": rukas.pk, "running": running.pk, "idle": idle.pk,
            "ona": members["admin"].pk, "jonas": members["scorer"].pk, "petras": members["Petras"].pk}


def browser(world: dict[str, Any], role: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    if role != "anon":
        client.force_login(world["users"][role])
    return client


#: A form's CSRF token: 64 random letters and digits, which now and then spell a name ("Ieva").
CSRF_TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[A-Za-z0-9]+"')


def names_in(text: str, names: tuple[str, ...]) -> list[str]:
    text = CSRF_TOKEN.sub("", text)
    return [name for name in names if name in text]


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("page", PAGES, ids=[page.id() for page in PAGES])
def test_page_access(page: Page, role: str, world: dict[str, Any]) -> None:
    from referee.models import Deal, Entry, Session

    before = (Session.objects.count(), Deal.objects.count(), Entry.objects.filter(active=True).count())
    client = browser(world, role)
    url = page.url(world)
    response = client.get(url) if page.method == "GET" else client.post(url, page.body(world) if page.body else {})
    expected = page.expect[ROLES.index(role)]
    assert response.status_code == expected, response.content[:300]
    if role == "anon" and expected == LOGIN:
        assert response["Location"].startswith("/login/?next=")
    text = response.content.decode(errors="replace")
    assert not names_in(text, VILNIUS_NAMES if role == "outsider" else KAUNAS_NAMES), text[:300]
    if page.method == "POST" and expected != 302:
        after = (Session.objects.count(), Deal.objects.count(), Entry.objects.filter(active=True).count())
        assert after == before, "a refused form stored something"


def test_every_page_of_the_urlconf_is_in_the_matrix() -> None:
    """A new page must get its row here (the API, admin, sign-in and static routes aside)."""
    from django.urls import get_resolver

    names = {pattern.name for pattern in get_resolver().url_patterns if getattr(pattern, "name", None)}
    for resolver in get_resolver().url_patterns:
        if getattr(resolver, "app_name", None) == "admin":
            continue  # staff only, Django's own
        for pattern in getattr(resolver, "url_patterns", []):
            if getattr(pattern, "name", None):
                names.add(pattern.name)
    covered = {"home", "club", "session-new", "leaderboard", "member", "session", "session-live", "session-audit",
               "session-summary-chart", "deal-new", "deal", "deal-live", "session-close", "session-reopen",
               "entry-correct", "deal-preview", "session-seat", "session-plan", "session-play-on",
               "evening-new", "evening", "evening-wall", "evening-table", "evening-arrive", "evening-leave",
               "evening-draw", "evening-swap", "evening-start", "evening-close",
               "debts", "payment-mark", "payment-reverse", "seasons", "season", "season-close", "season-division",
               "rating-settings", "club-chain",
               "club-members", "club-member", "club-member-active", "club-member-invite", "invitation-code",
               "invitation", "service-worker", "web-manifest", "offline",
               "login", "logout", "healthz", "set_language", "schema", "api-docs",
               # Browsers post content policy reports there, signed in or not (tests/pages/test_content_policy.py).
               "csp-report"}
    pages = {name for name in names if not name.startswith("api-")}
    assert pages - covered == set()


def test_the_preview_refuses_members_and_strangers(world: dict[str, Any]) -> None:
    entry = '{"type": "trick", "cards": ["3", "4", "5", "6"]}'
    url = f"/deals/{world['running']}/preview/"
    assert browser(world, "anon").post(url, entry, content_type="application/json").status_code == LOGIN
    assert browser(world, "outsider").post(url, entry, content_type="application/json").status_code == 404
    refused = browser(world, "member").post(url, entry, content_type="application/json")
    assert refused.json() == {"error": "Only the club's scorers and admins can record or change play."}
    assert browser(world, "scorer").post(url, entry, content_type="application/json").status_code == 200


def test_public_leaderboards_are_open_and_private_ones_are_not(world: dict[str, Any]) -> None:
    anon = browser(world, "anon")
    public = anon.get("/clubs/kaunas/leaderboard/")
    assert public.status_code == 200
    text = public.content.decode()
    assert names_in(text, KAUNAS_NAMES) and not names_in(text, VILNIUS_NAMES)
    assert anon.get("/clubs/vilnius/leaderboard/").status_code == LOGIN
    assert browser(world, "member").get("/clubs/kaunas/leaderboard/").status_code == 200
    assert not names_in(browser(world, "member").get("/clubs/kaunas/leaderboard/").content.decode(),
                        VILNIUS_NAMES)


def test_the_home_page_lists_only_ones_own_clubs(world: dict[str, Any]) -> None:
    assert "Vilniaus klubas" in browser(world, "member").get("/").content.decode()
    assert "Kauno klubas" not in browser(world, "member").get("/").content.decode()
    assert "Vilniaus klubas" not in browser(world, "outsider").get("/").content.decode()
