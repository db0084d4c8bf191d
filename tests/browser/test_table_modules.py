"""static/js/table/'s drafts, conflict dialog and sync line in real Chromium, on the real
recording screens (their markup, their i18n JSON, their styles):

- drafts.js, as the screen wires it (draft-forms.js): a half-entered Velnias ending (tiles,
  the caller, steppers, a count locked at 0 with what was typed behind it) and an Elgeta
  trick with its tie-break round (rank pad taps, no input event) are kept in queue.js's
  IndexedDB and come back after a reload; a cleared draft does not;
- conflict.js: the two versions side by side in the club's words, a modal dialog with focus
  in it, big buttons, fitting a 390 px phone, axe-clean; Escape does not dismiss it; discard
  asks once more; a failed choice says why and can be tried again; Lithuanian on an LT page;
- status.js and the set-aside list in Lithuanian from the page's own sentences.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from referee import services

from .conftest import check_a11y, rukas_deal, shoot

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PHONE = {"width": 390, "height": 844}

#: In the page: the draft the device keeps for one form of this deal (queue.js's drafts).
STORED = """async (formId) => {
  const { openQueue } = await import("/static/js/offline/queue.js");
  const queue = await openQueue();
  const draft = await queue.loadDraft(Number(document.getElementById("deal").dataset.deal), formId);
  queue.close();
  return draft && draft.fields;
}"""

#: In the page: what the form's visible fields hold, by name, in order.
VALUES = """(formId) => Array.from(document.getElementById(formId).elements)
  .filter((el) => el.name && !["hidden", "submit", "button"].includes(el.type))
  .map((el) => [el.name, el.type === "radio" ? el.checked : el.value])"""


def velnias_deal(club_setup: dict[str, Any]) -> Any:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="velnias", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]])
    return services.deal_start(session=session, user=scorer)


def stored_draft(page: Any, form_id: str, field: str, expected: Any) -> Any:
    """Wait until the device keeps ``expected`` for ``field`` of the form's draft (saves are async)."""
    page.wait_for_function(f"""async () => {{
      const fields = await ({STORED})({form_id!r});
      return JSON.stringify(fields && fields[{field!r}]) === {json.dumps(json.dumps(expected))};
    }}""", timeout=10_000)
    return page.evaluate(STORED, form_id)


def test_a_half_entered_velnias_ending_survives_a_reload(open_page: Any, club_setup: dict[str, Any]) -> None:
    # The recording screen keeps drafts itself (static/js/table/draft-forms.js over drafts.js).
    deal = velnias_deal(club_setup)
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    assert page.evaluate(STORED, "form-end") is None
    for _ in range(2):
        page.get_by_role("button", name="One card more for Jonas").click()
    page.get_by_role("button", name="One card more for Petras").click()
    page.locator("label.tile", has_text="Emptied hand").click()
    page.locator("[data-caller]").get_by_role("radio", name="Jonas", exact=True).check()
    # The screen shows Jonas's count as 0 and locks it; the draft keeps the 3 typed.
    assert page.get_by_role("spinbutton", name="Jonas", exact=True).input_value() == "0"
    draft = stored_draft(page, "form-end", "f:player:int", {"radio": "1"})
    assert draft == {
        "f:condition:str": {"radio": "empty_hand"}, "f:player:int": {"radio": "1"},
        "f:hand_counts:ints": {"values": ["1", "3", "1", "2"]},
    }
    before = page.evaluate(VALUES, "form-end")

    page.reload()
    page.get_by_role("heading", name=re.compile("deal 1")).wait_for()
    page.wait_for_function("document.querySelector('[data-caller-seat=\"1\"]').checked")
    # As before the reload: the tiles, the caller, Jonas's count shown 0 and locked with the
    # 3 typed kept behind it, Petras's 2.
    assert page.evaluate(VALUES, "form-end") == before
    assert page.locator("#count-1").get_attribute("data-typed") == "3"
    # The caller changes: Jonas's typed 3 comes back, as it would have before the reload.
    page.locator("[data-caller]").get_by_role("radio", name="Ona", exact=True).check()
    assert page.get_by_role("spinbutton", name="Jonas", exact=True).input_value() == "3"
    assert page.get_by_role("spinbutton", name="Ona", exact=True).input_value() == "0"
    assert page.js_errors == []

    # Recorded: the draft goes, and the next reload shows a fresh form.
    page.evaluate("""async () => {
      const { openQueue } = await import("/static/js/offline/queue.js");
      const { draftStore, clearDraft } = await import("/static/js/table/drafts.js");
      const key = { deal: Number(document.getElementById("deal").dataset.deal), form: "form-end" };
      await clearDraft({ store: draftStore(await openQueue()), key });
    }""")
    page.reload()
    page.get_by_role("heading", name=re.compile("deal 1")).wait_for()
    assert page.evaluate(STORED, "form-end") is None
    assert page.get_by_role("spinbutton", name="Jonas", exact=True).input_value() == "1"
    assert not page.locator("[data-caller]").get_by_role("radio", name="Jonas", exact=True).is_checked()


def test_an_elgeta_trick_with_its_tie_break_round_survives_a_reload(open_page: Any, club_setup: dict[str, Any]) -> None:
    m, scorer = club_setup["members"], club_setup["users"]["scorer"]
    session = services.session_start(club=club_setup["club"], game="elgeta", user=scorer,
                                     players=[m["admin"], m["scorer"], m["member"], m["Petras"]],
                                     options={"suits": ["S", "D", "H", "C"]})
    deal = services.deal_start(session=session, user=scorer)
    page = open_page(scorer)
    page.goto(f"/deals/{deal.pk}/")
    pad = page.locator("[data-rank-pad]")
    for rank in ("J", "A", "A", "4"):  # the seed's tie of aces: the referee asks for round 2
        pad.get_by_role("button", name=rank, exact=True).click()
    page.locator('[data-round="1"]').wait_for()
    for rank in ("6", "7"):  # pad taps: values set without an input event
        pad.get_by_role("button", name=rank, exact=True).click()
    stored_draft(page, "form-trick", "f:rounds:round:1", {"values": ["6♠", "7♦", "", ""]})
    rounds = page.evaluate(VALUES, "form-trick")
    assert [value for _name, value in rounds] == ["J♠", "A♦", "A♥", "4♣", "6♠", "7♦", "", ""]

    page.reload()
    page.get_by_role("heading", name=re.compile("Trick 1")).wait_for()
    page.locator('[data-round="1"]').wait_for()  # the round the draft needs is there again
    assert page.locator('[data-round="1"] legend').inner_text() == "Round 2: tie-break"
    page.wait_for_function("document.querySelector('[data-round=\"1\"] [data-card-input]').value !== ''")
    assert page.evaluate(VALUES, "form-trick") == rounds
    # The round's slots still carry each player's label.
    assert page.get_by_label("Petras").nth(1).input_value() == ""
    assert page.js_errors == []


#: In the page: show a conflict in sync.js's shape; every choice is recorded in window.chosen.
SHOW = """async ({ conflict, fail }) => {
  const { showConflict, conflictText } = await import("/static/js/table/conflict.js");
  const text = conflictText(JSON.parse(document.getElementById("i18n").textContent));
  window.chosen = [];
  let failures = fail;
  const shown = showConflict(document.body, conflict, { text, onChoose: async (choice) => {
    window.chosen.push(choice);
    if (failures > 0) { failures -= 1; throw new Error("The server did not undo the entry (HTTP 409)."); }
  } });
  window.done = shown.chosen;
}"""


def stale_conflict(deal: Any) -> dict[str, Any]:
    """What sync.js reports when another device recorded trick 1 while this tablet's waited."""
    return {
        "kind": "stale", "key": "mine-1", "deal": deal.pk, "at": 0,
        "message": "Another device recorded in this deal first: it is at entry 1 now.",
        "resolutions": ["keep_server", "mine_on_top", "use_mine"],
        "mine": {"records": [
            {"kind": "entry", "key": "mine-1", "deal": deal.pk, "expected_seq": 0, "order": 1, "at": 0,
             "payload": {"type": "trick", "cards": ["3", "9", "9", "V", "4"]},
             "verdict": {"taker": "Petras", "text": "Petras takes the trick with the jack; the two nines cancel."}},
            {"kind": "entry", "key": "mine-2", "deal": deal.pk, "expected_seq": 1, "order": 2, "at": 0,
             "payload": {"type": "trick", "cards": ["5", "K", "2", "8", "6"]},
             "verdict": {"taker": "Jonas", "text": "Jonas takes the trick with the king."}},
        ]},
        "server": {"status": 409, "code": "stale_seq", "seq": 1,
                   "error": "Another device recorded in this deal first: it is at entry 1 now.",
                   "entries": [{"seq": 1, "active": True, "idempotency_key": "other", "payload": {
                       "type": "trick", "cards": ["T", "3", "4", "5", "6"]},
                       "result": {"taker": "Ona", "text": "Ona takes the trick with the ace."}}]},
    }


def dialog_fits(page: Any) -> None:
    box = page.evaluate("""() => {
      const d = document.querySelector("dialog.conflict");
      const r = d.getBoundingClientRect();
      return { left: r.left, right: r.right, width: innerWidth, scroll: d.scrollWidth - d.clientWidth,
               buttons: Array.from(d.querySelectorAll("button")).filter((b) => b.offsetParent)
                 .map((b) => [b.textContent, b.getBoundingClientRect().height, b.getBoundingClientRect().width]) };
    }""")
    assert box["left"] >= 0 and box["right"] <= box["width"], box
    assert box["scroll"] <= 0, f"the dialog scrolls sideways: {box}"
    assert box["buttons"] and all(height >= 44 and width >= 44 for _t, height, width in box["buttons"]), box


def test_the_conflict_dialog_shows_both_versions_and_asks_before_using_mine(
    open_page: Any, club_setup: dict[str, Any]
) -> None:
    deal = rukas_deal(club_setup)
    page = open_page(club_setup["users"]["scorer"])
    page.goto(f"/deals/{deal.pk}/")
    page.evaluate(SHOW, {"conflict": stale_conflict(deal), "fail": 0})
    dialog = page.get_by_role("dialog", name="Two versions of this deal")
    dialog.wait_for()
    assert page.evaluate("document.activeElement.closest('dialog.conflict') !== null"), "focus moved into the dialog"
    server = dialog.locator(".conflict-server")
    mine = dialog.locator(".conflict-mine")
    assert server.get_by_role("heading").inner_text() == "On the server"
    assert [" ".join(t.split()) for t in server.locator("li").all_inner_texts()] == [
        "#1 trick: T 3 4 5 6 Ona takes the trick with the ace."]
    mine_lines = [" ".join(t.split()) for t in mine.locator("li").all_inner_texts()]
    assert mine_lines == [
        "#1 trick: 3 9 9 V 4 Petras takes the trick with the jack; the two nines cancel.",
        "#2 trick: 5 K 2 8 6 Jonas takes the trick with the king.",
    ]
    # What happened, in the dialog's own words: no "reload and try again" beside the choices.
    assert "Another device recorded in this deal while this tablet's entries were waiting." in dialog.inner_text()
    assert "The server says" not in dialog.inner_text()
    assert "{" not in dialog.inner_text(), "no JSON on screen"
    assert dialog.get_by_role("button").all_inner_texts() == [
        "Keep the server's", "Put mine after the server's", "Use mine instead of the server's"]
    dialog_fits(page)
    shoot(page, "offline-conflict")
    check_a11y(page)

    page.keyboard.press("Escape")  # a choice is needed: the conflict does not go away unanswered
    assert dialog.is_visible()

    dialog.get_by_role("button", name="Use mine instead of the server's").click()
    question = dialog.get_by_text("Use this tablet's entries instead of the server's?")
    assert question.is_visible()
    assert page.evaluate("document.activeElement.textContent").startswith("Use this tablet's entries instead")
    assert "from #1 on are undone" in question.inner_text()
    assert not dialog.get_by_role("button", name="Keep the server's").is_visible()
    dialog_fits(page)
    dialog.get_by_role("button", name="Back").click()
    assert dialog.get_by_role("button", name="Keep the server's").is_visible()
    assert page.evaluate("window.chosen") == []
    dialog.get_by_role("button", name="Use mine instead of the server's").click()
    dialog.get_by_role("button", name="Yes, use mine").click()
    page.wait_for_function("document.querySelector('dialog.conflict') === null")
    assert page.evaluate("window.done") == "use_mine"
    assert page.evaluate("window.chosen") == ["use_mine"]
    assert page.js_errors == []


def test_a_failed_choice_says_why_and_can_be_tried_again_on_a_phone(open_page: Any, club_setup: dict[str, Any]) -> None:
    deal = rukas_deal(club_setup)
    page = open_page(club_setup["users"]["scorer"], size=PHONE)
    page.goto(f"/deals/{deal.pk}/")
    page.evaluate(SHOW, {"conflict": stale_conflict(deal), "fail": 1})
    dialog = page.get_by_role("dialog", name="Two versions of this deal")
    dialog.wait_for()
    dialog_fits(page)
    # One above the other on a phone: the server's version first.
    tops = page.evaluate("""() => ['.conflict-server', '.conflict-mine'].map(
      (s) => document.querySelector(s).getBoundingClientRect().top)""")
    assert tops[0] < tops[1]
    dialog.get_by_role("button", name="Put mine after the server's").click()
    dialog.get_by_role("alert").get_by_text("Not resolved: The server did not undo the entry (HTTP 409).").wait_for()
    assert dialog.get_by_role("button", name="Put mine after the server's").is_enabled()
    dialog.get_by_role("button", name="Put mine after the server's").click()
    page.wait_for_function("document.querySelector('dialog.conflict') === null")
    assert page.evaluate("window.chosen") == ["mine_on_top", "mine_on_top"]
    assert page.evaluate("window.done") == "mine_on_top"


def test_a_refusal_offers_no_mine_on_top_and_the_page_speaks_lithuanian(
    open_page: Any, club_setup: dict[str, Any]
) -> None:
    deal = rukas_deal(club_setup)
    page = open_page(club_setup["users"]["scorer"], language="lt")
    page.goto(f"/deals/{deal.pk}/")
    refused = {
        "kind": "refused", "key": "mine-1", "deal": deal.pk, "at": 0,
        "message": "Ona šiame dalijime jau sužaidė tūzą.", "resolutions": ["keep_server"],
        "mine": {"records": stale_conflict(deal)["mine"]["records"][:1]},
        "server": {"status": 400, "code": "illegal_entry", "error": "Ona šiame dalijime jau sužaidė tūzą."},
    }
    page.evaluate(SHOW, {"conflict": refused, "fail": 0})
    dialog = page.get_by_role("dialog", name="Dvi šio dalijimo versijos")
    dialog.wait_for()
    assert dialog.get_by_role("button").all_inner_texts() == ["Palikti serverio"]
    assert "Serveris sako: Ona šiame dalijime jau sužaidė tūzą." in dialog.inner_text()
    assert dialog.locator(".conflict-mine h3").inner_text() == "Šioje planšetėje, dar neišsiųsta"
    check_a11y(page)
    dialog.get_by_role("button", name="Palikti serverio").click()
    page.wait_for_function("document.querySelector('dialog.conflict') === null")
    assert page.evaluate("window.chosen") == ["keep_server"]

    # The sync line and the set-aside list, from the page's own Lithuanian sentences.
    said = page.evaluate("""async () => {
      const { renderStatus } = await import("/static/js/table/status.js");
      const { renderSetAside, conflictText } = await import("/static/js/table/conflict.js");
      const i18n = JSON.parse(document.getElementById("i18n").textContent);
      const line = document.createElement("p");
      document.body.append(line);
      const now = Date.now();
      renderStatus(line, { state: "idle", waiting: 3, lastSyncedAt: now - 120000 }, i18n, now);
      const first = line.textContent;
      renderStatus(line, { state: "offline", waiting: 12, lastSyncedAt: now - 120000 }, i18n, now);
      const box = document.createElement("div");
      document.body.append(box);
      renderSetAside(box, [
        { kind: "entry", key: "a", expected_seq: 0, payload: { type: "trick", cards: ["3", "9"] },
          reason: "discard_mine", aside_at: now },
        { kind: "entry", key: "b", expected_seq: 1, payload: { type: "trick", cards: ["K"] },
          reason: "keep_server", aside_at: now },
      ], { text: conflictText(i18n) });
      return { first, second: line.textContent, time: line.querySelector("time").textContent,
               aside: box.querySelector("summary").textContent,
               items: Array.from(box.querySelectorAll("li")).map((li) => li.textContent) };
    }""")
    assert re.fullmatch(r"3 įrašai laukia · paskutinį kartą sinchronizuota \d\d:\d\d \(prieš 2 minutes\)",
                        said["first"])
    assert said["second"].startswith("Be ryšio: 12 įrašų laikoma šiame įrenginyje · ")
    assert said["aside"] == "Atidėta šiame įrenginyje (2)"
    assert said["items"][0].startswith("#1 ") and "3 9" in said["items"][0] and "atmesta" in said["items"][0]
    assert "palikta serverio versija" in said["items"][1]
    assert page.js_errors == []
