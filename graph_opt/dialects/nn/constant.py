"""nn.constant: a tensor literal whose data is stored as bytes."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    DenseIntOrFPElementsAttr,
    DenseResourceAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import irdl_op_definition, prop_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import ConstantLike, Pure

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.dense import from_numpy, to_numpy
from graph_opt.xdsl_compat.ir import new_op


class _Elision:
    """`--elide-weights=N`: constants of more than N elements print as MLIR's
    `dense_resource<__elided__>` (readable, but no longer parseable to the same
    weights). None: every constant prints in full."""

    larger_than: int | None = None


ELISION = _Elision()


@irdl_op_definition
class ConstantOp(NNOperation):
    """A constant tensor, e.g. `%w = nn.constant dense<...> : tensor<8x3x3x3xf32>`."""

    name = "nn.constant"
    value = prop_def(DenseIntOrFPElementsAttr)
    output = result_def()
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: DenseIntOrFPElementsAttr):
        super().__init__(properties={"value": value}, result_types=[value.get_type()])

    @classmethod
    def holding(
        cls, value: DenseIntOrFPElementsAttr, block: Block | None = None
    ) -> ConstantOp:
        """`ConstantOp(value)` at a fraction of its cost, for large graphs;
        appended to `block` if given."""
        return new_op(cls, (), (value.type,), {"value": value}, UNKNOWN_LOC, block)

    @staticmethod
    def from_array(
        array: np.ndarray, element_type: Attribute | None = None
    ) -> ConstantOp:
        return ConstantOp(from_numpy(array, element_type))

    def to_array(self) -> np.ndarray:
        return to_numpy(self.value)

    @classmethod
    def infer_result_types(cls, operands, props) -> list[Attribute]:
        return [props["value"].type]  # type: ignore[union-attr]

    def fold(self) -> Sequence[SSAValue | Attribute]:
        return (self.value,)

    def print(self, printer: Printer) -> None:
        printer.print_op_attributes(self.attributes)
        printer.print_string(" ")
        limit = ELISION.larger_than
        if limit is not None and math.prod(self.value.type.get_shape()) > limit:
            printer.print_string("dense_resource<__elided__> : ")
            printer.print_attribute(self.value.type)
            return
        printer.print_attribute(self.value)

    @classmethod
    def parse(cls, parser: Parser) -> ConstantOp:
        attributes = parser.parse_optional_attr_dict()
        value = parser.parse_attribute()
        # A dense_resource stands for its blob until graph_opt.formats.mlir.resources
        # replaces it, once the file's resource section is read.
        if not isinstance(value, DenseIntOrFPElementsAttr | DenseResourceAttr):
            parser.raise_error("expected a dense elements attribute")
        op = cls(value)
        op.attributes.update(attributes)
        return op


IDENTITY_LIKE = frozenset({"nn.identity", "nn.stop_gradient"})
"""Ops that return their operand in inference (what TF's Identity and a frozen
ReadVariableOp become): a constant read through them is still that constant."""


def constant_source(value: SSAValue) -> SSAValue:
    """`value`, or the value it forwards through a chain of identity-like ops."""
    owner = value.owner
    while isinstance(owner, Operation) and owner.name in IDENTITY_LIKE:
        value = owner.operands[0]
        owner = value.owner
    return value


def constant_op(value: SSAValue) -> ConstantOp | None:
    """The nn.constant that defines `value`, through identity-like ops."""
    owner = constant_source(value).owner
    return owner if isinstance(owner, ConstantOp) else None


def constant_value(value: SSAValue) -> np.ndarray | None:
    """The array a value holds when an nn.constant defines it (through
    identity-like ops), else None."""
    owner = constant_op(value)
    return None if owner is None else owner.to_array()
