"""Transposes of attention heads in KV-cache decoders: a transpose that only
moves size-1 dims becomes a reshape and merges with its neighbours, a transpose
of a transpose is one; results match onnxruntime on the original model."""

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model


def model(nodes, initializers, inputs):
    graph = helper.make_graph(
        nodes,
        "heads",
        inputs,
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(array, name) for name, array in initializers.items()],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8
    )


def one_token_heads_model():
    """x: [b, 1, 128] split into 4 heads of 32 ([b, 4, 1, 32]), appended to the
    cache, then merged back ([b, 1, 128]) as GPT-2's dynamo export does."""
    nodes = [
        helper.make_node("Reshape", ["x", "heads"], ["h"]),
        helper.make_node("Transpose", ["h"], ["ht"], perm=[0, 2, 1, 3]),
        helper.make_node("Concat", ["past", "ht"], ["present"], axis=-2),
        helper.make_node("ReduceSum", ["present", "axis2"], ["summed"]),
        helper.make_node("Mul", ["ht", "summed"], ["scaled"]),
        helper.make_node("Transpose", ["scaled"], ["back"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["back", "flat"], ["out"]),
    ]
    initializers = {
        "heads": np.array([-1, 1, 4, 32], np.int64),
        "axis2": np.array([2], np.int64),
        "flat": np.array([-1, 128], np.int64),
    }
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 1, 128]),
        helper.make_tensor_value_info("past", TensorProto.FLOAT, ["b", 4, "p", 32]),
    ]
    return model(nodes, initializers, inputs)


def run(onnx_model, feeds):
    session = onnxruntime.InferenceSession(onnx_model.SerializeToString())
    return session.run(None, feeds)


def optimized(onnx_model):
    exported = export_module(api.run(import_model(onnx_model), "optimize"))
    return exported, [n.op_type for n in exported.graph.node]


def test_one_token_head_transposes_become_reshapes():
    original = one_token_heads_model()
    exported, ops = optimized(original)

    # x to heads, then the mul's result straight back to [b, 128]
    assert ops == ["Reshape", "Concat", "ReduceSum", "Mul", "Reshape"], ops
    rng = np.random.default_rng(0)
    for b, p in ((2, 3), (1, 5)):
        feeds = {
            "x": rng.standard_normal((b, 1, 128)).astype(np.float32),
            "past": rng.standard_normal((b, 4, p, 32)).astype(np.float32),
        }
        for got, want in zip(run(exported, feeds), run(original, feeds), strict=True):
            np.testing.assert_array_equal(got, want)


def test_negative_transpose_of_several_tokens_stays():
    """With a sequence of 3 tokens the transpose moves elements."""
    nodes = [
        helper.make_node("Reshape", ["x", "heads"], ["h"]),
        helper.make_node("Transpose", ["h"], ["out"], perm=[0, 2, 1, 3]),
    ]
    original = model(
        nodes,
        {"heads": np.array([-1, 3, 4, 32], np.int64)},
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 3, 128])],
    )
    exported, ops = optimized(original)

    assert ops == ["Reshape", "Transpose"], ops
    feeds = {"x": np.random.default_rng(1).standard_normal((2, 3, 128))}
    feeds["x"] = feeds["x"].astype(np.float32)
    np.testing.assert_array_equal(run(exported, feeds)[0], run(original, feeds)[0])


@pytest.mark.parametrize(
    ("first", "second", "kept"),
    [
        ([0, 2, 1], [1, 0, 2], ["Transpose"]),  # composed into one
        ([0, 2, 1], [0, 2, 1], ["Identity"]),  # cancelled: the output names x
    ],
)
def test_transpose_chain_numerics(first, second, kept):
    nodes = [
        helper.make_node("Transpose", ["x"], ["t"], perm=first),
        helper.make_node("Transpose", ["t"], ["out"], perm=second),
    ]
    original = model(
        nodes, {}, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])]
    )
    exported, ops = optimized(original)

    assert ops == kept, ops
    feeds = {"x": np.random.default_rng(2).standard_normal((2, 3, 4))}
    feeds["x"] = feeds["x"].astype(np.float32)
    np.testing.assert_array_equal(run(exported, feeds)[0], run(original, feeds)[0])
