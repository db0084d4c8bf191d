"""The pages a treasurer and a scorer read on a phone (390x844) and the deal screen's header on a
tablet (1024x768):

- on a phone no table runs past the screen's edge: the leaderboard, the member page, the
  session's summary and the audit turn their rows into cards, each value beside its column's
  name, so the points and the money are on screen without scrolling sideways;
- on a tablet the deal screen's header (the game and deal, the dealer, the first player, the
  card letters) is one line.

``make screenshots`` saves each under screenshots/edges/ (and screenshots/ as the other tests').
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from referee import services

from .conftest import PHONE, SCREENSHOTS, TABLET, TAKE_SCREENSHOTS, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SHOTS = SCREENSHOTS / "edges"

#: Every table cell on screen and where it sticks out of the viewport (a cell of a folded
#: <details> has no box and is left out).
CELLS_SCRIPT = """() => {
  const width = window.innerWidth;
  const out = [];
  let cells = 0;
  for (const cell of document.querySelectorAll('main table td, main table th')) {
    const box = cell.getBoundingClientRect();
    if (box.width === 0 && box.height === 0) continue;
    cells += 1;
    if (box.left < -1 || box.right > width + 1) {
      const where = cell.closest('table').className || 'table';
      out.push(`${where}: ${cell.innerText.trim().slice(0, 30)} [${Math.round(box.left)}, ${Math.round(box.right)}]`);
    }
  }
  return {cells, out: out.slice(0, 10), scrollWidth: document.scrollingElement.scrollWidth, width};
}"""


#: The boxes of a header's parts: on one line, each part's top is above every part's bottom.
LINE_SCRIPT = """selector => {
  const boxes = [...document.querySelector(selector).children]
    .map(child => child.getBoundingClientRect()).filter(box => box.height > 0);
  return {count: boxes.length, tops: boxes.map(b => Math.round(b.top)), bottoms: boxes.map(b => Math.round(b.bottom))};
}"""


def picture(page: Any, name: str) -> None:
    if not TAKE_SCREENSHOTS:
        return
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0); document.body.scrollTop = 0")
    page.screenshot(path=str(SHOTS / f"{name}-screen.png"))
    # The whole page, its docked strips unstuck (the deal screen scrolls inside its body).
    page.evaluate("document.documentElement.classList.add('full-shot')")
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
    page.evaluate("document.documentElement.classList.remove('full-shot')")


@pytest.fixture
def evening(club_setup: dict[str, Any]) -> dict[str, Any]:
    """Velnias for money with a 0.05 coin, closed (with its summary); Mičiganas with a deal."""
    club, m = club_setup["club"], club_setup["members"]
    admin = club_setup["users"]["admin"]
    four = [m["admin"], m["scorer"], m["member"], m["Petras"]]
    velnias = services.session_start(club=club, game="velnias", players=four, user=admin,
                                     stake=Decimal("0.10"), coin=Decimal("0.05"))
    for counts in ([3, 2, 6, 1], [1, 4, 4, 2], [2, 2, 5, 3]):
        deal = services.deal_start(session=velnias, user=admin)
        services.entry_add(deal_id=deal.pk, user=admin, payload={
            "type": "end", "condition": "last_card", "player": 3, "hand_counts": counts})
    services.session_close(session=velnias, user=admin)
    michigan = services.session_start(club=club, game="michigan", players=four, user=admin, stake=Decimal("0.05"))
    deal = services.deal_start(session=michigan, user=admin)
    services.entry_add(deal_id=deal.pk, user=admin, payload={"type": "out", "player": 0, "hand_counts": [0, 3, 5, 2]})
    running = services.deal_start(session=michigan, user=admin)
    rukas = services.session_start(club=club, game="rukas", players=four, user=admin, options={"notation": "lt"})
    rukas_deal = services.deal_start(session=rukas, user=admin)
    return {"velnias": velnias, "michigan": michigan, "running": running, "rukas_deal": rukas_deal,
            "member": m["admin"]}


@pytest.mark.parametrize("language", ["lt", "en"])
def test_on_a_phone_every_table_cell_is_on_screen(open_page: Any, club_setup: dict[str, Any],
                                                 evening: dict[str, Any], language: str) -> None:
    page = open_page(club_setup["users"]["admin"], language=language, size=PHONE)
    velnias = evening["velnias"]
    pages = [
        ("leaderboard", "/clubs/vilnius/leaderboard/?min_deals=1"),
        ("leaderboard-velnias", "/clubs/vilnius/leaderboard/?game=velnias&min_deals=1"),
        ("member", f"/clubs/vilnius/members/{evening['member'].pk}/?vs={club_setup['members']['scorer'].pk}"),
        ("summary", f"/sessions/{velnias.pk}/"),
        ("audit", f"/sessions/{velnias.pk}/audit/"),
    ]
    failures = []
    for name, path in pages:
        page.goto(path)
        if name == "summary":
            page.locator(".session-summary").wait_for()
        report = page.evaluate(CELLS_SCRIPT)
        assert report["cells"] > 0, f"{path}: no table drawn"
        if report["out"] or report["scrollWidth"] > report["width"]:
            failures.append(f"{path}: page {report['scrollWidth']} px for {report['width']}: {report['out']}")
        picture(page, f"phone-{name}-{language}")
        page.set_viewport_size(TABLET)
        picture(page, f"tablet-{name}-{language}")
        page.set_viewport_size(PHONE)
    assert failures == [], "\n".join(failures)
    # The figures a treasurer looks for are there, each beside its column's name.
    page.goto(f"/sessions/{velnias.pk}/")
    money = page.locator(".summary-standings td[data-label^='Pinigai'], .summary-standings td[data-label^='Money']")
    assert money.count() == 4
    for cell in money.all():
        box = cell.bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
        label = page.evaluate("cell => getComputedStyle(cell, '::before').content", cell.element_handle())
        assert label.strip('"').startswith(("Pinigai", "Money"))


def test_the_deal_screens_header_is_one_line_on_a_tablet(open_page: Any, club_setup: dict[str, Any],
                                                         evening: dict[str, Any]) -> None:
    m, admin = club_setup["members"], club_setup["users"]["admin"]
    five = [m["admin"], m["scorer"], m["member"], m["Petras"], m["Asta"]]
    deals = [evening["running"], evening["rukas_deal"]]
    for game in ("velnias", "elgeta", "cheat"):
        players = five[:4] if game == "elgeta" else five  # Elgeta: 2 to 4 players
        session = services.session_start(club=club_setup["club"], game=game, players=players, user=admin,
                                         options={"notation": "lt"})
        deals.append(services.deal_start(session=session, user=admin))
    failures = []
    for language in ("lt", "en"):
        page = open_page(admin, language=language, size=TABLET)
        for deal in deals:
            page.goto(f"/deals/{deal.pk}/")
            for selector in (".site-head", ".deal-screen .deal-head"):
                head = page.evaluate(LINE_SCRIPT, selector)
                # One line: every part of the header beside the others, none below another.
                if not (head["count"] >= 2 and max(head["tops"]) < min(head["bottoms"])):
                    failures.append(f"{language} {deal.session.game} {selector}: {head}")
            picture(page, f"tablet-deal-head-{deal.session.game}-{language}")
        shoot(page, f"edges-deal-{language}")
    assert failures == [], "\n".join(failures)


def test_the_house_rules_are_on_the_session_page_and_the_deal_screen(open_page: Any, club_setup: dict[str, Any],
                                                                    evening: dict[str, Any]) -> None:
    page = open_page(club_setup["users"]["scorer"], language="lt", size=PHONE)
    page.goto(f"/deals/{evening['running'].pk}/")
    rules = page.locator(".house-rules")
    rules.locator("summary").click()
    text = rules.inner_text()
    for words in ("M1 įnašas ant prizinės kortos", "1 žetonas", "M2", "Kas dalija", "Statymas",
                  "0,05\u00a0EUR už žetoną", "M3 žetonai, likę ant prizinių kortų"):
        assert words in text, f"{words!r} not in {text!r}"
    picture(page, "phone-deal-house-rules-lt")
    page.goto(f"/sessions/{evening['michigan'].pk}/")
    page.locator(".house-rules summary").click()
    picture(page, "phone-session-house-rules-lt")
    for size, name in ((TABLET, "tablet"), (PHONE, "phone")):
        page.set_viewport_size(size)
        report = page.evaluate(CELLS_SCRIPT)
        assert report["scrollWidth"] <= report["width"], name
