"""MatMul (transpose_a / transpose_b) and BatchMatMulV2 (adj_x / adj_y, real types)."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.linalg import MatMulOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.dialects.nn.tensor_ops import TransposeOp
from graph_opt.formats.tensorflow.op_table import importer


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


@importer("MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3")
def import_matmul(b, node, inputs):
    flags = (
        ("transpose_a", "transpose_b") if node.op == "MatMul" else ("adj_x", "adj_y")
    )
    lhs, rhs = inputs
    if b.attr(flags[0], False):
        lhs = _swap_last_two(b, lhs)
    if b.attr(flags[1], False):
        rhs = _swap_last_two(b, rhs)
    return b.create(MatMulOp, [lhs, rhs])
