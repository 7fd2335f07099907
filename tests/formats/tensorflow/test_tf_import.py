"""The GraphDef schema and importer, on graphs built in the tests."""

from __future__ import annotations

import numpy as np
import pytest
import tf_reference as tf
from make_fixtures import FLOAT, GraphBuilder, Type

from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import graph_def_from_bytes, import_graph_def
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.formats.tensorflow.schema import GraphDef
from graph_opt.interpreter import run_function


def varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


def test_schema_reads_tensorflows_wire_format():
    """Bytes written by hand from TensorFlow's field numbers: GraphDef.node = 1,
    NodeDef.name/op/input/attr = 1/2/3/5, AttrValue.tensor = 8, TensorProto.dtype = 1,
    tensor_shape = 2 (Dim.size = 1 inside dim = 2), half_val = 13 (packed)."""
    half_bits = np.array([1.5, -2.0], np.float16).view(np.uint16)
    packed = b"".join(varint(b) for b in half_bits.tolist())
    tensor = (
        b"\x08\x13"
        + b"\x12\x04\x12\x02\x08\x02"
        + b"\x6a"
        + bytes([len(packed)])
        + packed
    )
    attr = (
        b"\x0a\x05value"
        + b"\x12"
        + bytes([len(tensor) + 2])
        + b"\x42"
        + bytes([len(tensor)])
        + tensor
    )
    node = b"\x0a\x01c\x12\x05Const\x1a\x02^d" + b"\x2a" + bytes([len(attr)]) + attr
    graph = graph_def_from_bytes(b"\x0a" + bytes([len(node)]) + node)
    [c] = graph.node
    assert (c.name, c.op, list(c.input)) == ("c", "Const", ["^d"])
    value = c.attr["value"].tensor
    assert value.dtype == 19 and [d.size for d in value.tensor_shape.dim] == [2]
    assert list(value.half_val) == half_bits.tolist()


def small_graph() -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", [-1, 3])
    g.node("split", "IdentityN", ["x", "x"])
    g.node("relu", "Relu", ["split:1"], T=Type(FLOAT))
    g.node("tanh", "Tanh", ["split"], T=Type(FLOAT))
    return g


def test_outputs_default_to_sinks_and_can_be_named():
    g = small_graph()
    module = import_graph_def(g.graph)
    x = np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3)
    relu, tanh = run_function(module, {"x": x})
    np.testing.assert_array_equal(relu, np.maximum(x, 0))
    np.testing.assert_allclose(tanh, np.tanh(x), rtol=1e-6)
    [only] = run_function(import_graph_def(g.graph, outputs=["split:1"]), [x])
    np.testing.assert_array_equal(only, x)


def test_dynamic_dims_are_kept_and_overridable():
    g = small_graph()
    assert "tensor<?x3xf32>" in str(import_graph_def(g.graph))
    assert "tensor<5x3xf32>" in str(import_graph_def(g.graph, {"x": [5, 3]}))
    with pytest.raises(FrontendError, match="contradicts its declared shape"):
        import_graph_def(g.graph, {"x": [5, 4]})
    with pytest.raises(
        FrontendError, match=r"'relu', which is not a placeholder \(placeholders: x\)"
    ):
        import_graph_def(g.graph, {"relu": [1]})


def test_reading_an_output_the_import_does_not_provide():
    g = small_graph()
    g.node("bad", "Relu", ["split:2"], T=Type(FLOAT))
    with pytest.raises(FrontendError, match=r"reads output 2 of 'split' \(IdentityN\)"):
        import_graph_def(g.graph)


def test_graph_errors():
    g = small_graph()
    g.node("loop", "Relu", ["loop2"], T=Type(FLOAT))
    g.node("loop2", "Relu", ["loop"], T=Type(FLOAT))
    with pytest.raises(FrontendError, match="cycle through loop, loop2"):
        import_graph_def(g.graph, outputs=["loop"])
    g = small_graph()
    g.node("relu", "Relu", ["x"])
    with pytest.raises(FrontendError, match="two nodes named 'relu'"):
        import_graph_def(g.graph)
    g = small_graph()
    g.node("y", "Relu", ["x", "^ghost"], T=Type(FLOAT))
    with pytest.raises(
        FrontendError, match="node 'y' \\(Relu\\) uses undefined node 'ghost'"
    ):
        import_graph_def(g.graph)
    with pytest.raises(FrontendError, match="no nodes"):
        graph_def_from_bytes(GraphDef().SerializeToString())


def test_what_tensorflows_importer_refuses():
    g = small_graph()
    g.node("", "Relu", ["x"])
    with pytest.raises(FrontendError, match="node 4 \\(Relu\\) has no name"):
        import_graph_def(g.graph)
    g = small_graph()
    g.node("y", "Add", ["^relu", "x"])
    with pytest.raises(
        FrontendError,
        match="node 'y' \\(Add\\) has data input 'x' after a control input",
    ):
        import_graph_def(g.graph)


@pytest.mark.parametrize("missing", ["strides", "ksize"])
def test_window_attributes_without_default_are_required(missing):
    """TensorFlow's op definitions give strides and ksize no default (the fuzzer
    found both silently taken as ones)."""
    g = GraphBuilder()
    g.placeholder("x", [1, 4, 4, 1])
    attrs = dict(
        T=Type(FLOAT), ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="VALID"
    )
    del attrs[missing]
    g.node("pool", "MaxPool", ["x"], **attrs)
    with pytest.raises(FrontendError, match=f"missing attr '{missing}' \\(list"):
        import_graph_def(g.graph)
    with pytest.raises(FrontendError, match=f"attribute '{missing}' is missing"):
        import_graph_def(g.graph, validate=False)


def depth_to_space_vect_c() -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", [1, 8, 2, 2])
    g.node(
        "d2s", "DepthToSpace", ["x"],
        T=Type(FLOAT), block_size=2, data_format="NCHW_VECT_C",
    )  # fmt: skip
    return g


def test_declined_node_is_an_error_or_opaque():
    g = depth_to_space_vect_c()
    with pytest.raises(
        FrontendError,
        match=r"unsupported attribute values: DepthToSpace data_format=NCHW_VECT_C \(node 'd2s'\)",
    ):
        import_graph_def(g.graph)
    module = import_graph_def(g.graph, allow_opaque=True)
    [op] = [op for op in module.walk() if isinstance(op, OpaqueOp)]
    assert (op.op_type.data, op.domain.data) == ("DepthToSpace", "tf")
    assert (
        op.attrs.data["T"]
        == module.body.block.first_op.function_type.inputs.data[0].element_type
    )


@pytest.mark.parametrize("data_format", ["NDHWC", "NCDHW"])
def test_batch_norm_3d_formats(data_format: str):
    """FusedBatchNormV3's 5-D formats: the channel axis last, or 1."""
    rng = np.random.default_rng(3)
    shape = [2, 3, 2, 2, 3] if data_format == "NDHWC" else [2, 3, 3, 2, 2]
    params = [rng.uniform(0.5, 1.5, 3).astype(np.float32) for _ in range(4)]
    g = GraphBuilder()
    g.placeholder("x", shape)
    for part, value in zip(("scale", "offset", "mean", "var"), params):
        g.const(part, value)
    g.node(
        "bn", "FusedBatchNormV3", ["x", "scale", "offset", "mean", "var"],
        T=Type(FLOAT), U=Type(FLOAT), data_format=data_format,
        is_training=False, epsilon=0.01,
    )  # fmt: skip
    module = import_graph_def(g.graph, outputs=["bn"])
    x = rng.standard_normal(shape).astype(np.float32)
    axis = -1 if data_format == "NDHWC" else 1
    scale, offset, mean, var = (
        np.expand_dims(p, [a for a in range(5) if a != axis % 5]) for p in params
    )
    expected = (x - mean) / np.sqrt(var + 0.01) * scale + offset
    (actual,) = run_function(module, {"x": x})
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)
    exported = export_graph_def(module)
    (bn,) = [n for n in exported.node if n.op == "FusedBatchNormV3"]
    assert bn.attr["data_format"].s.decode() == data_format


def pool_nhwc(x, size, stride, reduce):
    """SAME pooling over the spatial dims; padding never enters a window."""
    out_h, out_w = -(-x.shape[1] // stride), -(-x.shape[2] // stride)
    (top, _), (left, _) = (
        tf.same_padding(x.shape[1], size, stride),
        tf.same_padding(x.shape[2], size, stride),
    )
    out = np.zeros((x.shape[0], out_h, out_w, x.shape[3]), x.dtype)
    for i in range(out_h):
        for j in range(out_w):
            rows = slice(max(i * stride - top, 0), i * stride - top + size)
            cols = slice(max(j * stride - left, 0), j * stride - left + size)
            out[:, i, j] = reduce(x[:, rows, cols], axis=(1, 2))
    return out


def test_pooling_reduction_and_matmul():
    g = GraphBuilder()
    g.placeholder("x", [1, 5, 5, 2])
    t = Type(FLOAT)
    g.node(
        "max",
        "MaxPool",
        ["x"],
        T=t,
        ksize=[1, 2, 2, 1],
        strides=[1, 2, 2, 1],
        padding="SAME",
    )
    g.node(
        "avg",
        "AvgPool",
        ["max"],
        T=t,
        ksize=[1, 2, 2, 1],
        strides=[1, 1, 1, 1],
        padding="SAME",
    )
    g.const("axes", np.array([1, 2], np.int32))
    g.node("mean", "Mean", ["avg", "axes"], T=t, keep_dims=False)
    weights = np.arange(6, dtype=np.float32).reshape(3, 2) / 7
    g.const("w", weights)
    g.node("logits", "MatMul", ["mean", "w"], T=t, transpose_b=True)
    x = np.random.default_rng(5).standard_normal((1, 5, 5, 2)).astype(np.float32)
    [logits] = run_function(import_graph_def(g.graph), [x])
    pooled = pool_nhwc(pool_nhwc(x, 2, 2, np.max), 2, 1, np.mean)
    np.testing.assert_allclose(logits, pooled.mean(axis=(1, 2)) @ weights.T, rtol=1e-5)
