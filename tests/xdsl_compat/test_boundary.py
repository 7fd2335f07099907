"""No private xDSL name is used in graph_opt outside graph_opt/xdsl_compat.

A private xDSL name is a `_`-prefixed (not dunder) module, class, function,
method or attribute that xDSL's own source defines. A graph-opt module uses one
when it imports it (`from xdsl.x import _y`, `import xdsl._x`), reads or writes
it as an attribute (`op._operands`) without defining that name itself, or
overrides it in a subclass (`def _parse_block_body` in a class with bases).
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import xdsl

import graph_opt

GRAPH_OPT = Path(graph_opt.__file__).parent
COMPAT = GRAPH_OPT / "xdsl_compat"


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def defined_names(tree: ast.AST, own_attributes_only: bool = False) -> set[str]:
    """The names a module defines: functions, classes, assigned names and
    attributes (only `self.x = ...` and `cls.x = ...` if `own_attributes_only`),
    parameters."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            if not own_attributes_only or (
                isinstance(node.value, ast.Name) and node.value.id in ("self", "cls")
            ):
                names.add(node.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


@cache
def xdsl_private_names() -> frozenset[str]:
    names: set[str] = set()
    for path in Path(xdsl.__file__).parent.rglob("*.py"):
        names.update(
            name
            for name in defined_names(ast.parse(path.read_text(encoding="utf-8")))
            if _private(name)
        )
        names.update(part for part in path.with_suffix("").parts if _private(part))
    return frozenset(names)


def private_uses(source: str) -> list[tuple[int, str]]:
    """(line, what) for each use of a private xDSL name in `source`."""
    tree = ast.parse(source)
    xdsl_private = xdsl_private_names()
    own = defined_names(tree, own_attributes_only=True)
    uses: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.ImportFrom)
            and (node.module or "").split(".")[0] == "xdsl"
        ):
            parts = [*node.module.split("."), *(a.name for a in node.names)]
            uses += [(node.lineno, f"import {p}") for p in parts if _private(p)]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "xdsl":
                    uses += [(node.lineno, f"import {p}") for p in parts if _private(p)]
        elif isinstance(node, ast.Attribute):
            if node.attr in xdsl_private and node.attr not in own:
                uses.append((node.lineno, f".{node.attr}"))
        elif isinstance(node, ast.ClassDef) and node.bases:
            for item in node.body:
                if (
                    isinstance(item, ast.FunctionDef)
                    and item.name in xdsl_private
                    and _private(item.name)
                ):
                    uses.append((item.lineno, f"override {item.name}"))
    return uses


def test_no_private_xdsl_name_outside_xdsl_compat():
    found = [
        f"{path.relative_to(GRAPH_OPT.parent)}:{line}: {what}"
        for path in sorted(GRAPH_OPT.rglob("*.py"))
        if COMPAT not in path.parents
        for line, what in private_uses(path.read_text(encoding="utf-8"))
    ]
    assert not found, "private xDSL names outside graph_opt/xdsl_compat:\n" + "\n".join(
        found
    )


def test_the_scan_finds_each_kind_of_use():
    source = """
from xdsl.parser.attribute_parser import AttrParser, _private_helper
import xdsl._hidden
from xdsl.parser import Parser

def f(op, value):
    value._name = "x"
    return op._operands

class P(Parser):
    def _parse_block_body(self, block):
        return self._current_token

class Mine:
    def __init__(self):
        self._stack = []

    def top(self):
        return self._stack[-1]
"""
    whats = sorted(what for _, what in private_uses(source))
    assert whats == [
        "._current_token",
        "._name",
        "._operands",
        "import _hidden",
        "import _private_helper",
        "override _parse_block_body",
    ]


def test_xdsl_compat_imports_only_xdsl_and_the_standard_library():
    import sys

    allowed = {"xdsl", "graph_opt", "__future__", *sys.stdlib_module_names}
    for path in COMPAT.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module or ""]
            else:
                continue
            for module in modules:
                top = module.split(".")[0]
                assert top in allowed, f"{path.name} imports {module}"
                if top == "graph_opt":
                    assert module.startswith("graph_opt.xdsl_compat"), module
