// The referee on the tablet: a module Web Worker running referee/rules under Pyodide, so that
// the screen never waits for the network to know who takes a trick or why an entry is refused.
//
// It reads the manifest that `manage.py build_engine` writes (engine.json, or the address the
// first message names; revalidated on each start so a newer engine is seen), loads Pyodide
// from the project's own static files (copied
// from node_modules at set-up: never a CDN), checks the engine archive and the refusals'
// catalogue against the manifest's sha256, and unpacks them; or, when the manifest names one,
// restores the memory snapshot build_engine made with the engine already imported and the
// catalogue read (see referee/offline_engine.py: seconds of CPU saved). Then each message
// {id, op, game, snapshot, entry, context, ...} is answered {id, ...} by
// referee/tablet_engine.py, exactly as the server would answer: {snapshot, view, outcome},
// {refusal: {error, code}} or {failure} (the screen then asks the server).
// {id, op: "ready"} answers {id, version, timings} once the engine is loaded (timings: the
// milliseconds since the worker started at which the manifest, the downloads, Pyodide and the
// engine were ready, and whether the snapshot was used), or {id, failure}.

import { inflateSnapshot } from "./engine-snapshot.js";

// The manifest's address comes with the first message ({manifest}), not in the worker's own
// address: a service worker answering for this script from its cache gives the worker the
// cached response's address, whatever query the page started it with.
let manifestURL = null;
let loading = null;

// Pyodide's loader leaves promises of its own rejected when a download fails (the network cut
// while the engine is still loading): the load's failure is already this worker's answer
// ({failure}, and the screen asks the server), so these echoes of it are logged, not raised as
// uncaught errors of the page (a test caught one as "Failed to fetch" under load).
self.addEventListener("unhandledrejection", (event) => {
  event.preventDefault();
  console.warn("engine: a download failed while loading:", event.reason);
});

function start(manifest) {
  manifestURL = new URL(manifest || "/static/offline/engine.json", self.location.href);
  loading = load();
  // Failing to load is an answer too (the screen falls back to the server), never an
  // unhandled rejection in the worker.
  loading.catch(() => {});
}

async function sha256(buffer) {
  const digest = await crypto.subtle.digest("SHA-256", buffer);
  return Array.from(new Uint8Array(digest), (byte) => byte.toString(16).padStart(2, "0")).join("");
}

async function checked(name, expected) {
  const response = await fetch(new URL(name, manifestURL));
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  const buffer = await response.arrayBuffer();
  if ((await sha256(buffer)) !== expected) throw new Error(`${name} does not match its manifest`);
  return buffer;
}

async function load() {
  const timings = {};
  const response = await fetch(manifestURL, { cache: "no-cache" });
  if (!response.ok) throw new Error(`engine manifest: HTTP ${response.status}`);
  const manifest = await response.json();
  timings.manifest = performance.now();
  if (!manifest.pyodide) throw new Error("Pyodide is not installed on the server (npm ci, then build_engine)");
  const indexURL = new URL(`${manifest.pyodide}/`, manifestURL).href;
  const options = {
    indexURL,
    // The engine loads no package: an empty lock file (its header is what Pyodide checks)
    // saves fetching and reading Pyodide's list of 357 packages.
    ...(manifest.lock_info ? { lockFileContents: { info: manifest.lock_info, packages: {} } } : {}),
    packages: [],
  };
  const pyodideModule = import(`${indexURL}pyodide.mjs`);
  pyodideModule.catch(() => {});
  let glue = null;
  if (manifest.snapshot && typeof DecompressionStream === "function") {
    // Pyodide's memory with the engine imported and the catalogue read (build_engine made it
    // from this version's archive and catalogue): no Python to start, no module to compile.
    try {
      const [{ loadPyodide }, snapshot] = await Promise.all([
        pyodideModule,
        checked(manifest.snapshot, manifest.sha256.snapshot).then(inflateSnapshot),
      ]);
      timings.downloaded = performance.now();
      // Pyodide fetches and compiles its WebAssembly itself (streaming compilation).
      const pyodide = await loadPyodide({ ...options, _loadSnapshot: snapshot });
      timings.pyodide = performance.now();
      glue = pyodide.pyimport("referee.tablet_engine");
      timings.snapshot = true;
    } catch (error) {
      // A snapshot that cannot be had or used is no reason to stop: Python starts the slow way.
      console.warn("engine: the memory snapshot could not be used, starting Python instead:", error);
    }
  }
  if (glue === null) {
    const [{ loadPyodide }, archive, catalogue] = await Promise.all([
      pyodideModule,
      checked(manifest.archive, manifest.sha256.archive),
      checked(manifest.catalogue, manifest.sha256.catalogue),
    ]);
    timings.downloaded = performance.now();
    const pyodide = await loadPyodide(options);
    timings.pyodide = performance.now();
    pyodide.unpackArchive(archive, "zip", { extractDir: "/engine" });
    pyodide.globals.set("catalogue_text", new TextDecoder().decode(catalogue));
    pyodide.runPython(
      "import json, sys\nsys.path.insert(0, '/engine')\nimport referee.tablet_engine as glue\n" +
        "glue.load_catalogue(json.loads(catalogue_text))\ndel catalogue_text",
    );
    glue = pyodide.pyimport("referee.tablet_engine");
    timings.snapshot = false;
  }
  timings.engine = performance.now();
  return { glue, version: manifest.version, timings };
}

self.onmessage = async (event) => {
  const { id, manifest, ...request } = event.data;
  if (loading === null) start(manifest);
  try {
    const { glue, version, timings } = await loading;
    if (request.op === "ready") {
      self.postMessage({ id, version, timings });
      return;
    }
    self.postMessage({ id, ...JSON.parse(glue.handle(JSON.stringify(request))) });
  } catch (error) {
    self.postMessage({ id, failure: String((error && error.message) || error) });
  }
};
