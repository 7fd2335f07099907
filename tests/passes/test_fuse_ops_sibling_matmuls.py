"""Sibling matmuls (attention's Q, K and V projections of one input) merge into
one product and a Split under `optimize`, only when that leaves fewer nodes;
results match onnxruntime on the original model exactly, at the opsets of
both Split forms (attribute before 13, input from 13)."""

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model

RNG = np.random.default_rng(0)


def projections_model(widths, *, bias=True, activation=None, opset=13):
    """x: [b, s, 16] times one constant weight per width (plus a bias, then an
    activation), each product an output."""
    nodes, initializers, outputs = [], [], []
    for i, width in enumerate(widths):
        w = RNG.standard_normal((16, width)).astype(np.float32)
        initializers.append(numpy_helper.from_array(w, f"w{i}"))
        value = f"p{i}"
        nodes.append(helper.make_node("MatMul", ["x", f"w{i}"], [value]))
        if bias:
            b = RNG.standard_normal(width).astype(np.float32)
            initializers.append(numpy_helper.from_array(b, f"b{i}"))
            nodes.append(helper.make_node("Add", [value, f"b{i}"], [f"a{i}"]))
            value = f"a{i}"
        if activation:
            nodes.append(helper.make_node(activation, [value], [f"r{i}"]))
            value = f"r{i}"
        outputs.append(helper.make_tensor_value_info(value, TensorProto.FLOAT, None))
    graph = helper.make_graph(
        nodes,
        "projections",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 16])],
        outputs,
        initializers,
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=7
    )


def optimized(onnx_model):
    exported = export_module(api.run(import_model(onnx_model), "optimize"))
    return exported, [n.op_type for n in exported.graph.node]


def assert_same_results(original, exported):
    for shape in ((2, 3, 16), (1, 7, 16)):
        feeds = {"x": RNG.standard_normal(shape).astype(np.float32)}
        want = onnxruntime.InferenceSession(original.SerializeToString()).run(
            None, feeds
        )
        got = onnxruntime.InferenceSession(exported.SerializeToString()).run(
            None, feeds
        )
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_qkv_projections_merge(opset):
    original = projections_model([8, 8, 4], opset=opset)
    exported, ops = optimized(original)

    assert ops == ["MatMul", "Add", "Split"], ops
    assert [o.name for o in exported.graph.output] == ["a0", "a1", "a2"]
    assert_same_results(original, exported)


def test_sibling_activations_merge():
    """Two projections with bias and relu (a detection head's two branches)."""
    original = projections_model([8, 6], activation="Relu")
    exported, ops = optimized(original)

    assert ops == ["MatMul", "Add", "Relu", "Split"], ops
    assert_same_results(original, exported)


def test_three_unbiased_projections_merge():
    original = projections_model([4, 4, 4], bias=False)
    exported, ops = optimized(original)

    assert ops == ["MatMul", "Split"], ops
    assert_same_results(original, exported)


def test_negative_two_unbiased_projections_stay():
    """A MatMul and a Split are as many nodes as the two MatMuls."""
    original = projections_model([4, 4], bias=False)
    exported, ops = optimized(original)

    assert ops == ["MatMul", "MatMul"], ops
    assert_same_results(original, exported)


def test_negative_one_projection_with_activation_stays_apart():
    """Relu after one of the products only: they are not siblings of one kind."""
    original = projections_model([4, 4], bias=True)
    relu = helper.make_node("Relu", ["a1"], ["r1"])
    original.graph.node.append(relu)
    original.graph.output[1].name = "r1"
    exported, ops = optimized(original)

    assert "Split" not in ops, ops
    assert_same_results(original, exported)
