// The tablet's engine under Node: Pyodide from node_modules, the archive the set-up step built,
// then every request of a file (one JSON request per line) answered by referee/tablet_engine.py, the
// same Python the Web Worker calls. Prints {"load_ms": ..., "answers": [...]} on stdout, each
// answer exactly as Python wrote it (never re-read by JavaScript, whose numbers are doubles).
// Usage: node run_engine.mjs <node_modules/pyodide dir> <engine-*.zip> <engine-*.json> <requests file>
import { readFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import path from "node:path";

const [pyodideDir, archivePath, cataloguePath, requestsPath] = process.argv.slice(2);
const started = performance.now();
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, "pyodide.mjs")).href);
const pyodide = await loadPyodide({ indexURL: pyodideDir + path.sep });
pyodide.unpackArchive(new Uint8Array(readFileSync(archivePath)), "zip", { extractDir: "/engine" });
pyodide.runPython("import sys; sys.path.insert(0, '/engine')");
const glue = pyodide.pyimport("referee.tablet_engine");
pyodide.globals.set("catalogue_text", readFileSync(cataloguePath, "utf8"));
pyodide.runPython("import json, referee.tablet_engine as glue; glue.load_catalogue(json.loads(catalogue_text))");
const loadMs = performance.now() - started;

// One request per line (Python writes them so), answered in order. A file, not stdin: Node
// reads a large pipe with EAGAIN.
const lines = readFileSync(requestsPath, "utf8").split("\n").filter((line) => line.trim());
const answers = lines.map((line) => glue.handle(line));
process.stdout.write(`{"load_ms": ${loadMs}, "answers": [${answers.join(",")}]}`);
