"""Source-framework names of values, kept as function argument/result attributes and op locations."""

from __future__ import annotations

import re

from xdsl.dialects import func
from xdsl.dialects.builtin import (
    ArrayAttr,
    BytesAttr,
    DictionaryAttr,
    FusedLoc,
    NameLoc,
    NoneAttr,
    StringAttr,
)
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.attr_builders import name_loc
from graph_opt.xdsl_compat.ir import set_name_hint_unchecked

NAME_ATTR = "nn.name"
DIM_NAMES_ATTR = "nn.dim_names"
"""Symbolic dim names (ONNX dim_param) of a function argument or result."""


def _names_of(attrs: object, count: int, prefix: str) -> list[str]:
    names = []
    entries = list(attrs.data) if attrs is not None else []  # type: ignore[attr-defined]
    for i in range(count):
        entry = entries[i].data if i < len(entries) else {}
        name = entry.get(NAME_ATTR)
        if isinstance(name, BytesAttr):  # how MLIR text gives back non-ASCII strings
            name = StringAttr(name.data.decode("utf-8", errors="surrogateescape"))
        names.append(name.data if isinstance(name, StringAttr) else f"{prefix}{i}")
    return names


def argument_names(function: func.FuncOp) -> list[str]:
    return _names_of(function.arg_attrs, len(function.function_type.inputs), "input_")


def result_names(function: func.FuncOp) -> list[str]:
    return _names_of(function.res_attrs, len(function.function_type.outputs), "output_")


def name_attrs(names: list[str], dim_names: list[list[str]] | None = None) -> ArrayAttr:
    """Argument or result attributes: each name, and the symbolic names of its
    dims where the source gave some (`nn.dim_names = ["batch", "", ...]`)."""
    entries = []
    for i, name in enumerate(names):
        entry: dict = {NAME_ATTR: StringAttr(name)}
        dims = dim_names[i] if dim_names else None
        if dims and any(dims):
            entry[DIM_NAMES_ATTR] = ArrayAttr([StringAttr(d) for d in dims])
        entries.append(DictionaryAttr(entry))
    return ArrayAttr(entries)


def dim_names_of(attrs: object, count: int) -> list[list[str]]:
    """The `nn.dim_names` of each argument or result ([] where none)."""
    entries = list(attrs.data) if attrs is not None else []  # type: ignore[attr-defined]
    found = []
    for i in range(count):
        names = entries[i].data.get(DIM_NAMES_ATTR) if i < len(entries) else None
        found.append(
            [n.data for n in names.data] if isinstance(names, ArrayAttr) else []
        )
    return found


def name_location(names: list[str]):
    """The location recording an op's result names."""
    if len(names) == 1:
        return name_loc(names[0])
    return FusedLoc([name_loc(n) for n in names], _NO_CHILD)


_NO_CHILD = NoneAttr()


def location_names(op: Operation) -> list[str]:
    """The names an op's location records (of ops without results too)."""
    loc = op.location
    if type(loc) is NameLoc:
        return [loc.desc.data]
    if isinstance(loc, FusedLoc):
        return [sub.desc.data for sub in loc.locations.data if isinstance(sub, NameLoc)]
    return []


def op_result_names(op: Operation) -> list[str | None]:
    """The result names recorded in an op's location, else its results' SSA name
    hints (None where there is neither)."""
    loc = op.location
    if type(loc) is NameLoc:
        found = [loc.desc.data]
    elif isinstance(loc, FusedLoc):
        found = [
            sub.desc.data if isinstance(sub, NameLoc) else None
            for sub in loc.locations.data
        ]
    else:
        return [result.name_hint for result in op.results]
    count = len(op.results)
    return found if len(found) == count else (found + [None] * count)[:count]


_INVALID_NAME_CHARS = re.compile(r"[^\w$.-]", re.ASCII)
_NUMBERED_SUFFIXES = re.compile(r"(_\d+)+$")


def set_name_hint(value: SSAValue, name: str) -> bool:
    """Show a framework name as the SSA name (`%conv1`), made a valid identifier;
    whether the hint is the name itself."""
    hint = _hint_for(name)
    set_name_hint_unchecked(value, hint or None)  # valid as is
    return hint == name


def _hint_for(name: str) -> str:
    # xDSL's printer numbers repeated hints `x`, `x_1`, ...: a hint that still ends
    # in `_N` after xDSL strips one such suffix could take one of those names.
    if not (name.isascii() and name.isidentifier()):
        hint = _NUMBERED_SUFFIXES.sub("", _INVALID_NAME_CHARS.sub("_", name))
        return "v" + hint if hint and hint[0].isdigit() else hint
    while True:  # the common case, as the regular expressions would do it
        head, underscore, number = name.rpartition("_")
        if not (underscore and number.isdigit()):
            return name
        name = head


def unused_name(base: str, taken: set[str]) -> str:
    """`base`, or `base_N` with the first N not in `taken`; taken from now on."""
    name, count = base, 0
    while name in taken:
        count += 1
        name = f"{base}_{count}"
    taken.add(name)
    return name
