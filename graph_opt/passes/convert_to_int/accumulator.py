"""How convert-to-int scales a layer's i32 accumulator: the rule shared by the
conversion and by quantize's bias rounding, which puts float biases on the
grid the conversion will round them to."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from xdsl.ir import Operation

from graph_opt.dialects.nn.base import float_value, int_value
from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp
from graph_opt.dialects.nn.fused import FusedConvOp, FusedMatMulOp
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.passes.common.quantize_patterns import weight_operand
from graph_opt.passes.convert_to_int.params import group_channel_scales


@dataclass(frozen=True)
class Accumulation:
    """A layer's int8 weights and the scale of its accumulator."""

    weight_axis: int
    """The weights' output-channel axis (their per-channel scales)."""
    alpha: float = 1.0
    """gemm's alpha, a factor of the accumulator scale."""
    trans_b: bool = False
    """gemm's weights are stored [N, K]."""
    group: int = 1
    """A transposed conv's groups: its filter's scales repeat once per group."""

    def scales(self, input_scale: float, weight_scales: np.ndarray) -> np.ndarray:
        """The accumulator's real scale per output channel (one when per tensor)."""
        return (
            self.alpha * input_scale * group_channel_scales(weight_scales, self.group)
        )


def accumulation(op: Operation) -> Accumulation | None:
    """How convert-to-int lowers the conv, transposed conv, matmul or gemm `op`;
    None for other ops, a gemm with a transposed input or a non-positive alpha."""
    if isinstance(op, ConvOp | FusedConvOp):
        return Accumulation(weight_operand(op)[1])  # type: ignore[index]
    if isinstance(op, ConvTransposeOp):
        group = int_value(op.properties, "group", 1)
        return Accumulation(weight_operand(op)[1], group=group)  # type: ignore[index]
    if isinstance(op, MatMulOp | FusedMatMulOp):
        return Accumulation(1)
    if isinstance(op, GemmOp):
        alpha = float_value(op.properties, "alpha", 1.0)
        if int_value(op.properties, "trans_a", 0) or alpha <= 0:
            return None  # no int8 form
        trans_b = bool(int_value(op.properties, "trans_b", 0))
        return Accumulation(0 if trans_b else 1, alpha, trans_b)
    return None
