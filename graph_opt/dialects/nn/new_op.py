"""Building an op without xDSL's generic constructor.

`Operation.create` normalizes every argument (the operand and successor setters,
region adding, default filling through the IRDL definition): about 7 us per op,
a fifth of an ONNX import. Importers and rewrites build ops whose parts are
already in final form, so `new_op` sets the same fields directly. It relies on
the layout of xDSL 0.74's `Operation` (tests/dialects/test_new_op.py compares
the two).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from itertools import repeat
from typing import TypeVar

from xdsl.ir import Attribute, OpResult, SSAValue, SSAValues
from xdsl.ir.core import Use
from xdsl.irdl import IRDLOperation, OptionalDef

OpT = TypeVar("OpT", bound=IRDLOperation)


def new_op(
    cls: type[OpT],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: Mapping[str, Attribute],
    location: Attribute,
) -> OpT:
    """`cls.create(operands=..., result_types=..., properties=..., location=...)`
    for operands that are SSA values and an op without regions or successors."""
    op = cls.__new__(cls)
    uses = tuple(map(Use, repeat(op), range(len(operands))))
    for value, use in zip(operands, uses):  # value.add_use(use), inlined
        first = value.first_use
        if first is not None:
            use._next_use = first
            first._prev_use = use
        value.first_use = use
    op._operands = SSAValues(operands)
    op._operand_uses = uses
    op.results = SSAValues(map(OpResult, result_types, repeat(op), _INDICES))
    prop_defaults, attr_defaults = _defaults(cls)
    op.properties = (
        {**prop_defaults, **properties} if prop_defaults else dict(properties)
    )
    op.attributes = dict(attr_defaults) if attr_defaults else {}
    op.location = location
    return op


_INDICES = range(1 << 30)
"""Result indices (`map` stops at the shortest of its iterables)."""


@cache
def _defaults(
    cls: type[IRDLOperation],
) -> tuple[dict[str, Attribute], dict[str, Attribute]]:
    """The defaults `IRDLOperation.__post_init__` fills in."""
    op_def = cls.get_irdl_definition()

    def filled(defs) -> dict[str, Attribute]:
        return {
            name: d.default_value
            for name, d in defs.items()
            if not isinstance(d, OptionalDef) and d.default_value is not None
        }

    return filled(op_def.properties), filled(op_def.attributes)
