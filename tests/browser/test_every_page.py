"""Every page, in both themes and at both sizes (1024x768 tablet, 390x844 phone): axe-core finds
no serious or critical violation, nothing is wider than the viewport (a wide table scrolls
inside its own box, with a cue, instead of pushing the page sideways), and the content policy
refuses nothing on it (no ``securitypolicyviolation`` in the page; a report at the endpoint
fails the test too: conftest.py's ``policy_reports``).

"""

from __future__ import annotations

from datetime import date, timedelta
from decimal import Decimal
from typing import Any

import pytest

from evenings import services as evenings
from referee import services
from referee.models import Deal, Member
from referee.rules import GAMES
from scoring import seasons
from scoring.settlement import debts
from tests.evenings.world import drawn_evening

from .conftest import PHONE, TABLET, check_a11y, shoot, sign_in
from .content_policy import WATCH, violations

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: Evaluated in the page: what sticks out past the right edge of the viewport. An element inside
#: a box that scrolls or clips sideways is that box's business, not the page's.
OVERFLOW_SCRIPT = """() => {
  const width = document.documentElement.clientWidth;
  const clipped = el => {
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      const x = getComputedStyle(node).overflowX;
      if (x === 'auto' || x === 'scroll' || x === 'hidden' || x === 'clip') return true;
    }
    return false;
  };
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const box = el.getBoundingClientRect();
    if (box.width === 0 || box.right <= width + 1 || clipped(el)) continue;
    out.push(`${el.tagName.toLowerCase()}.${el.className} right=${Math.round(box.right)}`);
  }
  return {scrollWidth: document.documentElement.scrollWidth, width, out: out.slice(0, 8)};
}"""


def assert_fits(page: Any) -> None:
    report = page.evaluate(OVERFLOW_SCRIPT)
    assert report["out"] == [] and report["scrollWidth"] <= report["width"], (
        f"{page.url} is wider than the viewport ({report['scrollWidth']} > {report['width']}): {report['out']}")


def assert_no_policy_violation(page: Any) -> None:
    seen = violations(page)
    assert seen == [], f"the content policy refused: {seen}"


def checked(page: Any, check: Any) -> None:
    """``check(page)``, once more if the page reloaded itself meanwhile (a summary that became
    ready while the check ran reloads the session page)."""
    from playwright.sync_api import Error

    try:
        check(page)
    except Error as error:
        print(f"{page.url} navigated during a check ({error}); checking again")
        page.wait_for_load_state()
        check(page)


@pytest.fixture
def club_pages(club_setup: dict[str, Any]) -> list[tuple[str, str]]:
    """(screenshot name, path) of every page a signed-in club admin can open, with a session of
    every game: Velnias closed (with its summary), Mičiganas and Rūkas with a finished deal, a
    running deal of every game."""
    club, m = club_setup["club"], club_setup["members"]
    admin = club_setup["users"]["admin"]
    four = [m["admin"], m["scorer"], m["member"], m["Petras"]]
    sessions = {game: services.session_start(club=club, game=game, players=four, user=admin, stake=Decimal("0.10"))
                for game in ("velnias", "michigan", "rukas", "elgeta", "cheat")}
    for counts in ([3, 2, 6, 1], [1, 4, 4, 2], [2, 2, 5, 3]):
        deal = services.deal_start(session=sessions["velnias"], user=admin)
        services.entry_add(deal_id=deal.pk, user=admin, payload={
            "type": "end", "condition": "last_card", "player": 3, "hand_counts": counts})
    services.session_close(session=sessions["velnias"], user=admin)
    deal = services.deal_start(session=sessions["michigan"], user=admin)
    services.entry_add(deal_id=deal.pk, user=admin, payload={"type": "out", "player": 0, "hand_counts": [0, 3, 5, 2]})
    deal = services.deal_start(session=sessions["rukas"], user=admin)
    ranks = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"]
    hands = [ranks[seat * 3:] + ranks[:seat * 3] for seat in range(4)]
    for trick in range(13):
        leader = GAMES["rukas"].view(GAMES["rukas"].from_dict(Deal.objects.get(pk=deal.pk).state))["leader"]
        services.entry_add(deal_id=deal.pk, user=admin, payload={
            "type": "trick", "cards": [hands[(leader + i) % 4][trick] for i in range(4)]})
    for game in ("michigan", "rukas", "elgeta", "cheat"):
        services.deal_start(session=sessions[game], user=admin)
    pages = [("home", "/"), ("club", "/clubs/vilnius/"), ("session-new", "/clubs/vilnius/sessions/new/"),
             ("leaderboard", "/clubs/vilnius/leaderboard/?min_deals=1"),
             ("leaderboard-velnias", "/clubs/vilnius/leaderboard/?game=velnias&min_deals=1"),
             ("leaderboard-wall", "/clubs/vilnius/leaderboard/?min_deals=1&wall=1"),
             ("member", f"/clubs/vilnius/members/{m['admin'].pk}/?vs={m['scorer'].pk}")]
    evening, drawn = drawn_evening(club_setup)
    evenings.round_start(round=drawn, user=admin)
    first_table = drawn.tables.order_by("number").first().session
    deal = services.deal_start(session=first_table, user=admin)
    services.entry_add(deal_id=deal.pk, user=admin, payload={
        "type": "end", "condition": "empty_hand", "player": 0, "hand_counts": [0, 2, 4, 6]})
    evenings.round_draw(evening=evening, user=admin, seed=2)
    first_debt = debts.open_transfers(club)[0]
    debts.payment_mark(club=club, session=first_debt.session, payer=Member.objects.get(pk=first_debt.payer),
                       payee=Member.objects.get(pk=first_debt.payee), user=admin)
    winter = seasons.season_create(club=club, user=admin, name="Žiema", start=date.today() - timedelta(days=30),
                                   end=date.today() + timedelta(days=30), best_of=2)
    pages += [("seasons", "/clubs/vilnius/seasons/"), ("season", f"/seasons/{winter.pk}/"),
              ("season-wall", f"/seasons/{winter.pk}/?wall=1"),
              ("leaderboard-lines", "/clubs/vilnius/leaderboard/?min_deals=1&lines=1")]
    pages += [("debts", "/clubs/vilnius/debts/"), ("evening-new", "/clubs/vilnius/evenings/new/"),
              ("evening", f"/evenings/{evening.pk}/"),
              ("evening-wall", f"/evenings/{evening.pk}/wall/")]
    for game, session in sessions.items():
        pages += [(f"session-{game}", f"/sessions/{session.pk}/"), (f"audit-{game}", f"/sessions/{session.pk}/audit/")]
        deals = list(Deal.objects.filter(session=session).order_by("number"))
        if session.closed_at is None:
            pages.append((f"deal-new-{game}", f"/sessions/{session.pk}/deals/new/"))
            pages.append((f"deal-running-{game}", f"/deals/{deals[-1].pk}/"))
        if deals[0].finished_at is not None:
            pages.append((f"deal-finished-{game}", f"/deals/{deals[0].pk}/"))
    return pages


# Each theme once, one in each language (Lithuanian words run longer on a phone); each size a
# test of its own, so that the parallel workers share the pages.
@pytest.mark.parametrize("size", [pytest.param(PHONE, id="phone"), pytest.param(TABLET, id="tablet")])
@pytest.mark.parametrize(("theme", "language"), [("dark", "en"), ("light", "lt")])
def test_every_page_passes_axe_and_fits_the_phone(browser: Any, live_server: Any, theme: str, language: str,
                                                   size: dict[str, int], club_pages: list[tuple[str, str]]) -> None:
    failures: list[str] = []
    context = browser.new_context(viewport=size, locale=language, base_url=live_server.url)
    context.add_init_script(WATCH)
    context.add_cookies([{"name": "django_language", "value": language, "url": live_server.url},
                         {"name": "theme", "value": theme, "url": live_server.url}])
    page = context.new_page()
    page.set_default_timeout(10_000)
    for name, path in [("login", "/login/"), *club_pages]:
        if name == "home":
            sign_in(page, "admin")
        else:
            page.goto(path)
        for check in (check_a11y, assert_fits, assert_no_policy_violation):
            try:
                checked(page, check)
            except AssertionError as error:
                failures.append(f"{theme} {language} {size['width']} {path}: {error}")
        if size is PHONE:
            checked(page, lambda page, name=name: shoot(page, f"every-{theme}-{name}"))
    context.close()
    assert failures == [], "\n\n".join(failures)
