"""The recording screen to the standard of a scoring terminal, at the tablet's and the
phone's size: the Record button stays on screen after every step, refusals name things in the
club's words beside their cause, undo puts the values back, typed Rūkas ranks move on by
themselves, Rūkas totals run during the deal; and the taps a Velnias deal and a Rūkas trick
cost, counted."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect

from referee import services
from referee.models import Deal, Entry

from .conftest import PHONE, TABLET, check_a11y, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SIZES = [pytest.param(TABLET, id="tablet"), pytest.param(PHONE, id="phone")]

#: Counts the scorer's taps (a finger or mouse pressed down; a key's Enter is not a tap).
TAP_COUNTER = """
window.__taps = 0;
document.addEventListener("pointerdown", function (e) { if (e.isTrusted) window.__taps += 1; }, true);
"""

#: Taps measured before this screen's changes, for the report (same flows, same counter).
TAPS_BEFORE = {"velnias_deal": 11, "rukas_trick_tapped": 6, "rukas_trick_typed": 6}


def start(club_setup: dict[str, Any], game: str, players: list[str], **options: Any) -> Deal:
    m = club_setup["members"]
    scorer = club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game=game, user=scorer,
                                     players=[m[p] for p in players], options=options or None)
    return services.deal_start(session=session, user=scorer)


def record_in_view(page: Any, name: str) -> None:
    """The button's whole box is inside the viewport (not below the fold) and nothing lies over
    its centre, once the page has settled (a scroll may still be running after a tap)."""
    button = page.get_by_role("button", name=name)
    button.wait_for()
    settled = """([name]) => {
      const button = Array.from(document.querySelectorAll("button")).find(b => b.textContent.trim() === name);
      if (!button) return false;
      const box = button.getBoundingClientRect();
      if (box.top < 0 || box.left < 0 || box.bottom > innerHeight + 0.5 || box.right > innerWidth + 0.5) return false;
      const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return !!hit && hit.closest("button") === button;
    }"""
    try:
        page.wait_for_function(settled, arg=[name], timeout=3000)
    except Exception as error:  # the assertion below says what is wrong
        box = button.bounding_box()
        raise AssertionError(f"{name} is not fully on screen and uncovered: {box} in {page.viewport_size}") from error


def taps(page: Any) -> int:
    return int(page.evaluate("window.__taps"))


@pytest.mark.parametrize("size", SIZES)
def test_velnias_record_stays_in_reach_and_refusals_name_their_field(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int],
) -> None:
    deal = start(club_setup, "velnias", ["admin", "scorer", "member", "Petras"])
    page = open_page(club_setup["users"]["scorer"], size=size)
    page.add_init_script(TAP_COUNTER)
    page.goto(f"/deals/{deal.pk}/")
    record = "Record the end of the deal"
    record_in_view(page, record)

    # Nothing chosen: the refusal names the question in words, beside it, and only there.
    page.get_by_role("button", name=record).click()
    beside = page.locator("fieldset:has([data-condition]) [data-error-for-term]")
    # The refusal is the server's (the form's first entry goes online): on a loaded machine its
    # answer can take more than the default ten seconds; what is checked is where it shows.
    expect(beside).to_have_text("The end-of-deal entry needs how the deal ended.", timeout=30_000)
    assert page.locator("[data-error-for-player]:not(:empty), [data-error-for='end']:not(:empty)").count() == 0
    record_in_view(page, record)
    shoot(page, f"recording-velnias-refused-{size['width']}")
    check_a11y(page)
    assert Deal.objects.get(pk=deal.pk).seq == 0

    # The seed's last-card deal, step by step: the button never leaves the screen.
    page.evaluate("window.__taps = 0")
    page.locator("label.tile", has_text="Last face-down card").click()
    record_in_view(page, record)
    assert beside.inner_text() == ""  # answered: the refusal goes
    assert page.locator("[role=alert]:not(:empty)").count() == 0
    page.locator("[data-caller]").get_by_role("radio", name="Ona", exact=True).check()
    record_in_view(page, record)
    for name, count in (("Ona", 3), ("Jonas", 2), ("Rūta", 6)):
        for _ in range(count - 1):
            page.get_by_role("button", name=f"One card more for {name}").click()
            record_in_view(page, record)
    page.wait_for_function("document.querySelector('[data-preview-points]') !== null")
    record_in_view(page, record)
    shoot(page, f"recording-velnias-preview-{size['width']}")
    page.get_by_role("button", name=record).click()
    page.get_by_role("heading", name="Deal 1 is over").wait_for()
    velnias_taps = taps(page)
    assert velnias_taps == TAPS_BEFORE["velnias_deal"]  # 11: the flow needs no more taps than before
    # The verdict is in view after the entry.
    verdict = page.locator("[data-conclusion]").bounding_box()
    assert verdict is not None and 0 <= verdict["y"] < page.viewport_size["height"]
    assert page.locator("#sync").evaluate("el => getComputedStyle(el).position") == "static"
    print(f"TAPS velnias deal ({size['width']}px): before {TAPS_BEFORE['velnias_deal']}, after {velnias_taps}")

    # Undo puts the deal's end back in the form, as it was recorded.
    page.get_by_role("button", name="Undo: the end of the deal: last face-down card, Ona").click()
    page.locator("form#form-end").wait_for()
    page.wait_for_function("document.querySelector('#count-2').value === '6'")
    assert page.locator("label.tile", has_text="Last face-down card").locator("input").is_checked()
    assert page.locator("[data-caller]").get_by_role("radio", name="Ona", exact=True).is_checked()
    assert [page.locator(f"#count-{seat}").input_value() for seat in range(4)] == ["3", "2", "6", "1"]
    assert Deal.objects.get(pk=deal.pk).seq == 0
    record_in_view(page, record)
    assert page.js_errors == []


def test_velnias_refusal_in_lithuanian(open_page: Any, club_setup: dict[str, Any]) -> None:
    deal = start(club_setup, "velnias", ["admin", "scorer", "member", "Petras"])
    page = open_page(club_setup["users"]["scorer"], language="lt")
    page.goto(f"/deals/{deal.pk}/")
    page.locator("label.tile", has_text="Ištuštinta ranka").click()
    page.locator("form#form-end button[type=submit], button[form=form-end]").first.click()
    beside = page.locator("[data-caller] [data-error-for-term]")
    beside.wait_for()
    assert beside.inner_text() == "Pabaigai „ištuštinta ranka“ reikia žaidėjo, kuris padėjo paskutinę kortą."
    shoot(page, "recording-velnias-refused-lt")
    assert page.locator("[aria-invalid]").count() == 0  # no count is blamed for a missing caller
    assert page.js_errors == []


@pytest.mark.parametrize("size", SIZES)
def test_rukas_typed_ranks_move_on_totals_run_and_undo_restores(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int],
) -> None:
    deal = start(club_setup, "rukas", ["admin", "scorer", "member", "Petras", "Asta"], notation="lt")
    page = open_page(club_setup["users"]["scorer"], size=size)
    page.add_init_script(TAP_COUNTER)
    page.goto(f"/deals/{deal.pk}/")
    record = "Record the trick"
    record_in_view(page, record)

    # A slot left empty: the refusal names whose card, beside that slot.
    pad = page.locator("[data-rank-pad]")
    for rank in ("3", "9", "9", "V"):
        pad.get_by_role("button", name=rank, exact=True).click()
        record_in_view(page, record)
    page.get_by_role("button", name=record).click()
    beside = page.locator('[data-error-for-player="Asta"]')
    beside.wait_for()
    assert beside.inner_text() == "Asta's card is missing."
    assert page.locator("#card-4").get_attribute("aria-invalid") == "true"
    assert Deal.objects.get(pk=deal.pk).seq == 0
    record_in_view(page, record)

    # Tapped: five ranks and Record.
    page.evaluate("window.__taps = 0")
    pad.get_by_role("button", name="4", exact=True).click()
    page.get_by_role("button", name=record).click()
    page.get_by_text("Petras takes", exact=True).wait_for()
    tapped = taps(page) + 4  # the four ranks tapped before the refusal belong to the same trick
    assert tapped == TAPS_BEFORE["rukas_trick_tapped"]
    # The verdict in view, the Record button too, and the session's totals count this deal's trick.
    verdict = page.locator("[data-conclusion]").bounding_box()
    assert verdict is not None and 0 <= verdict["y"] < page.viewport_size["height"]
    record_in_view(page, record)
    totals = page.locator("#totals-h + .totals .value").all_inner_texts()
    assert totals == ["0", "0", "0", "+1", "0"]
    assert "with this deal so far" in page.locator("#totals-h").inner_text()
    shoot(page, f"recording-rukas-taken-{size['width']}")
    check_a11y(page)

    # Typed: one tap on the first slot, then only keys; each rank moves to the next slot, Enter records.
    page.evaluate("window.__taps = 0")
    page.locator("#card-3").click()  # Petras reveals first
    for key in ("2", "5", "6", "8", "K"):
        page.keyboard.type(key)
        record_in_view(page, record)
    assert [page.locator(f"#card-{seat}").input_value() for seat in (3, 4, 0, 1, 2)] == ["2", "5", "6", "8", "K"]
    assert page.evaluate("document.activeElement.textContent.trim()") == record
    page.keyboard.press("Enter")
    page.get_by_role("heading", name="Trick 3 of 13 · Rūta reveals first").wait_for()
    typed = taps(page)
    assert typed == 1
    print(f"TAPS rukas trick ({size['width']}px): tapped before {TAPS_BEFORE['rukas_trick_tapped']}, after {tapped};"
          f" typed before {TAPS_BEFORE['rukas_trick_typed']} taps (a tap per slot and Record), after {typed}")

    # Undo puts the trick's ranks back in the slots.
    page.get_by_role("button", name="Undo: the trick 2 5 6 8 K").click()
    page.get_by_role("heading", name="Trick 2 of 13 · Petras reveals first").wait_for()
    page.wait_for_function("document.querySelector('#card-2').value === 'K'")
    assert [page.locator(f"#card-{seat}").input_value() for seat in (3, 4, 0, 1, 2)] == ["2", "5", "6", "8", "K"]
    assert Entry.objects.filter(deal=deal, active=True).count() == 1
    record_in_view(page, record)
    assert page.js_errors == []


@pytest.mark.parametrize("size", SIZES)
def test_every_game_keeps_its_main_action_on_screen(
    open_page: Any, club_setup: dict[str, Any], size: dict[str, int],
) -> None:
    scorer = club_setup["users"]["scorer"]
    page = open_page(scorer, size=size)

    elgeta = start(club_setup, "elgeta", ["admin", "scorer", "member", "Petras"], suits=["S", "D", "H", "C"])
    page.goto(f"/deals/{elgeta.pk}/")
    record_in_view(page, "Record the trick")
    pad = page.locator("[data-rank-pad]")
    for rank in ("J", "A", "A", "4"):  # the seed's tie of aces: a tie-break round appears above
        pad.get_by_role("button", name=rank, exact=True).click()
        record_in_view(page, "Record the trick")
    page.locator('[data-round="1"]').wait_for()
    for rank in ("6", "7", "9", "Q"):
        pad.get_by_role("button", name=rank, exact=True).click()
        record_in_view(page, "Record the trick")
    page.locator("[data-preview-box]").get_by_text("Petras takes 8 cards after 1 tie-break round.").wait_for()
    record_in_view(page, "Record the trick")
    shoot(page, f"recording-elgeta-cards-in-{size['width']}")
    page.get_by_role("button", name="Record the trick").click()
    page.get_by_role("heading", name="Trick 2 · Petras leads").wait_for()
    record_in_view(page, "Record the trick")

    michigan = start(club_setup, "michigan", ["admin", "scorer", "member", "Petras"])
    page.goto(f"/deals/{michigan.pk}/")
    page.locator("label.prize").first.click()
    record_in_view(page, "Record the prize")
    page.get_by_role("radiogroup", name="Who played the prize card?").get_by_role("radio", name="Jonas").check()
    record_in_view(page, "Record the prize")
    page.get_by_role("button", name="Record the prize").click()
    page.locator("[data-conclusion]").wait_for()

    cheat = start(club_setup, "cheat", ["admin", "scorer", "member"])
    page.goto(f"/deals/{cheat.pk}/")
    record_in_view(page, "Ona placed a card (A)")
    page.get_by_role("button", name="Ona placed a card (A)").click()
    page.locator("[data-turn]", has_text="Jonas").wait_for()
    record_in_view(page, "Jonas placed a card (2)")
    assert page.js_errors == []
