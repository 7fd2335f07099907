"""Lowering of nn.matmul, nn.gemm and nn.fused_matmul to TOSA's batched 3-D tosa.matmul.

Operands are reshaped to [batch, rows, cols]; a batch that only one side has is
folded into the rows when the other side is a plain matrix, otherwise both sides
are tiled to the broadcast batch.
"""

from __future__ import annotations

import math

import numpy as np
from xdsl.dialects import tosa
from xdsl.dialects.builtin import TensorType, i32
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.base import check_flag, float_value, int_value
from graph_opt.dialects.nn.fused import FusedMatMulOp
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.dialects.nn.qint import QMatMulOp
from graph_opt.lowering.lowering_pattern import LoweringPattern
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of
from graph_opt.lowering.tosa_elementwise import activation, is_float


def matmul_3d(
    b: TosaBuilder, lhs: SSAValue, rhs: SSAValue, zero_points: tuple[int, int]
) -> SSAValue:
    """tosa.matmul of [B, M, K] x [B, K, N] -> [B, M, N]; i8 operands give i32."""
    (batch, rows, _), (_, _, cols) = shape_of(lhs), shape_of(rhs)
    element = element_of(lhs)
    result = element if is_float(lhs) else i32
    zps = [b.scalar(z, element_of(v)) for z, v in zip(zero_points, (lhs, rhs))]
    return b.add(
        tosa_ext.MatMulOp.build(
            operands=[lhs, rhs, *zps],
            result_types=[TensorType(result, (batch, rows, cols))],
        )
    )


def numpy_matmul(
    b: TosaBuilder,
    lhs: SSAValue,
    rhs: SSAValue,
    out_shape: tuple[int, ...],
    zero_points: tuple[int, int] = (0, 0),
) -> SSAValue:
    """numpy.matmul semantics (broadcast batch, 1-D operands) on tosa.matmul."""
    lhs_shape, rhs_shape = shape_of(lhs), shape_of(rhs)
    if len(lhs_shape) == 1:
        lhs, lhs_shape = b.reshape(lhs, (1, *lhs_shape)), (1, *lhs_shape)
    if len(rhs_shape) == 1:
        rhs, rhs_shape = b.reshape(rhs, (*rhs_shape, 1)), (*rhs_shape, 1)
    (m, k), n = lhs_shape[-2:], rhs_shape[-1]
    lhs_batch, rhs_batch = lhs_shape[:-2], rhs_shape[:-2]
    if math.prod(rhs_batch) == 1:
        rows = math.prod(lhs_shape[:-1])
        lhs3 = b.reshape(lhs, (1, rows, k))
        product = matmul_3d(b, lhs3, b.reshape(rhs, (1, k, n)), zero_points)
        return b.reshape(product, out_shape)
    batch = tuple(int(d) for d in np.broadcast_shapes(lhs_batch, rhs_batch))
    lhs3 = b.reshape(broadcast_batch(b, lhs, batch), (math.prod(batch), m, k))
    rhs3 = b.reshape(broadcast_batch(b, rhs, batch), (math.prod(batch), k, n))
    return b.reshape(matmul_3d(b, lhs3, rhs3, zero_points), out_shape)


def broadcast_batch(b: TosaBuilder, x: SSAValue, batch: tuple[int, ...]) -> SSAValue:
    """x's batch dims tiled up to `batch` (its matrix dims unchanged)."""
    shape = shape_of(x)
    x = b.reshape(x, (1,) * (len(batch) + 2 - len(shape)) + shape)
    shape = shape_of(x)
    multiples = [target // have for target, have in zip(batch, shape[:-2])] + [1, 1]
    if all(m == 1 for m in multiples):
        return x
    tiled = tuple(s * m for s, m in zip(shape, multiples))
    return b.add(
        tosa_ext.TileOp.build(
            operands=[x, b.const_shape(multiples)],
            result_types=[TensorType(element_of(x), tiled)],
        )
    )


class LowerMatMul(LoweringPattern):
    """nn.matmul, nn.fused_matmul (bias, activation) and nn.qmatmul (i8, zero points) -> tosa.matmul."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, MatMulOp | FusedMatMulOp | QMatMulOp):
            return
        lhs, rhs = op.operands[0], op.operands[1]
        integer = isinstance(op, QMatMulOp)
        if not integer and not is_float(lhs):
            self.decline(op, "integer matmul lowers through nn.qmatmul")
            return
        zero_points = (
            int_value(op.properties, "a_zp", 0),
            int_value(op.properties, "b_zp", 0),
        )
        b = TosaBuilder()
        y = numpy_matmul(b, lhs, rhs, shape_of(op.results[0]), zero_points)
        if isinstance(op, FusedMatMulOp):
            if len(op.operands) == 3:
                y = b.binary(tosa.AddOp, y, op.operands[2])
            activated = activation(b, y, op.activation_name, op.activation_values)
            if activated is None:
                self.decline(op, f"unknown activation {op.activation_name}")
                return
            y = activated
        rewriter.replace(op, b.ops, [y])


class LowerGemm(LoweringPattern):
    """nn.gemm -> alpha * (a' @ b') + beta * c with tosa.transpose and tosa.matmul."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if not isinstance(op, GemmOp):
            return
        a, b_value = op.operands[0], op.operands[1]
        if not is_float(a):
            self.decline(op, "integer gemm lowers through nn.qmatmul")
            return
        b = TosaBuilder()
        if check_flag(op.properties, "trans_a"):
            a = b.transpose(a, (1, 0))
        if check_flag(op.properties, "trans_b"):
            b_value = b.transpose(b_value, (1, 0))
        y = numpy_matmul(b, a, b_value, shape_of(op.results[0]))
        alpha = float_value(op.properties, "alpha", 1.0)
        if alpha != 1.0:
            y = b.scale(y, alpha)
        if len(op.operands) == 3:
            c = op.operands[2]
            beta = float_value(op.properties, "beta", 1.0)
            y = b.binary(tosa.AddOp, y, c if beta == 1.0 else b.scale(c, beta))
        rewriter.replace(op, b.ops, [y])
