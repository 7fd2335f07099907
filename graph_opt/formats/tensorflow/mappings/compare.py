"""Comparisons, logical ops, Select/SelectV2 (i1 results and conditions) and
the 1-input Where (indices of true elements)."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import UnrankedTensorType, i1
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn import compare as c
from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.shapes import broadcast_shapes, dims_compatible, ranked
from graph_opt.dialects.nn.tensor_ops import TransposeOp
from graph_opt.formats.tensorflow.mappings.layouts import reshaped
from graph_opt.formats.tensorflow.op_table import importer

COMPARISONS = {
    "Equal": c.EqualOp, "NotEqual": c.NotEqualOp, "Greater": c.GreaterOp,
    "GreaterEqual": c.GreaterEqualOp, "Less": c.LessOp, "LessEqual": c.LessEqualOp,
    "LogicalAnd": c.LogicalAndOp, "LogicalOr": c.LogicalOrOp,
    "LogicalNot": c.LogicalNotOp,
}  # fmt: skip


def create_typed(
    b, op_class, operands: list[SSAValue], props: dict, element: Attribute
) -> Operation:
    """`b.create`, but an operand of unknown rank gives a result of unknown rank
    with element type `element` (not the first operand's)."""
    if all(ranked(v) is not None for v in operands):
        return b.create(op_class, operands, props)
    return b.builder.insert(
        op_class.create_inferred(operands, props, [UnrankedTensorType(element)])
    )


@importer(*COMPARISONS)
def import_comparison(b, node, inputs):
    """Equal and NotEqual with incompatible_shape_error=false give a scalar
    (false, true) instead of an error for shapes that do not broadcast: a
    constant when the static shapes tell (dynamic ones are compared)."""
    if not b.attr("incompatible_shape_error", True) and _incompatible(inputs):
        return [b.constant(np.array(node.op == "NotEqual"))]
    return create_typed(b, COMPARISONS[node.op], inputs, {}, i1)


def _incompatible(operands: list[SSAValue]) -> bool:
    types = [ranked(v) for v in operands]
    if None in types:
        return False
    try:
        broadcast_shapes(*(t.get_shape() for t in types))
    except VerifyException:
        return True
    return False


@importer("SelectV2")
def import_select_v2(b, node, inputs):
    return b.create(c.SelectOp, inputs)


@importer("Select")
def import_select(b, node, inputs):
    """Select (v1) does not broadcast, but for a vector condition that picks
    along the first axis of higher-rank branches: it is reshaped to [N, 1, ...]."""
    condition, on_true, on_false = inputs
    cond_type, true_type = ranked(condition), ranked(on_true)
    if cond_type is None or true_type is None:
        b.decline("Select needs ranked operands")
    rank = true_type.get_num_dims()
    if cond_type.get_num_dims() == 1 and rank > 1:
        condition = reshaped(b, condition, [-1] + [1] * (rank - 1))
    elif cond_type.get_num_dims() and not dims_compatible(
        cond_type.get_shape(), true_type.get_shape()
    ):
        raise b.error(
            f"condition of shape {list(cond_type.get_shape())} does not match "
            f"branches of shape {list(true_type.get_shape())}"
        )
    return b.create(c.SelectOp, [condition, on_true, on_false])


@importer("Where")
def import_where(b, node, inputs):
    """[count, rank] indices of the non-zero elements: nonzero's transpose."""
    if len(inputs) != 1:
        b.decline("Where with other than one input")
    indices = b.create(c.NonZeroOp, inputs).results[0]
    return b.create(TransposeOp, [indices], {"perm": i64_array([1, 0])})
