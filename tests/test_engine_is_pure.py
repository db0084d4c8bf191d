"""The rules engine must stay pure Python: nothing under referee/rules imports Django."""

import ast
import pathlib
import subprocess
import sys

RULES = pathlib.Path(__file__).resolve().parent.parent / "referee" / "rules"


def test_no_django_import_in_rules_source() -> None:
    """No module under referee/rules has an import statement naming django."""
    offenders = []
    for path in RULES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            offenders += [f"{path.name}: {name}" for name in names if name.split(".")[0] == "django"]
    assert offenders == []


def test_rules_import_without_django_loaded() -> None:
    """Importing the engine in a fresh interpreter does not load Django."""
    code = (
        "import sys, importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('rules', r'{RULES}/__init__.py',"
        f" submodule_search_locations=[r'{RULES}'])\n"
        "mod = importlib.util.module_from_spec(spec); sys.modules['rules'] = mod; spec.loader.exec_module(mod)\n"
        "assert sorted(mod.GAMES) == ['cheat', 'elgeta', 'michigan', 'rukas', 'velnias'], sorted(mod.GAMES)\n"
        "assert not any(name == 'django' or name.startswith('django.') for name in sys.modules), 'django loaded'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr


def test_the_seating_draw_imports_only_the_standard_library() -> None:
    """The club night's draw (evenings/draw.py) is pure like the rules: a fresh interpreter
    loads it without Django."""
    draw = RULES.parent.parent / "evenings" / "draw.py"
    code = (
        "import sys, importlib.util\n"
        f"spec = importlib.util.spec_from_file_location('draw', r'{draw}')\n"
        "mod = importlib.util.module_from_spec(spec); sys.modules['draw'] = mod; spec.loader.exec_module(mod)\n"
        "mod.draw(mod.Facts(players=(1, 2, 3, 4), low=2, high=4, preferred=2, seed=1))\n"
        "assert not any(name == 'django' or name.startswith('django.') for name in sys.modules), 'django loaded'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
