"""The shape of the house, checked on every run so that it stays that way:

* a game is one room: outside the engine (``referee/rules``) and the games' page modules
  (``referee/games``), no string literal in ``referee``, ``scoring`` or ``config`` names a game
  (demo data and migrations aside); on the tablet, no script outside a game's drawer
  (``static/js/table/games/<slug>.js``) names one, by its slug or its name, in code or comment;
* no import cycle between the project's modules, counting imports inside functions, nor between
  the site's ES modules;
* floors that read downwards: the pure rules < the referee < club nights < scoring < the web <
  config, no module importing from a floor above its own (lazy imports included);
* no module of the Django apps over 500 lines (the engine's game modules, one game each with
  its rules in the docstring, are the exception the issue allows).
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.rules import GAMES

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("db", "referee", "evenings", "scoring", "web", "config")
#: The floors, lowest first: a module may import from its own floor and the ones below. (The
#: pure rules import nothing but the standard library: tests/test_engine_is_pure.py.)
FLOORS = ("db", "referee.rules", "referee", "evenings", "scoring", "web", "config")
#: Only the built-in five: a test may register a sixth (tests/sixth_game) while this runs.
SLUGS = frozenset({"elgeta", "velnias", "rukas", "michigan", "cheat"})


def python_files(*, skip: tuple[str, ...] = ()) -> Iterator[Path]:
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if "/migrations/" in relative or any(relative.startswith(prefix) for prefix in skip):
                continue
            yield path


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def test_the_five_games_are_the_engine_registry() -> None:
    assert SLUGS.issubset(GAMES)


def test_no_string_literal_names_a_game_outside_its_rooms() -> None:
    found = []
    for path in python_files(skip=("referee/rules/", "referee/games/", "referee/management/commands/load_demo")):
        for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in SLUGS:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.value!r}")
    assert found == []


def imported_modules(path: Path, known: set[str]) -> set[str]:
    """The project's modules that ``path`` imports anywhere in it (top level or in a function)."""
    own = module_name(path)
    package = own if path.name == "__init__.py" else own.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            # ``from pkg import module`` imports the module; ``from module import name`` the module.
            names = [f"{prefix}.{alias.name}" for alias in node.names] + [prefix]
        else:
            continue
        for name in names:
            while name and name not in known:
                name = name.rpartition(".")[0]
            if name and name != own:
                found.add(name)
    return found


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle, as the list of modules around it, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            cycle = visit(node)
            if cycle:
                return cycle
    return None


def test_no_import_cycle_counting_imports_inside_functions() -> None:
    paths = list(python_files())
    known = {module_name(path) for path in paths}
    # A package's __init__ importing its own submodules is how a package re-exports, not a cycle
    # of meaning; a submodule importing its package's __init__ would be one, so keep those edges.
    graph = {
        module_name(path): {
            target for target in imported_modules(path, known)
            if not (path.name == "__init__.py" and target.startswith(module_name(path) + "."))
        }
        for path in paths
    }
    assert find_cycle(graph) is None


def floor(module: str) -> int:
    """The floor of a project module: the most specific of FLOORS it lies in."""
    found = [i for i, name in enumerate(FLOORS) if module == name or module.startswith(name + ".")]
    return max(found, key=lambda i: len(FLOORS[i]))


def upward_imports() -> list[str]:
    paths = list(python_files())
    known = {module_name(path) for path in paths}
    return sorted(
        f"{module_name(path)} ({FLOORS[floor(module_name(path))]}) imports {target} ({FLOORS[floor(target)]})"
        for path in paths for target in imported_modules(path, known)
        if floor(target) > floor(module_name(path))
    )


def test_every_floor_imports_only_from_its_own_and_the_ones_below() -> None:
    assert upward_imports() == []


def test_each_module_lies_on_its_floor() -> None:
    assert floor("db.prepared") == 0 and floor("referee.rules.rukas") == 1 and floor("referee.services") == 2
    assert floor("evenings.draw") == 3 and floor("scoring.ratings") == 4
    assert floor("web.pages.session") == 5 and floor("config.settings") == 6


def test_the_cycle_finder_finds_a_lazy_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"a"}}) == ["a", "b", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


@pytest.mark.parametrize("package", ["db", "referee", "scoring", "web", "config"])
def test_no_module_of_the_django_apps_over_500_lines(package: str) -> None:
    long = [
        f"{path.relative_to(ROOT)}: {count} lines"
        for path in python_files(skip=("referee/rules/",))
        if path.relative_to(ROOT).parts[0] == package
        for count in [len(path.read_text().splitlines())]
        if count > 500
    ]
    assert long == []


#: The site's ES modules (the tablet's among them): the house forbids import cycles there too,
#: though the language allows them.
JS_DIRS = ("static/js",)
#: A game's room on the tablet: its drawer, the only script that may name it.
DRAWERS = "static/js/table/games"
# A specifier after `from`, after a bare `import`, or inside `import(...)`, in quotes or
# backticks; a dynamic one may be built from a template (`./games/${game}.js`).
JS_IMPORT = re.compile(r"""(?:\bfrom\s*|\bimport\s*\(?\s*(?:new\s+URL\(\s*)?)(["'`])([^"'`]+)\1""")


def js_files() -> list[Path]:
    return sorted(path for folder in JS_DIRS for path in (ROOT / folder).rglob("*.js"))


def game_words() -> list[str]:
    """What names a game: each built-in game's slug and its names in English and Lithuanian."""
    return sorted({word.lower() for slug in SLUGS for word in (slug, GAMES[slug].name, GAMES[slug].name_lt)})


def names_a_game(text: str) -> list[str]:
    """The words of ``text`` naming a game, as each begins (``velniasSync`` names one)."""
    pattern = re.compile(r"(?<!\w)(?:" + "|".join(map(re.escape, game_words())) + ")", re.IGNORECASE)
    return [match.group(0) for match in pattern.finditer(text)]


def test_no_script_outside_a_games_drawer_names_a_game() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{number} {word!r}"
        for path in js_files() if not path.relative_to(ROOT).as_posix().startswith(DRAWERS + "/")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        for word in names_a_game(line)
    ]
    assert found == []


def test_the_game_name_check_reads_code_comments_and_both_languages() -> None:
    assert names_a_game("export function velniasSync(form) {}") == ["velnias"]
    assert names_a_game('// a "Mičiganas" out, an ELGETA trick') == ["Mičiganas", "ELGETA"]
    assert names_a_game("Pašėlęs Velnias") == ["Pašėlęs Velnias"]
    assert names_a_game("import { cheatsheet } from './games/${game}.js'; form.trucks") == ["cheat"]
    assert names_a_game("a deal, a trick, a seat") == []


def js_imports(path: Path, known: set[Path]) -> set[Path]:
    """The tablet's modules that ``path`` imports, statically or with ``import()``; a template
    specifier counts as an import of every module it could name."""
    found: set[Path] = set()
    for _quote, spec in JS_IMPORT.findall(path.read_text()):
        if not spec.startswith("."):
            continue  # a URL or a bare name: not one of the project's modules
        pattern = re.sub(r"\$\{[^}]*\}", "*", spec)
        for target in known:
            relative = os.path.relpath(target, path.parent)
            if fnmatch.fnmatchcase(relative, pattern.removeprefix("./")) and target != path:
                found.add(target)
    return found


def js_graph() -> dict[str, set[str]]:
    paths = js_files()
    known = set(paths)

    def name(path: Path) -> str:
        return path.relative_to(ROOT).as_posix()

    return {name(path): {name(target) for target in js_imports(path, known)} for path in paths}


def test_no_import_cycle_between_the_tablets_js_modules() -> None:
    graph = js_graph()
    # The walk reads what it should: screen.js reaches the offline path and the game's drawer,
    # and the drawers are reached through their template import.
    assert "static/js/table/offline.js" in graph["static/js/table/screen.js"]
    assert "static/js/table/offline-view.js" in graph["static/js/table/screen.js"]
    assert "static/js/table/games/cheat.js" in graph["static/js/table/offline-view.js"]
    assert "static/js/offline/sync.js" in graph["static/js/table/conflict.js"]
    assert find_cycle(graph) is None
