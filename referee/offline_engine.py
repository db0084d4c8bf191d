"""The rules engine as the tablet gets it: an archive built from the source at set-up, and the
version the server runs.

``build`` writes, into ``static/offline/`` (git-ignored; ``make setup`` and the Dockerfile
run ``manage.py build_engine``):

- ``engine-<version>.zip``: ``referee/rules/*.py`` and ``referee/tablet_engine.py`` (what the
  Web Worker calls), under an empty ``referee/__init__.py`` so that the Django app's own
  package file never reaches the tablet;
- ``engine-<version>.json``: the refusals' catalogue per language (the engine's messages
  as the server's gettext translates them, and each game's words for
  the fields its messages name);
- ``pyodide-<its version>/``: what the worker loads of Pyodide, copied from
  ``node_modules/pyodide`` (``npm ci``: package-lock.json pins it with its integrity hash),
  so that the project serves it like its other static files, never from a CDN;
- ``engine-<version>.snapshot``: Pyodide's memory with the engine already imported, its
  all-zero pages left out (:func:`sparse`) and gzipped
  (made through Node by ``referee/offline_snapshot.mjs``; left out, with a warning, when Node
  cannot make it: the worker then starts Python itself, some seconds slower). Why: Pyodide's
  standard library is shipped as ``.py`` sources, so a plain start compiles about two hundred
  modules before the engine is imported, several seconds of a tablet's CPU at every load;
  restoring the snapshot skips all of it. Its name does not end in ``.gz`` on purpose: a
  server guessing ``Content-Encoding: gzip`` from the name would have the browser unpack it
  before the worker does;
- ``engine.json``, the manifest the worker reads first: ``{version, archive, catalogue,
  snapshot, pyodide, lock_info, files, sha256}`` (``sha256`` of the archive, the catalogue and
  the snapshot, checked before use; ``lock_info`` is Pyodide's lock file's header, all the
  worker passes of it, since it never loads a package).

``<version>`` hashes every input (engine, glue, page modules for the words, compiled ``.mo`` catalogues),
so a tablet holding an older engine or older messages sees a different version; the server
computes it from the same files at start (``GET /api/engine/``), needing no built file.
"""

from __future__ import annotations

import functools
import gettext
import gzip
import hashlib
import io
import json
import shutil
import struct
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from django.conf import settings
from django.utils import translation

from referee.games import PAGES

ROOT = Path(__file__).resolve().parent.parent
PYODIDE = ROOT / "node_modules" / "pyodide"
#: What the browser loads of Pyodide's package to run the standard library (no wheels, so no
#: lock file: the manifest carries the lock file's header, which is all Pyodide checks).
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip")
#: The Node script that imports the engine under Pyodide and writes the memory snapshot.
SNAPSHOT_SCRIPT = ROOT / "referee" / "offline_snapshot.mjs"
OUTPUT = ROOT / "static" / "offline"
#: A fixed time for every archive member, so the same source always builds the same bytes.
ZIP_TIME = (2020, 1, 1, 0, 0, 0)


def engine_files() -> list[Path]:
    """What runs on the tablet: the engine's modules and the worker's glue."""
    return sorted((ROOT / "referee" / "rules").glob("*.py")) + [ROOT / "referee" / "tablet_engine.py"]


def catalogue_sources() -> list[Path]:
    """What the refusals' words and translations come from."""
    return sorted((ROOT / "referee" / "games").glob("*.py")) + _catalogue_files()


def _catalogue_files() -> list[Path]:
    return sorted(path for root in settings.LOCALE_PATHS for path in Path(root).glob("*/LC_MESSAGES/django.mo"))


@functools.cache
def version() -> str:
    """A hash of every input of the archive and catalogue (path and bytes), 16 hex digits."""
    digest = hashlib.sha256()
    for path in engine_files() + catalogue_sources():
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def engine_messages() -> list[str]:
    """Every singular message of the project's compiled catalogues (the ``.mo`` files that
    ``make messages`` compiles from the ``.po`` files and the server's gettext reads).

    All of them, not only those whose ``#:`` references point into the engine: some of the
    engine's templates are marked elsewhere (``referee/card_messages.py`` marks the card
    refusals), and references lag behind a message that moved until ``makemessages`` runs.
    Whatever the server's gettext would translate, the tablet translates too.
    """
    found: set[str] = set()
    for path in _catalogue_files():
        with path.open("rb") as compiled:
            # The stdlib offers no public list of msgids; it keeps them in ``_catalog``. Plural
            # forms are keyed (msgid, n) and the header is "": the engine uses neither.
            messages = gettext.GNUTranslations(compiled)._catalog  # type: ignore[attr-defined]
            found.update(key for key in messages if isinstance(key, str) and key)
    return sorted(found)


def catalogue() -> dict[str, Any]:
    """language -> {"messages": {template: translation}, "words": {game: {key: word}}}: what
    the server's gettext and each page module's ``words()`` give in that language."""
    templates = engine_messages()
    built: dict[str, Any] = {}
    for language, _name in settings.LANGUAGES:
        with translation.override(language):
            messages = {text: translation.gettext(text) for text in templates}
            built[language] = {
                "messages": {text: shown for text, shown in messages.items() if shown != text},
                "words": {slug: {key: str(word) for key, word in page.words().items()} for slug, page in PAGES.items()},
            }
    return built


def archive_bytes() -> bytes:
    """The zip of the engine, the same bytes for the same source."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(zipfile.ZipInfo("referee/__init__.py", ZIP_TIME), "")
        for source in engine_files():
            info = zipfile.ZipInfo(str(source.relative_to(ROOT)), ZIP_TIME)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, source.read_bytes())
    return buffer.getvalue()


def pyodide_version() -> str | None:
    """The installed Pyodide's version, or None when ``npm ci`` has not run."""
    try:
        return str(json.loads((PYODIDE / "package.json").read_text())["version"])
    except FileNotFoundError:
        return None


def copy_pyodide(output: Path) -> str | None:
    """Copy Pyodide's runtime files into ``output/pyodide-<version>/`` (skipping those already
    there at the same size: 13 MB, mostly the WebAssembly); its folder name, or None without it."""
    installed = pyodide_version()
    if installed is None:
        return None
    folder = f"pyodide-{installed}"
    (output / folder).mkdir(parents=True, exist_ok=True)
    for name in PYODIDE_FILES:
        source, target = PYODIDE / name, output / folder / name
        if not target.exists() or target.stat().st_size != source.stat().st_size:
            shutil.copyfile(source, target)
    for stray in (output / folder).iterdir():
        if stray.name not in PYODIDE_FILES:  # a file an earlier build copied and no longer needs
            stray.unlink()
    for old in output.glob("pyodide-*"):
        if old.name != folder:
            shutil.rmtree(old)
    return folder


def lock_info() -> dict[str, Any] | None:
    """The header of the installed Pyodide's lock file (its ABI, which Pyodide checks on start)."""
    try:
        info = json.loads((PYODIDE / "pyodide-lock.json").read_text())["info"]
    except FileNotFoundError:
        return None
    return dict(info)


#: static/js/offline/engine-snapshot.js reads this layout back.
SNAPSHOT_MAGIC = b"KSNAP1\0\0"
SNAPSHOT_PAGE = 4096


def sparse(memory: bytes) -> bytes:
    """``memory`` without its all-zero pages: the magic, its size, the runs' count, each run's
    (offset, length), then the runs' bytes (little-endian uint32s). About half of Pyodide's
    memory is zeros, which the tablet then need not inflate."""
    zero = bytes(SNAPSHOT_PAGE)
    runs: list[tuple[int, int]] = []
    for offset in range(0, len(memory), SNAPSHOT_PAGE):
        page = memory[offset : offset + SNAPSHOT_PAGE]
        if page == zero[: len(page)]:
            continue
        if runs and runs[-1][0] + runs[-1][1] == offset:
            runs[-1] = (runs[-1][0], runs[-1][1] + len(page))
        else:
            runs.append((offset, len(page)))
    header = SNAPSHOT_MAGIC + struct.pack("<II", len(memory), len(runs))
    table = b"".join(struct.pack("<II", offset, length) for offset, length in runs)
    return header + table + b"".join(memory[offset : offset + length] for offset, length in runs)


def snapshot_name(engine: str, pyodide: str) -> str:
    """The snapshot's file name: the engine version, the Pyodide it runs on, and a hash of how it
    is made (the script and the layout), so that any of them changing makes a new one."""
    how = hashlib.sha256(SNAPSHOT_SCRIPT.read_bytes() + SNAPSHOT_MAGIC).hexdigest()[:8]
    return f"engine-{engine}.{pyodide}.{how}.snapshot"


def make_snapshot(archive: Path, catalogue: Path, target: Path) -> str | None:
    """Write the gzipped memory snapshot of Pyodide with ``archive``'s engine imported and
    ``catalogue`` read to
    ``target`` (kept when already there: its name holds the engine version and the Pyodide
    version); None when done, else why it could not be made (no Node, no Pyodide, a failure)."""
    if target.is_file():
        return None
    node = shutil.which("node")
    if node is None or pyodide_version() is None:
        return "needs Node.js and node_modules/pyodide (make setup)"
    with tempfile.TemporaryDirectory() as scratch:
        raw = Path(scratch) / "snapshot"
        try:
            done = subprocess.run(
                [node, str(SNAPSHOT_SCRIPT), str(PYODIDE), str(archive), str(catalogue), str(raw)],
                capture_output=True, text=True, timeout=600, check=False,
            )
        except subprocess.TimeoutExpired:
            return "Node took over 10 minutes"
        if done.returncode != 0 or not raw.is_file():
            return (done.stderr or done.stdout).strip()[-2000:] or f"node exited with {done.returncode}"
        # mtime=0: no date in the header. Written beside the target, then renamed, so that a
        # build stopped halfway never leaves a truncated snapshot under the final name.
        partial = target.with_name(target.name + ".partial")
        partial.write_bytes(gzip.compress(sparse(raw.read_bytes()), compresslevel=6, mtime=0))
        partial.replace(target)
    return None


def build(output: Path = OUTPUT, *, with_pyodide: bool = True) -> dict[str, Any]:
    """Write the archive, the catalogue and the manifest into ``output`` (and copy Pyodide, when
    ``with_pyodide`` and npm installed it); return the manifest.

    Older versions' files are removed: the manifest names the only current ones.
    """
    output.mkdir(parents=True, exist_ok=True)
    current = version()
    archive = archive_bytes()
    words = json.dumps(catalogue(), ensure_ascii=False, sort_keys=True).encode()
    names = {"archive": f"engine-{current}.zip", "catalogue": f"engine-{current}.json"}
    pyodide = copy_pyodide(output) if with_pyodide else None
    snapshot = snapshot_name(current, pyodide) if pyodide else None
    for old in output.glob("engine-*"):
        if old.name not in (*names.values(), snapshot):
            old.unlink()
    _replace(output / names["archive"], archive)
    _replace(output / names["catalogue"], words)
    hashes = {"archive": hashlib.sha256(archive).hexdigest(), "catalogue": hashlib.sha256(words).hexdigest()}
    if snapshot is not None:
        failed = make_snapshot(output / names["archive"], output / names["catalogue"], output / snapshot)
        if failed is None:
            hashes["snapshot"] = hashlib.sha256((output / snapshot).read_bytes()).hexdigest()
        else:
            # The tablet still referees, only slower to start: say so, do not stop the set-up.
            print(f"build_engine: no memory snapshot ({failed}); the tablet will start Python itself", file=sys.stderr)
            snapshot = None
    manifest = {
        "version": current,
        **names,
        "snapshot": snapshot,
        "pyodide": pyodide,
        "lock_info": lock_info() if pyodide else None,
        "files": ["referee/__init__.py"] + [str(path.relative_to(ROOT)) for path in engine_files()],
        "sha256": hashes,
    }
    _replace(output / "engine.json", (json.dumps(manifest, indent=2) + "\n").encode())
    return manifest


def _replace(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` as one step (a temporary file renamed over it), and not at all
    when it already holds them: a page or a test loading the engine while a build runs (tests
    build it, the server serves it) never reads a file half written."""
    if path.is_file() and path.read_bytes() == data:
        return
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", delete=False) as temporary:
        temporary.write(data)
    Path(temporary.name).chmod(0o644)  # as write_bytes made it: readable by the server's user
    Path(temporary.name).replace(path)

