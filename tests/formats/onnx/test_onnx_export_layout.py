"""ONNX export of channels-last graphs: moved to NCHW on a copy, transposes only at the edges."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest

from graph_opt import api
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.interpreter import run_function

CHAIN = """
func.func @main(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x4xf32> {
  %w1 = nn.constant dense<[[[[0.1, -0.2, 0.3, 0.4], [0.5, 0.6, -0.7, 0.8], [0.9, 1.0, 1.1, -1.2]]]]> : tensor<1x1x3x4xf32>
  %c1 = nn.conv %x, %w1 {data_layout = "NHWC"} : (tensor<1x8x8x3xf32>, tensor<1x1x3x4xf32>) -> tensor<1x8x8x4xf32>
  %b = nn.constant dense<[0.5, -0.5, 0.25, 1.0]> : tensor<4xf32>
  %a = nn.add %c1, %b : (tensor<1x8x8x4xf32>, tensor<4xf32>) -> tensor<1x8x8x4xf32>
  %r = nn.relu %a : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %w2 = nn.constant dense<0.125> : tensor<3x3x4x4xf32>
  %c2 = nn.conv %r, %w2 {data_layout = "NHWC", auto_pad = "SAME_UPPER", strides = array<i64: 2, 2>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x4xf32>) -> tensor<1x4x4x4xf32>
  %s = nn.constant dense<[1.0, 2.0, 0.5, 1.5]> : tensor<4xf32>
  %n = nn.batch_norm %c2, %s, %b, %b, %s {epsilon = 1.0e-3 : f32, data_layout = "NHWC"} : (tensor<1x4x4x4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
  %w3 = nn.constant dense<0.5> : tensor<3x3x1x1xf32>
  %d = nn.conv %n, %w3 {data_layout = "NHWC", group = 4 : i64, pads = array<i64: 1, 1, 1, 1>} : (tensor<1x4x4x4xf32>, tensor<3x3x1x4xf32>) -> tensor<1x4x4x4xf32>
  %m = nn.max_pool %d {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, auto_pad = "SAME_UPPER", data_layout = "NHWC"} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  func.return %m : tensor<1x4x4x4xf32>
}
"""

UNRANKED = """
func.func @main(%x: tensor<*xf32>) -> tensor<*xf32> {
  %w = nn.constant dense<1.0> : tensor<3x3x3x4xf32>
  %c = nn.conv %x, %w {data_layout = "NHWC"} : (tensor<*xf32>, tensor<3x3x3x4xf32>) -> tensor<*xf32>
  func.return %c : tensor<*xf32>
}
"""


def run_onnx(model, x):
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, {session.get_inputs()[0].name: x})


def chain_module():
    return api.parse(CHAIN.replace("tensor<3x3x1x1xf32>", "tensor<3x3x1x4xf32>"))


def test_channels_last_chain_exports_and_matches_interpreter():
    module = chain_module()
    x = np.random.default_rng(0).standard_normal((1, 8, 8, 3)).astype(np.float32)
    expected = run_function(module, [x])
    model = export_module(module)
    np.testing.assert_allclose(run_onnx(model, x)[0], expected[0], rtol=1e-5, atol=1e-5)
    ops = [n.op_type for n in model.graph.node]
    # one transpose in and one out; none between the convs, pool and batch norm
    assert ops.count("Transpose") == 2, ops
    assert ops.count("Conv") == 3


def test_export_leaves_the_module_unchanged(tmp_path):
    module = chain_module()
    before = api.to_mlir(module)
    api.save(module, tmp_path / "out.onnx")
    assert api.to_mlir(module) == before
    assert "NHWC" in before


def test_nhwc_result_of_convert_layout_exports():
    """convert-layout{target=NHWC} on a channels-first graph, then ONNX again."""
    module = chain_module()
    api.run(module, "convert-layout")
    api.run(module, "convert-layout{target=NHWC}")
    x = np.random.default_rng(1).standard_normal((1, 8, 8, 3)).astype(np.float32)
    expected = run_function(module, [x])
    np.testing.assert_allclose(
        run_onnx(export_module(module), x)[0], expected[0], rtol=1e-5, atol=1e-5
    )


def test_channels_first_graph_is_exported_without_transposes():
    module = chain_module()
    api.run(module, "convert-layout{keep-io-layout=false}")
    ops = [n.op_type for n in export_module(module).graph.node]
    assert "Transpose" not in ops


def test_unranked_channels_last_input_is_a_one_line_error():
    with pytest.raises(FrontendError, match="unknown rank.*--input-shape"):
        export_module(api.parse(UNRANKED))


def test_unused_constants_are_not_exported():
    module = api.parse("""
func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
  %unused = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %one = nn.constant dense<1.0> : tensor<f32>
  %y = nn.add %x, %one : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  func.return %y : tensor<2xf32>
}""")
    initializers = export_module(module).graph.initializer
    assert [list(t.dims) for t in initializers] == [[]]  # only the scalar read by add
