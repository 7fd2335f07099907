"""Mappings of the shape, slicing, padding and transposed-conv ops on graphs
built in the tests: what they refuse, and inputs the TensorFlow fixtures do not
cover (dynamic dims, opaque fallbacks)."""

from __future__ import annotations

import numpy as np
import pytest
from make_fixtures import FLOAT, INT32, GraphBuilder, Type

from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import graph_def_from_bytes, import_graph_def
from graph_opt.interpreter import run_function

FLOAT_T, INT32_T = Type(FLOAT), Type(INT32)


def computed_operand_graph(op: str, operand_index: int, **attrs) -> GraphBuilder:
    """`op` on x whose operand `operand_index` is a placeholder, not a constant."""
    g = GraphBuilder()
    g.placeholder("x", [2, 3])
    g.placeholder("runtime", [2], INT32)
    operands = {
        "Transpose": ["x", "perm"],
        "ConcatV2": ["x", "x", "axis"],
        "ExpandDims": ["x", "axis"],
        "GatherV2": ["x", "index", "axis"],
        "Slice": ["x", "begin", "size"],
        "StridedSlice": ["x", "begin", "end", "strides"],
        "Pad": ["x", "paddings"],
        "Fill": ["dims", "value"],
    }[op]
    defaults = {
        "perm": np.array([1, 0], np.int32), "axis": np.array(0, np.int32),
        "index": np.array([1], np.int32), "begin": np.array([0, 1], np.int32),
        "size": np.array([1, 2], np.int32), "end": np.array([1, 3], np.int32),
        "strides": np.array([1, 1], np.int32), "dims": np.array([2, 2], np.int32),
        "value": np.array(1.0, np.float32),
        "paddings": np.array([[0, 1], [1, 0]], np.int32),
    }  # fmt: skip
    inputs = []
    for i, name in enumerate(operands):
        if i == operand_index:
            inputs.append("runtime")
        elif name != "x":
            g.const(name, defaults[name])
            inputs.append(name)
        else:
            inputs.append(name)
    g.node("out", op, inputs, **attrs)
    return g


@pytest.mark.parametrize(
    "op, index",
    [
        ("Transpose", 1), ("ConcatV2", 2), ("ExpandDims", 1), ("GatherV2", 2),
        ("Slice", 1), ("StridedSlice", 3), ("Pad", 1), ("Fill", 1),
    ],
)  # fmt: skip
def test_computed_shape_operand_is_an_error_or_opaque(op, index):
    g = computed_operand_graph(op, index)
    with pytest.raises(FrontendError, match=rf"node 'out' \({op}\): .* constant"):
        import_graph_def(g.graph)
    module = import_graph_def(g.graph, allow_opaque=True)
    [opaque] = [o for o in module.walk() if isinstance(o, OpaqueOp)]
    assert opaque.op_type.data == op


def strided_slice_graph(shape, begin, end, strides, **masks) -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", shape)
    for name, values in (("b", begin), ("e", end), ("s", strides)):
        g.const(name, np.array(values, np.int32))
    g.node("out", "StridedSlice", ["x", "b", "e", "s"], **masks)
    return g


@pytest.mark.parametrize(
    "spec, masks, message",
    [
        (([0, 0], [1, 1], [1, 0]), {}, "strides must not be 0"),
        (([0], [1], [-1]), {"shrink_axis_mask": 1}, "only stride 1"),
        (([0, 0], [1, 1], [1, 1]), {"ellipsis_mask": 3}, "more than one ellipsis"),
        (([0, 0, 0], [1, 1, 1], [1, 1, 1]), {}, "more entries than the input's rank"),
    ],
)
def test_strided_slice_refuses_what_tensorflow_refuses(spec, masks, message):
    g = strided_slice_graph([2, 3], *spec, **masks)
    with pytest.raises(FrontendError, match=message):
        import_graph_def(g.graph)


def test_strided_slice_on_dynamic_dims_matches_numpy():
    """x[-1, ..., ::-2, None] with an unknown batch: no static size is needed."""
    g = strided_slice_graph(
        [-1, 4, 5], [-1, 0, 0, 0], [0, 0, 0, 0], [1, 1, -2, 1],
        shrink_axis_mask=1, ellipsis_mask=2, end_mask=4, begin_mask=4,
        new_axis_mask=8,
    )  # fmt: skip
    module = import_graph_def(g.graph)
    x = np.random.default_rng(0).standard_normal((3, 4, 5)).astype(np.float32)
    [out] = run_function(module, {"x": x})
    np.testing.assert_array_equal(out, x[-1, ..., ::-2, None])


def mirror_pad_graph(mode: str, shape) -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", shape)
    g.const("paddings", np.array([[2, 1], [0, 3]], np.int32))
    g.node("out", "MirrorPad", ["x", "paddings"], mode=mode, T=FLOAT_T)
    return g


def test_symmetric_mirror_pad_on_dynamic_dims_matches_numpy():
    module = import_graph_def(mirror_pad_graph("SYMMETRIC", [-1, -1]).graph)
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    [out] = run_function(module, {"x": x})
    np.testing.assert_array_equal(out, np.pad(x, [[2, 1], [0, 3]], "symmetric"))


def test_unknown_mirror_pad_mode_is_an_error():
    graph = mirror_pad_graph("EDGE", [3, 4]).graph
    with pytest.raises(FrontendError, match="'mode': 'EDGE' is not an allowed value"):
        import_graph_def(graph)
    with pytest.raises(FrontendError, match="mode EDGE is not supported"):
        import_graph_def(graph, validate=False)


def test_split_that_does_not_divide_is_an_error():
    g = GraphBuilder()
    g.placeholder("x", [2, 5])
    g.const("axis", np.array(1, np.int32))
    g.node("out", "Split", ["axis", "x"], num_split=2, T=FLOAT_T)
    with pytest.raises(FrontendError, match="dim 1 of size 5 does not split in 2"):
        import_graph_def(g.graph)


def test_gather_batch_dims_past_the_axis_is_an_error():
    """TensorFlow refuses batch_dims greater than the axis; so does the import."""
    g = computed_operand_graph("GatherV2", -1, batch_dims=1)
    with pytest.raises(FrontendError, match="batch_dims 1 and axis 0 do not fit"):
        import_graph_def(g.graph)


def backprop_input_graph(input_sizes, padding="SAME") -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", [1, 3, 3, 4])
    g.const("sizes", np.array(input_sizes, np.int32))
    g.const("w", np.ones((3, 3, 2, 4), np.float32))
    g.node(
        "out", "Conv2DBackpropInput", ["sizes", "w", "x"],
        strides=[1, 2, 2, 1], padding=padding, T=FLOAT_T,
    )  # fmt: skip
    return g


@pytest.mark.parametrize(
    "input_sizes, padding, output_padding",
    [([1, 6, 5, 2], "SAME", None), ([1, 8, 8, 2], "VALID", (1, 1))],
)
def test_backprop_output_size_comes_from_input_sizes(
    input_sizes, padding, output_padding
):
    """A last row that no input reaches (VALID, 8 = 2 * 3 + 2) is output_padding."""
    module = import_graph_def(backprop_input_graph(input_sizes, padding).graph)
    [op] = [o for o in module.walk() if o.name == "nn.conv_transpose"]
    assert op.output.type.get_shape() == tuple(input_sizes)
    padding_values = op.output_padding and op.output_padding.get_values()
    assert padding_values == output_padding


@pytest.mark.parametrize(
    "input_sizes, padding", [([1, 8, 8, 2], "SAME"), ([1, 9, 9, 2], "VALID")]
)
def test_backprop_input_sizes_must_fit_the_input(input_sizes, padding):
    """The forward conv of an 8x8 (SAME) or 9x9 (VALID) input gives 4x4, not 3x3."""
    with pytest.raises(FrontendError, match="give a forward output of"):
        import_graph_def(backprop_input_graph(input_sizes, padding).graph)


def test_shape_of_dynamic_input_feeds_reshape():
    """Shape (int32) -> Reshape at run time: the shape is cast to i64."""
    g = GraphBuilder()
    g.placeholder("x", [-1, 6])
    g.placeholder("y", [-1, 2, 3])
    g.node("shape", "Shape", ["y"], T=FLOAT_T, out_type=INT32_T)
    g.node("out", "Reshape", ["x", "shape"], T=FLOAT_T, Tshape=INT32_T)
    module = import_graph_def(g.graph)
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    y = np.zeros((4, 2, 3), np.float32)
    [out] = run_function(module, {"x": x, "y": y})
    np.testing.assert_array_equal(out, x.reshape(4, 2, 3))


def test_text_fields_newer_than_the_schema_are_skipped():
    """TensorFlow 2.x writes experimental_type (a FullTypeDef) on some nodes; a
    binary parse skips it, and so does the text one."""
    text = b"""node { name: "s" op: "NoOp"
        experimental_type { type_id: TFT_PRODUCT args { type_id: TFT_INT32 } } }"""
    [node] = graph_def_from_bytes(text, text=True).node
    assert (node.name, node.op) == ("s", "NoOp")
    with pytest.raises(FrontendError, match="not a valid TensorFlow GraphDef"):
        graph_def_from_bytes(b"node { name: 3", text=True)


def test_nchw_backprop_input_matches_nhwc():
    """TensorFlow's CPU kernel is NHWC only; NCHW must give the same values transposed
    (the NHWC mapping is checked against TensorFlow in the fixtures)."""
    rng = np.random.default_rng(5)
    w = rng.standard_normal((3, 2, 2, 4)).astype(np.float32)
    x = rng.standard_normal((1, 3, 3, 4)).astype(np.float32)
    results = {}
    for layout, x_shape, sizes, strides in (
        ("NHWC", [1, 3, 3, 4], [1, 6, 5, 2], [1, 2, 2, 1]),
        ("NCHW", [1, 4, 3, 3], [1, 2, 6, 5], [1, 1, 2, 2]),
    ):
        g = GraphBuilder()
        g.placeholder("x", x_shape)
        g.const("sizes", np.array(sizes, np.int32))
        g.const("w", w)
        g.node(
            "out", "Conv2DBackpropInput", ["sizes", "w", "x"], strides=strides,
            padding="SAME", data_format=layout, T=FLOAT_T,
        )  # fmt: skip
        data = x if layout == "NHWC" else np.transpose(x, (0, 3, 1, 2))
        [results[layout]] = run_function(import_graph_def(g.graph), {"x": data})
    np.testing.assert_allclose(
        results["NCHW"], np.transpose(results["NHWC"], (0, 3, 1, 2)), rtol=1e-6
    )
