/* conflict.js's words: each kind of sync.js conflict as two lists of sentences (what was
   entered, in the club's words with the players' names, and the referee's own sentence),
   never JSON; the choices offered are the conflict's. The dialog itself (focus, buttons, the
   second question before discarding, a phone's width) is tested in Chromium by
   tests/browser/test_table_modules.py. */
import { test } from "node:test";
import assert from "node:assert/strict";
// The browser's IndexedDB classes as globals: idb (the queue's plumbing) recognises requests by them.
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";

import { conflictSides, conflictText, describeEntry, ENGLISH, oneAtATime } from "../../../static/js/table/conflict.js";
import { openQueue } from "../../../static/js/offline/queue.js";
import { createSync } from "../../../static/js/offline/sync.js";
import { FakeServer, FakeClock, FakeNetwork } from "../offline/fake-server.mjs";

const NAMES = ["Ona", "Jonas", "Rūta", "Petras"];
const VELNIAS_WORDS = {
  end: "end-of-deal", condition: "how the deal ended", player: "the player who called stop",
  empty_hand: "“emptied hand”", hand_counts: "the cards left in each hand", cards: "the cards", trick: "trick",
};
const TEXT = { ...ENGLISH, names: NAMES, words: VELNIAS_WORDS };

test("an entry is said in the club's words with the players' names", () => {
  assert.equal(describeEntry({ type: "trick", cards: ["3", "9", "9", "V", "4"] }, TEXT), "trick: 3 9 9 V 4");
  assert.equal(describeEntry({ type: "end", condition: "empty_hand", player: 1, hand_counts: [3, 0, 5, 2] }, TEXT),
    "end-of-deal: how the deal ended: “emptied hand”, the player who called stop: Jonas, "
    + "the cards left in each hand: Ona 3, Jonas 0, Rūta 5, Petras 2");
  assert.equal(describeEntry({ type: "trick", rounds: [["AS", "AH", null], ["KD", "2C", null]] }, TEXT),
    "trick: AS AH – / KD 2C –");
  assert.equal(describeEntry({ type: "prize", seat: 2 }, { names: NAMES, words: {} }), "prize: Rūta");
});

test("conflictText takes the page's sentences, names and words over the English ones", () => {
  const text = conflictText({ names: NAMES, words: { trick: "kirtis" },
    offline_text: { language: "lt", keep_server: "Palikti serverio" } });
  assert.equal(text.keep_server, "Palikti serverio");
  assert.equal(text.discard_mine, "Discard mine");
  assert.deepEqual(text.names, NAMES);
  assert.equal(describeEntry({ type: "trick", cards: ["K"] }, text), "kirtis: K");
});

/** A real sync.js conflict: another device recorded the first trick while this tablet's two waited. */
async function staleConflict() {
  const server = new FakeServer({ verdict: (payload) => ({ taker: 1, text: `Jonas takes the trick with ${payload.cards[0]}.` }) });
  const queue = await openQueue({ indexedDB: new IDBFactory(), name: "table" });
  const network = new FakeNetwork(server);
  const clock = new FakeClock();
  const sync = createSync({ queue, fetch: server.fetch, events: network, isOnline: network.isOnline,
    setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout });
  const deal = server.startDeal(1).id;
  server.recordElsewhere(deal, { type: "trick", cards: ["A", "K", "Q", "J"] });
  await queue.enqueue({ kind: "entry", deal, expected_seq: 0, key: "a", payload: { type: "trick", cards: ["3", "9", "9", "V"] },
    verdict: { taker: 3, text: "Petras takes the trick with the jack." } });
  await queue.enqueue({ kind: "entry", deal, expected_seq: 1, key: "b", payload: { type: "trick", cards: ["2", "5", "6", "7"] },
    verdict: { taker: 3, text: "Petras takes the trick with the seven." } });
  await sync.start();
  return sync.conflict;
}

test("stale: the other device's entries against mine, each with the referee's sentence", async () => {
  const conflict = await staleConflict();
  assert.equal(conflict.kind, "stale");
  const sides = conflictSides(conflict, TEXT);
  assert.equal(sides.intro, ENGLISH.conflict_stale);
  // No "reload and try again" beside the choices: the intro says what happened.
  assert.equal(sides.message, "");
  assert.deepEqual(sides.server, { unknown: false, lines: [
    { number: 1, what: "trick: A K Q J", verdict: "Jonas takes the trick with A." },
  ] });
  assert.deepEqual(sides.mine.lines, [
    { number: 1, what: "trick: 3 9 9 V", verdict: "Petras takes the trick with the jack." },
    { number: 2, what: "trick: 2 5 6 7", verdict: "Petras takes the trick with the seven." },
  ]);
  const shown = JSON.stringify(sides);
  assert.ok(!shown.includes('"type"') && !shown.includes("expected_seq"), "no raw fields reach the screen");
});

test("stale with the server unreadable: said, not shown as empty", () => {
  const sides = conflictSides({ kind: "stale", message: "Another device recorded first.", resolutions: [],
    mine: { records: [] }, server: { status: 409, error: "Another device recorded first.", entries: null } }, TEXT);
  assert.equal(sides.server.unknown, true);
  assert.equal(sides.message, "");
});

test("stale over this tablet's own stored entries: said so, marked so, never another device's", () => {
  const conflict = { kind: "stale", resolutions: ["keep_server", "use_mine"],
    where: { number: 7, game: "Pašėlęs Velnias", players: ["Ona", "Jonas"] },
    mine: { records: [{ kind: "entry", key: "k2", expected_seq: 0, payload: { type: "trick", cards: ["2"] } }] },
    server: { status: 409, entries: [{ seq: 1, payload: { type: "trick", cards: ["2"] }, idempotency_key: "k1", own: true }] } };
  const sides = conflictSides(conflict, TEXT);
  assert.equal(sides.title, "Two versions of deal 7");
  assert.equal(sides.where, "Pašėlęs Velnias · Ona, Jonas");
  assert.equal(sides.intro, ENGLISH.conflict_stale_own);
  assert.equal(sides.server.lines[0].from, ENGLISH.from_this_tablet);
  assert.equal(sides.first, 1);
});

test("verdict: the server's stored entry and verdict against this tablet's", () => {
  const conflict = {
    kind: "verdict", message: "The server's verdict differs from this tablet's.", resolutions: ["keep_server", "mine_on_top", "discard_mine"],
    mine: { records: [{ kind: "entry", key: "a", expected_seq: 4, payload: { type: "trick", cards: ["K", "K"] },
      verdict: { taker: null, text: "The kings cancel; nobody takes." } }] },
    server: { status: 201, seq: 5, entry: { seq: 5, payload: { type: "trick", cards: ["K", "K"] },
      result: { taker: 0, text: "Ona takes the trick." } }, deal: { seq: 5 } },
  };
  const sides = conflictSides(conflict, TEXT);
  assert.equal(sides.intro, ENGLISH.conflict_verdict);
  assert.equal(sides.message, "", "sync.js's own sentence is not presented as the server's words");
  assert.deepEqual(sides.server.lines, [{ number: 5, what: "trick: K K", verdict: "Ona takes the trick." }]);
  assert.deepEqual(sides.mine.lines, [{ number: 5, what: "trick: K K", verdict: "The kings cancel; nobody takes." }]);
});

test("refused: the server's refusal in its words; a deal start is named as one", () => {
  const conflict = {
    kind: "refused", message: "Ona has already played the king.", resolutions: ["keep_server", "discard_mine"],
    mine: { records: [
      { kind: "deal_start", key: "s", deal: "client-1", session: 3 },
      { kind: "entry", key: "a", expected_seq: 0, payload: { type: "trick", cards: ["K"] } },
    ] },
    server: { status: 400, code: "illegal_entry", error: "Ona has already played the king." },
  };
  const sides = conflictSides(conflict, TEXT, { describe: (payload) => `the trick ${payload.cards.join(" ")}` });
  assert.equal(sides.message, "The server says: Ona has already played the king.");
  assert.deepEqual(sides.mine.lines, [
    { number: null, what: "Start of a new deal", verdict: "" },
    { number: 1, what: "the trick K", verdict: "" },
  ]);
  assert.deepEqual(sides.server.lines, []);
});

test("the verdicts in the reader's language where the screen can say them, else the engine's text marked English", () => {
  const conflict = {
    kind: "verdict", message: "", resolutions: ["keep_server", "mine_on_top", "discard_mine"],
    mine: { records: [{ kind: "entry", key: "a", expected_seq: 4, payload: { type: "trick", cards: ["K", "K"] },
      verdict: { taker: null, text: "The kings cancel; nobody takes." } }] },
    server: { status: 201, seq: 5, entry: { seq: 5, payload: { type: "trick", cards: ["K", "K"] },
      result: { taker: 0, text: "Ona takes the trick." } }, deal: { seq: 5 } },
  };
  const lt = { ...TEXT, language: "lt" };
  const explain = (side, item) => (side === "mine" && item.key === "a" ? "Karaliai panaikina vienas kitą." : null);
  const sides = conflictSides(conflict, lt, { explain });
  assert.deepEqual(sides.mine.lines, [{ number: 5, what: "trick: K K", verdict: "Karaliai panaikina vienas kitą." }]);
  assert.deepEqual(sides.server.lines, [{ number: 5, what: "trick: K K", verdict: "Ona takes the trick.", lang: "en" }]);
  // On an English page the engine's text is the reader's own: no mark.
  assert.deepEqual(conflictSides(conflict, TEXT).server.lines, [{ number: 5, what: "trick: K K", verdict: "Ona takes the trick." }]);
});

test("one dialog at a time: a conflict arriving while the choice is carried out waits, then the sync's current one opens", async () => {
  const opened = [];
  let current = null;
  const choices = [];
  const desk = oneAtATime({
    current: () => current,
    open: (conflict) => {
      opened.push(conflict.key);
      let choose;
      const chosen = new Promise((resolve) => { choose = resolve; });
      choices.push(choose);
      return { chosen };
    },
  });
  const first = desk.offer({ key: "first" });
  await Promise.resolve();
  assert.equal(await desk.offer({ key: "second" }), false, "not opened on top of the first");
  assert.equal(await desk.offer({ key: "first" }), false);
  assert.deepEqual(opened, ["first"]);
  current = { key: "second" };  // the sync met the second conflict while the first's choice ran
  choices[0]("keep_server");
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.deepEqual(opened, ["first", "second"]);
  current = null;
  choices[1]("discard_mine");
  assert.equal(await first, true);
  assert.deepEqual(opened, ["first", "second"]);
  assert.equal(desk.busy, false);
});
