"""xDSL 0.74's IR objects, written through their private fields where xDSL's
public setters cost too much or do not exist.

- `new_op` builds an op without xDSL's generic constructor: `Operation.create`
  normalizes every argument (the operand and successor setters, region adding,
  default filling through the IRDL definition): about 7 us per op, a fifth of
  an ONNX import. Importers and rewrites build ops whose parts are already in
  final form, so `new_op` sets the same fields directly. It relies on the
  layout of xDSL 0.74's `Operation` (tests/dialects/test_new_op.py compares the
  two). Given a block, it appends the op there as `Block.add_op` would, without
  its checks (a new op has no parent and no regions).
- `set_name_hint_unchecked` and `set_value_type` write an SSA value's name hint
  (without the setter's regular expressions) and its type (which has no setter).
- `operand_values` and `successor_count` read an op's operands and successors
  without building xDSL's view objects.
- `resource_blobs` and `replace_resource_blobs`: a dialect's `dense_resource`
  blob store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from itertools import repeat
from typing import TypeVar

from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.ir import Attribute, Block, Operation, OpResult, SSAValue, SSAValues
from xdsl.ir.core import Use
from xdsl.irdl import IRDLOperation, OptionalDef

OpT = TypeVar("OpT", bound=IRDLOperation)


def new_op(
    cls: type[OpT],
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    properties: Mapping[str, Attribute],
    location: Attribute,
    block: Block | None = None,
) -> OpT:
    """`cls.create(operands=..., result_types=..., properties=..., location=...)`
    for operands that are SSA values and an op without regions or successors;
    appended to `block` if given."""
    op = cls.__new__(cls)
    if operands:
        count = len(operands)
        uses = (
            (Use(op, 0),) if count == 1 else tuple(map(Use, repeat(op), range(count)))
        )
        for value, use in zip(operands, uses):  # value.add_use(use), inlined
            first = value.first_use
            if first is not None:
                use._next_use = first
                first._prev_use = use
            value.first_use = use
        op._operands = SSAValues(operands)
        op._operand_uses = uses
    else:  # (a constant: the common case, made cheaply)
        op._operands = _NO_VALUES
        op._operand_uses = ()
    if len(result_types) == 1:
        op.results = SSAValues((OpResult(result_types[0], op, 0),))
    else:
        op.results = SSAValues(map(OpResult, result_types, repeat(op), _INDICES))
    prop_defaults, attr_defaults = _defaults(cls)
    op.properties = (
        {**prop_defaults, **properties} if prop_defaults else dict(properties)
    )
    op.attributes = dict(attr_defaults) if attr_defaults else {}
    op.location = location
    if block is not None:  # block.add_op(op), inlined
        last = block._last_op
        op.parent = block
        if last is None:
            block._first_op = op
        else:
            op._prev_op = last
            last._next_op = op
        block._last_op = op
    return op


_NO_VALUES = SSAValues()
"""The operands of an op without any (a tuple: shared)."""
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


def set_name_hint_unchecked(value: SSAValue, hint: str | None) -> None:
    """Set `value.name_hint` to a hint known to be valid (or None), skipping the
    setter's regular expressions."""
    value._name = hint


def set_value_type(value: SSAValue, new_type: Attribute) -> None:
    """Change the type of a block argument or op result in place (xDSL has no
    setter: the caller keeps the IR consistent)."""
    value._type = new_type


def resource_blobs(interface: OpAsmDialectInterface) -> dict[str, str]:
    """The `dense_resource` blobs the dialect holds, by key (the store itself)."""
    return interface._blob_storage


def replace_resource_blobs(
    interface: OpAsmDialectInterface, blobs: dict[str, str]
) -> None:
    """Make `blobs` the dialect's blob store."""
    interface._blob_storage = blobs


def operand_values(op: Operation) -> tuple[SSAValue, ...]:
    """The op's operands as the tuple xDSL stores (`op.operands` wraps them in a
    new view object per call)."""
    return op._operands


def successor_count(op: Operation) -> int:
    """How many successor blocks the op has, without `op.successors`'s view."""
    return len(op._successors)
