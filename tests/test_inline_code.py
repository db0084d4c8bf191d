"""A house rule of the content policy (docs/content-policy.md): no page carries code or style
inline, so that the policy can refuse all of it (an injected script looks just like an inline
one). Checked in every template under ``templates/``, in the HTML the Python code writes (its
string literals) and in our JavaScript:

* no ``<script>`` element with code in it (one with ``src=``, or a JSON data block such as
  ``json_script`` writes, is fine);
* no ``<style>`` element and no ``style=""`` attribute (SVG presentation attributes such as
  ``fill=`` are fine; JavaScript may set ``element.style.x``, which the policy allows);
* no ``on...=`` handler attribute and no ``javascript:`` address;
* in JavaScript, no ``setAttribute("style"|"on...")``, no ``eval`` and no ``new Function``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("referee", "evenings", "scoring", "web", "config")

_SCRIPT = re.compile(r"<script\b(?P<attrs>[^>]*)>", re.IGNORECASE)
_DATA_BLOCK = re.compile(r"""\btype\s*=\s*["']?application/(ld\+)?json""", re.IGNORECASE)
_MARKUP_RULES = (
    ("a <style> element", re.compile(r"<style\b", re.IGNORECASE)),
    ("a style attribute", re.compile(r"""[\s"']style\s*=\s*["'{]""", re.IGNORECASE)),
    ("an event handler attribute", re.compile(r"""[\s"'/]on[a-z]+\s*=\s*["'{\w]""", re.IGNORECASE)),
    ("a javascript: address", re.compile(r"javascript\s*:", re.IGNORECASE)),
)
_SCRIPT_RULES = (
    ("a style attribute in HTML text", re.compile(r"""\sstyle\s*=\s*\\?["']""")),
    ("an event handler in HTML text", re.compile(r"""<[a-z][^<>]*\son[a-z]+\s*=""")),
    ("setAttribute of a style or handler", re.compile(r"""setAttribute\(\s*["'](style|on[a-z]+)["']""")),
    ("a javascript: address", re.compile(r"""["'`]\s*javascript:""")),
    ("eval", re.compile(r"(?<![\w.])eval\(")),
    ("new Function", re.compile(r"\bnew\s+Function\(")),
)


def inline_markup(text: str) -> list[str]:
    """What in an HTML text (a template, a Python string) the content policy would refuse."""
    found = [f"an inline <script>: {match.group(0)}" for match in _SCRIPT.finditer(text)
             if "src=" not in match.group("attrs").replace(" ", "") and not _DATA_BLOCK.search(match.group("attrs"))]
    for label, rule in _MARKUP_RULES:
        found += [f"{label}: {text[max(0, m.start() - 30):m.end() + 30]!r}" for m in rule.finditer(text)]
    return found


def inline_in_script(text: str) -> list[str]:
    """What in our JavaScript writes inline code or style, or runs text as code."""
    found = []
    for label, rule in _SCRIPT_RULES:
        found += [f"{label}: {text[max(0, m.start() - 30):m.end() + 30]!r}" for m in rule.finditer(text)]
    return found


def _python_strings(path: Path) -> list[str]:
    """The string literals of a module, less its docstrings (prose may name a <script>)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


_TEMPLATE_COMMENT = re.compile(r"\{#.*?#\}|\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}", re.DOTALL)


def test_no_template_carries_inline_script_or_style() -> None:
    found = {path.relative_to(ROOT).as_posix(): inline_markup(_TEMPLATE_COMMENT.sub("", path.read_text("utf-8")))
             for path in sorted((ROOT / "templates").rglob("*.html"))}
    assert {name: what for name, what in found.items() if what} == {}


def test_no_html_written_by_python_carries_inline_script_or_style() -> None:
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "/migrations/" in path.as_posix():
                continue
            what = [item for text in _python_strings(path) if "<" in text for item in inline_markup(text)]
            if what:
                found[path.relative_to(ROOT).as_posix()] = what
    assert found == {}


def test_no_script_of_ours_writes_inline_code_or_style() -> None:
    found = {}
    for path in sorted((ROOT / "static" / "js").rglob("*.js")):
        what = inline_in_script(path.read_text(encoding="utf-8"))
        if what:
            found[path.relative_to(ROOT).as_posix()] = what
    assert found == {}


@pytest.mark.parametrize("text", [
    "<script>alert(1)</script>",
    '<script type="module">import "/x.js"</script>',
    '<p style="width:5em">',
    "<input value=\"{{ x }}\" style='color:red'>",
    "<style>p { color: red }</style>",
    '<button onclick="go()">',
    "<img src=x onerror=alert(1)>",
    '<a href="javascript:go()">',
    '<svg><rect width="10" style="fill:red"/></svg>',
])
def test_the_check_finds_each_kind_of_inline_code(text: str) -> None:
    assert inline_markup(text) != []


@pytest.mark.parametrize("text", [
    '<script src="{% static \'js/app.js\' %}" defer></script>',
    '<script type="module" src="/static/js/screen.js"></script>',
    '<script id="deal-snapshot" type="application/json">{}</script>',
    '<svg><rect width="10" height="4" fill="currentColor"/></svg>',
    '<p class="note" data-on-line="1">Play goes on = the dealer leads</p>',
    '<input type="number" class="input-short">',
])
def test_the_check_lets_files_and_data_through(text: str) -> None:
    assert inline_markup(text) == []


@pytest.mark.parametrize(("text", "found"), [
    ('box.innerHTML = `<p style="color:red">${x}</p>`;', True),
    ("el.setAttribute('style', 'width: 4px');", True),
    ('box.innerHTML = "<img src=x onerror=go()>";', True),
    ("eval(text);", True),
    ("const run = new Function(text);", True),
    ('item.style.transform = "translateY(4px)";', False),
    ("worker.onmessage = (event) => take(event.data);", False),
    ("box.hidden = false; box.innerHTML = result.data.html;", False),
])
def test_the_script_check(text: str, found: bool) -> None:
    assert (inline_in_script(text) != []) is found
