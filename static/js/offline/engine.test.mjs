/* engine.js, the screen's door to the engine worker, over a fake Worker: requests and answers
   matched by id whatever order they come back in, the session's context sent along, the game
   read from the snapshot, failures answered rather than thrown, and an old browser told so. */
import { test } from "node:test";
import assert from "node:assert/strict";

import { createEngine, engineSupported } from "./engine.js";

globalThis.location = { href: "http://table.test/deals/7/" };

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
  const url = new URL(made[0].url);
  assert.equal(url.pathname, "/static/js/offline/engine-worker.js");
  assert.equal(url.searchParams.get("manifest"), "http://table.test/static/offline/engine.json");
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
  const [first] = made[0].seen;
  assert.equal(first.op, "apply");
  assert.equal(first.game, "rukas");
  assert.deepEqual(first.context, context);
  engine.setContext({ language: "en" });
  await engine.view(snapshot);
  assert.deepEqual(made[0].seen[2].context, { ...context, language: "en" });
  assert.equal(made[0].seen[2].op, "view");
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
