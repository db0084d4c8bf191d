"""The tablet's engine run through Node: Pyodide from node_modules and an archive built from the
source now, every request of a batch answered in one Node process (Pyodide loads once)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

from referee import offline_engine
from tests.conftest import need

ROOT = Path(__file__).resolve().parents[2]
PYODIDE = ROOT / "node_modules" / "pyodide"
RUNNER = Path(__file__).with_name("run_engine.mjs")


def require_node() -> str:
    """Node's path; skips (locally) or fails (CI) when Node or the npm packages are missing."""
    node = shutil.which("node")
    need(node is not None, "needs Node.js (apt-get install nodejs npm) to run the engine under Pyodide")
    need((PYODIDE / "pyodide.mjs").is_file(), "needs node_modules/pyodide: run `make setup` (npm ci)")
    assert node is not None
    return node


class EngineUnderNode:
    """``answers(requests)``: the tablet engine's answers, one per request, in order.

    ``snapshot``: start Pyodide from the memory snapshot the build made (as the tablet's worker
    does), else start Python and import the archive (the worker's way without a snapshot)."""

    def __init__(self, node: str, build_dir: Path, *, snapshot: bool = False) -> None:
        self.node = node
        self.requests = build_dir / "requests.jsonl"
        manifest = offline_engine.build(build_dir)
        self.archive = build_dir / manifest["archive"]
        self.catalogue = build_dir / manifest["catalogue"]
        self.snapshot: Path | None = None
        if snapshot:
            assert manifest["snapshot"], "the build made no memory snapshot (see its warning on stderr)"
            self.snapshot = build_dir / manifest["snapshot"]
        self.load_ms = 0.0
        self.games: list[str] = []

    def answers(self, requests: list[dict[str, Any]]) -> list[dict[str, Any]]:
        self.requests.write_text("".join(json.dumps(request, ensure_ascii=False) + "\n" for request in requests))
        done = subprocess.run(
            [self.node, str(RUNNER), str(PYODIDE), str(self.archive), str(self.catalogue), str(self.requests),
             *([str(self.snapshot)] if self.snapshot else [])],
            capture_output=True, timeout=600, check=False,
        )
        assert done.returncode == 0, done.stderr.decode()[-3000:]
        result = json.loads(done.stdout)
        self.load_ms = float(result["load_ms"])
        self.games = list(result["games"])
        answers: list[dict[str, Any]] = result["answers"]
        assert len(answers) == len(requests)
        return answers
