/* queue.js over an in-memory IndexedDB (fake-indexeddb): order, reloads, drafts, client deal ids. */
import { test } from "node:test";
import assert from "node:assert/strict";
// The browser's IndexedDB classes as globals: idb (the queue's plumbing) recognises requests by them.
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";

import { openQueue, newClientDealId, isClientDealId, askToPersist } from "../../../static/js/offline/queue.js";

function clock(start = 1000) {
  let t = start;
  return { now: () => t, advance: (ms) => { t += ms; } };
}

function entry(deal, seq, extra = {}) {
  return { kind: "entry", deal, expected_seq: seq, payload: { type: "trick", cards: [`${seq}`] }, ...extra };
}

test("records come back in the order they were enqueued, each with its key", async () => {
  const queue = await openQueue({ indexedDB: new IDBFactory() });
  const a = await queue.enqueue(entry(7, 0, { key: "k-a" }));
  const b = await queue.enqueue(entry(7, 1));
  const c = await queue.enqueue(entry(8, 4, { key: "k-c" }));
  assert.equal(a.key, "k-a");
  assert.match(b.key, /^[0-9a-f-]{32,36}$/);
  assert.ok(a.order < b.order && b.order < c.order);
  assert.deepEqual((await queue.list()).map((r) => r.key), ["k-a", b.key, "k-c"]);
  assert.deepEqual((await queue.list({ deal: 8 })).map((r) => r.key), ["k-c"]);
  assert.equal((await queue.peek()).key, "k-a");
  assert.equal(await queue.count(), 3);
  assert.equal(await queue.count({ deal: 7 }), 2);
});

test("markSent takes the record out and stamps the sync time; remove takes records out for good", async () => {
  const time = clock();
  const queue = await openQueue({ indexedDB: new IDBFactory(), now: time.now });
  assert.equal(await queue.lastSyncedAt(), null);
  await queue.enqueue(entry(7, 0, { key: "a" }));
  await queue.enqueue(entry(7, 1, { key: "b" }));
  await queue.enqueue(entry(7, 2, { key: "c" }));
  time.advance(500);
  assert.equal(await queue.markSent("a"), 1500);
  assert.equal(await queue.lastSyncedAt(), 1500);
  assert.equal((await queue.peek()).key, "b");
  assert.equal(await queue.remove(["c", "nope"]), 1);
  assert.deepEqual((await queue.list()).map((r) => r.key), ["b"]);
  await assert.rejects(queue.markSent("a"), { message: "Nothing with the idempotency key a is waiting." });
});

test("a new queue object over the same database (a reload, a closed tab) has everything", async () => {
  const indexedDB = new IDBFactory();
  const first = await openQueue({ indexedDB, name: "table-3", now: () => 42 });
  const deal = newClientDealId();
  await first.enqueue({ kind: "deal_start", deal, session: 5, dealer: 2, key: "start" });
  await first.enqueue(entry(deal, 0, { key: "e1", verdict: { takes: 1 } }));
  await first.enqueue(entry(9, 3, { key: "e2" }));
  await first.markSent("e2");
  await first.saveDraft(deal, "form-trick", { cards: ["3", "9"] });
  first.close();

  const again = await openQueue({ indexedDB, name: "table-3" });
  assert.deepEqual(await again.list(), [
    { kind: "deal_start", deal, session: 5, dealer: 2, key: "start", at: 42, order: 1 },
    { kind: "entry", deal, expected_seq: 0, payload: { type: "trick", cards: ["0"] }, key: "e1", verdict: { takes: 1 }, at: 42, order: 2 },
  ]);
  assert.equal(await again.lastSyncedAt(), 42);
  assert.deepEqual(await again.loadDraft(deal, "form-trick"), { cards: ["3", "9"] });
  // A later record gets a later place than every one before the reload.
  const next = await again.enqueue(entry(9, 4));
  assert.equal(next.order, 4);
});

test("bad records are refused with a message and change nothing", async () => {
  const queue = await openQueue({ indexedDB: new IDBFactory() });
  await queue.enqueue(entry(7, 0, { key: "same" }));
  const cases = [
    [entry(7, 1, { key: "same" }), "The idempotency key same is already in the queue."],
    [{ kind: "undo", deal: 7 }, 'A queued record is an entry or a deal start: kind must be "entry" or "deal_start".'],
    [null, 'A queued record is an entry or a deal start: kind must be "entry" or "deal_start".'],
    [entry(7, 1, { key: "" }), "The idempotency key must be text of 1 to 80 characters."],
    [entry(7, 1, { key: "x".repeat(81) }), "The idempotency key must be text of 1 to 80 characters."],
    [entry("7", 1), "The deal must be the server's id (a whole number) or a client id from newClientDealId()."],
    [entry(0, 1), "The deal must be the server's id (a whole number) or a client id from newClientDealId()."],
    [entry(7, -1), "An entry's expected_seq must be a whole number of 0 or more."],
    [entry(7, 1.5), "An entry's expected_seq must be a whole number of 0 or more."],
    [{ ...entry(7, 1), payload: ["trick"] }, "An entry's payload must be an object with a type."],
    [{ kind: "deal_start", deal: 7, session: 1 }, "A deal start names the deal by its client id."],
    [{ kind: "deal_start", deal: newClientDealId() }, "A deal start names its session by the server's id."],
  ];
  for (const [item, message] of cases) {
    await assert.rejects(queue.enqueue(item), { message });
  }
  assert.deepEqual((await queue.list()).map((r) => r.key), ["same"]);
  assert.equal(await queue.count(), 1);
});

test("drafts are kept per deal and form, and cleared", async () => {
  const queue = await openQueue({ indexedDB: new IDBFactory() });
  await queue.saveDraft(7, "form-end", { ending: "caller", counts: [3, 2] });
  await queue.saveDraft(7, "form-trick", { cards: ["V"] });
  await queue.saveDraft(8, "form-end", { ending: "all" });
  await queue.saveDraft(7, "form-end", { ending: "caller", counts: [3, 2, 5] });
  assert.deepEqual(await queue.loadDraft(7, "form-end"), { ending: "caller", counts: [3, 2, 5] });
  assert.deepEqual(await queue.loadDraft(8, "form-end"), { ending: "all" });
  await queue.clearDraft(7, "form-end");
  assert.equal(await queue.loadDraft(7, "form-end"), null);
  assert.deepEqual(await queue.loadDraft(7, "form-trick"), { cards: ["V"] });
});

test("an accepted deal start leaves the queue and its records and drafts move to the server's id", async () => {
  const queue = await openQueue({ indexedDB: new IDBFactory() });
  const deal = newClientDealId();
  assert.ok(isClientDealId(deal));
  assert.equal(isClientDealId(12), false);
  await queue.enqueue({ kind: "deal_start", deal, session: 5, key: "start" });
  await queue.enqueue(entry(deal, 0, { key: "e1" }));
  await queue.enqueue(entry(3, 7, { key: "other" }));
  await queue.enqueue(entry(deal, 1, { key: "e2" }));
  await queue.saveDraft(deal, "form-trick", { cards: ["A"] });
  assert.equal(await queue.serverDealId(deal), null);

  await queue.dealAccepted(deal, 41);
  assert.equal(await queue.serverDealId(deal), 41);
  assert.deepEqual((await queue.list()).map((r) => [r.key, r.deal]), [["e1", 41], ["other", 3], ["e2", 41]]);
  assert.deepEqual(await queue.loadDraft(41, "form-trick"), { cards: ["A"] });
  assert.equal(await queue.loadDraft(deal, "form-trick"), null);
  // A screen still showing the client id enqueues onto the server's deal.
  const late = await queue.enqueue(entry(deal, 2, { key: "e3" }));
  assert.equal(late.deal, 41);
  await assert.rejects(queue.dealAccepted(41, 42), { message: "41 is not a client deal id." });
  await assert.rejects(queue.dealAccepted(deal, "41"), { message: "41 is not a deal id of the server." });
});

test("records set aside leave the queue but stay listed until cleared", async () => {
  const queue = await openQueue({ indexedDB: new IDBFactory(), now: () => 9 });
  await queue.enqueue(entry(7, 0, { key: "a" }));
  await queue.enqueue(entry(7, 1, { key: "b" }));
  await queue.enqueue(entry(7, 2, { key: "c" }));
  assert.equal(await queue.setAside(["c", "a"], "keep_server"), 2);
  assert.deepEqual((await queue.list()).map((r) => r.key), ["b"]);
  const aside = await queue.listAside();
  assert.deepEqual(aside.map((r) => [r.key, r.reason, r.aside_at]), [["a", "keep_server", 9], ["c", "keep_server", 9]]);
  await queue.clearAside(["a"]);
  assert.deepEqual((await queue.listAside()).map((r) => r.key), ["c"]);
});

test("update changes waiting records in place and refuses unknown keys without changing any", async () => {
  const queue = await openQueue({ indexedDB: new IDBFactory() });
  await queue.enqueue(entry(7, 0, { key: "a", conflict: { kind: "stale" } }));
  await queue.update({ a: { expected_seq: 5, conflict: undefined } });
  const [record] = await queue.list();
  assert.equal(record.expected_seq, 5);
  assert.equal("conflict" in record, false);
  await assert.rejects(queue.update({ a: { expected_seq: 6 }, zz: { expected_seq: 1 } }),
    { message: "Nothing with the idempotency key zz is waiting." });
  assert.equal((await queue.peek()).expected_seq, 5);
});

test("without IndexedDB the queue says offline recording is not available", async () => {
  await assert.rejects(openQueue({ indexedDB: null }),
    { message: "This browser has no IndexedDB: offline recording is not available here." });
});

test("the queue asks the browser to keep its storage, and says when it cannot", async () => {
  const asked = [];
  const storage = { persisted: async () => false, persist: async () => { asked.push("persist"); return true; } };
  assert.equal(await askToPersist(storage), true);
  assert.deepEqual(asked, ["persist"]);
  assert.equal(await askToPersist({ persisted: async () => true, persist: async () => { throw new Error("asked"); } }), true);
  assert.equal(await askToPersist({}), false);
  assert.equal(await askToPersist(undefined), false);
});
