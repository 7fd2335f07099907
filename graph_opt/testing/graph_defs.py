"""Setting TensorFlow NodeDef attributes from Python values, for graphs built
with graph-opt's schema (the test fixtures and the fuzzer)."""

from __future__ import annotations


class Type(int):
    """An attribute value that is a DataType."""


def set_attr(attr, value) -> None:
    """Fill an AttrValue: a Type, bool, int, float, str, or a list of ints."""
    if isinstance(value, Type):
        attr.type = int(value)
    elif isinstance(value, bool):
        attr.b = value
    elif isinstance(value, int):
        attr.i = value
    elif isinstance(value, float):
        attr.f = value
    elif isinstance(value, str):
        attr.s = value.encode()
    elif all(isinstance(v, int) for v in value):
        attr.list.i.extend(value)
    else:
        raise TypeError(f"no attribute form for {value!r}")
