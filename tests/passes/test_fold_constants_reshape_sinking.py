"""A reshape moved below elementwise ops with scalar operands meets the
reshape after them (GPT-2's MLP in the dynamo export: gemm, reshape to
[b, s, n], gelu, reshape to [-1, n], gemm); results match onnxruntime on the
original model."""

import numpy as np
import onnxruntime
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model


def mlp_model(outputs=("out",)):
    """Gemm rows reshaped to [b, s, 8] from x's dims, tanh-gelu written out
    with scalar constants, flattened back, gemm."""
    nodes = [
        helper.make_node("Shape", ["x"], ["bs"], start=0, end=2),
        helper.make_node("Concat", ["bs", "eight"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "flat4"], ["rows"]),
        helper.make_node("Gemm", ["rows", "w1", "b1"], ["h"]),
        helper.make_node("Reshape", ["h", "target"], ["h3"]),
        helper.make_node("Mul", ["h3", "half"], ["halved"]),
        helper.make_node("Pow", ["h3", "three"], ["cubed"]),
        helper.make_node("Mul", ["cubed", "coef"], ["scaled"]),
        helper.make_node("Add", ["h3", "scaled"], ["inner"]),
        helper.make_node("Mul", ["inner", "root"], ["arg"]),
        helper.make_node("Tanh", ["arg"], ["th"]),
        helper.make_node("Add", ["th", "one"], ["th1"]),
        helper.make_node("Mul", ["halved", "th1"], ["gelu"]),
        helper.make_node("Reshape", ["gelu", "flat8"], ["g2"]),
        helper.make_node("Gemm", ["g2", "w2", "b2"], ["out"]),
    ]
    rng = np.random.default_rng(0)
    scalar = lambda v: np.array(v, np.float32)  # noqa: E731
    initializers = {
        "eight": np.array([8], np.int64),
        "flat4": np.array([-1, 4], np.int64),
        "flat8": np.array([-1, 8], np.int64),
        "w1": rng.standard_normal((4, 8)).astype(np.float32),
        "b1": rng.standard_normal(8).astype(np.float32),
        "w2": rng.standard_normal((8, 4)).astype(np.float32),
        "b2": rng.standard_normal(4).astype(np.float32),
        "half": scalar(0.5),
        "three": scalar(3.0),
        "coef": scalar(0.044715),
        "root": scalar(0.7978845608),
        "one": scalar(1.0),
    }
    graph = helper.make_graph(
        nodes,
        "mlp",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 4])],
        [
            helper.make_tensor_value_info(name, TensorProto.FLOAT, None)
            for name in outputs
        ],
        [numpy_helper.from_array(array, name) for name, array in initializers.items()],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8
    )


def run(onnx_model, feeds):
    session = onnxruntime.InferenceSession(onnx_model.SerializeToString())
    return session.run(None, feeds)


def check(original, exported):
    rng = np.random.default_rng(1)
    for b, s in ((2, 3), (1, 5)):
        feeds = {"x": rng.standard_normal((b, s, 4)).astype(np.float32)}
        for got, want in zip(run(exported, feeds), run(original, feeds), strict=True):
            np.testing.assert_array_equal(got, want)


def test_reshapes_around_gelu_cancel():
    original = mlp_model()
    exported = export_module(api.run(import_model(original), "optimize"))
    ops = [n.op_type for n in exported.graph.node]

    # the input's flattening stays; the reshapes around the gelu go
    assert ops.count("Reshape") == 1, ops
    assert "Concat" not in ops and "Shape" not in ops, ops
    check(original, exported)


def test_negative_reshape_with_another_user_stays():
    """The [b, s, 8] activations are an output too: the reshape stays for it."""
    original = mlp_model(("out", "h3"))
    exported = export_module(api.run(import_model(original), "optimize"))
    ops = [n.op_type for n in exported.graph.node]

    assert ops.count("Reshape") == 3, ops
    check(original, exported)
