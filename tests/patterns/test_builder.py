"""The op builder of rewrites (`nn.<op>(...)`, TVM callbacks' shape) and the library rewrites using it."""

import numpy as np
import pytest
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, StringAttr, f32, i64

from graph_opt.interpreter import run_function
from graph_opt.patterns import DFPatternRewrite, apply_rewrites, is_op, wildcard
from graph_opt.patterns.builder import building, nn
from graph_opt.patterns.library import MatMulBiasToGemm

MATMUL_BIAS = """func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {{
  %b = nn.constant dense<[0.5, 1.5, -2.0, 3.0]> : tensor<{bias}xf32>
  %m = nn.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %y = nn.add %m, %b : (tensor<2x4xf32>, tensor<{bias}xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}}"""

EXPECTED_GEMM = """func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>) -> tensor<2x4xf32> {
  %b = nn.constant dense<[0.5, 1.5, -2.0, 3.0]> : tensor<4xf32>
  %g = nn.gemm %x, %w, %b : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %g : tensor<2x4xf32>
}"""


def test_match_matmul_bias_to_gemm_structurally_and_numerically(parse):
    module = parse(MATMUL_BIAS.format(bias=4))
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in ((2, 3), (3, 4))]
    before = run_function(module, inputs)[0]
    assert apply_rewrites(module, [MatMulBiasToGemm()]).total == 1
    module.verify()
    assert module.is_structurally_equivalent(parse(EXPECTED_GEMM)), str(module)
    np.testing.assert_allclose(run_function(module, inputs)[0], before, rtol=1e-6)


def test_no_match_matmul_bias_to_gemm_of_a_graph_bias(parse):
    module = parse(
        """func.func @f(%x: tensor<2x3xf32>, %w: tensor<3x4xf32>, %b: tensor<4xf32>) -> tensor<2x4xf32> {
  %m = nn.matmul %x, %w : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %y = nn.add %m, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  func.return %y : tensor<2x4xf32>
}"""
    )
    assert apply_rewrites(module, [MatMulBiasToGemm()]).total == 0
    assert "nn.gemm" not in str(module)


def test_no_match_matmul_bias_to_gemm_that_broadcasts_larger(parse):
    text = MATMUL_BIAS.format(bias=4).replace(
        "dense<[0.5, 1.5, -2.0, 3.0]> : tensor<4xf32>",
        "dense<1.0> : tensor<3x2x4xf32>",
    )
    text = text.replace(
        "tensor<4xf32>) -> tensor<2x4xf32>\n",
        "tensor<3x2x4xf32>) -> tensor<3x2x4xf32>\n",
    )
    text = text.replace(
        "func.return %y : tensor<2x4xf32>", "func.return %y : tensor<3x2x4xf32>"
    ).replace("-> tensor<2x4xf32> {", "-> tensor<3x2x4xf32> {")
    module = parse(text)
    assert apply_rewrites(module, [MatMulBiasToGemm()]).total == 0
    assert "nn.gemm" not in str(module)


class ReluToClip(DFPatternRewrite):
    """A rewrite as short as a TVM callback: properties as Python values."""

    def __init__(self):
        self.x = wildcard()
        self.pattern = is_op("relu")(self.x)

    def rewrite(self, match, rewriter):
        return nn.clip(match[self.x], min=0.0, max=6.0)


def test_builder_converts_python_values_to_property_attributes(parse):
    module = parse(
        """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %r = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %r : tensor<4xf32>
}"""
    )
    apply_rewrites(module, [ReluToClip()])
    clip = next(op for op in module.walk() if op.name == "nn.clip")
    assert clip.properties["min"] == FloatAttr(0.0, f32)
    assert clip.properties["max"] == FloatAttr(6.0, f32)


def test_builder_builds_properties_of_each_kind_and_constants(parse):
    module = parse(
        """func.func @f(%x: tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32> {
  func.return %x : tensor<1x3x8x8xf32>
}"""
    )
    function = module.body.block.ops.first
    block = function.body.block
    x = block.args[0]
    with building(block):
        w = nn.constant(np.ones((3, 3, 3, 3)), dtype=np.float32)
        conv = nn.conv(x, w, strides=[2, 2], data_layout="NCHW")
        cast = nn.cast(conv, to="float16")
        scaled = nn.mul(conv, np.float32(2.0))
        head, tail = nn.split(conv, axis=1, split=[1, 2])
    assert conv.type.get_shape() == (1, 3, 3, 3)
    assert tuple(conv.op.properties["strides"].get_values()) == (2, 2)
    assert conv.op.properties["data_layout"] == StringAttr("NCHW")
    assert cast.op.properties["to"].name == "f16"
    assert scaled.op.operands[1].op.name == "nn.constant"
    assert head.type.get_shape() == (1, 1, 3, 3) and tail.type.get_shape()[1] == 2
    assert head.op.properties["axis"] == IntegerAttr(1, i64)


def test_builder_errors_are_one_line(parse):
    with pytest.raises(AttributeError, match="no op nn.no_such_op"):
        nn.no_such_op  # noqa: B018
    with pytest.raises(RuntimeError, match="nn.relu built outside a rewrite"):
        x = parse(
            "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  func.return %x : tensor<4xf32>\n}"
        ).body.block.ops.first.body.block.args[0]
        nn.relu(x)
    with pytest.raises(ValueError, match="nn.relu has no property 'alpha'"):
        with building(parse("func.func @g() {\n  func.return\n}").body.block):
            nn.relu(x, alpha=1.0)
