/* engine.js, the screen's door to the engine worker, over a fake Worker and a fake server:
   requests and answers matched by id whatever order they come back in, the session's context
   sent along, the game read from the snapshot, failures answered rather than thrown, an old
   browser told so, and an engine older than the server's replaced before its next verdict. */
import { test } from "node:test";
import assert from "node:assert/strict";

import { createEngine, engineSupported } from "../../../static/js/offline/engine.js";

globalThis.location = { href: "http://table.test/deals/7/" };

/** The server's GET /api/engine/: answers `server.version` (null: the network is down). */
const server = { version: "abc123", asked: 0 };
globalThis.fetch = async (url) => {
  assert.equal(String(url), "http://table.test/api/engine/");
  server.asked += 1;
  if (server.version === null) throw new TypeError("Failed to fetch");
  return new Response(JSON.stringify({ version: server.version, manifest: "/static/offline/engine.json" }));
};

/** A worker whose answers the test writes: `answer(request)` -> the message to post back. */
function fakeWorker(answer, { reverse = false } = {}) {
  const made = [];
  class FakeWorker {
    constructor(url, options) {
      this.url = String(url);
      this.options = options;
      this.seen = [];
      made.push(this);
    }
    postMessage(request) {
      this.seen.push(request);
      const reply = () => this.onmessage({ data: { id: request.id, ...answer(request) } });
      // Answers may come back in another order than asked: the ids keep them apart.
      if (reverse) setTimeout(reply, 10 - Math.min(this.seen.length, 9));
      else queueMicrotask(reply);
    }
    terminate() {
      this.terminated = true;
    }
  }
  return { FakeWorker, made };
}

test("ready() gives the engine version; the worker is a module worker told where the manifest is", async () => {
  const { FakeWorker, made } = fakeWorker(() => ({ version: "abc123", timings: { engine: 5 } }));
  globalThis.Worker = FakeWorker;
  const engine = createEngine();
  assert.equal(await engine.ready(), "abc123");
  assert.equal(await engine.ready(), "abc123");
  assert.equal(made.length, 1);
  assert.equal(made[0].seen.length, 1, "ready() asks the worker once");
  assert.deepEqual(made[0].options, { type: "module" });
  assert.equal(made[0].url, "http://table.test/static/js/offline/engine-worker.js");
  // In the first message, not the worker's address (a service worker's cached copy drops it).
  assert.equal(made[0].seen[0].manifest, "http://table.test/static/offline/engine.json");
  assert.deepEqual(engine.timings, { engine: 5 });
});

test("apply sends the snapshot's game and the session's context; answers match their requests", async () => {
  const { FakeWorker, made } = fakeWorker((request) => ({ echoed: request.entry?.cards ?? null }), { reverse: true });
  globalThis.Worker = FakeWorker;
  const context = { names: ["Ona", "Jonas"], language: "lt", notation: "lt" };
  const engine = createEngine({ context });
  const snapshot = { game: "rukas", version: 1 };
  const answers = await Promise.all([
    engine.apply(snapshot, { type: "trick", cards: ["3", "9"] }),
    engine.apply(snapshot, { type: "trick", cards: ["V", "4"] }),
  ]);
  assert.deepEqual(answers, [{ echoed: ["3", "9"] }, { echoed: ["V", "4"] }]);
  const [ready, first] = made[0].seen;
  assert.equal(ready.op, "ready", "the worker is asked whether it loaded before any verdict");
  assert.equal(first.op, "apply");
  assert.equal(first.game, "rukas");
  assert.deepEqual(first.context, context);
  engine.setContext({ language: "en" });
  await engine.view(snapshot);
  assert.deepEqual(made[0].seen[3].context, { ...context, language: "en" });
  assert.equal(made[0].seen[3].op, "view");
});

test("an engine that cannot load makes ready() reject with the worker's reason", async () => {
  const { FakeWorker } = fakeWorker(() => ({ failure: "engine-1.zip does not match its manifest" }));
  globalThis.Worker = FakeWorker;
  await assert.rejects(createEngine().ready(), /does not match its manifest/);
});

test("a worker that fails to start answers every waiting request with a failure", async () => {
  class Failing {
    constructor() {
      Failing.made = this;
    }
    postMessage() {}
    terminate() {}
  }
  globalThis.Worker = Failing;
  const engine = createEngine();
  const first = engine.apply({ game: "rukas" }, { type: "trick", cards: [] });
  const second = engine.newDeal({ game: "rukas", players: 5, dealer: 4 });
  let prevented = false;
  Failing.made.onerror({ message: "SyntaxError in engine-worker.js", preventDefault: () => { prevented = true; } });
  assert.deepEqual(await first, { failure: "SyntaxError in engine-worker.js" });
  assert.deepEqual(await second, { failure: "SyntaxError in engine-worker.js" });
  assert.ok(prevented, "the error is handled, not reported as the page's");
});

test("terminate() stops the worker and answers what was still waiting", async () => {
  const { made } = fakeWorker(() => ({}));
  class Never {
    constructor() {
      made.push(this);
    }
    postMessage() {}
    terminate() {
      this.terminated = true;
    }
  }
  globalThis.Worker = Never;
  const engine = createEngine();
  const pending = engine.outcome({ game: "velnias" });
  engine.terminate();
  assert.deepEqual(await pending, { failure: "the engine was stopped" });
  assert.ok(made[0].terminated);
});

test("a browser without workers is told offline refereeing is not available, and nothing breaks", async () => {
  delete globalThis.Worker;
  assert.equal(engineSupported(), false);
  const engine = createEngine();
  await assert.rejects(engine.ready(), /cannot run the referee offline/);
  await assert.rejects(engine.apply({ game: "rukas" }, {}), /cannot run the referee offline/);
  engine.terminate();
});

/** Workers that load whichever engine version the served manifest names when they start. */
function versionedWorkers(served) {
  const made = [];
  class VersionedWorker {
    constructor() {
      this.version = served.version;
      this.seen = [];
      made.push(this);
    }
    postMessage(request) {
      this.seen.push(request);
      const answer = request.op === "ready"
        ? { version: this.version, timings: {} }
        : { engine: this.version, op: request.op };
      queueMicrotask(() => this.onmessage({ data: { id: request.id, ...answer } }));
    }
    terminate() {
      this.terminated = true;
    }
  }
  return { VersionedWorker, made };
}

test("an engine older than the server's is replaced before it gives a verdict", async () => {
  const served = { version: "old" };
  const { VersionedWorker, made } = versionedWorkers(served);
  globalThis.Worker = VersionedWorker;
  server.version = "old";
  const engine = createEngine();
  assert.equal(await engine.ready(), "old");
  assert.deepEqual(await engine.apply({ game: "rukas" }, {}), { engine: "old", op: "apply" });

  // A deploy: the server referees with a new engine, its manifest names the new archive.
  served.version = "new";
  server.version = "new";
  engine.serverVersion("new"); // as an answer's X-Engine-Version header tells it
  const verdict = await engine.apply({ game: "rukas" }, {});
  assert.deepEqual(verdict, { engine: "new", op: "apply" }, "the next verdict comes from the new engine");
  assert.equal(engine.version, "new");
  assert.equal(made.length, 2);
  assert.ok(made[0].terminated, "the old worker goes once the new one has loaded");
  assert.equal(made[0].seen.filter((r) => r.op === "apply").length, 1);
});

test("ready() asks the server first: a cached older engine is never the one that referees", async () => {
  const served = { version: "cached" };
  const { VersionedWorker, made } = versionedWorkers(served);
  globalThis.Worker = VersionedWorker;
  server.version = "deployed";
  const engine = createEngine();
  // The first worker loaded the manifest the tablet had kept; the server's is newer by now.
  served.version = "deployed";
  assert.equal(await engine.ready(), "deployed");
  assert.equal(made.length, 2);
  assert.deepEqual(await engine.newDeal({ game: "rukas", players: 5, dealer: 4 }), { engine: "deployed", op: "new_deal" });
});

test("offline, the engine in hand referees; back online, the server is asked again", async () => {
  const served = { version: "v1" };
  const { VersionedWorker, made } = versionedWorkers(served);
  globalThis.Worker = VersionedWorker;
  server.version = null; // no network
  const engine = createEngine();
  assert.equal(await engine.ready(), "v1");
  served.version = "v2";
  assert.deepEqual(await engine.apply({ game: "velnias" }, {}), { engine: "v1", op: "apply" });
  assert.equal(made.length, 1);

  server.version = "v2";
  assert.equal(await engine.checkServer(), "v2");
  assert.deepEqual(await engine.apply({ game: "velnias" }, {}), { engine: "v2", op: "apply" });
  assert.equal(made.length, 2);
});

test("a server whose built engine lags behind is tried once, not reloaded before every verdict", async () => {
  const served = { version: "built" };
  const { VersionedWorker, made } = versionedWorkers(served);
  globalThis.Worker = VersionedWorker;
  server.version = "source";
  const engine = createEngine();
  assert.equal(await engine.ready(), "built");
  for (let i = 0; i < 3; i++) assert.deepEqual(await engine.apply({ game: "rukas" }, {}), { engine: "built", op: "apply" });
  assert.equal(made.length, 2, "one reload for the server's version, then the engine in hand");
});

test("a new engine that cannot load leaves the old one refereeing", async () => {
  let failNext = false;
  const made = [];
  class Flaky {
    constructor() {
      this.failing = failNext;
      this.seen = [];
      made.push(this);
    }
    postMessage(request) {
      this.seen.push(request);
      const answer = request.op === "ready"
        ? (this.failing ? { failure: "engine-new.zip: HTTP 503" } : { version: "old", timings: {} })
        : { engine: this.failing ? "broken" : "old" };
      queueMicrotask(() => this.onmessage({ data: { id: request.id, ...answer } }));
    }
    terminate() {
      this.terminated = true;
    }
  }
  globalThis.Worker = Flaky;
  server.version = "old";
  const engine = createEngine();
  assert.equal(await engine.ready(), "old");
  failNext = true;
  engine.serverVersion("new");
  assert.deepEqual(await engine.apply({ game: "rukas" }, {}), { engine: "old" });
  assert.equal(made.length, 2);
  assert.ok(made[1].terminated && !made[0].terminated);
});

test("the snapshot's zero pages come back as zeros; a foreign or cut file is refused", async () => {
  const { expandSnapshot } = await import("../../../static/js/offline/engine-snapshot.js");
  // "KSNAP1\0\0", size 12, two runs: 3 bytes at 2, 2 bytes at 9.
  const header = new Uint8Array([...new TextEncoder().encode("KSNAP1\0\0"), 12, 0, 0, 0, 2, 0, 0, 0]);
  const table = new Uint8Array(new Uint32Array([2, 3, 9, 2]).buffer);
  const file = new Uint8Array([...header, ...table, 7, 8, 9, 5, 6]);
  assert.deepEqual([...expandSnapshot(file)], [0, 0, 7, 8, 9, 0, 0, 0, 0, 5, 6, 0]);
  assert.throws(() => expandSnapshot(file.subarray(0, file.length - 1)), /cut short/);
  const foreign = file.slice();
  foreign[0] = 0x58;
  assert.throws(() => expandSnapshot(foreign), /not in build_engine's format/);
});

test("an engine that could not load is tried again once the tablet is online, not before every request", async () => {
  let loads = true;
  const made = [];
  class Sometimes {
    constructor() {
      this.loads = loads;
      made.push(this);
    }
    postMessage(request) {
      const answer = this.loads
        ? (request.op === "ready" ? { version: "v1", timings: {} } : { engine: "v1" })
        : { failure: "engine.json: HTTP 503" };
      queueMicrotask(() => this.onmessage({ data: { id: request.id, ...answer } }));
    }
    terminate() {
      this.terminated = true;
    }
  }
  globalThis.Worker = Sometimes;
  server.version = "v1";
  loads = false;
  const engine = createEngine({ retryMs: 0 });
  await assert.rejects(engine.ready(), /HTTP 503/);
  assert.equal(made.length, 2, "ready() tried once more");
  loads = true;
  assert.deepEqual(await engine.apply({ game: "rukas" }, {}), { engine: "v1" }, "a later try loaded");
  assert.equal(made.length, 3);
  assert.ok(made[0].terminated && made[1].terminated);

  loads = false;
  const patient = createEngine({ retryMs: 60_000 });
  await assert.rejects(patient.ready(), /HTTP 503/);
  assert.deepEqual(await patient.apply({ game: "rukas" }, {}), { failure: "engine.json: HTTP 503" });
  assert.equal(made.length, 4, "no second try within retryMs");
});
