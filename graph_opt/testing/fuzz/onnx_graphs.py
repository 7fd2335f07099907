"""Random valid ONNX graphs: convolutional trunks with fan-out, residuals, shared
weights, foldable constant subgraphs and decomposed activations, then a dense
head; a symbolic batch dim; opsets 13 to 21.

Every graph is valid by construction (onnxruntime loads it) and small enough to
run in milliseconds; `random_model(seed)` is deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSETS = range(13, 22)
BATCH = "batch"
"""The symbolic dim of the input; the fuzzer runs the graphs with batch 2."""


@dataclass(frozen=True)
class Value:
    name: str
    shape: tuple[int, ...]
    """Static dims; dim 0 is the batch (symbolic in the model)."""


@dataclass
class OnnxGraphBuilder:
    rng: np.random.Generator
    opset: int
    nodes: list[onnx.NodeProto] = field(default_factory=list)
    initializers: list[onnx.TensorProto] = field(default_factory=list)
    shared: dict[tuple[int, ...], str] = field(default_factory=dict)
    count: int = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def node(self, op_type: str, inputs: list[str], **attrs) -> str:
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def const(self, array: np.ndarray, prefix: str = "c") -> str:
        name = self.name(prefix)
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def weight(self, shape: tuple[int, ...], scale: float = 0.3) -> str:
        """A float weight; one of a shape already made is reused half the time."""
        if shape in self.shared and self.rng.random() < 0.5:
            return self.shared[shape]
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.shared[shape] = self.const(data, "w")
        return self.shared[shape]

    def positive(self, shape: tuple[int, ...]) -> str:
        return self.const(self.rng.uniform(0.5, 1.5, shape).astype(np.float32), "p")

    def axes(self, axes: list[int], attr_until: int) -> dict | list:
        """Axes as an attribute before opset `attr_until`, else as an input."""
        if self.opset < attr_until:
            return {"axes": axes}
        return [self.const(np.array(axes, np.int64), "axes")]


def _conv_step(b: OnnxGraphBuilder, x: Value, pool: list[Value]) -> Value:
    n, c, h, w = x.shape
    choice = b.rng.integers(0, 14)
    if choice <= 2:  # conv (+ bias), grouped or not, maybe strided and padded
        out_c = int(b.rng.choice([c, 4, 6, 8]))
        group = c if out_c == c and b.rng.random() < 0.3 else 1
        k = int(b.rng.choice([1, 3]))
        stride = int(b.rng.choice([1, 1, 2])) if h >= 4 else 1
        pad = k // 2
        inputs = [x.name, b.weight((out_c, c // group, k, k))]
        if b.rng.random() < 0.7:
            inputs.append(b.weight((out_c,), 0.1))
        y = b.node("Conv", inputs, kernel_shape=[k, k], strides=[stride] * 2,
                   pads=[pad] * 4, group=group)  # fmt: skip
        size = (h + 2 * pad - k) // stride + 1, (w + 2 * pad - k) // stride + 1
        return Value(y, (n, out_c, *size))
    if choice == 3:  # inference batch norm (fold-bn)
        params = [b.weight((c,), 0.2), b.weight((c,), 0.2), b.weight((c,), 0.2)]
        y = b.node("BatchNormalization", [x.name, params[0], params[1], params[2],
                   b.positive((c,))], epsilon=1e-3)  # fmt: skip
        return Value(y, x.shape)
    if choice == 4:  # an activation
        op = str(
            b.rng.choice(["Relu", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "Elu"])
        )
        return Value(b.node(op, [x.name]), x.shape)
    if choice == 5:  # relu6 as Clip (fuse-ops), bounds as inputs
        lo, hi = b.const(np.float32(0)), b.const(np.float32(6))
        return Value(b.node("Clip", [x.name, lo, hi]), x.shape)
    if choice == 6:  # x * sigmoid(x) (silu) or x * relu6(x + 3) / 6 (hard swish)
        if b.rng.random() < 0.5:
            return Value(b.node("Mul", [x.name, b.node("Sigmoid", [x.name])]), x.shape)
        three, lo, hi = (
            b.const(np.float32(3)),
            b.const(np.float32(0)),
            b.const(np.float32(6)),
        )
        clip = b.node("Clip", [b.node("Add", [x.name, three]), lo, hi])
        return Value(
            b.node("Div", [b.node("Mul", [x.name, clip]), b.const(np.float32(6))]),
            x.shape,
        )
    if choice == 7:  # residual: add or mul a same-shape value from earlier (fan-out)
        same = [v for v in pool if v.shape == x.shape and v.name != x.name]
        if same:
            other = same[int(b.rng.integers(len(same)))]
            op = str(b.rng.choice(["Add", "Add", "Mul", "Sub", "Max"]))
            return Value(b.node(op, [x.name, other.name]), x.shape)
        return Value(b.node("Relu", [x.name]), x.shape)
    if (
        choice == 8
    ):  # per-channel scale and shift computed from constants (fold-constants)
        scale = b.node(
            "Add", [b.weight((c, 1, 1)), b.const(np.full((c, 1, 1), 1.0, np.float32))]
        )
        return Value(
            b.node("Add", [b.node("Mul", [x.name, scale]), b.weight((1, c, 1, 1))]),
            x.shape,
        )
    if choice == 9 and h >= 2:  # pooling
        op = str(b.rng.choice(["MaxPool", "AveragePool"]))
        y = b.node(op, [x.name], kernel_shape=[2, 2], strides=[2, 2])
        return Value(y, (n, c, h // 2, w // 2))
    if choice == 10:  # concat along channels with a value of the same spatial size
        same = [v for v in pool if v.shape[2:] == x.shape[2:] and len(v.shape) == 4]
        other = same[int(b.rng.integers(len(same)))]
        y = b.node("Concat", [x.name, other.name], axis=1)
        return Value(y, (n, c + other.shape[1], h, w))
    if choice == 11:  # a transpose pair (convert-layout cancels them)
        t = b.node("Transpose", [x.name], perm=[0, 2, 3, 1])
        t = b.node("Relu", [t])
        return Value(b.node("Transpose", [t], perm=[0, 3, 1, 2]), x.shape)
    if choice == 12:  # identity and inference dropout (prune)
        op = str(b.rng.choice(["Identity", "Dropout"]))
        return Value(b.node(op, [x.name]), x.shape)
    # a shape computed at run time from the input: Shape -> Reshape back (refine-shapes)
    shape = b.node("Shape", [x.name])
    return Value(b.node("Reshape", [b.node("Relu", [x.name]), shape]), x.shape)


def _head(b: OnnxGraphBuilder, x: Value) -> Value:
    n, c = x.shape[:2]
    if b.rng.random() < 0.5:
        flat = b.node("GlobalAveragePool", [x.name])
        flat = b.node("Flatten", [flat], axis=1)
        features = c
    else:
        axes = b.axes([2, 3], 18)
        inputs = [x.name, *axes] if isinstance(axes, list) else [x.name]
        attrs = axes if isinstance(axes, dict) else {}
        flat = b.node("ReduceMean", inputs, keepdims=0, **attrs)
        features = c
    classes = int(b.rng.choice([3, 5]))
    if b.rng.random() < 0.5:
        y = b.node(
            "Gemm",
            [flat, b.weight((classes, features)), b.weight((classes,))],
            transB=1,
        )
    else:
        y = b.node("Add", [b.node("MatMul", [flat, b.weight((features, classes))]),
                           b.weight((classes,))])  # fmt: skip
    if b.rng.random() < 0.5:
        y = b.node("Softmax", [y], axis=-1)
    return Value(y, (n, classes))


def random_model(seed: int) -> onnx.ModelProto:
    """A random valid model with input `x` [batch, C, H, W] and one to three outputs."""
    rng = np.random.default_rng(seed)
    b = OnnxGraphBuilder(rng, int(rng.choice(OPSETS)))
    c, size = int(rng.choice([1, 3, 4])), int(rng.choice([4, 6, 8]))
    x = Value("x", (2, c, size, size))
    pool = [x]
    for _ in range(int(rng.integers(3, 14))):
        source = pool[-1] if rng.random() < 0.7 else pool[int(rng.integers(len(pool)))]
        if len(source.shape) != 4:
            source = pool[-1]
        pool.append(_conv_step(b, source, pool))
    outputs = [_head(b, pool[-1])]
    if rng.random() < 0.4:  # a second output read from the trunk (fan-out)
        outputs.append(pool[int(rng.integers(1, len(pool)))])
    return _model(b, x, outputs)


def _model(b: OnnxGraphBuilder, x: Value, outputs: list[Value]) -> onnx.ModelProto:
    def info(v: Value):
        return helper.make_tensor_value_info(
            v.name, TensorProto.FLOAT, [BATCH, *v.shape[1:]]
        )

    graph = helper.make_graph(
        b.nodes, "fuzz", [info(x)], [info(v) for v in dict.fromkeys(outputs, None)],
        b.initializers,
    )  # fmt: skip
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", b.opset)])
    model.ir_version = 8
    return model


def random_inputs(model: onnx.ModelProto, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    feeds = {}
    for i in model.graph.input:
        dims = [d.dim_value or 2 for d in i.type.tensor_type.shape.dim]
        feeds[i.name] = rng.standard_normal(dims).astype(np.float32)
    return feeds
