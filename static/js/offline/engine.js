// The recording screen's door to the referee on the tablet (engine-worker.js): one worker per
// screen, requests answered in order, as promises.
//
//   import { createEngine } from "/static/js/offline/engine.js";
//   const engine = createEngine({ context: { names, language, notation } });
//   const version = await engine.ready();     // rejects when this browser cannot run it
//   const answer = await engine.apply(snapshot, entry);
//   // {snapshot, view, outcome} | {refusal: {error, code}} | {failure}
//
// `context` says how a refusal reads, as the server renders it for the session: the players'
// names in seat order, the language ("lt" or "en") and the card notation.

const WORKER = "/static/js/offline/engine-worker.js";
const MANIFEST = "/static/offline/engine.json";

/** Whether this browser can run the engine at all (module workers and WebAssembly). */
export function engineSupported() {
  return typeof Worker !== "undefined" && typeof WebAssembly === "object";
}

export function createEngine({ workerURL = WORKER, manifestURL = MANIFEST, context = {} } = {}) {
  if (!engineSupported()) {
    const unsupported = () => Promise.reject(new Error("This browser cannot run the referee offline."));
    return { ready: unsupported, apply: unsupported, newDeal: unsupported, replay: unsupported,
      view: unsupported, outcome: unsupported, fromDict: unsupported, setContext() {}, terminate() {} };
  }
  const url = new URL(workerURL, location.href);
  url.searchParams.set("manifest", new URL(manifestURL, location.href).href);
  const worker = new Worker(url, { type: "module" });
  const waiting = new Map();
  let last = 0;
  let readiness = null;

  worker.onmessage = ({ data }) => {
    const { id, ...answer } = data;
    const resolve = waiting.get(id);
    waiting.delete(id);
    if (resolve) resolve(answer);
  };
  // A worker that cannot even start (its script missing, a syntax error) fails every request
  // alike, so that the screen falls back to the server.
  worker.onerror = (event) => {
    event.preventDefault();
    for (const resolve of waiting.values()) resolve({ failure: event.message || "the engine worker failed" });
    waiting.clear();
  };

  function ask(request) {
    last += 1;
    const id = last;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      worker.postMessage({ id, context, ...request });
    });
  }

  return {
    /** The engine version once loaded (compare with GET /api/engine/); rejects if it cannot load. */
    ready() {
      readiness ??= ask({ op: "ready" }).then((answer) => {
        if (answer.failure) throw new Error(answer.failure);
        this.timings = answer.timings;
        return answer.version;
      });
      return readiness;
    },
    /** Once ready: when (ms after the worker started) each loading step was done. */
    timings: null,
    apply: (snapshot, entry) => ask({ op: "apply", game: snapshot.game, snapshot, entry }),
    newDeal: ({ game, players, dealer, options = {} }) => ask({ op: "new_deal", game, players, dealer, options }),
    replay: ({ game, players, dealer, options = {}, entries }) =>
      ask({ op: "replay", game, players, dealer, options, entries }),
    view: (snapshot) => ask({ op: "view", game: snapshot.game, snapshot }),
    outcome: (snapshot) => ask({ op: "outcome", game: snapshot.game, snapshot }),
    fromDict: (snapshot) => ask({ op: "from_dict", game: snapshot.game, snapshot }),
    setContext(next) {
      context = { ...context, ...next };
    },
    terminate() {
      worker.terminate();
      for (const resolve of waiting.values()) resolve({ failure: "the engine was stopped" });
      waiting.clear();
    },
  };
}
