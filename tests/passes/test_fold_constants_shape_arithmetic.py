"""Shape arithmetic of exporters (TorchScript's reshape, expand and unsqueeze
idioms): optimize leaves none of it, and the results match onnxruntime on the
original model, at more than one input shape."""

import numpy as np
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model


def const(name, array):
    return helper.make_node(
        "Constant", [], [name], value=numpy_helper.from_array(np.asarray(array), name)
    )


def model(nodes, inputs, outputs):
    graph = helper.make_graph(nodes, "shapes", inputs, outputs)
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8
    )


def reshape_idiom_model():
    """x: [b, s, 8] reshaped to [b, s, 2, 4] by a target computed from its own
    shape (with a Squeeze/Unsqueeze round trip and an unsqueeze chain), a mask
    `and`-ed with true, and TorchScript's expand: where(equal(shape, -1), 1, shape)."""
    nodes = [
        const("zero", np.int64(0)),
        const("axes0", np.array([0], np.int64)),
        const("one_1d", np.array([1], np.int64)),
        const("two_1d", np.array([2], np.int64)),
        const("tail", np.array([2, 4], np.int64)),
        const("minus_one", np.array([-1, -1, -1, -1], np.int64)),
        const("ones", np.array([1, 1, 1, 1], np.int64)),
        const("true", np.array(True)),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"]),
        helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch_1d"]),
        helper.make_node("Slice", ["shape", "one_1d", "two_1d"], ["seq_1d"]),
        helper.make_node("Squeeze", ["seq_1d", "axes0"], ["seq"]),
        helper.make_node("Unsqueeze", ["seq", "axes0"], ["seq_again"]),
        helper.make_node(
            "Concat", ["batch_1d", "seq_again", "tail"], ["target"], axis=0
        ),
        helper.make_node("Reshape", ["x", "target"], ["heads"]),
        helper.make_node("Equal", ["target", "minus_one"], ["is_minus_one"]),
        helper.make_node("Where", ["is_minus_one", "ones", "target"], ["expand_to"]),
        helper.make_node("Greater", ["heads", "zero_f"], ["positive"]),
        const("zero_f", np.float32(0)),
        helper.make_node("And", ["positive", "true"], ["mask"]),
        helper.make_node("Expand", ["mask", "expand_to"], ["mask_b"]),
        helper.make_node("Cast", ["mask_b"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["heads", "mask_f"], ["out"]),
        helper.make_node("Range", ["zero", "batch", "one"], ["ramp"]),
        const("one", np.int64(1)),
        const("axes1", np.array([1], np.int64)),
        const("axes2", np.array([2], np.int64)),
        helper.make_node("Unsqueeze", ["ramp", "axes1"], ["ramp_2d"]),
        helper.make_node("Unsqueeze", ["ramp_2d", "axes2"], ["ramp_3d"]),
    ]
    # constants first, as exporters write them
    nodes.sort(key=lambda n: n.op_type != "Constant")
    return model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 8])],
        [
            helper.make_tensor_value_info("out", TensorProto.FLOAT, None),
            helper.make_tensor_value_info("ramp_3d", TensorProto.INT64, None),
        ],
    )


def optimized(onnx_model):
    exported = export_module(api.run(import_model(onnx_model), "optimize"))
    return exported, [n.op_type for n in exported.graph.node]


def assert_same_results(original, exported, shapes):
    rng = np.random.default_rng(0)
    for shape in shapes:
        x = rng.standard_normal(shape).astype(np.float32)
        want = onnxruntime.InferenceSession(original.SerializeToString()).run(
            None, {"x": x}
        )
        got = onnxruntime.InferenceSession(exported.SerializeToString()).run(
            None, {"x": x}
        )
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape
            np.testing.assert_array_equal(g, w)


def test_reshape_idiom_leaves_no_shape_arithmetic():
    original = reshape_idiom_model()
    exported, ops = optimized(original)

    for op in ("Squeeze", "Equal", "Where", "And"):
        assert op not in ops, ops
    (reshape,) = [n for n in exported.graph.node if n.op_type == "Reshape"]
    (target,) = [i for i in exported.graph.initializer if i.name == reshape.input[1]]
    assert numpy_helper.to_array(target).tolist() == [0, 0, 2, 4]
    # the batch dim for Range; the two after Range merged
    assert ops.count("Unsqueeze") == 1
    # Expand's target: the input's own dims, kept by 1
    (expand,) = [n for n in exported.graph.node if n.op_type == "Expand"]
    (target,) = [i for i in exported.graph.initializer if i.name == expand.input[1]]
    assert numpy_helper.to_array(target).tolist() == [1, 1, 2, 4]
    assert_same_results(original, exported, [(2, 3, 8), (1, 5, 8)])


def two_unknowns_model():
    """A target with two elements from another tensor's dynamic dims: neither
    can be written 0 nor both -1."""
    nodes = [
        const("zero", np.int64(0)),
        const("one", np.int64(1)),
        const("axes0", np.array([0], np.int64)),
        const("eight", np.array([8], np.int64)),
        helper.make_node("Shape", ["y"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["d1"]),
        helper.make_node("Gather", ["shape", "zero"], ["d0"]),
        helper.make_node("Unsqueeze", ["d1", "axes0"], ["d1_1d"]),
        helper.make_node("Unsqueeze", ["d0", "axes0"], ["d0_1d"]),
        helper.make_node("Concat", ["d1_1d", "d0_1d", "eight"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["out"]),
    ]
    return model(
        nodes,
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 8]),
            helper.make_tensor_value_info("y", TensorProto.FLOAT, ["p", "q"]),
        ],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
    )


def test_negative_target_with_two_unknowns_stays_computed():
    original = two_unknowns_model()
    exported, ops = optimized(original)

    assert "Shape" in ops and "Concat" in ops
    rng = np.random.default_rng(1)
    feeds = {
        "x": rng.standard_normal((2, 3, 8)).astype(np.float32),
        "y": rng.standard_normal((3, 2)).astype(np.float32),
    }
    want = onnxruntime.InferenceSession(original.SerializeToString()).run(None, feeds)
    got = onnxruntime.InferenceSession(exported.SerializeToString()).run(None, feeds)
    np.testing.assert_array_equal(got[0], want[0])


@pytest.mark.parametrize(
    ("first", "second", "squeeze_axes", "kept"),
    [
        (
            [1],
            [-1],
            [3, 1],
            1,
        ),  # unsqueezes merged, the squeeze cancels them: an Identity names the output
        ([0], [3], [0], 2),  # a squeeze of other axes stays
    ],
)
def test_unsqueeze_chain_numerics(first, second, squeeze_axes, kept):
    nodes = [
        const("a1", np.array(first, np.int64)),
        const("a2", np.array(second, np.int64)),
        const("a3", np.array(squeeze_axes, np.int64)),
        helper.make_node("Unsqueeze", ["x", "a1"], ["u1"]),
        helper.make_node("Unsqueeze", ["u1", "a2"], ["u2"]),
        helper.make_node("Squeeze", ["u2", "a3"], ["out"]),
    ]
    original = model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 3])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
    )
    exported, ops = optimized(original)

    assert len(ops) == kept, ops
    assert_same_results(original, exported, [(2, 3), (4, 3)])


def test_reshape_by_dims_of_the_matmul_input():
    """TorchScript's attention head split: the target reads the dims of the
    projection's input; they are the projection's own, so it becomes constant."""
    w = np.random.default_rng(2).standard_normal((8, 8)).astype(np.float32)
    nodes = [
        const("w", w),
        const("zero", np.int64(0)),
        const("one", np.int64(1)),
        const("axes0", np.array([0], np.int64)),
        const("tail", np.array([-1, 4], np.int64)),
        helper.make_node("MatMul", ["x", "w"], ["q"]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["b"]),
        helper.make_node("Gather", ["shape", "one"], ["s"]),
        helper.make_node("Unsqueeze", ["b", "axes0"], ["b_1d"]),
        helper.make_node("Unsqueeze", ["s", "axes0"], ["s_1d"]),
        helper.make_node("Concat", ["b_1d", "s_1d", "tail"], ["target"], axis=0),
        helper.make_node("Reshape", ["q", "target"], ["out"]),
    ]
    original = model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 8])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
    )
    exported, ops = optimized(original)

    assert ops == ["MatMul", "Reshape"], ops
    assert_same_results(original, exported, [(2, 3, 8), (1, 5, 8)])


def test_detection_head_flattened_by_batch_of_image():
    """TorchScript's detection head: conv, NHWC transpose, then reshape to
    [image batch, -1, 8]; a conv keeps the batch, so the target is constant."""
    w = np.random.default_rng(4).standard_normal((8, 3, 3, 3)).astype(np.float32)
    nodes = [
        const("w", w),
        const("zero", np.int64(0)),
        const("axes0", np.array([0], np.int64)),
        const("tail", np.array([-1, 8], np.int64)),
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Transpose", ["c"], ["t"], perm=[0, 2, 3, 1]),
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["b"]),
        helper.make_node("Unsqueeze", ["b", "axes0"], ["b_1d"]),
        helper.make_node("Concat", ["b_1d", "tail"], ["target"], axis=0),
        helper.make_node("Reshape", ["t", "target"], ["out"]),
    ]
    original = model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 3, 6, 6])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
    )
    exported, ops = optimized(original)

    assert ops == ["Conv", "Transpose", "Reshape"], ops
    assert_same_results(original, exported, [(2, 3, 6, 6), (1, 3, 6, 6)])


def repeat_kv_model():
    """Llama's repeat_kv as TorchScript writes it: k [b, s, 64] split into 2
    heads of 32 and transposed ([b, 2, s, 32]), unsqueezed, expanded to
    [b, 2, 2, s, 32] by its own dims and merged to [b, 4, s, 32]."""
    nodes = [
        const("zero", np.int64(0)),
        const("two", np.int64(2)),
        const("axes0", np.array([0], np.int64)),
        const("axes2", np.array([2], np.int64)),
        const("rep", np.array([2], np.int64)),
        const("four", np.array([4], np.int64)),
        const("d32", np.array([32], np.int64)),
        const("heads", np.array([0, 0, -1, 32], np.int64)),
        helper.make_node("Reshape", ["x", "heads"], ["h"]),
        helper.make_node("Transpose", ["h"], ["k"], perm=[0, 2, 1, 3]),
        helper.make_node("Shape", ["k"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["b"]),
        helper.make_node("Gather", ["shape", "two"], ["s"]),
        helper.make_node("Unsqueeze", ["b", "axes0"], ["b1"]),
        helper.make_node("Unsqueeze", ["s", "axes0"], ["s1"]),
        helper.make_node("Unsqueeze", ["k", "axes2"], ["k5"]),
        helper.make_node(
            "Concat", ["b1", "rep", "rep", "s1", "d32"], ["expand_to"], axis=0
        ),
        helper.make_node("Expand", ["k5", "expand_to"], ["e"]),
        helper.make_node("Concat", ["b1", "four", "s1", "d32"], ["merged"], axis=0),
        helper.make_node("Reshape", ["e", "merged"], ["out"]),
    ]
    return model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "s", 64])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
    )


def test_repeat_kv_targets_become_constants():
    original = repeat_kv_model()
    exported, ops = optimized(original)

    # no shape arithmetic left: both targets are constants
    assert ops == ["Reshape", "Transpose", "Unsqueeze", "Expand", "Reshape"], ops
    targets = {
        n.op_type + str(i): numpy_helper.to_array(
            next(t for t in exported.graph.initializer if t.name == n.input[1])
        ).tolist()
        for i, n in enumerate(exported.graph.node)
        if n.op_type in ("Expand", "Reshape")
    }
    assert targets == {
        "Reshape0": [0, 0, -1, 32],
        "Expand3": [1, 2, 2, 1, 32],
        "Reshape4": [0, 4, -1, 32],
    }
    assert_same_results(original, exported, [(2, 3, 64), (1, 5, 64)])


def named_batch_model(mask_dims):
    """GPT-2's attention mask reshaped to [batch, -1] by input_ids' batch."""
    nodes = [
        const("zero", np.array([0], np.int64)),
        const("minus", np.array([-1], np.int64)),
        helper.make_node("Shape", ["ids"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["b"]),
        helper.make_node("Concat", ["b", "minus"], ["target"], axis=0),
        helper.make_node("Reshape", ["mask", "target"], ["flat"]),
        helper.make_node("Add", ["flat", "ids"], ["out"]),
    ]
    return model(
        nodes,
        [
            helper.make_tensor_value_info("ids", TensorProto.FLOAT, ["batch", "s"]),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, mask_dims),
        ],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, None)],
    )


@pytest.mark.parametrize(
    ("mask_dims", "kept"),
    [
        (["batch", "s"], ["Add"]),  # the same batch: the reshape is the identity
        (["beam", "s"], ["Shape", "Gather", "Concat", "Reshape", "Add"]),
    ],
)
def test_same_named_input_dims_are_equal(mask_dims, kept):
    original = named_batch_model(mask_dims)
    exported, ops = optimized(original)

    assert ops == kept, ops
    rng = np.random.default_rng(0)
    for shape in ((2, 3), (1, 5)):
        feeds = {
            name: rng.standard_normal(shape).astype(np.float32)
            for name in ("ids", "mask")
        }
        want = onnxruntime.InferenceSession(original.SerializeToString()).run(
            None, feeds
        )
        got = onnxruntime.InferenceSession(exported.SerializeToString()).run(
            None, feeds
        )
        np.testing.assert_array_equal(got[0], want[0])
