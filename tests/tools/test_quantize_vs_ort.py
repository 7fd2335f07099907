"""bench/quantize_vs_ort.py's comparisons of graph-opt's fake-quant graph with
onnxruntime's QDQ model: activation grids, integer weight levels, the QDQ
model without the roundings only onnxruntime does, and near-tie weights."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from bench.quantize_vs_ort import (
    Layer,
    OrtLayer,
    graph_opt_grids,
    graph_opt_layers,
    grid_comparison,
    level_differences,
    match_layers,
    near_ties,
    per_input,
    without_quantizations,
)
from graph_opt import api

FAKE_QUANT_CONV = """
func.func @main(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %xq = nn.fake_quant %x {min = array<f32: 0.0>, max = array<f32: 2.55>, num_bits = 8 : i64} : (tensor<1x2x4x4xf32>) -> tensor<1x2x4x4xf32>
  %w = nn.constant dense<[[[[0.5]], [[-0.5]]], [[[2.0]], [[-2.0]]]]> : tensor<2x2x1x1xf32>
  %wq = nn.fake_quant %w {min = array<f32: -0.5, -2.0>, max = array<f32: 0.5, 2.0>, num_bits = 8 : i64, narrow_range = 1 : i64, axis = 0 : i64} : (tensor<2x2x1x1xf32>) -> tensor<2x2x1x1xf32>
  %b = nn.constant dense<[0.1, -0.2]> : tensor<2xf32>
  %c = nn.conv %xq, %wq, %b : (tensor<1x2x4x4xf32>, tensor<2x2x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  func.return %c : tensor<1x2x4x4xf32>
}
"""


def qdq_relu_model(input_scale: float = 0.25, relu_scale: float = 0.5):
    """x -> Q/DQ -> Relu -> Q/DQ -> y, int8 zero points 0."""
    nodes, inits = [], []
    for name, source, scale in (("x", "x", input_scale), ("r", "r", relu_scale)):
        inits += [numpy_helper.from_array(np.float32(scale), f"{name}_scale"),
                  numpy_helper.from_array(np.int8(0), f"{name}_zero")]  # fmt: skip
        target = "y" if name == "r" else "x_dq"
        nodes += [
            helper.make_node("QuantizeLinear", [source, f"{name}_scale", f"{name}_zero"],
                             [f"{name}_q"], name=f"{name}_quantize"),
            helper.make_node("DequantizeLinear", [f"{name}_q", f"{name}_scale",
                             f"{name}_zero"], [target]),
        ]  # fmt: skip
        if name == "x":
            nodes.append(helper.make_node("Relu", ["x_dq"], ["r"]))
    graph = helper.make_graph(
        nodes, "qdq", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], inits,
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def run(model, x: np.ndarray) -> np.ndarray:
    onnx.checker.check_model(model)
    session = ort.InferenceSession(model.SerializeToString(),
                                   providers=["CPUExecutionProvider"])  # fmt: skip
    return session.run(None, {"x": x})[0]


X = np.array([-1.3, 0.3, 0.7, 1.1], np.float32)


def quantize_nodes(model, *names):
    return [n for n in model.graph.node if n.name in names]


def test_without_quantizations_removes_the_named_pairs_only():
    model = qdq_relu_model()
    assert run(model, X).tolist() == [0.0, 0.0, 1.0, 1.0]
    no_output_rounding = without_quantizations(
        model, quantize_nodes(model, "r_quantize")
    )
    assert run(no_output_rounding, X).tolist() == [0.0, 0.25, 0.75, 1.0]
    float_model = without_quantizations(
        model, quantize_nodes(model, "x_quantize", "r_quantize")
    )
    np.testing.assert_array_equal(run(float_model, X), np.maximum(X, 0))
    assert [o.name for o in float_model.graph.output] == ["y"]


def test_negative_without_quantizations_of_nothing_keeps_the_model():
    model = qdq_relu_model()
    assert without_quantizations(model, []) == model
    assert len(model.graph.node) == 5  # the original is not modified


def test_grids_match_by_scale_and_zero_point():
    model = qdq_relu_model()
    matched, ort_only, go_only = grid_comparison(model, [(0.25 * (1 + 1e-7), 0)])
    assert matched == 1
    assert [(q[1], q[2]) for q in ort_only] == [("Relu", 0.5)]
    assert go_only == []


def test_negative_grids_with_another_zero_point_or_scale_differ():
    model = qdq_relu_model()
    matched, ort_only, go_only = grid_comparison(model, [(0.25, 3), (0.5001, 0)])
    assert matched == 0
    assert [q[1] for q in ort_only] == ["input", "Relu"]
    assert go_only == [(0.25, 3), (0.5001, 0)]


def test_graph_opt_grids_and_layers_of_a_fake_quant_graph():
    module = api.parse(FAKE_QUANT_CONV)
    [(scale, zero_point)] = graph_opt_grids(module)  # the weights' is no activation
    assert np.isclose(scale, 0.01) and zero_point == -128
    [layer] = graph_opt_layers(module)
    np.testing.assert_array_equal(layer.bias, np.float32([0.1, -0.2]))
    np.testing.assert_allclose(layer.fake.ravel(), [0.5, -0.5, 2.0, -2.0], rtol=1e-6)


def ort_layer_of(layer: Layer, order=(0, 1, 2, 3)) -> OrtLayer:
    """onnxruntime's symmetric per-channel levels of `layer`'s weights."""
    weights = layer.fake.transpose(order)
    scales = np.abs(weights).max(axis=(1, 2, 3), keepdims=True).astype(np.float64) / 127
    return OrtLayer("w", np.rint(weights / scales).astype(np.int8), scales, None, None)


def hwio_layer(rng) -> Layer:
    weights = rng.standard_normal((3, 3, 4, 8)).astype(np.float32)
    scales = np.abs(weights).max(axis=(0, 1, 2)) / 127
    return Layer(weights, (np.rint(weights / scales) * scales).astype(np.float32), None)


def test_layers_match_across_layouts_and_count_differing_levels():
    rng = np.random.default_rng(0)
    layer, other = hwio_layer(rng), hwio_layer(rng)
    ort_layer = ort_layer_of(layer, (3, 2, 0, 1))  # HWIO -> OIHW
    [(found, go, order)] = match_layers([other, layer], [ort_layer])
    assert go is layer and order == (3, 2, 0, 1)
    assert level_differences([(found, go, order)])[:2] == (0, ort_layer.levels.size)
    ort_layer.levels[0, 0, 1, 1] += 1
    assert level_differences(match_layers([layer], [ort_layer]))[0] == 1


def test_negative_a_layer_without_counterpart_is_not_matched():
    rng = np.random.default_rng(1)
    ort_layer = ort_layer_of(hwio_layer(rng), (3, 2, 0, 1))
    assert match_layers([hwio_layer(rng)], [ort_layer]) == []


def test_near_ties_flip_to_the_other_neighbour():
    scales = np.array([[1.0]])
    weights = np.array([[12.499, 12.3, -3.5001]], np.float32)
    levels = np.array([[12, 12, -4]], np.int8)
    pair = (
        OrtLayer("w", levels, scales, None, None),
        Layer(weights, weights, None),
        (0, 1),
    )
    assert near_ties([pair]) == [("w", (0, 0), 13), ("w", (0, 2), -3)]


def test_per_input_errors():
    reference = [np.array([1.0, -2.0]), np.array([0.5, 0.5])]
    outputs = [np.array([1.0, -1.0]), np.array([0.5, 0.0])]
    maxima, l2 = per_input(outputs, reference)
    np.testing.assert_allclose(maxima, [0.5, 0.25])
    np.testing.assert_allclose(l2, [1 / np.sqrt(5), 0.5 / np.sqrt(0.5)])
