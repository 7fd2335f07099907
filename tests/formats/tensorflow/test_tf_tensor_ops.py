"""Tile, Range, OneHot, TopKV2, resizes, Einsum, SpaceToBatchND/BatchToSpaceND and
PlaceholderWithDefault beyond what the TensorFlow fixtures' numeric tests cover:
the dilated-conv fusion and when it declines, fold-bn through it, feeding a
PlaceholderWithDefault, and the forms the mappings refuse."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
from make_fixtures import FLOAT, INT32, GraphBuilder, Type
from test_tf_op_fixtures import (
    FIXTURES,
    apply_pass,
    assert_matches_tensorflow,
    load_case,
)
from tf_reference import conv2d_nhwc

from graph_opt.dialects.nn.conv import ConvolutionBase
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function

FLOAT_T, INT32_T = Type(FLOAT), Type(INT32)
RNG = np.random.default_rng(3)


def op_names(module) -> list[str]:
    return [op.name for op in module.walk()]


def convolutions(module) -> list[ConvolutionBase]:
    return [op for op in module.walk() if isinstance(op, ConvolutionBase)]


def test_dilated_conv_chains_import_as_dilated_convs_that_fold_bn_folds():
    module, inputs, expected = load_case(FIXTURES / "tf_dilated_convs.pb")
    dilations = [list(c.dilations.get_values()) for c in convolutions(module)]
    assert dilations == [[2, 2], [3, 3], [2, 2], [3, 2]]
    assert "nn.transpose" not in op_names(module)
    folded = apply_pass(module, "fold-bn")
    assert "nn.batch_norm" not in op_names(folded)
    assert_matches_tensorflow(run_function(folded, inputs), expected)


def test_keras_dilated_conv_and_batch_norm_optimize_to_one_conv():
    """Keras writes the BN as x * s + t with s, t computed from its variables."""
    module, inputs, expected = load_case(FIXTURES / "tf_keras_dilated_conv_bn.pb")
    optimized = apply_pass(module, "optimize")
    names = op_names(optimized)
    assert names.count("nn.fused_conv") == 1
    assert not {"nn.batch_norm", "nn.mul", "nn.transpose"} & set(names)
    [conv] = convolutions(optimized)
    assert list(conv.dilations.get_values()) == [2, 2]
    assert_matches_tensorflow(run_function(optimized, inputs), expected)


def dilated_chain(paddings, crops, strides=(1, 1, 1, 1), padding="VALID"):
    """x [1, 8, 8, 2] -> SpaceToBatchND -> Conv2D -> BatchToSpaceND, block 2x2."""
    g = GraphBuilder()
    g.placeholder("x", [1, 8, 8, 2])
    g.const("block", np.array([2, 2], np.int32))
    g.const("paddings", np.array(paddings, np.int32))
    g.const("crops", np.array(crops, np.int32))
    g.const("w", RNG.standard_normal((3, 3, 2, 3)).astype(np.float32))
    g.node("s2b", "SpaceToBatchND", ["x", "block", "paddings"], T=FLOAT_T)
    g.node("conv", "Conv2D", ["s2b", "w"], T=FLOAT_T, strides=list(strides),
           padding=padding, data_format="NHWC")  # fmt: skip
    g.node("b2s", "BatchToSpaceND", ["conv", "block", "crops"], T=FLOAT_T)
    return g


def chain_inputs():
    return RNG.standard_normal((1, 8, 8, 2)).astype(np.float32)


def filter_of(g: GraphBuilder) -> np.ndarray:
    [w] = [n for n in g.graph.node if n.name == "w"]
    return np.frombuffer(w.attr["value"].tensor.tensor_content, np.float32).reshape(
        3, 3, 2, 3
    )


def test_chain_with_paddings_beyond_crops_is_a_padded_dilated_conv():
    g = dilated_chain([[3, 1], [2, 2]], [[1, 0], [0, 0]])
    module = import_graph_def(g.graph, outputs=["b2s"])
    [conv] = convolutions(module)
    assert list(conv.pads.get_values()) == [2, 2, 1, 2]
    x = chain_inputs()
    [out] = run_function(module, {"x": x})
    expected = conv2d_nhwc(x, filter_of(g), dilations=(2, 2), pads=((2, 1), (2, 2)))
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


def test_chain_cropping_more_than_it_pads_is_not_fused_and_still_right():
    g = dilated_chain([[0, 0], [0, 0]], [[0, 2], [1, 1]])
    module = import_graph_def(g.graph, outputs=["b2s"])
    [conv] = convolutions(module)
    assert list(conv.dilations.get_values()) == [1, 1]
    assert "nn.transpose" in op_names(module)
    x = chain_inputs()
    [out] = run_function(module, {"x": x})
    expected = conv2d_nhwc(x, filter_of(g), dilations=(2, 2))[:, :2, 1:3]
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "conv_attrs",
    [{"strides": (1, 2, 2, 1)}, {"padding": "SAME"}],
    ids=["strided", "same"],
)
def test_chain_around_other_convs_is_not_fused(conv_attrs):
    g = dilated_chain([[0, 0], [0, 0]], [[0, 0], [0, 0]], **conv_attrs)
    module = import_graph_def(g.graph, outputs=["b2s"])
    [conv] = convolutions(module)
    assert list(conv.dilations.get_values()) == [1, 1]


def test_inner_conv_read_elsewhere_is_imported_as_well():
    g = dilated_chain([[2, 2], [2, 2]], [[0, 0], [0, 0]])
    module = import_graph_def(g.graph, outputs=["b2s", "conv"])
    assert sorted(list(c.dilations.get_values()) for c in convolutions(module)) == [
        [1, 1],
        [2, 2],
    ]
    x = chain_inputs()
    fused, _ = run_function(module, {"x": x})
    expected = conv2d_nhwc(x, filter_of(g), dilations=(2, 2), pads=((2, 2), (2, 2)))
    np.testing.assert_allclose(fused, expected, rtol=1e-5, atol=1e-5)


def test_default_outputs_are_those_of_the_graph_before_the_fusion():
    """The fused node reads x and the filter: the SpaceToBatchND, the inner conv
    and the block constant, now unread, do not become outputs."""
    g = dilated_chain([[2, 2], [2, 2]], [[0, 0], [0, 0]])
    module = import_graph_def(g.graph)
    assert len(module.body.block.first_op.function_type.outputs) == 1


def test_placeholder_with_default_is_an_argument_when_given_a_shape():
    graph = load_graph_def(str(FIXTURES / "tf_placeholder_default.pbtxt"))
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    scale = np.array([3.0, 0.5, -1.0], np.float32)
    default = import_graph_def(graph, outputs=["mul"])
    [out] = run_function(default, {"x": x})
    np.testing.assert_allclose(out, x * [1.5, -2.0, 0.5], rtol=1e-6)
    fed = import_graph_def(graph, input_shapes={"scale": [3]}, outputs=["mul"])
    [out] = run_function(fed, {"x": x, "scale": scale})
    np.testing.assert_allclose(out, x * scale, rtol=1e-6)
    with pytest.raises(FrontendError, match="contradicts its declared shape"):
        import_graph_def(graph, input_shapes={"scale": [4]}, outputs=["mul"])


def einsum_graph(equation: str, *shapes) -> GraphBuilder:
    g = GraphBuilder()
    names = [f"in{i}" for i in range(len(shapes))]
    for name, shape in zip(names, shapes):
        g.placeholder(name, shape)
    g.node("out", "Einsum", names, equation=equation, T=FLOAT_T, N=len(shapes))
    return g


@pytest.mark.parametrize(
    "equation, shapes, reason",
    [
        ("ii->i", [[3, 3]], "repeated label"),
        ("ij->i", [[3, 4]], "permutation of one operand"),
        ("...ij,jk->...ik", [[2, 3, 4], [4, 5]], "ellipses"),
        ("ij,jk->i", [[3, 4], [4, 5]], "sum over an axis of one operand"),
        ("ij,jk,kl->il", [[3, 4], [4, 5], [5, 2]], "one or two operands"),
        ("bij,bjk->bik", [[2, 3, 4], [3, 4, 5]], "label 'b' has sizes 2 and 3"),
    ],
)
def test_einsum_forms_other_than_matmul_are_refused_with_the_reason(
    equation, shapes, reason
):
    with pytest.raises(FrontendError, match=reason):
        import_graph_def(einsum_graph(equation, *shapes).graph)


def test_einsum_implicit_output_and_outer_product():
    """'ij,kj' has the implicit output 'ik'; 'i,j->ij' contracts nothing."""
    a, b = (RNG.standard_normal(s).astype(np.float32) for s in ((3, 4), (5, 4)))
    [out] = run_function(import_graph_def(einsum_graph("ij,kj", [3, 4], [5, 4]).graph),
                         {"in0": a, "in1": b})  # fmt: skip
    np.testing.assert_allclose(out, a @ b.T, rtol=1e-5)
    u, v = a[:, 0], b[:, 1]
    [out] = run_function(import_graph_def(einsum_graph("i,j->ij", [3], [5]).graph),
                         {"in0": u, "in1": v})  # fmt: skip
    np.testing.assert_allclose(out, np.outer(u, v), rtol=1e-6)


@pytest.mark.parametrize("op", ["TopKV2", "OneHot", "ResizeBilinear"])
def test_computed_parameters_are_refused(op):
    g = GraphBuilder()
    g.placeholder("x", [1, 4, 4, 2])
    g.placeholder("runtime", [], INT32).attr["shape"].shape.SetInParent()  # a scalar
    g.placeholder("pair", [2], INT32)
    g.const("one", np.array(1.0, np.float32))
    inputs = {
        "TopKV2": ["x", "runtime"],
        "OneHot": ["runtime", "runtime", "one", "one"],
        "ResizeBilinear": ["x", "pair"],
    }[op]
    g.node("out", op, inputs, T=FLOAT_T)
    with pytest.raises(FrontendError, match="must be a constant"):
        import_graph_def(g.graph)


def test_tile_with_computed_multiples_keeps_the_rank():
    g = GraphBuilder()
    g.placeholder("x", [2, 3])
    g.placeholder("multiples", [2], INT32)
    g.node("out", "Tile", ["x", "multiples"], T=FLOAT_T)
    module = import_graph_def(g.graph)
    assert "tensor<?x?xf32>" in str(module)
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    [out] = run_function(module, {"x": x, "multiples": np.array([2, 3], np.int32)})
    np.testing.assert_array_equal(out, np.tile(x, [2, 3]))


def test_broadcast_to_an_incompatible_shape_is_refused():
    g = GraphBuilder()
    g.placeholder("x", [3, 2])
    g.const("shape", np.array([4, 3, 3], np.int32))
    g.node("out", "BroadcastTo", ["x", "shape"], T=FLOAT_T)
    with pytest.raises(FrontendError, match=r"cannot broadcast shape \[1, 3, 2\]"):
        import_graph_def(g.graph)


def test_resize_with_an_unknown_batch_exports_with_axes():
    """The batch and channel dims stay -1 in `sizes`: ONNX's Resize gets `axes`."""
    g = GraphBuilder()
    g.placeholder("x", [-1, 4, 5, 2])
    g.const("size", np.array([7, 3], np.int32))
    g.node("out", "ResizeBilinear", ["x", "size"], T=FLOAT_T, half_pixel_centers=True)
    module = import_graph_def(g.graph)
    x = RNG.standard_normal((3, 4, 5, 2)).astype(np.float32)
    [expected] = run_function(module, {"x": x})
    assert expected.shape == (3, 7, 3, 2)
    session = ort.InferenceSession(
        export_module(module).SerializeToString(), providers=["CPUExecutionProvider"]
    )
    [actual] = session.run(None, {"x": x})
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "equation, shapes, batch",
    [
        ("abc,cd->abd", [[-1, 3, 4], [4, 5]], 2),
        ("bij,bjk->bik", [[-1, 3, 4], [-1, 4, 5]], 2),
        ("bqhd,bkhd->bhqk", [[-1, 3, 2, 4], [-1, 5, 2, 4]], 2),
        ("bj,bjk->bk", [[-1, 4], [-1, 4, 5]], 2),
    ],
)
def test_einsum_with_an_unknown_batch(equation, shapes, batch):
    """Keras models with batch None: no reshape merges the unknown dim."""
    module = import_graph_def(einsum_graph(equation, *shapes).graph)
    operands = [
        RNG.standard_normal([batch if d == -1 else d for d in s]).astype(np.float32)
        for s in shapes
    ]
    [out] = run_function(module, dict(zip(["in0", "in1"], operands)))
    np.testing.assert_allclose(
        out, np.einsum(equation, *operands), rtol=1e-5, atol=1e-5
    )


def space_batch_graph(op: str, shape, *params) -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", shape)
    names = []
    for i, values in enumerate(params):
        g.const(f"p{i}", np.array(values, np.int32))
        names.append(f"p{i}")
    attrs = {"block_size": 2} if not params else {}
    g.node("out", op, ["x", *names], T=FLOAT_T, **attrs)
    return g


def space_to_batch(x, block, pads):
    """numpy's SpaceToBatchND of NHWC data, from TensorFlow's documentation."""
    x = np.pad(x, [(0, 0), *pads, (0, 0)])
    n, h, w, c = x.shape
    (bh, bw) = block
    x = x.reshape(n, h // bh, bh, w // bw, bw, c).transpose(2, 4, 0, 1, 3, 5)
    return x.reshape(bh * bw * n, h // bh, w // bw, c)


@pytest.mark.parametrize("batch", [1, 3])
def test_space_batch_ops_with_an_unknown_batch(batch):
    x = RNG.standard_normal((batch, 4, 6, 2)).astype(np.float32)
    pads = [[1, 1], [0, 2]]
    s2b = import_graph_def(
        space_batch_graph("SpaceToBatchND", [-1, 4, 6, 2], [2, 2], pads).graph
    )
    [out] = run_function(s2b, {"x": x})
    np.testing.assert_array_equal(out, space_to_batch(x, (2, 2), pads))
    b2s = import_graph_def(
        space_batch_graph("BatchToSpaceND", [-1, 3, 4, 2], [2, 2], pads).graph
    )
    [back] = run_function(b2s, {"x": out})
    np.testing.assert_array_equal(back, x)
    d2s = import_graph_def(space_batch_graph("DepthToSpace", [-1, 2, 3, 8]).graph)
    y = RNG.standard_normal((batch, 2, 3, 8)).astype(np.float32)
    [out] = run_function(d2s, {"x": y})
    s2d = import_graph_def(space_batch_graph("SpaceToDepth", [-1, 4, 6, 2]).graph)
    [back] = run_function(s2d, {"x": out})
    np.testing.assert_array_equal(back, y)


def test_one_hot_with_computed_on_and_off_values():
    g = GraphBuilder()
    g.placeholder("i", [4], INT32)
    for name in ("on", "off"):
        g.placeholder(name, [], FLOAT).attr["shape"].shape.SetInParent()
    g.const("depth", np.array(3, np.int32))
    g.node("out", "OneHot", ["i", "depth", "on", "off"], T=FLOAT_T, axis=0)
    module = import_graph_def(g.graph)
    indices = np.array([0, 2, -1, 3], np.int32)
    on, off = np.array(2.5, np.float32), np.array(-1.0, np.float32)
    [out] = run_function(module, {"i": indices, "on": on, "off": off})
    expected = np.where(np.arange(3)[:, None] == indices, 2.5, -1.0).astype(np.float32)
    np.testing.assert_array_equal(out, expected)


def resize_to_twice_the_input(shape) -> GraphBuilder:
    """ResizeNearestNeighbor(x, size=tf.shape(x)[1:3] * 2), as upsampling layers write it."""
    g = GraphBuilder()
    g.placeholder("x", shape)
    g.node("shape", "Shape", ["x"], T=FLOAT_T, out_type=INT32_T)
    for name, values in (("b", [1]), ("e", [3]), ("s", [1])):
        g.const(name, np.array(values, np.int32))
    g.node("hw", "StridedSlice", ["shape", "b", "e", "s"], T=INT32_T, Index=INT32_T)
    g.const("two", np.array(2, np.int32))
    g.node("size", "Mul", ["hw", "two"], T=INT32_T)
    g.node("out", "ResizeNearestNeighbor", ["x", "size"], T=FLOAT_T)
    return g


def test_parameters_computed_from_static_shapes_are_constants_at_import():
    """Only the dims read must be static: the batch may be unknown."""
    module = import_graph_def(resize_to_twice_the_input([-1, 2, 3, 1]).graph)
    x = RNG.standard_normal((2, 2, 3, 1)).astype(np.float32)
    [out] = run_function(module, {"x": x})
    np.testing.assert_array_equal(out, x.repeat(2, axis=1).repeat(2, axis=2))
    with pytest.raises(FrontendError, match="the size must be a constant"):
        import_graph_def(resize_to_twice_the_input([1, -1, 3, 1]).graph)


def test_computed_parameters_sharing_terms_are_evaluated_once_each():
    """axis = v - v with v = r + r + ... (20 doublings of Rank(x)): 2**20 paths,
    21 values."""
    g = GraphBuilder()
    g.placeholder("x", [2, 3])
    g.node("r0", "Rank", ["x"], T=FLOAT_T)
    for i in range(20):
        g.node(f"r{i + 1}", "AddV2", [f"r{i}", f"r{i}"], T=INT32_T)
    g.node("axis", "Sub", ["r20", "r20"], T=INT32_T)
    g.node("out", "ExpandDims", ["x", "axis"], T=FLOAT_T, Tdim=INT32_T)
    module = import_graph_def(g.graph, outputs=["out"])
    assert "tensor<1x2x3xf32>" in str(module)
