"""The tablet's ES modules (static/js/offline/: the queue, the sync, ...; static/js/table/: the
recording screen's drafts, conflict dialog and sync line) tested by Node's own
test runner, so that `make test` and .ci/run run them beside the Python tests. The tests live
in tests/js/ (never among the files the site serves); IndexedDB comes from the npm package
fake-indexeddb (package-lock.json pins it), fetch from a fake server in
tests/js/offline/fake-server.mjs."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from django.conf import settings

from tests.conftest import need

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests" / "js"
#: Each folder of *.test.mjs files, run as its own node --test.
FOLDERS = [TESTS / "offline", TESTS / "table"]


@pytest.mark.parametrize("folder", FOLDERS, ids=lambda path: path.name)
def test_offline_modules_pass_their_node_tests(folder: Path) -> None:
    node = shutil.which("node")
    need(node is not None, "needs Node.js (apt-get install nodejs npm) to run static/js/offline's tests")
    need(
        (ROOT / "node_modules" / "fake-indexeddb" / "package.json").is_file(),
        "needs node_modules/fake-indexeddb: run `npm ci` (make test does)",
    )
    need(
        all(Path(folder).is_dir() for folder in settings.VENDOR_STATIC.values()),
        "needs what the site serves from node_modules (idb): run `npm ci` (make test does)",
    )
    assert node is not None
    done = subprocess.run(
        # The modules are ES modules named .js (the browser loads them as they are); Node finds
        # that out itself and would say so once per file.
        # tests/js/vendor.mjs finds what the site serves from node_modules where it is served from.
        [node, "--disable-warning=MODULE_TYPELESS_PACKAGE_JSON", "--import", "./tests/js/vendor.mjs",
         "--test", "--test-reporter=tap", str(folder.relative_to(ROOT)) + "/"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
        env={**os.environ, "KORTOS_VENDOR": json.dumps({k: str(v) for k, v in settings.VENDOR_STATIC.items()})},
    )
    report = done.stdout + done.stderr
    failed = [line for line in report.splitlines() if line.lstrip().startswith("not ok")]
    assert done.returncode == 0 and not failed, "node --test failed:\n" + "\n".join(failed) + "\n" + report[-6000:]
    passed = re.search(r"^# pass (\d+)$", report, re.MULTILINE)
    assert passed is not None and int(passed.group(1)) > 0, "node --test ran no test:\n" + report[-3000:]
