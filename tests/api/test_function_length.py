"""No function of the package is over 80 lines: a longer one is split into functions whose names say its steps.

A function is counted from its `def` line to its last line, nested functions and methods too, each on its own.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import agentbeats_spec

PACKAGE = Path(agentbeats_spec.__file__).parent
LONGEST = 80

# module::function (a nested one as outer.inner) -> why it may be longer
EXEMPT = {
    "reading/_json.py::_strict_scan": "the pure JSON reader's scan loop: one state machine over the tokens of a "
    "document, its state in the loop's locals",
}


def _functions(tree: ast.Module) -> dict[str, int]:
    """Length in lines of every function of a module, by qualified name (the longest of two with one name)."""
    lengths: dict[str, int] = {}

    def visit(node: ast.AST, outer: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = outer + child.name
                assert child.end_lineno is not None
                lengths[name] = max(child.end_lineno - child.lineno + 1, lengths.get(name, 0))
                visit(child, name + ".")
            else:
                visit(child, outer + child.name + "." if isinstance(child, ast.ClassDef) else outer)

    visit(tree, "")
    return lengths


@functools.cache  # both tests read the same package
def _lengths() -> dict[str, int]:
    lengths: dict[str, int] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        for name, length in _functions(ast.parse(path.read_text(encoding="utf-8"))).items():
            lengths[f"{module}::{name}"] = length
    return lengths


def test_no_function_is_over_80_lines() -> None:
    long = {name: length for name, length in _lengths().items() if length > LONGEST and name not in EXEMPT}
    assert not long, f"functions over {LONGEST} lines (split them into named steps): {long}"


def test_every_exemption_is_still_needed() -> None:
    lengths = _lengths()
    stale = [name for name in EXEMPT if lengths.get(name, 0) <= LONGEST]
    assert not stale, f"exempt, but no function over {LONGEST} lines any more (remove them from EXEMPT): {stale}"


def test_nested_functions_and_methods_are_counted() -> None:
    source = (
        "class A:\n    def m(self):\n        def inner():\n            pass\n\n\nif True:\n    def f():\n        pass\n"
    )
    assert _functions(ast.parse(source)) == {"A.m": 3, "A.m.inner": 2, "f": 2}
