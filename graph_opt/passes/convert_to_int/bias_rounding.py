"""Biases on the int32 grid of their layer's accumulator, after `quantize`.

convert-to-int adds a conv's or matmul's bias to its i32 accumulator as
round(bias / s), s = input scale * weight scale (per output channel), as TFLite
and onnxruntime's QDQ do. Rounding the float bias the same way in the
fake-quantized graph makes it compute what the integer graph will: without it,
the bias's rounding flips the output's rounding on about 0.1% of the values
per layer, and the flips add up through a deep network (ResNet: 45% of the
logits one step or more apart, instead of 11%).
"""

from __future__ import annotations

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from graph_opt.dialects.nn.base import float_value
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.linalg import GemmOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.passes.convert_to_int.accumulator import accumulation
from graph_opt.passes.convert_to_int.params import activation_params, int_weights
from graph_opt.passes.convert_to_int.patterns import SCALE_PRESERVING
from graph_opt.rewriting.placement import carry_placement

BIAS_INDEX = 2
"""The bias operand of convs, fused matmuls and gemms."""


def round_biases(module: Operation) -> int:
    """Put every quantized layer's constant bias on its accumulator grid; how many."""
    rounded = 0
    for op in list(module.walk()):
        found = _bias_grid(op)
        if found is None:
            continue
        index, bias, grid = found
        on_grid = (np.rint(bias.astype(np.float64) / grid) * grid).astype(bias.dtype)
        if np.array_equal(on_grid, bias):
            continue
        constant = ConstantOp.from_array(on_grid, op.operands[index].type.element_type)
        Rewriter.insert_op(constant, InsertPoint.before(op))
        old = op.operands[index].owner
        carry_placement(constant, [old] if isinstance(old, Operation) else [op])
        op.operands[index] = constant.output
        rounded += 1
    return rounded


def input_quantization(value: SSAValue) -> Operation | None:
    """The fake quantization whose scale `value` has: its producer, or one
    before ops that keep the scale (max pool, reshape, transpose, ...)."""
    while isinstance(value.owner, SCALE_PRESERVING):
        value = value.owner.operands[0]
    return value.owner if isinstance(value.owner, FakeQuantOp) else None


def _bias_grid(op: Operation) -> tuple[int, np.ndarray, np.ndarray] | None:
    """(bias operand index, bias, accumulator scale per channel) of a layer
    whose input and weights are fake-quantized the way convert-to-int lowers."""
    layer = accumulation(op)
    if layer is None or not _has_plain_bias(op):
        return None
    x_quant, w_quant = input_quantization(op.operands[0]), op.operands[1].owner
    bias = constant_value(op.operands[BIAS_INDEX])
    if not (isinstance(x_quant, FakeQuantOp) and isinstance(w_quant, FakeQuantOp)):
        return None
    weights = constant_value(w_quant.input)
    params = activation_params(x_quant)
    if bias is None or weights is None or params is None:
        return None
    int_w = int_weights(w_quant, np.asarray(weights, np.float32), layer.weight_axis)
    if int_w is None:
        return None
    return BIAS_INDEX, bias, layer.scales(params.scale, int_w.scales)


def _has_plain_bias(op: Operation) -> bool:
    """Whether the layer adds its third operand as it is (a gemm's c times 1)."""
    if isinstance(op, GemmOp):
        return op.c is not None and float_value(op.properties, "beta", 1.0) == 1.0
    return len(op.operands) > BIAS_INDEX
