"""One enumeration of error codes (referee.errors.CODES): every code the service, the API or
the pages raise or answer is in it, so the schema lists every code a client can meet."""

from __future__ import annotations

import ast
from pathlib import Path

from referee.errors import CODES

ROOT = Path(__file__).resolve().parents[1]
APPS = ("referee", "scoring", "config")


def raised_codes() -> dict[str, list[str]]:
    """Every literal code in the apps' source, with where: ``code="..."`` keywords, ``code = "..."``
    class attributes (the refusals' defaults) and error_body()'s second argument."""
    found: dict[str, list[str]] = {}
    for app in APPS:
        for path in (ROOT / app).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                literal = None
                if isinstance(node, ast.keyword) and node.arg == "code" and isinstance(node.value, ast.Constant):
                    literal = node.value.value
                elif (isinstance(node, ast.Call) and getattr(node.func, "id", None) in ("error_body",)
                      and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)):
                    literal = node.args[1].value
                if isinstance(literal, str):
                    found.setdefault(literal, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
            for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
                for line in cls.body:
                    named = isinstance(line, ast.Assign) and [getattr(t, "id", None) for t in line.targets] == ["code"]
                    if named and isinstance(line.value, ast.Constant) and isinstance(line.value.value, str):
                        found.setdefault(line.value.value, []).append(f"{path.relative_to(ROOT)}:{line.lineno}")
    return found


def test_every_code_raised_is_in_the_one_enumeration() -> None:
    found = raised_codes()
    assert {"last_admin", "stale_seq", "illegal_entry", "forbidden", "not_found"} <= set(found), sorted(found)
    missing = {code: where for code, where in found.items() if code not in CODES}
    assert missing == {}, f"codes raised but not in referee.errors.CODES: {missing}"


def test_the_schema_lists_every_code() -> None:
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)
    described = schema["components"]["schemas"]["Error"]["properties"]["code"]["description"]
    assert [code for code in CODES if f"`{code}`" not in described] == []
