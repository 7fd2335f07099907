"""The implicit value of an absent property, as the op's definition declares it.

IRDL's `default_value` comes first; then the nn op classes' own
`PROPERTY_DEFAULTS` tables (NNOperation), merged over the class and its bases,
mixins included: a conv without `data_layout` is NCHW (HasDataLayout). A
property with no constant default (`end` = the rank, `strides` = ones per
spatial axis) has none.
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation, OptionalDef


def property_default(op: Operation, name: str) -> Attribute | None:
    """The value `op` gives property `name` when it is absent, or None if it has none."""
    if not isinstance(op, IRDLOperation):
        return None
    return property_defaults(type(op)).get(name)


@cache
def property_defaults(op_class: type[IRDLOperation]) -> dict[str, Attribute]:
    """Optional property name -> the attribute an op of `op_class` means when it is absent."""
    op_def = op_class.get_irdl_definition()
    declared = {**op_def.attributes, **op_def.properties}
    tables: dict[str, str | int | float] = {}
    for klass in reversed(op_class.__mro__):
        tables.update(vars(klass).get("PROPERTY_DEFAULTS", {}))
    defaults = {}
    for name, definition in declared.items():
        if not isinstance(definition, OptionalDef):
            continue
        value = definition.default_value
        if value is None and name in tables:
            value = as_attribute(tables[name])
        if value is not None:
            defaults[name] = value
    return defaults


def as_attribute(value: str | int | float) -> Attribute:
    """A declared default as the attribute its property holds (i64, f32, string)."""
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, int):
        return IntegerAttr(value, 64)
    return FloatAttr(value, 32)
