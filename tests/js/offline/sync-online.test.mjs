/* sync.js with entries recorded online (the one outbox): such an entry has no verdict of the
   device, so the screen that recorded it hears its news, a refusal or a stale expected_seq
   leaves the queue beside its form (never a conflict), and after two network failures in a
   row the device may take it over; from then on it is the device's own. */
import { test } from "node:test";
import assert from "node:assert/strict";
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";

import { openQueue } from "../../../static/js/offline/queue.js";
import { createSync } from "../../../static/js/offline/sync.js";
import { FakeServer, FakeClock, FakeNetwork } from "./fake-server.mjs";

/** A screen of deal `here` that writes down what the sync told it. */
function screenOf(here, { takeOver = async () => false } = {}) {
  const told = [];
  return {
    told,
    mine: (record) => record.deal === here,
    sending: (record, attempt) => told.push(["sending", record.key, attempt]),
    stored: (record, data) => told.push(["stored", record.key, data.entry.seq]),
    refused: (record, status, data) => told.push(["refused", record.key, status, data.error]),
    retrying: (record, { status, offline }) => told.push(["retrying", record.key, status, offline]),
    takeOver: async (record) => { told.push(["takeOver", record.key]); return takeOver(record); },
  };
}

async function table(screen, options = {}) {
  const server = new FakeServer();
  const clock = new FakeClock();
  const queue = await openQueue({ indexedDB: new IDBFactory(), name: "table" });
  const network = new FakeNetwork(server);
  const changes = [];
  const sync = createSync({
    queue, fetch: server.fetch, events: network, isOnline: network.isOnline,
    setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout, maxDelay: 15000,
    onChange: (status) => changes.push(status), screen, ...options,
  });
  return { queue, server, network, clock, sync, changes };
}

function online(deal, seq, key, payload = { type: "trick", cards: ["3", "9"] }) {
  return { kind: "entry", online: true, form: "form-trick", deal, expected_seq: seq, key, payload };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test("an entry recorded online is sent by the sync and the screen hears it: sending, then stored", async () => {
  const screen = screenOf(100);
  const t = await table(screen);
  const deal = t.server.startDeal(1).id;
  assert.equal(deal, 100);
  await t.queue.enqueue(online(deal, 0, "a"));
  await t.sync.start();
  assert.deepEqual(screen.told, [["sending", "a", 1], ["stored", "a", 1]]);
  assert.deepEqual(t.server.deal(deal).entries.map((e) => e.idempotency_key), ["a"]);
  assert.equal(await t.queue.count(), 0);
  // While it was on its way the sync's news said so (the screen writes the line then).
  assert.ok(t.changes.some((c) => c.state === "sending" && c.online === true));
  assert.deepEqual({ state: t.changes.at(-1).state, online: t.changes.at(-1).online }, { state: "idle", online: false });
});

test("a refused or stale online entry leaves the queue beside its form; the next one still goes", async () => {
  const screen = screenOf(100);
  const t = await table(screen);
  const deal = t.server.startDeal(1).id;
  t.server.recordElsewhere(deal, { type: "trick", cards: ["K"] });  // the deal moved on: seq 0 is stale
  await t.queue.enqueue(online(deal, 0, "stale"));
  await t.queue.enqueue(online(deal, 1, "bad", { type: "illegal" }));
  await t.queue.enqueue(online(deal, 1, "good"));
  await t.sync.start();
  assert.equal(t.sync.state, "idle");
  assert.equal(t.sync.conflict, null);
  assert.deepEqual(screen.told.filter(([what]) => what !== "sending"), [
    ["refused", "stale", 409, "Another device recorded first: this deal is now at entry 1. Reload and try again."],
    ["refused", "bad", 400, "That card was played already."],
    ["stored", "good", 2],
  ]);
  assert.equal(await t.queue.count(), 0);
  assert.deepEqual((await t.queue.listAside()), []);
  assert.deepEqual(t.server.deal(deal).entries.map((e) => e.idempotency_key), ["other-0", "good"]);
});

test("a server error is retried with record.js's back-off and the status said", async () => {
  const screen = screenOf(100);
  const t = await table(screen);
  const deal = t.server.startDeal(1).id;
  await t.queue.enqueue(online(deal, 0, "a"));
  t.server.failures = [503, 502, 500, 500, 500];
  await t.sync.start();
  for (let i = 0; i < 5; i += 1) { t.clock.fire(); await t.sync.settled(); }
  assert.deepEqual(t.clock.delays, [1000, 2000, 4000, 8000, 15000]);
  assert.deepEqual(screen.told.filter(([what]) => what === "retrying").map(([, , status]) => status), [503, 502, 500, 500, 500]);
  assert.deepEqual(screen.told.filter(([what]) => what === "takeOver"), []);  // the network never failed
  assert.deepEqual(screen.told.at(-1), ["stored", "a", 1]);
  assert.deepEqual(screen.told.filter(([what]) => what === "sending").map(([, , n]) => n), [1, 1, 1, 1, 1, 1]);
});

test("the second network failure in a row hands the entry to the device, which adds its verdict", async () => {
  let t;
  const screen = screenOf(100, {
    takeOver: async (record) => { await t.queue.update({ [record.key]: { verdict: { takes: 1 }, online: undefined } }); return true; },
  });
  t = await table(screen, { isOnline: () => true });  // the browser says online; the requests fail
  const deal = t.server.startDeal(1).id;
  await t.queue.enqueue(online(deal, 0, "a", { type: "illegal" }));
  t.server.online = false;
  await t.sync.start();
  assert.deepEqual(screen.told, [["sending", "a", 1], ["retrying", "a", null, false]]);
  t.clock.fire();
  await t.sync.settled();
  await settle();
  assert.deepEqual(screen.told.slice(2), [["sending", "a", 2], ["takeOver", "a"], ["retrying", "a", null, false]]);
  const [record] = await t.queue.list();
  assert.deepEqual({ verdict: record.verdict, online: record.online }, { verdict: { takes: 1 }, online: undefined });
  // Back: the device said yes, the server says no: a conflict for the scorer, nothing dropped.
  t.server.online = true;
  t.clock.fire();
  await t.sync.settled();
  assert.equal(t.sync.state, "conflict");
  assert.equal(t.sync.conflict.kind, "refused");
  assert.equal(screen.told.filter(([what]) => what === "refused").length, 0);
  assert.equal(await t.queue.count(), 1);
});

test("the browser offline: the screen's entry is tried on a timer, so the device can take it over", async () => {
  const screen = screenOf(100);
  const t = await table(screen);
  const deal = t.server.startDeal(1).id;
  t.server.online = false;
  await t.queue.enqueue(online(deal, 0, "a"));
  await t.sync.start();
  t.clock.fire();
  await t.sync.settled();
  await settle();
  assert.deepEqual(screen.told, [["retrying", "a", null, true], ["takeOver", "a"], ["retrying", "a", null, true]]);
  assert.equal(t.sync.state, "offline");
  assert.equal(t.clock.pending, 1);
  t.network.restore();
  await t.sync.settled();
  assert.deepEqual(screen.told.at(-1), ["stored", "a", 1]);
});

test("an entry recorded online on another deal's screen is the device's own here: a refusal is a conflict", async () => {
  const screen = screenOf(999);
  const t = await table(screen);
  const deal = t.server.startDeal(1).id;
  await t.queue.enqueue(online(deal, 0, "a", { type: "illegal" }));
  await t.sync.start();
  assert.deepEqual(screen.told, []);
  assert.equal(t.sync.state, "conflict");
  assert.equal(t.sync.conflict.kind, "refused");
  assert.equal(await t.queue.count(), 1);
});

test("another scorer's waiting records do not hold up this scorer's online entry of another deal", async () => {
  const screen = screenOf(101);
  const t = await table(screen, { user: () => "b" });
  const theirs = t.server.startDeal(1).id;
  const mine = t.server.startDeal(1).id;
  assert.deepEqual([theirs, mine], [100, 101]);
  await t.queue.enqueue({ ...online(theirs, 0, "a1"), online: undefined, verdict: { takes: 2 }, user: "a" });
  await t.queue.enqueue({ ...online(mine, 0, "b1"), user: "b" });
  await t.sync.start();
  assert.deepEqual(screen.told, [["sending", "b1", 1], ["stored", "b1", 1]]);
  assert.equal(t.sync.state, "other_user");
  assert.deepEqual((await t.queue.list()).map((r) => r.key), ["a1"]);
  assert.deepEqual(t.server.deal(theirs).entries, []);
  // Of a deal where the other scorer's record comes first, this scorer's entry waits its turn.
  await t.queue.enqueue({ ...online(mine, 1, "a2"), online: undefined, verdict: { takes: 2 }, user: "a" });
  await t.queue.enqueue({ ...online(mine, 1, "b2"), user: "b" });
  await t.sync.kick();
  assert.equal(t.sync.state, "other_user");
  assert.deepEqual((await t.queue.list()).map((r) => r.key), ["a1", "a2", "b2"]);
  assert.equal(screen.told.length, 2);
});
