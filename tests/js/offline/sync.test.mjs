/* sync.js against a fake server and network: order, exactly-once under retries and lost
   answers, backoff, offline pause and resume, deals started offline, and conflicts. */
import { test } from "node:test";
import assert from "node:assert/strict";
// The browser's IndexedDB classes as globals: idb (the queue's plumbing) recognises requests by them.
import "fake-indexeddb/auto";
import { IDBFactory } from "fake-indexeddb";

import { openQueue, newClientDealId } from "../../../static/js/offline/queue.js";
import { createSync, sameVerdict, KEEP_SERVER, MINE_ON_TOP, USE_MINE, DISCARD_MINE } from "../../../static/js/offline/sync.js";
import { FakeServer, FakeClock, FakeNetwork, FakeLocks } from "./fake-server.mjs";

async function table({ indexedDB = new IDBFactory(), server = new FakeServer(), clock = new FakeClock(), ...options } = {}) {
  const queue = await openQueue({ indexedDB, name: "table" });
  const network = new FakeNetwork(server);
  const changes = [];
  const sync = createSync({
    queue, fetch: server.fetch, events: network, isOnline: network.isOnline,
    setTimeout: clock.setTimeout, clearTimeout: clock.clearTimeout,
    onChange: (status) => changes.push(status), ...options,
  });
  return { queue, server, network, clock, sync, changes, indexedDB };
}

function trick(deal, seq, key, extra = {}) {
  return { kind: "entry", deal, expected_seq: seq, key, payload: { type: "trick", cards: ["3", "9", "9", "V", "4"].slice(0, seq + 1) }, ...extra };
}

function stored(server, id) {
  return server.deal(id).entries.map((e) => [e.seq, e.idempotency_key]);
}

test("the queue goes out in order and the sync time is stamped", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  for (const [i, key] of ["a", "b", "c"].entries()) await t.queue.enqueue(trick(deal, i, key));
  await t.sync.start();
  assert.deepEqual(stored(t.server, deal), [[1, "a"], [2, "b"], [3, "c"]]);
  assert.equal(await t.queue.count(), 0);
  assert.equal(t.sync.state, "idle");
  const last = t.changes.at(-1);
  assert.equal(last.state, "idle");
  assert.equal(last.waiting, 0);
  assert.equal(typeof last.lastSyncedAt, "number");
});

test("a lost answer and server errors are retried with the same key: each entry stored once", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  for (const [i, key] of ["a", "b", "c"].entries()) await t.queue.enqueue(trick(deal, i, key));
  t.server.loseAnswers = 1;        // "a" is stored, the tablet never hears
  await t.sync.start();
  assert.equal(t.sync.state, "retrying");
  t.server.failures = [503, 502];  // then the server stumbles twice
  for (let i = 0; i < 3; i += 1) { t.clock.fire(); await t.sync.settled(); }
  assert.equal(t.sync.state, "idle");
  assert.deepEqual(stored(t.server, deal), [[1, "a"], [2, "b"], [3, "c"]]);
  const sentKeys = t.server.requests.filter(([m]) => m === "POST").map(([, , body]) => body.idempotency_key);
  assert.deepEqual(sentKeys, ["a", "a", "b", "c"]);
  const resent = t.server.requests.filter(([, , body]) => body && body.idempotency_key === "a").map(([, , body]) => body);
  assert.deepEqual(resent[0], resent[1]);
  assert.deepEqual(t.clock.delays, [1000, 2000, 4000]);
});

test("the wait doubles up to maxDelay, and a success starts it again from the beginning", async () => {
  const t = await table({ baseDelay: 100, maxDelay: 500 });
  const deal = t.server.startDeal(1).id;
  await t.queue.enqueue(trick(deal, 0, "a"));
  await t.queue.enqueue(trick(deal, 1, "b"));
  t.server.failures = [500, 500, 500, 500, 500];
  await t.sync.start();
  for (let i = 0; i < 5; i += 1) { t.clock.fire(); await t.sync.settled(); }
  assert.deepEqual(stored(t.server, deal), [[1, "a"], [2, "b"]]);
  assert.deepEqual(t.clock.delays, [100, 200, 400, 500, 500]);
  t.server.failures = [429];
  await t.queue.enqueue(trick(deal, 2, "c"));
  await t.sync.kick();
  assert.equal(t.sync.retryIn, 100);
});

test("a 200 that is not the server's (a Wi-Fi sign-in page) is retried, never taken as stored", async () => {
  const server = new FakeServer();
  let portal = 2;
  const fetch = async (url, options) => {
    if (portal > 0) {
      portal -= 1;
      return { status: 200, json: async () => { throw new SyntaxError("Unexpected token '<'"); } };
    }
    return server.fetch(url, options);
  };
  const t = await table({ server, fetch });
  const deal = server.startDeal(1).id;
  const client = newClientDealId();
  await t.queue.enqueue(trick(deal, 0, "a"));
  await t.queue.enqueue({ kind: "deal_start", deal: client, session: 1, key: "start" });
  await t.sync.start();
  assert.equal(t.sync.state, "retrying");
  assert.equal(t.changes.at(-1).error, "The answer did not come from the server (a Wi-Fi sign-in page?).");
  assert.equal(await t.queue.count(), 2);
  t.clock.fire();
  await t.sync.settled();
  assert.equal(await t.queue.count(), 2);
  t.clock.fire();
  await t.sync.settled();
  assert.equal(t.sync.state, "idle");
  assert.deepEqual(stored(server, deal), [[1, "a"]]);
  const started = [...server.deals.values()].find((d) => d.client === client);
  assert.equal(await t.queue.serverDealId(client), started.id);
  assert.equal(server.deals.size, 2);
});

test("offline, nothing is tried; the online event sends at once", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  t.network.cut();
  await t.queue.enqueue(trick(deal, 0, "a"));
  await t.queue.enqueue(trick(deal, 1, "b"));
  await t.sync.start();
  assert.equal(t.sync.state, "offline");
  assert.equal(t.clock.pending, 0);
  assert.deepEqual(t.server.requests, []);
  assert.equal(t.changes.at(-1).waiting, 2);
  t.network.restore();
  await t.sync.settled();
  assert.equal(t.sync.state, "idle");
  assert.deepEqual(stored(t.server, deal), [[1, "a"], [2, "b"]]);
});

test("the connection dropping mid-send pauses, and coming back resumes where it stopped", async () => {
  const server = new FakeServer();
  let dropped = false;
  // The network goes away while the answer to "b" is on its way back: the server has "b".
  const fetch = async (url, options) => {
    const answer = await server.fetch(url, options);
    if (!dropped && JSON.parse(options.body).idempotency_key === "b") {
      dropped = true;
      server.online = false;
      throw new TypeError("Failed to fetch");
    }
    return answer;
  };
  const t = await table({ server, fetch });
  const deal = server.startDeal(1).id;
  for (const [i, key] of ["a", "b", "c"].entries()) await t.queue.enqueue(trick(deal, i, key));
  await t.sync.start();
  assert.equal(t.sync.state, "offline");
  assert.equal(t.clock.pending, 0);
  assert.deepEqual(stored(server, deal), [[1, "a"], [2, "b"]]);
  assert.deepEqual((await t.queue.list()).map((r) => r.key), ["b", "c"]);
  t.network.restore();
  await t.sync.settled();
  assert.equal(t.sync.state, "idle");
  assert.deepEqual(stored(server, deal), [[1, "a"], [2, "b"], [3, "c"]]);
  assert.equal(await t.queue.count(), 0);
});

test("a reload between the server storing an entry and the tablet hearing of it stores it once", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  for (const [i, key] of ["a", "b"].entries()) await t.queue.enqueue(trick(deal, i, key));
  t.server.loseAnswers = 1;
  await t.sync.start();
  t.sync.stop();      // the tab is closed while it waits to retry
  t.queue.close();
  const queue = await openQueue({ indexedDB: t.indexedDB, name: "table" });
  assert.deepEqual((await queue.list()).map((r) => r.key), ["a", "b"]);
  const sync = createSync({ queue, fetch: t.server.fetch, events: t.network, isOnline: t.network.isOnline,
    setTimeout: t.clock.setTimeout, clearTimeout: t.clock.clearTimeout });
  await sync.start();
  assert.deepEqual(stored(t.server, deal), [[1, "a"], [2, "b"]]);
  assert.equal(await queue.count(), 0);
});

test("two tabs over one queue take turns: every entry is sent once", async () => {
  const indexedDB = new IDBFactory();
  const server = new FakeServer();
  const locks = new FakeLocks();
  const deal = server.startDeal(1).id;
  const first = await table({ indexedDB, server, locks });
  const second = await table({ indexedDB, server, locks });
  for (const [i, key] of ["a", "b", "c"].entries()) await first.queue.enqueue(trick(deal, i, key));
  await Promise.all([first.sync.start(), second.sync.start()]);
  assert.deepEqual(stored(server, deal), [[1, "a"], [2, "b"], [3, "c"]]);
  assert.deepEqual(server.requests.map(([, , body]) => body.idempotency_key), ["a", "b", "c"]);
  assert.equal(first.sync.state, "idle");
  assert.equal(second.sync.state, "idle");
});

test("a deal started offline is created once and its entries land on the server's deal", async () => {
  const t = await table();
  const client = newClientDealId();
  t.network.cut();
  await t.queue.enqueue({ kind: "deal_start", deal: client, session: 5, dealer: 3, key: "start" });
  for (const [i, key] of ["a", "b"].entries()) await t.queue.enqueue(trick(client, i, key));
  await t.queue.saveDraft(client, "form-trick", { cards: ["K"] });
  await t.sync.start();
  assert.equal(t.sync.state, "offline");
  t.server.loseAnswers = 1;  // the deal is created, the answer lost: the retry must not make a second
  t.network.restore();
  await t.sync.settled();
  t.clock.fire();
  await t.sync.settled();
  assert.equal(t.server.deals.size, 1);
  const [deal] = t.server.deals.values();
  assert.equal(deal.client, client);
  assert.deepEqual(t.server.requests[0], ["POST", "/api/sessions/5/deals/", { client_id: client, idempotency_key: "start", dealer: 3 }]);
  assert.deepEqual(stored(t.server, deal.id), [[1, "a"], [2, "b"]]);
  assert.equal(await t.queue.serverDealId(client), deal.id);
  assert.deepEqual(await t.queue.loadDraft(deal.id, "form-trick"), { cards: ["K"] });
  assert.equal(await t.queue.count(), 0);
});

test("five deals in a row started offline are synced deal after deal", async () => {
  const t = await table();
  t.network.cut();
  await t.sync.start();
  const clients = [];
  for (let n = 0; n < 5; n += 1) {
    const client = newClientDealId();
    clients.push(client);
    await t.queue.enqueue({ kind: "deal_start", deal: client, session: 5, key: `start-${n}` });
    for (let i = 0; i < 3; i += 1) await t.queue.enqueue(trick(client, i, `d${n}-e${i}`));
  }
  assert.equal(await t.queue.count(), 20);
  t.network.restore();
  await t.sync.settled();
  assert.equal(t.server.deals.size, 5);
  for (const [n, client] of clients.entries()) {
    const id = await t.queue.serverDealId(client);
    assert.deepEqual(stored(t.server, id), [[1, `d${n}-e0`], [2, `d${n}-e1`], [3, `d${n}-e2`]]);
  }
});

async function staleConflict() {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  t.server.recordElsewhere(deal, { type: "trick", cards: ["A"] });
  await t.queue.enqueue(trick(deal, 0, "a"));
  await t.queue.enqueue(trick(deal, 1, "b"));
  await t.sync.start();
  return { ...t, deal };
}

test("a 409 stops the sync and reports both versions; it is still there after a reload", async () => {
  const t = await staleConflict();
  assert.equal(t.sync.state, "conflict");
  const conflict = t.sync.conflict;
  assert.equal(conflict.kind, "stale");
  assert.equal(conflict.deal, t.deal);
  assert.equal(conflict.key, "a");
  assert.equal(conflict.message, "Another device recorded first: this deal is now at entry 1. Reload and try again.");
  assert.deepEqual(conflict.mine.records.map((r) => [r.key, r.expected_seq, r.payload]),
    [["a", 0, { type: "trick", cards: ["3"] }], ["b", 1, { type: "trick", cards: ["3", "9"] }]]);
  assert.equal(conflict.server.status, 409);
  assert.equal(conflict.server.code, "stale_seq");
  assert.equal(conflict.server.seq, 1);
  assert.equal(conflict.server.deal.seq, 1);
  assert.deepEqual(conflict.server.entries.map((e) => [e.seq, e.payload]), [[1, { type: "trick", cards: ["A"] }]]);
  assert.deepEqual(conflict.resolutions, [KEEP_SERVER, MINE_ON_TOP, USE_MINE]);
  assert.deepEqual(conflict.server.entries.map((e) => e.own), [false]);
  assert.equal(t.changes.at(-1).conflict, conflict);
  assert.equal(await t.queue.count(), 2);

  // A reload: a new queue and sync over the same database show it again without sending.
  t.sync.stop();
  t.queue.close();
  const posts = t.server.requests.length;
  const queue = await openQueue({ indexedDB: t.indexedDB, name: "table" });
  const sync = createSync({ queue, fetch: t.server.fetch, events: t.network, isOnline: t.network.isOnline,
    setTimeout: t.clock.setTimeout, clearTimeout: t.clock.clearTimeout });
  await sync.start();
  assert.equal(sync.state, "conflict");
  assert.deepEqual(sync.conflict, conflict);
  assert.equal(t.server.requests.length, posts);
});

test("keep the server's: my entries leave the queue for the set-aside list, the server's deal is untouched", async () => {
  const t = await staleConflict();
  const done = await t.sync.resolve(KEEP_SERVER);
  assert.deepEqual(done, { choice: KEEP_SERVER, kind: "stale", keys: ["a", "b"] });
  await t.sync.settled();
  assert.equal(t.sync.state, "idle");
  assert.equal(t.sync.conflict, null);
  assert.equal(await t.queue.count(), 0);
  assert.deepEqual((await t.queue.listAside()).map((r) => [r.key, r.reason]), [["a", KEEP_SERVER], ["b", KEEP_SERVER]]);
  assert.deepEqual(stored(t.server, t.deal), [[1, "other-0"]]);
});

test("put mine on top: my entries are stored after the other device's, in order", async () => {
  const t = await staleConflict();
  t.server.recordElsewhere(t.deal, { type: "trick", cards: ["K"] });  // it moved on again meanwhile
  await t.sync.resolve(MINE_ON_TOP);
  await t.sync.settled();
  assert.equal(t.sync.state, "idle");
  assert.deepEqual(stored(t.server, t.deal), [[1, "other-0"], [2, "other-1"], [3, "a"], [4, "b"]]);
  assert.equal(await t.queue.count(), 0);
  assert.deepEqual(await t.queue.listAside(), []);
});

test("put mine on top: the tablet's verdicts, given without the other device's entries, make no second conflict", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  t.server.recordElsewhere(deal, { type: "trick", cards: ["A"] });
  // What this tablet's engine said before it knew of the other device's trick.
  await t.queue.enqueue(trick(deal, 0, "a", { verdict: { takes: 99 } }));
  await t.queue.enqueue(trick(deal, 1, "b", { verdict: { takes: 98 } }));
  await t.sync.start();
  assert.equal(t.sync.conflict.kind, "stale");
  await t.sync.resolve(MINE_ON_TOP);
  await t.sync.settled();
  assert.equal(t.sync.state, "idle");
  assert.equal(t.sync.conflict, null);
  assert.deepEqual(stored(t.server, deal), [[1, "other-0"], [2, "a"], [3, "b"]]);
  assert.equal(await t.queue.count(), 0);
});

test("use mine instead: the server's entries after mine begin are replaced by mine, in one step", async () => {
  const t = await staleConflict();
  await t.sync.resolve(USE_MINE);
  await t.sync.settled();
  assert.equal(t.sync.state, "idle");
  assert.equal(await t.queue.count(), 0);
  assert.deepEqual(await t.queue.listAside(), []);
  assert.deepEqual(stored(t.server, t.deal), [[1, "a"], [2, "b"]]);
  assert.deepEqual(t.server.requests.at(-1), ["POST", `/api/deals/${t.deal}/tablet-version/`, {
    expected_seq: 1, since_seq: 0, entries: [
      { payload: { type: "trick", cards: ["3"] }, idempotency_key: "a" },
      { payload: { type: "trick", cards: ["3", "9"] }, idempotency_key: "b" }],
  }]);
  // The keys are remembered: the server's entries a and b are this tablet's from now on.
  assert.deepEqual(await t.queue.sentKeys(), ["a", "b"]);
});

test("use mine instead, refused by the server: the conflict stays, nothing leaves the queue", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  t.server.recordElsewhere(deal, { type: "trick", cards: ["A"] });
  await t.queue.enqueue({ kind: "entry", deal, expected_seq: 0, key: "bad", payload: { type: "illegal" } });
  await t.sync.start();
  await assert.rejects(t.sync.resolve(USE_MINE),
    { message: "The tablet's entry 1 is refused: That card was played already." });
  assert.equal(t.sync.state, "conflict");
  assert.equal(await t.queue.count(), 1);
});

test("a deal the server finished takes nothing on top; one with a later deal takes no replacement", async () => {
  const t = await table();
  const deal = t.server.startDeal(1);
  t.server.recordElsewhere(deal.id, { type: "trick", cards: ["A"] });
  deal.finished = true;
  deal.later = true;
  await t.queue.enqueue(trick(deal.id, 0, "a"));
  await t.sync.start();
  assert.deepEqual(t.sync.conflict.resolutions, [KEEP_SERVER]);
});

test("the server's entries this tablet sent itself are marked as its own, never another device's", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  await t.queue.enqueue(trick(deal, 0, "mine-online"));
  await t.sync.start();
  await t.sync.settled();
  // Recorded again on a screen that had not seen the first one stored.
  await t.queue.enqueue(trick(deal, 0, "again"));
  await t.queue.rememberSent("sent-by-the-online-path");
  await t.sync.kick();
  const conflict = t.sync.conflict;
  assert.equal(conflict.kind, "stale");
  assert.deepEqual(conflict.server.entries.map((e) => [e.idempotency_key, e.own]), [["mine-online", true]]);
});

test("a conflict on one deal holds back the records behind it, which go once it is resolved", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  const other = t.server.startDeal(1).id;
  t.server.recordElsewhere(deal, { type: "trick", cards: ["A"] });
  await t.queue.enqueue(trick(deal, 0, "a"));
  await t.queue.enqueue(trick(other, 0, "x"));
  await t.sync.start();
  assert.deepEqual(stored(t.server, other), []);
  await t.sync.resolve(KEEP_SERVER);
  await t.sync.settled();
  assert.deepEqual(stored(t.server, other), [[1, "x"]]);
});

test("a wrong choice, or none to make, is refused with a message and changes nothing", async () => {
  const t = await staleConflict();
  await assert.rejects(t.sync.resolve("merge"),
    { message: '"merge" does not resolve this conflict; choose one of: keep_server, mine_on_top, use_mine.' });
  assert.equal(t.sync.state, "conflict");
  assert.equal(await t.queue.count(), 2);
  await t.sync.resolve(KEEP_SERVER);
  await assert.rejects(t.sync.resolve(KEEP_SERVER), { message: "There is no conflict to resolve." });
});

async function verdictConflict() {
  // The server's engine says the first trick is taken by seat 2; this tablet's said seat 1.
  const server = new FakeServer({ verdict: (payload) => ({ takes: payload.cards.length === 1 ? 2 : 0, winner_name: "Ona" }) });
  const t = await table({ server });
  const deal = server.startDeal(1).id;
  await t.queue.enqueue(trick(deal, 0, "a", { verdict: { takes: 1 } }));
  await t.queue.enqueue(trick(deal, 1, "b", { verdict: { takes: 0 } }));
  await t.sync.start();
  return { ...t, deal };
}

test("a verdict that differs from the tablet's stops the sync with both verdicts", async () => {
  const t = await verdictConflict();
  assert.equal(t.sync.state, "conflict");
  const conflict = t.sync.conflict;
  assert.equal(conflict.kind, "verdict");
  assert.equal(conflict.message, "The server's verdict differs from this tablet's.");
  assert.deepEqual(conflict.mine.records.map((r) => r.verdict), [{ takes: 1 }, { takes: 0 }]);
  assert.deepEqual(conflict.server.entry.result, { takes: 2, winner_name: "Ona" });
  assert.equal(conflict.server.seq, 1);
  assert.deepEqual(stored(t.server, t.deal), [[1, "a"]]);
  assert.equal(await t.queue.count(), 2);
});

test("verdict: keep the server's keeps its verdict and sets my later entries aside", async () => {
  const t = await verdictConflict();
  await t.sync.resolve(KEEP_SERVER);
  await t.sync.settled();
  assert.deepEqual(stored(t.server, t.deal), [[1, "a"]]);
  assert.deepEqual((await t.queue.listAside()).map((r) => r.key), ["b"]);
  assert.equal(await t.queue.count(), 0);
});

test("verdict: put mine on top sends my later entries after the server's", async () => {
  const t = await verdictConflict();
  await t.sync.resolve(MINE_ON_TOP);
  await t.sync.settled();
  assert.equal(t.sync.state, "idle");
  assert.deepEqual(stored(t.server, t.deal), [[1, "a"], [2, "b"]]);
});

test("verdict: discard mine undoes my entry on the server and sets all of mine aside", async () => {
  const t = await verdictConflict();
  await t.sync.resolve(DISCARD_MINE);
  await t.sync.settled();
  assert.deepEqual(stored(t.server, t.deal), []);
  assert.deepEqual(t.server.requests.at(-1), ["POST", `/api/deals/${t.deal}/undo/`, { expected_seq: 1 }]);
  assert.equal(await t.queue.count(), 0);
  assert.deepEqual((await t.queue.listAside()).map((r) => [r.key, r.reason]), [["a", DISCARD_MINE], ["b", DISCARD_MINE]]);
});

test("verdict: when the undo is refused the conflict stays and nothing is removed", async () => {
  const t = await verdictConflict();
  t.server.recordElsewhere(t.deal, { type: "trick", cards: ["Q"] });
  await assert.rejects(t.sync.resolve(DISCARD_MINE),
    { message: "Another device recorded first: this deal is now at entry 2. Reload and try again." });
  assert.equal(t.sync.state, "conflict");
  assert.equal(await t.queue.count(), 2);
});

test("an entry the server refuses is a conflict whose one choice keeps the server's, never dropped", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  await t.queue.enqueue({ kind: "entry", deal, expected_seq: 0, key: "bad", payload: { type: "illegal" } });
  await t.sync.start();
  const conflict = t.sync.conflict;
  assert.equal(conflict.kind, "refused");
  assert.equal(conflict.message, "That card was played already.");
  assert.deepEqual(conflict.server, { status: 400, code: "illegal_entry", error: "That card was played already.", seq: null,
    deal: { id: deal, session: 1, seq: 0, status: "running", finished: false, later_deals: false }, entries: [] });
  assert.deepEqual(conflict.resolutions, [KEEP_SERVER]);
  await assert.rejects(t.sync.resolve(MINE_ON_TOP),
    { message: '"mine_on_top" does not resolve this conflict; choose one of: keep_server.' });
  await t.sync.resolve(KEEP_SERVER);
  assert.deepEqual((await t.queue.listAside()).map((r) => r.key), ["bad"]);
});

test("a refused deal start takes its entries with it when resolved", async () => {
  const t = await table();
  const client = newClientDealId();
  await t.queue.enqueue({ kind: "deal_start", deal: client, session: 999, key: "start" });
  await t.queue.enqueue(trick(client, 0, "a"));
  t.server.handle = () => [400, { error: "Deal 3 is still running; finish it before starting the next.", code: "running_deal" }];
  await t.sync.start();
  assert.equal(t.sync.conflict.kind, "refused");
  assert.deepEqual(t.sync.conflict.mine.records.map((r) => r.key), ["start", "a"]);
  await t.sync.resolve(KEEP_SERVER);
  assert.deepEqual((await t.queue.listAside()).map((r) => r.key), ["start", "a"]);
  assert.equal(await t.queue.count(), 0);
});

test("signed out or forbidden: the sync waits for a kick instead of retrying, and keeps the entry", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  await t.queue.enqueue(trick(deal, 0, "a"));
  t.server.failures = [
    [401, { error: "Authentication credentials were not provided.", code: "not_authenticated" }],
    [403, { error: "CSRF Failed: CSRF token missing.", code: "forbidden" }],
  ];
  await t.sync.start();
  assert.equal(t.sync.state, "signed_out");
  assert.equal(t.changes.at(-1).error, "Authentication credentials were not provided.");
  assert.equal(t.clock.pending, 0);
  await t.sync.kick();
  assert.equal(t.sync.state, "signed_out");
  assert.equal(await t.queue.count(), 1);
  await t.sync.kick();
  assert.deepEqual(stored(t.server, deal), [[1, "a"]]);
});

test("verdicts compare the tablet's fields; the server may add names", () => {
  assert.equal(sameVerdict({ takes: 1, points: [2, 0] }, { takes: 1, points: [2, 0], winner_name: "Ona" }), true);
  assert.equal(sameVerdict({ takes: 1 }, { takes: 2 }), false);
  assert.equal(sameVerdict({ points: [2, 0] }, { points: [2, 0, 1] }), false);
  assert.equal(sameVerdict({ takes: 1 }, undefined), false);
  assert.equal(sameVerdict(null, null), true);
});

// -- withdraw: an undo on the device takes the last waiting entry back ---------------------------

test("withdraw: the last waiting entry of a deal leaves the queue and is never sent", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  t.network.cut();
  for (const [i, key] of ["a", "b"].entries()) await t.queue.enqueue(trick(deal, i, key));
  await t.sync.start();
  assert.equal(await t.sync.withdraw("b"), "withdrawn");
  assert.deepEqual((await t.queue.list()).map((r) => r.key), ["a"]);
  t.network.restore();
  await t.sync.settled();
  assert.deepEqual(stored(t.server, deal), [[1, "a"]]);
});

test("withdraw: not an entry with a later one of its deal, or a deal start, behind it; nothing changes", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  t.network.cut();
  for (const [i, key] of ["a", "b"].entries()) await t.queue.enqueue(trick(deal, i, key));
  await t.queue.enqueue({ kind: "deal_start", key: "s", session: 1, deal: newClientDealId() });
  await t.sync.start();
  assert.equal(await t.sync.withdraw("a"), "later");
  assert.equal(await t.sync.withdraw("b"), "later");
  assert.deepEqual((await t.queue.list()).map((r) => r.key), ["a", "b", "s"]);
});

test("withdraw: an entry the server already has is answered 'sent' and stays stored", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  await t.queue.enqueue(trick(deal, 0, "a"));
  await t.sync.start();
  assert.equal(await t.sync.withdraw("a"), "sent");
  assert.deepEqual(stored(t.server, deal), [[1, "a"]]);
});

test("withdraw waits for a send in flight: the entry is then the server's, never taken out under it", async () => {
  const server = new FakeServer();
  let release;
  const held = new Promise((resolve) => { release = resolve; });
  const fetch = async (url, options) => { await held; return server.fetch(url, options); };
  const t = await table({ server, fetch });
  const deal = server.startDeal(1).id;
  await t.queue.enqueue(trick(deal, 0, "a"));
  const sending = t.sync.start();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(t.sync.state, "sending");
  const asked = t.sync.withdraw("a");
  let answered = null;
  asked.then((answer) => { answered = answer; });
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(answered, null, "the withdraw waits while the entry is on its way");
  release();
  await sending;
  assert.equal(await asked, "sent");
  assert.deepEqual(stored(server, deal), [[1, "a"]]);
  assert.equal(await t.queue.count(), 0);
});

test("withdraw: a kick while it runs is not lost; the conflict's own record is not withdrawn", async () => {
  const t = await table();
  const deal = t.server.startDeal(1).id;
  t.server.recordElsewhere(deal, { type: "trick", cards: ["A"] });
  t.network.cut();
  await t.queue.enqueue(trick(deal, 0, "a"));
  await t.sync.start();
  const asked = t.sync.withdraw("a");
  t.network.restore();  // the online event kicks while the withdraw holds the queue
  assert.equal(await asked, "withdrawn");
  await t.sync.settled();
  assert.equal(t.sync.state, "idle");
  await t.queue.enqueue(trick(deal, 0, "b"));
  await t.sync.kick();
  assert.equal(t.sync.state, "conflict");
  assert.equal(await t.sync.withdraw("b"), "conflict");
  assert.deepEqual((await t.queue.list()).map((r) => r.key), ["b"]);
});

test("a record made by another scorer waits for them: nothing is sent in someone else's name", async () => {
  let signedIn = "8";
  const t = await table({ user: () => signedIn });
  const deal = t.server.startDeal(1).id;
  await t.queue.enqueue(trick(deal, 0, "a", { user: "7" }));
  await t.sync.start();
  assert.equal(t.sync.state, "other_user");
  assert.deepEqual(stored(t.server, deal), []);
  assert.equal(t.changes.at(-1).waiting, 1);
  signedIn = "7";  // the scorer who recorded it signs in again
  await t.sync.kick();
  await t.sync.settled();
  assert.deepEqual(stored(t.server, deal), [[1, "a"]]);
});
