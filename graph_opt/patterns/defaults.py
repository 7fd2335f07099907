"""The implicit value of an absent property, as the op itself reads it.

nn ops read an optional property with its default in place:
`str_value(props, "data_layout", CHANNELS_FIRST)`, `int_value(props, "group", 1)`,
`float_value(props, "epsilon", 1e-5)`. The defaults live in those calls, so
`has_attr` finds them there: in the source of the op's class and its bases
first, then in their modules (helper functions). A property read with two
different defaults, or with one computed at run time (`end` = the rank), has
none. IRDL's own `default_value` comes first. No second table to keep in sync.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from functools import cache
from types import ModuleType
from typing import Any

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation

READERS = frozenset({"str_value", "int_value", "float_value"})
"""The functions through which ops read an optional property with its default."""

_UNKNOWN = object()
"""A property read with a default that is computed, or that differs between reads."""


def property_default(op: Operation, name: str) -> Attribute | None:
    """The value `op` gives property `name` when it is absent, or None if it has none."""
    if not isinstance(op, IRDLOperation):
        return None
    return property_defaults(type(op)).get(name)


@cache
def property_defaults(op_class: type[IRDLOperation]) -> dict[str, Attribute]:
    """Property name -> the attribute an op of `op_class` means when it is absent."""
    op_def = op_class.get_irdl_definition()
    declared = {**op_def.attributes, **op_def.properties}
    classes = op_class.__mro__
    in_classes = _merge(_source_reads(c) for c in classes)
    modules = [inspect.getmodule(c) for c in classes]
    in_modules = _merge(_source_reads(m) for m in modules if m is not None)
    defaults = {}
    for name, definition in declared.items():
        value = getattr(definition, "default_value", None)
        if value is None:
            value = _as_attribute(in_classes.get(name, in_modules.get(name)))
        if value is not None:
            defaults[name] = value
    return defaults


_FRAMEWORK_PACKAGES = frozenset({"builtins", "abc", "typing", "xdsl"})


def _merge(tables) -> dict[str, Any]:
    """The defaults of several sources; the first source naming a property wins."""
    merged: dict[str, Any] = {}
    for table in tables:
        for name, value in table.items():
            merged.setdefault(name, value)
    return merged


@cache
def _source_reads(source_of: type | ModuleType) -> dict[str, Any]:
    """The defaults read in the source of a class or module (xDSL's own are skipped)."""
    module = inspect.getmodule(source_of)
    if module is None or module.__name__.split(".")[0] in _FRAMEWORK_PACKAGES:
        return {}
    try:
        source = textwrap.dedent(inspect.getsource(source_of))
    except (OSError, TypeError):
        return {}
    return _reads(ast.parse(source), vars(module))


def _reads(tree: ast.AST, namespace: dict[str, Any]) -> dict[str, Any]:
    """Property name -> default, over every `READER(props, "name", default)` call."""
    found: dict[str, Any] = {}
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and _callee(node) in READERS
            and len(node.args) == 3
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
        ):
            continue
        name, value = node.args[1].value, _constant(node.args[2], namespace)
        if found.get(name, value) != value:
            value = _UNKNOWN  # two reads disagree
        found[name] = value
    return found


def _callee(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _constant(node: ast.expr, namespace: dict[str, Any]) -> Any:
    """A literal, or a module-level constant by name; else _UNKNOWN."""
    if isinstance(node, ast.Name):
        value = namespace.get(node.id, _UNKNOWN)
        return value if isinstance(value, str | int | float) else _UNKNOWN
    try:
        return ast.literal_eval(node)
    except ValueError:
        return _UNKNOWN


def _as_attribute(value: Any) -> Attribute | None:
    if isinstance(value, bool) or value is _UNKNOWN or value is None:
        return None
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, int):
        return IntegerAttr(value, 64)
    if isinstance(value, float):
        return FloatAttr(value, 32)
    return None
