/* status.js: the sync line's words in English and Lithuanian, counts in the right plural
   form, absolute and relative times, and a line rewritten only when its words change. */
import { test } from "node:test";
import assert from "node:assert/strict";

import { statusText, renderStatus, counted, relativeTime, absoluteTime } from "../../../static/js/table/status.js";
import { FakeDocument } from "./fake-dom.mjs";

// The times are read in UTC, so the test does not depend on the machine's zone.
const EN = { language: "en", timeZone: "UTC" };
// What web/pages/offline_text.py renders in Lithuanian (its .po translations): one
// sentence per CLDR category the browser picks from.
const LT = {
  language: "lt",
  timeZone: "UTC",
  all_saved: "Viskas išsaugota",
  waiting: { one: "%(n)s įrašas laukia", few: "%(n)s įrašai laukia", other: "%(n)s įrašų laukia" },
  sending: { one: "Siunčiamas %(n)s įrašas…", few: "Siunčiami %(n)s įrašai…", other: "Siunčiama %(n)s įrašų…" },
  offline_kept: {
    one: "Be ryšio: %(n)s įrašas laikomas šiame įrenginyje",
    few: "Be ryšio: %(n)s įrašai laikomi šiame įrenginyje",
    other: "Be ryšio: %(n)s įrašų laikoma šiame įrenginyje",
  },
  offline_none: "Be ryšio: niekas nelaukia",
  retry_when: "bandoma vėl %(when)s",
  last_synced: "paskutinį kartą sinchronizuota %(time)s (%(ago)s)",
  never_synced: "dar nesinchronizuota",
};

const AT_1802 = Date.UTC(2026, 11, 1, 18, 2, 0);
const MINUTE = 60_000;

test("entries waiting, with the last sync's clock time and how long ago", () => {
  const said = statusText({ state: "idle", waiting: 3, lastSyncedAt: AT_1802 }, EN, AT_1802 + 2 * MINUTE);
  assert.equal(said.line, "3 entries waiting · last synced 18:02 (2 minutes ago)");
  assert.equal(statusText({ state: "idle", waiting: 1, lastSyncedAt: AT_1802 }, EN, AT_1802 + 2 * MINUTE).main,
    "1 entry waiting");
});

test("nothing waiting is all saved; a sync moments ago is 'now'", () => {
  assert.equal(statusText({ state: "idle", waiting: 0, lastSyncedAt: AT_1802 }, EN, AT_1802 + 5000).line,
    "All saved · last synced 18:02 (now)");
  assert.equal(statusText({ state: "idle", waiting: 0 }, EN, AT_1802).line, "All saved");
});

test("offline: the entries are kept on this device; never synced says so", () => {
  assert.equal(statusText({ state: "offline", waiting: 3, lastSyncedAt: AT_1802 }, EN, AT_1802 + 3 * 3600_000).line,
    "Offline: 3 entries kept on this device · last synced 18:02 (3 hours ago)");
  assert.equal(statusText({ state: "offline", waiting: 2 }, EN, AT_1802).line,
    "Offline: 2 entries kept on this device · not synced yet");
  assert.equal(statusText({ state: "offline", waiting: 0 }, EN, AT_1802).line, "Offline: nothing waiting");
});

test("sending, retrying with the wait, a conflict and signed out each say their own", () => {
  assert.equal(statusText({ state: "sending", waiting: 4 }, EN, AT_1802).main, "Sending 4 entries…");
  assert.equal(statusText({ state: "retrying", waiting: 2, retryIn: 8000 }, EN, AT_1802).main,
    "2 entries waiting · trying again in 8 seconds");
  assert.equal(statusText({ state: "conflict", waiting: 2 }, EN, AT_1802).main,
    "Two versions of this deal: choose which to keep");
  assert.match(statusText({ state: "signed_out", waiting: 2 }, EN, AT_1802).main, /^Signed out: sign in again/);
});

test("Lithuanian counts take their three forms, times read in Lithuanian", () => {
  const forms = [1, 2, 9, 10, 11, 12, 20, 21, 22, 100].map((n) => counted(LT.waiting, n, "lt"));
  assert.deepEqual(forms, [
    "1 įrašas laukia", "2 įrašai laukia", "9 įrašai laukia", "10 įrašų laukia", "11 įrašų laukia",
    "12 įrašų laukia", "20 įrašų laukia", "21 įrašas laukia", "22 įrašai laukia", "100 įrašų laukia",
  ]);
  assert.equal(statusText({ state: "idle", waiting: 3, lastSyncedAt: AT_1802 }, LT, AT_1802 + 2 * MINUTE).line,
    "3 įrašai laukia · paskutinį kartą sinchronizuota 18:02 (prieš 2 minutes)");
  assert.equal(statusText({ state: "offline", waiting: 1 }, LT, AT_1802).line,
    "Be ryšio: 1 įrašas laikomas šiame įrenginyje · dar nesinchronizuota");
  assert.equal(statusText({ state: "retrying", waiting: 5, retryIn: 8000 }, LT, AT_1802).main,
    "5 įrašai laukia · bandoma vėl po 8 sekundžių");
});

test("a sync on another day shows the date; relative times grow to hours and days", () => {
  const yesterday = AT_1802 - 24 * 3600_000;
  assert.equal(absoluteTime(yesterday, AT_1802, "en", "UTC"), "Nov 30, 18:02");
  assert.equal(absoluteTime(AT_1802, AT_1802 + MINUTE, "en", "UTC"), "18:02");
  assert.equal(relativeTime(-90 * MINUTE, "en"), "2 hours ago");
  assert.equal(relativeTime(-3 * 24 * 3600_000, "en"), "3 days ago");
  assert.equal(relativeTime(-2 * 24 * 3600_000, "lt"), "užvakar");
});

test("the whole i18n JSON or its offline_text part both work; missing keys fall back to English", () => {
  const page = { saving: "Saugoma…", offline_text: { language: "lt", all_saved: "Viskas išsaugota" } };
  assert.equal(statusText({ waiting: 0 }, page).main, "Viskas išsaugota");
  assert.equal(statusText({ waiting: 2 }, { language: "lt" }).main, "2 entries waiting");
});

test("renderStatus writes the line with a <time datetime> and leaves it alone when nothing changed", () => {
  const doc = new FakeDocument();
  const el = doc.createElement("p");
  const said = renderStatus(el, { state: "idle", waiting: 3, lastSyncedAt: AT_1802 }, EN, AT_1802 + 2 * MINUTE);
  assert.equal(el.textContent, "3 entries waiting · last synced 18:02 (2 minutes ago)");
  assert.equal(said.line, el.textContent);
  assert.equal(el.dataset.state, "idle");
  assert.equal(el.dataset.waiting, "3");
  const [time] = el.byTag("time");
  assert.equal(time.getAttribute("datetime"), "2026-12-01T18:02:00.000Z");
  assert.equal(time.textContent, "18:02");

  const before = el.childNodes;
  renderStatus(el, { state: "idle", waiting: 3, lastSyncedAt: AT_1802 }, EN, AT_1802 + 2 * MINUTE + 10_000);
  assert.equal(el.childNodes, before, "the same words: the live region is not rewritten");
  renderStatus(el, { state: "offline", waiting: 3, lastSyncedAt: AT_1802, error: "Failed to fetch" }, EN,
    AT_1802 + 2 * MINUTE);
  assert.notEqual(el.childNodes, before);
  assert.equal(el.textContent, "Offline: 3 entries kept on this device · last synced 18:02 (2 minutes ago)");
  assert.equal(el.dataset.state, "offline");
  assert.equal(el.dataset.error, "Failed to fetch");
  renderStatus(el, { state: "idle", waiting: 0 }, EN, AT_1802);
  assert.equal(el.textContent, "All saved");
  assert.equal(el.byTag("time").length, 0);
  assert.equal(el.dataset.error, undefined);
});
