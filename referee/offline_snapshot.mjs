// The tablet's engine, imported once at set-up and kept as a Pyodide memory snapshot
// (`manage.py build_engine` runs this through Node; referee/offline_engine.py explains why).
//
// Starting Python under Pyodide compiles some two hundred standard-library modules from source
// (Pyodide's stdlib zip holds .py files only) before our engine is even imported: several
// seconds of CPU on a tablet, at every load. A snapshot taken here, after the engine and what
// it imports are in memory, lets the worker start from that memory instead.
//
// Usage: node offline_snapshot.mjs <node_modules/pyodide dir> <engine-*.zip> <engine-*.json> <output file>
// Writes the raw snapshot (the worker's Pyodide must be the very same build: Pyodide checks its
// build id on restore).
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, archivePath, cataloguePath, outputPath] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const lock = JSON.parse(readFileSync(path.join(pyodideDir, "pyodide-lock.json"), "utf8"));
const pyodide = await loadPyodide({
  indexURL: pyodideDir + path.sep,
  // No package is ever loaded: the engine needs the standard library only.
  lockFileContents: { info: lock.info, packages: {} },
  _makeSnapshot: true,
});
pyodide.unpackArchive(new Uint8Array(readFileSync(archivePath)), "zip", { extractDir: "/engine" });
// Every game answers one request, so that whatever a game imports only when it first runs is
// in the snapshot too. Nothing JavaScript is kept by Python (requests cross as JSON text), so
// the snapshot holds no reference to this Node process.
// The catalogue of refusals too: the worker restoring the snapshot needs neither the archive nor
// the catalogue (this version's own, as the snapshot's name says).
pyodide.globals.set("catalogue_text", readFileSync(cataloguePath, "utf8"));
pyodide.runPython(`
import json, sys
sys.path.insert(0, "/engine")
import referee.tablet_engine as glue
glue.load_catalogue(json.loads(catalogue_text))
del catalogue_text
from referee.rules import GAMES
for slug, game in GAMES.items():
    glue.handle(json.dumps({"op": "new_deal", "game": slug, "players": game.min_players, "dealer": 0}))
del glue, GAMES, slug, game
`);
writeFileSync(outputPath, pyodide.makeMemorySnapshot());
