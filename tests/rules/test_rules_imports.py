"""The engine's modules import each other without a cycle, counting imports inside functions.

Every ``import`` / ``from ... import`` anywhere in a module under referee/rules (at the top,
inside a function, under ``TYPE_CHECKING``) is an edge; the graph of those edges must have
no cycle, so the engine loads bottom-up: errors, cards, base, the games, the registry.
"""

from __future__ import annotations

import ast
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

RULES = Path(__file__).resolve().parents[2] / "referee" / "rules"
PACKAGE = "referee.rules"


def imported_modules(path: Path) -> set[str]:
    """The engine modules ``path`` imports, by module name (``cards``, ``base``...)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:  # from . import cheat, elgeta
                    found.update(alias.name for alias in node.names)
            elif node.module and node.module.startswith(PACKAGE + "."):
                found.add(node.module[len(PACKAGE) + 1:].split(".")[0])
            elif node.module == PACKAGE:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith(PACKAGE + "."):
                    found.add(alias.name[len(PACKAGE) + 1:].split(".")[0])
    return found


def test_no_import_cycle_in_the_engine() -> None:
    modules = {path.stem: path for path in RULES.glob("*.py")}
    graph = {name: imported_modules(path) & (set(modules) - {name}) for name, path in modules.items()}
    try:
        order = list(TopologicalSorter(graph).static_order())
    except CycleError as error:
        raise AssertionError(f"import cycle in referee/rules: {error.args[1]}") from error
    assert order.index("errors") < order.index("cards") < order.index("base")


def test_errors_imports_nothing_of_the_engine() -> None:
    """The bottom of the engine: every other module may import it, so it imports none of them."""
    assert imported_modules(RULES / "errors.py") == set()
