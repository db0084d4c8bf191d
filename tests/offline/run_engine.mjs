// The tablet's engine under Node: Pyodide from node_modules, the archive the set-up step built,
// then every request of a file (one JSON request per line) answered by referee/tablet_engine.py, the
// same Python the Web Worker calls. Prints {"load_ms": ..., "answers": [...]} on stdout, each
// answer exactly as Python wrote it (never re-read by JavaScript, whose numbers are doubles).
// Also {"games": [...]}: the games the engine it runs knows.
// Usage: node run_engine.mjs <node_modules/pyodide dir> <engine-*.zip> <engine-*.json> <requests file> [<snapshot>]
// With a snapshot (build_engine's engine-*.snapshot, gzipped), Pyodide starts from it as the
// worker does, with the engine and the catalogue already in memory; the archive and the
// catalogue are then not read at all, so the answers come from the snapshot alone.
import { readFileSync } from "node:fs";
import { gunzipSync } from "node:zlib";
import { pathToFileURL } from "node:url";
import path from "node:path";

import { expandSnapshot } from "../../static/js/offline/engine-snapshot.js";

const [pyodideDir, archivePath, cataloguePath, requestsPath, snapshotPath] = process.argv.slice(2);
const started = performance.now();
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
let pyodide;
if (snapshotPath) {
  const lock = JSON.parse(readFileSync(path.join(pyodideDir, "pyodide-lock.json"), "utf8"));
  pyodide = await loadPyodide({
    indexURL: pyodideDir + path.sep,
    lockFileContents: { info: lock.info, packages: {} },
    _loadSnapshot: expandSnapshot(gunzipSync(readFileSync(snapshotPath))),
  });
} else {
  pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep });
  pyodide.unpackArchive(new Uint8Array(readFileSync(archivePath)), "zip", { extractDir: "/engine" });
  pyodide.runPython("import sys; sys.path.insert(0, '/engine')");
  pyodide.globals.set("catalogue_text", readFileSync(cataloguePath, "utf8"));
  pyodide.runPython("import json, referee.tablet_engine as glue; glue.load_catalogue(json.loads(catalogue_text))");
}
const glue = pyodide.pyimport("referee.tablet_engine");
const loadMs = performance.now() - started;

/** {op: "chain", game, players, dealer, options, context, entries}: a whole deal as the tablet
    records it, each entry applied to the snapshot the engine answered for the entry before (read
    back by JavaScript, as the screen reads the worker's answers); answered with the list of
    every step's answer, the first being the new deal's. */
function chain(line) {
  const { entries, ...start } = JSON.parse(line);
  const steps = [glue.handle(JSON.stringify({ ...start, op: "new_deal" }))];
  for (const entry of entries) {
    const { snapshot } = JSON.parse(steps[steps.length - 1]);
    if (!snapshot) break; // a refusal ends the chain: the test shows where
    steps.push(glue.handle(JSON.stringify({ op: "apply", game: start.game, context: start.context, snapshot, entry })));
  }
  return `[${steps.join(",")}]`;
}

// One request per line (Python writes them so), answered in order. A file, not stdin: Node
// reads a large pipe with EAGAIN.
const lines = readFileSync(requestsPath, "utf8").split("\n").filter((line) => line.trim());
const answers = lines.map((line) => (line.startsWith('{"op": "chain"') ? chain(line) : glue.handle(line)));
// The games the engine in the archive (or the snapshot) knows, to hold against the server's.
const games = pyodide.runPython("import json, referee.rules\njson.dumps(sorted(referee.rules.GAMES))");
process.stdout.write(`{"load_ms": ${loadMs}, "games": ${games}, "answers": [${answers.join(",")}]}`);
