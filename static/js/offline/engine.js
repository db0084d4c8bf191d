// The recording screen's door to the referee on the tablet (engine-worker.js): one worker at a
// time per screen, requests answered in order, as promises.
//
//   import { createEngine } from "/static/js/offline/engine.js";
//   const engine = createEngine({ context: { names, language, notation } });
//   const version = await engine.ready();     // rejects when this browser cannot run it
//   const answer = await engine.apply(snapshot, entry);
//   // {snapshot, view, outcome} | {refusal: {error, code}} | {failure}
//   engine.serverVersion(response.headers.get("X-Engine-Version"));  // after any API answer
//
// `context` says how a refusal reads, as the server renders it for the session: the players'
// names in seat order, the language ("lt" or "en") and the card notation.
//
// Never an older referee than the server's: whenever the tablet is online the bridge learns the
// server's engine version (GET /api/engine/ when the engine starts, when the browser comes back
// online and every `recheckMs` while verdicts are asked; the X-Engine-Version header of any API
// answer the screen or the sync passes to `serverVersion`). When it differs from the loaded
// engine's, the next verdict waits until a new worker has loaded the new manifest and archive,
// and the old worker goes. Offline, or when the new engine cannot load, the tablet referees with
// what it has (the server referees every entry again anyway). A server whose built engine lags
// behind its source (build_engine not run) is tried once per version, not in a loop. An engine
// that could not load at all (opened offline with nothing kept) is tried again when a request
// comes while online, at most every `retryMs`.

const WORKER = "/static/js/offline/engine-worker.js";
const MANIFEST = "/static/offline/engine.json";
const VERSION = "/api/engine/";

/** Whether this browser can run the engine at all (module workers and WebAssembly). */
export function engineSupported() {
  return typeof Worker !== "undefined" && typeof WebAssembly === "object";
}

function online() {
  return typeof navigator === "undefined" || navigator.onLine !== false;
}

/** One engine worker: its pending requests, and whether (and with which version) it loaded. */
function startWorker(workerURL, manifestURL) {
  const worker = new Worker(new URL(workerURL, location.href), { type: "module" });
  const state = { worker, waiting: new Map(), last: 0, broken: null, retired: false, timings: null, version: null };
  worker.onmessage = ({ data }) => {
    const { id, ...answer } = data;
    const resolve = state.waiting.get(id);
    state.waiting.delete(id);
    if (resolve) resolve(answer);
    if (state.retired && state.waiting.size === 0) worker.terminate();
  };
  // A worker that cannot even start (its script missing, a syntax error) fails every request
  // alike, now and later, so that the screen falls back to the server.
  worker.onerror = (event) => {
    event.preventDefault();
    state.broken = event.message || "the engine worker failed";
    for (const resolve of state.waiting.values()) resolve({ failure: state.broken });
    state.waiting.clear();
  };
  // The first message says where the manifest is (the worker starts loading on it).
  state.ready = post(state, { op: "ready", manifest: new URL(manifestURL, location.href).href }).then((answer) => {
    if (answer.failure) throw new Error(answer.failure);
    state.timings = answer.timings;
    state.version = answer.version;
    return answer.version;
  });
  state.ready.catch(() => {}); // asked for by whoever needs it; never an unhandled rejection
  return state;
}

function post(state, request) {
  if (state.broken) return Promise.resolve({ failure: state.broken });
  state.last += 1;
  const id = state.last;
  return new Promise((resolve) => {
    state.waiting.set(id, resolve);
    state.worker.postMessage({ id, ...request });
  });
}

/** Stops a worker once it has answered what it was asked (at once if nothing is pending). */
function retire(state) {
  state.retired = true;
  if (state.waiting.size === 0) state.worker.terminate();
}

export function createEngine({
  workerURL = WORKER,
  manifestURL = MANIFEST,
  versionURL = VERSION,
  context = {},
  recheckMs = 5 * 60 * 1000,
  checkTimeoutMs = 2000,
  retryMs = 30 * 1000,
} = {}) {
  if (!engineSupported()) {
    const unsupported = () => Promise.reject(new Error("This browser cannot run the referee offline."));
    return { ready: unsupported, apply: unsupported, newDeal: unsupported, replay: unsupported,
      view: unsupported, outcome: unsupported, fromDict: unsupported, checkServer: unsupported,
      setContext() {}, serverVersion() {}, terminate() {} };
  }
  let current = startWorker(workerURL, manifestURL);
  let server = null; // the server's engine version, as last heard
  let tried = null; // the server version a reload was last made for
  let lastCheck = -Infinity;
  let lastRetry = performance.now(); // when an engine that could not load was last tried again
  let checking = null;
  let holding = false; // whether the check in flight holds the next verdict until it is answered
  let refreshing = null;
  let stopped = false;
  // Requests pass this gate one by one: each reaches its worker in the order it was asked.
  let gate = Promise.resolve();

  const stale = (version) => typeof version === "string" && server !== null && version !== server && tried !== server;

  /** Asks GET /api/engine/ (when online; at most one at a time, given up after checkTimeoutMs).
      `blocking`: the next verdict waits for the answer (the engine starting, the browser back
      online: when a newer engine is likely); a routine recheck never holds a verdict up. */
  function checkServer({ blocking = true } = {}) {
    if (stopped || !online()) return Promise.resolve(server);
    lastCheck = performance.now();
    if (blocking) holding = true;
    checking ??= (async () => {
      try {
        const response = await fetch(new URL(versionURL, location.href), {
          cache: "no-store", credentials: "same-origin", headers: { Accept: "application/json" },
          signal: AbortSignal.timeout(checkTimeoutMs),
        });
        if (response.ok) noteServer((await response.json()).version);
      } catch {
        // Offline after all, or the server busy: the engine in hand referees.
      }
      return server;
    })().finally(() => {
      checking = null;
      holding = false;
    });
    return checking;
  }

  function noteServer(version) {
    if (typeof version === "string" && version) server = version;
  }

  /** A new worker on the current manifest; it replaces the old one only once it has loaded. */
  function refresh() {
    refreshing ??= (async () => {
      tried = server;
      const next = startWorker(workerURL, manifestURL);
      try {
        await next.ready;
      } catch (error) {
        // Offline in the meantime, or a broken download: keep refereeing with what we have.
        console.warn("engine: the server's new engine could not be loaded, keeping the old one:", error);
        retire(next);
        return;
      }
      const old = current;
      current = next;
      retire(old);
    })().finally(() => {
      refreshing = null;
    });
    return refreshing;
  }

  /** The worker to ask now: loaded, and no older than the server's engine as far as we know. */
  async function fresh() {
    if (checking && holding) await checking;
    if (refreshing) await refreshing;
    const version = await current.ready.catch(() => null);
    if (version === null && online() && performance.now() - lastRetry > retryMs) {
      // No engine at all (it could not load: opened offline with nothing kept, a failed
      // download): online again, try once more, at most every retryMs.
      lastRetry = performance.now();
      await refresh();
    } else if (stale(version)) await refresh();
    else if (online() && performance.now() - lastCheck > recheckMs) checkServer({ blocking: false });
    return current;
  }

  function ask(request) {
    const message = { context, ...request }; // the context as it was when asked
    const turn = gate.then(fresh);
    gate = turn.catch(() => {});
    return turn.then((state) => post(state, message));
  }

  // The server's version is asked while the engine loads, so that an older engine is known
  // (and replaced) before the first verdict.
  checkServer();
  const backOnline = () => {
    checkServer();
  };
  if (typeof addEventListener === "function") addEventListener("online", backOnline);

  return {
    /** The version of the engine that will referee (compared with the server's when online and
        replaced first if older); rejects if no engine can load. */
    async ready() {
      const turn = gate.then(fresh);
      gate = turn.catch(() => {});
      const state = await turn;
      const version = await state.ready;
      this.timings = state.timings;
      return version;
    },
    /** Once ready: when (ms after its worker started) each loading step was done. */
    timings: null,
    /** The loaded engine's version (null until loaded). */
    get version() {
      return current.version;
    },
    /** Tells the bridge the server's engine version (e.g. an answer's X-Engine-Version header). */
    serverVersion: noteServer,
    /** Asks the server for its engine version now (the next verdict waits for the answer);
        resolves to it (null when unknown). */
    checkServer: () => checkServer(),
    apply: (snapshot, entry) => ask({ op: "apply", game: snapshot.game, snapshot, entry }),
    /** `previous`: the finished deal's snapshot, whose carry-over (rules' carry_over) the new deal takes. */
    newDeal: ({ game, players, dealer, options = {}, previous = null }) =>
      ask({ op: "new_deal", game, players, dealer, options, ...(previous ? { previous } : {}) }),
    replay: ({ game, players, dealer, options = {}, entries }) =>
      ask({ op: "replay", game, players, dealer, options, entries }),
    view: (snapshot) => ask({ op: "view", game: snapshot.game, snapshot }),
    outcome: (snapshot) => ask({ op: "outcome", game: snapshot.game, snapshot }),
    fromDict: (snapshot) => ask({ op: "from_dict", game: snapshot.game, snapshot }),
    /** The session's standing against its plan (referee/tablet_engine.py's "plan"): `plan`,
        `before` (the finished deals before this one, folded), `points` (this deal's outcome, or
        null while it runs as deal `running`), `played_on_after`. */
    plan: ({ game, plan, before, points = null, running = null, played_on_after = null }) =>
      ask({ op: "plan", game, plan, before, points, running, played_on_after }),
    setContext(next) {
      context = { ...context, ...next };
    },
    terminate() {
      stopped = true;
      if (typeof removeEventListener === "function") removeEventListener("online", backOnline);
      current.worker.terminate();
      current.broken = "the engine was stopped";
      for (const resolve of current.waiting.values()) resolve({ failure: "the engine was stopped" });
      current.waiting.clear();
    },
  };
}
