"""MatMul (transpose_a / transpose_b), BatchMatMul, V2 and V3 (adj_x / adj_y,
real types; V3 casts its operands to Tout)."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.linalg import MatMulOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.dialects.nn.tensor_ops import CastOp, TransposeOp
from graph_opt.formats.tensorflow.op_table import importer
from graph_opt.formats.tensorflow.tensors import mlir_element_type


def _swap_last_two(b, value):
    """`value` with its last two dims swapped: a new constant, else an nn.transpose."""
    array = b.constant_value(value)
    if array is not None:
        return b.constant(np.ascontiguousarray(np.swapaxes(array, -1, -2)))
    value_type = ranked(value)
    if value_type is None:
        b.decline("a transposed operand needs a known rank")
    rank = len(value_type.get_shape())
    perm = [*range(rank - 2), rank - 1, rank - 2]
    return b.create(TransposeOp, [value], {"perm": i64_array(perm)}).results[0]


def _as_type(b, value, dtype: int):
    """`value` cast to the TensorFlow DataType `dtype` (BatchMatMulV3's Tout:
    int8 operands multiply into int32, exactly, as int32 ones)."""
    element = mlir_element_type(dtype)
    if getattr(value.type, "element_type", None) == element:
        return value
    return b.create(CastOp, [value], {"to": element}).results[0]


@importer("MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def import_matmul(b, node, inputs):
    flags = (
        ("transpose_a", "transpose_b") if node.op == "MatMul" else ("adj_x", "adj_y")
    )
    lhs, rhs = inputs
    if node.op == "BatchMatMulV3":
        lhs, rhs = (_as_type(b, v, b.attr("Tout")) for v in (lhs, rhs))
    if b.attr(flags[0], False):
        lhs = _swap_last_two(b, lhs)
    if b.attr(flags[1], False):
        rhs = _swap_last_two(b, rhs)
    return b.create(MatMulOp, [lhs, rhs])
