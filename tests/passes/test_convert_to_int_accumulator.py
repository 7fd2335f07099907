"""The accumulator rule convert-to-int and quantize's bias rounding share."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context

from graph_opt.api import parse
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.linalg import GemmOp
from graph_opt.entry import entry_function
from graph_opt.passes.convert_to_int.accumulator import Accumulation, accumulation
from graph_opt.passes.convert_to_int.bias_rounding import round_biases
from graph_opt.passes.convert_to_int.convert_to_int import ConvertToIntPass

X4 = "%x: tensor<1x2x4x4xf32>"
X2 = "%x: tensor<3x4xf32>"


def sole_op(signature: str, body: str):
    """The op of a one-op function (the op that is not a return)."""
    module = parse(f"func.func @f({signature}) {{\n{body}\nfunc.return\n}}")
    return entry_function(module).body.block.first_op


@pytest.mark.parametrize(
    "signature, body, expected",
    [
        (
            f"{X4}, %w: tensor<3x2x1x1xf32>",
            "%c = nn.conv %x, %w : (tensor<1x2x4x4xf32>, tensor<3x2x1x1xf32>) -> tensor<1x3x4x4xf32>",
            Accumulation(0),
        ),
        (
            "%x: tensor<1x4x4x2xf32>, %w: tensor<1x1x2x3xf32>",
            '%c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<1x4x4x2xf32>, tensor<1x1x2x3xf32>) -> tensor<1x4x4x3xf32>',
            Accumulation(3),
        ),
        (
            "%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x2x2xf32>",
            "%c = nn.conv_transpose %x, %w {strides = array<i64: 2, 2>, group = 2 : i64} : (tensor<1x4x3x3xf32>, tensor<4x2x2x2xf32>) -> tensor<1x4x6x6xf32>",
            Accumulation(1, group=2),
        ),
        (
            f"{X2}, %w: tensor<4x5xf32>",
            "%c = nn.matmul %x, %w : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>",
            Accumulation(1),
        ),
        (
            f"{X2}, %w: tensor<5x4xf32>",
            "%c = nn.gemm %x, %w {trans_b = 1, alpha = 0.5 : f32} : (tensor<3x4xf32>, tensor<5x4xf32>) -> tensor<3x5xf32>",
            Accumulation(0, alpha=0.5, trans_b=True),
        ),
    ],
)
def test_accumulation_of_each_layer(signature, body, expected):
    assert accumulation(sole_op(signature, body)) == expected


@pytest.mark.parametrize(
    "signature, body",
    [
        (
            "%x: tensor<4x3xf32>, %w: tensor<4x5xf32>",
            "%c = nn.gemm %x, %w {trans_a = 1} : (tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>",
        ),
        (
            f"{X2}, %w: tensor<4x5xf32>",
            "%c = nn.gemm %x, %w {alpha = -1.0 : f32} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>",
        ),
        (X2, "%c = nn.relu %x : (tensor<3x4xf32>) -> tensor<3x4xf32>"),
    ],
)
def test_negative_no_accumulation(signature, body):
    """A transposed gemm input, a negative alpha and a non-layer have no int8 form."""
    assert accumulation(sole_op(signature, body)) is None


GEMM = """
func.func @gemm(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  %w = nn.constant dense<[[0.5, -0.25, 0.125, 1.0], [-1.0, 0.75, 0.3, -0.6]]> : tensor<2x4xf32>
  %wq = nn.fake_quant %w {min = array<f32: -1.0, -2.0>, max = array<f32: 1.0, 2.0>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 0 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %b = nn.constant dense<[0.1, -0.4321]> : tensor<2xf32>
  %1 = nn.gemm %0, %wq, %b {trans_b = 1, alpha = 1.5 : f32} : (tensor<3x4xf32>, tensor<2x4xf32>, tensor<2xf32>) -> tensor<3x2xf32>
  %2 = nn.fake_quant %1 {min = array<f32: -2.0>, max = array<f32: 2.0>, num_bits = 8 : i64} : (tensor<3x2xf32>) -> tensor<3x2xf32>
  func.return %2 : tensor<3x2xf32>
}
"""


def test_rounded_bias_is_the_integer_bias_convert_to_int_adds():
    """A gemm with alpha and trans_b: the bias quantize rounds is exactly the
    i32 bias convert-to-int adds to the accumulator, times its scale."""
    module = parse(GEMM)
    assert round_biases(module) == 1
    gemm = next(op for op in module.walk() if isinstance(op, GemmOp))
    rounded = constant_value(gemm.c)
    assert not np.allclose(rounded, [0.1, -0.4321], rtol=0, atol=1e-7)
    x_scale, w_scales = 2 / 255, np.array([1 / 127, 2 / 127])
    acc_scales = 1.5 * x_scale * w_scales
    ConvertToIntPass().apply(Context(), module)
    (int_bias,) = [
        constant_value(op.output)
        for op in module.walk()
        if isinstance(op, ConstantOp) and constant_value(op.output).dtype == np.int32
    ]
    np.testing.assert_allclose(int_bias * acc_scales, rounded, rtol=1e-6)
