"""Writes the TensorFlow GraphDef fixtures with graph-opt's own schema (no TensorFlow).

Run `python tests/formats/tensorflow/make_fixtures.py` after changing a graph;
the tests import `weights()` from here to compute their numpy expectations.
"""

from __future__ import annotations

from pathlib import Path

import ml_dtypes
import numpy as np
from google.protobuf import text_format

from graph_opt.formats.tensorflow.op_defs import infer_type_attrs
from graph_opt.formats.tensorflow.schema import DATA_TYPES, GraphDef
from graph_opt.testing.graph_defs import Type, set_attr

FIXTURES = Path(__file__).parent / "fixtures"
FILECHECK_INPUTS = Path(__file__).parents[2] / "filecheck/formats/tensorflow/inputs"

FLOAT, INT32, INT64 = (
    DATA_TYPES["DT_FLOAT"],
    DATA_TYPES["DT_INT32"],
    DATA_TYPES["DT_INT64"],
)
TYPE_OF = {
    np.dtype(np.float32): FLOAT,
    np.dtype(np.float64): DATA_TYPES["DT_DOUBLE"],
    np.dtype(np.float16): DATA_TYPES["DT_HALF"],
    np.dtype(ml_dtypes.bfloat16): DATA_TYPES["DT_BFLOAT16"],
    np.dtype(np.int32): INT32,
    np.dtype(np.int64): INT64,
    np.dtype(np.bool_): DATA_TYPES["DT_BOOL"],
}
TYPED_FIELD = {
    FLOAT: "float_val",
    DATA_TYPES["DT_DOUBLE"]: "double_val",
    INT32: "int_val",
    INT64: "int64_val",
    DATA_TYPES["DT_BOOL"]: "bool_val",
    DATA_TYPES["DT_HALF"]: "half_val",
    DATA_TYPES["DT_BFLOAT16"]: "half_val",
}


def weights() -> dict[str, np.ndarray]:
    """Every fixture constant, seeded: the graphs store them, the tests read them here."""
    rng = np.random.default_rng(7)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    return {
        "conv_w": f32(3, 3, 3, 4),
        "bn_scale": f32(4),
        "bn_offset": f32(4),
        "bn_mean": f32(4),
        "bn_var": rng.uniform(0.5, 2.0, 4).astype(np.float32),
        "dw_w": f32(3, 3, 2, 2),
        "dw_bias": f32(4),
        "nchw_w": f32(2, 2, 3, 2),
        "bias_last": f32(3),
        "bias_channel": f32(3),
        "ew_c": f32(2, 3),
        "content": f32(2, 3),
        "doubles": rng.standard_normal(3),
        "halves": f32(4).astype(np.float16),
        "bfloats": f32(4).astype(ml_dtypes.bfloat16),
    }


class GraphBuilder:
    """GraphDefs node by node; type attributes the inputs imply (`T`, `N`, ...)
    are filled in as TensorFlow's op builders do, when not given."""

    def __init__(self):
        self.graph = GraphDef()
        self.graph.versions.producer = 1087
        self.nodes: dict[str, object] = {}

    def node(self, name: str, op: str, inputs=(), **attrs):
        node = self.graph.node.add(name=name, op=op)
        node.input.extend(inputs)
        for key, value in attrs.items():
            set_attr(node.attr[key], value)
        infer_type_attrs(node, self.nodes)
        self.nodes[name] = node
        return node

    def placeholder(self, name: str, shape, dtype: int = FLOAT):
        node = self.node(name, "Placeholder", dtype=Type(dtype))
        if shape is not None:
            node.attr["shape"].shape.SetInParent()  # a scalar has a shape too
            for size in shape:
                node.attr["shape"].shape.dim.add(size=size)
        return node

    def const(self, name: str, array, encoding: str = "content", inputs=()):
        """A Const in one of TensorFlow's encodings: `content` (raw bytes), `typed`
        (one repeated field), `splat` (one value for the whole shape) or `partial`
        (fewer values than elements: the last one repeats)."""
        array = np.asarray(array)
        dtype = TYPE_OF[array.dtype]
        node = self.node(name, "Const", inputs, dtype=Type(dtype))
        tensor = node.attr["value"].tensor
        tensor.dtype = dtype
        for size in array.shape:
            tensor.tensor_shape.dim.add(size=size)
        flat = array.reshape(-1)
        if encoding == "content":
            tensor.tensor_content = array.tobytes()
            return node
        if encoding == "splat":
            flat = flat[:1]
        elif encoding == "partial":
            flat = flat[: np.flatnonzero(flat != flat[-1]).max() + 2]
        if TYPED_FIELD[dtype] == "half_val":
            flat = flat.view(np.uint16).astype(np.int32)
        getattr(tensor, TYPED_FIELD[dtype]).extend(flat.tolist())
        return node

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.suffix == ".pbtxt":
            path.write_text(text_format.MessageToString(self.graph))
        else:
            path.write_bytes(self.graph.SerializeToString(deterministic=True))


def conv_bn_relu6(w) -> GraphBuilder:
    """Conv2D (stride 2, SAME) + FusedBatchNormV3 + Relu6, NHWC, weights as raw bytes."""
    g = GraphBuilder()
    g.placeholder("input", [1, 7, 7, 3])
    g.const("conv/weights", w["conv_w"])
    g.node("conv", "Conv2D", ["input", "conv/weights"], T=Type(FLOAT),
           strides=[1, 2, 2, 1], padding="SAME", data_format="NHWC",
           dilations=[1, 1, 1, 1], use_cudnn_on_gpu=True)  # fmt: skip
    for part in ("scale", "offset", "mean", "var"):
        g.const(f"bn/{part}", w[f"bn_{part}"], encoding="typed")
    g.node("bn", "FusedBatchNormV3",
           ["conv", "bn/scale", "bn/offset", "bn/mean", "bn/var"],
           T=Type(FLOAT), U=Type(FLOAT), epsilon=0.001, is_training=False,
           data_format="NHWC")  # fmt: skip
    g.node("relu6", "Relu6", ["bn"], T=Type(FLOAT))
    return g


def depthwise(w) -> GraphBuilder:
    """DepthwiseConv2dNative (multiplier 2, explicit padding, dilation 2) + BiasAdd + Relu."""
    g = GraphBuilder()
    g.placeholder("input", [1, 6, 5, 2])
    g.const("dw/weights", w["dw_w"])
    g.node("dw", "DepthwiseConv2dNative", ["input", "dw/weights"], T=Type(FLOAT),
           strides=[1, 1, 1, 1], padding="EXPLICIT",
           explicit_paddings=[0, 0, 1, 2, 2, 0, 0, 0], dilations=[1, 2, 1, 1])  # fmt: skip
    g.const("dw/bias", w["dw_bias"])
    g.node("dw/bias_add", "BiasAdd", ["dw", "dw/bias"], T=Type(FLOAT))
    g.node("relu", "Relu", ["dw/bias_add"], T=Type(FLOAT))
    return g


def conv_nchw(w) -> GraphBuilder:
    """Conv2D on NCHW data (its filter stays HWIO), stride 2 and VALID padding."""
    g = GraphBuilder()
    g.placeholder("input", [1, 3, 5, 6])
    g.const("weights", w["nchw_w"])
    g.node("conv", "Conv2D", ["input", "weights"], T=Type(FLOAT),
           strides=[1, 1, 2, 2], padding="VALID", data_format="NCHW")  # fmt: skip
    return g


def bias_add(w) -> GraphBuilder:
    """BiasAdd on the last axis (NHWC) and on axis 1 (NCHW) of the same [2, 3, 4, 3] data."""
    g = GraphBuilder()
    g.placeholder("input", [2, 3, 4, 3])
    g.const("bias_last", w["bias_last"])
    g.const("bias_channel", w["bias_channel"])
    g.node("nhwc", "BiasAdd", ["input", "bias_last"], T=Type(FLOAT), data_format="NHWC")
    g.node(
        "nchw", "BiasAdd", ["input", "bias_channel"], T=Type(FLOAT), data_format="NCHW"
    )
    return g


def identity_control(w) -> GraphBuilder:
    """Identity/StopGradient chains, IdentityN read as `node:1`, control inputs, and
    nodes listed before their producers."""
    g = GraphBuilder()
    g.node("out", "Sub", ["pair:1", "chain/2"], T=Type(FLOAT))
    g.node("chain/2", "Identity", ["chain/1", "^init"], T=Type(FLOAT))
    g.node("chain/1", "StopGradient", ["chain/0"], T=Type(FLOAT))
    g.node("chain/0", "Identity", ["a"], T=Type(FLOAT))
    g.node("pair", "IdentityN", ["a", "b", "^init"], T=[])
    g.graph.node[-1].attr["T"].list.type.extend([FLOAT, FLOAT])
    g.node("init", "NoOp", ["^a"])
    g.placeholder("a", [2, 3])
    g.placeholder("b", [2, 3])
    return g


def elementwise(w) -> GraphBuilder:
    """Arithmetic and activations, and a Reshape with an int32 shape."""
    g = GraphBuilder()
    g.placeholder("x", [2, 3])
    g.placeholder("y", [2, 3])
    g.const("c", w["ew_c"])
    t = Type(FLOAT)
    g.node("add", "AddV2", ["x", "c"], T=t)
    g.node("mul", "Mul", ["add", "y"], T=t)
    g.node("div", "RealDiv", ["mul", "c"], T=t)
    g.node("max", "Maximum", ["div", "x"], T=t)
    g.node("min", "Minimum", ["max", "y"], T=t)
    g.node("sqdiff", "SquaredDifference", ["min", "x"], T=t)
    g.node("rsqrt", "Rsqrt", ["sqdiff"], T=t)
    g.node("square", "Square", ["y"], T=t)
    g.node("sigmoid", "Sigmoid", ["square"], T=t)
    g.node("tanh", "Tanh", ["x"], T=t)
    g.node("leaky", "LeakyRelu", ["tanh"], T=t, alpha=0.3)
    g.node("sum", "Add", ["sigmoid", "leaky"], T=t)
    g.node("sqrt", "Sqrt", ["square"], T=t)
    g.node("total", "Sub", ["sum", "sqrt"], T=t)
    g.const("shape", np.array([3, 2], np.int32))
    g.node("reshape", "Reshape", ["total", "shape"], T=t, Tshape=Type(INT32))
    g.node("relu", "Relu", ["rsqrt"], T=t)
    return g


def const_encodings(w) -> GraphBuilder:
    """Const tensors in each encoding TensorFlow writes, each returned through an Identity."""
    g = GraphBuilder()
    cases = {
        "content": (w["content"], "content"),
        "floats": (w["content"], "typed"),
        "splat": (np.full((2, 3), 1.5, np.float32), "splat"),
        "partial": (np.array([1, 2, 3, 3, 3], np.int32), "partial"),
        "doubles": (w["doubles"], "typed"),
        "ints": (np.array([[1, -2], [3, 4]], np.int32), "typed"),
        "int64s": (np.array([5, -6, 1 << 40], np.int64), "typed"),
        "bools": (np.array([True, False, True]), "typed"),
        "halves": (w["halves"], "typed"),
        "bfloats": (w["bfloats"], "typed"),
        "zeros": (np.zeros((2, 2), np.float32), "empty"),
    }
    for name, (array, encoding) in cases.items():
        node = g.const(
            f"{name}/value", array, "typed" if encoding == "empty" else encoding
        )
        if encoding == "empty":
            node.attr["value"].tensor.ClearField("float_val")
        g.node(name, "Identity", [f"{name}/value"], T=Type(TYPE_OF[array.dtype]))
    return g


def unsupported(w) -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("x", [2])
    g.node("a", "Foo", ["x"])
    g.node("b", "Foo", ["a"])
    g.node("c", "Bar", ["b"], depth=3)
    g.node("d", "Foo", ["c"])
    return g


def no_shape(w) -> GraphBuilder:
    g = GraphBuilder()
    g.placeholder("images", None)
    g.node("relu", "Relu", ["images"], T=Type(FLOAT))
    return g


FIXTURE_GRAPHS = {
    "conv_bn_relu6.pb": conv_bn_relu6,
    "depthwise.pb": depthwise,
    "conv_nchw.pb": conv_nchw,
    "bias_add.pbtxt": bias_add,
    "identity_control.pbtxt": identity_control,
    "elementwise.pbtxt": elementwise,
    "const_encodings.pbtxt": const_encodings,
    "unsupported.pbtxt": unsupported,
    "no_shape.pbtxt": no_shape,
}
FILECHECK_GRAPHS = {
    "conv.pbtxt": conv_nchw,
    "depthwise.pbtxt": depthwise,
    "norm.pbtxt": conv_bn_relu6,
    "elementwise.pbtxt": elementwise,
    "bias_add.pbtxt": bias_add,
    "identity_control.pbtxt": identity_control,
    "consts.pbtxt": const_encodings,
}


def main() -> None:
    w = weights()
    for name, build in FIXTURE_GRAPHS.items():
        build(w).write(FIXTURES / name)
    for name, build in FILECHECK_GRAPHS.items():
        build(w).write(FILECHECK_INPUTS / name)


if __name__ == "__main__":
    main()
