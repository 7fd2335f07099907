"""Random valid TensorFlow GraphDefs, built with the project's schema (no
TensorFlow): NHWC conv trunks with bias adds, fused batch norms, activations,
residuals and shared weights through Identity reads, a free batch dim, then a
dense head."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from graph_opt.formats.tensorflow.schema import DATA_TYPES, GraphDef
from graph_opt.testing.graph_defs import Type, set_attr

FLOAT = DATA_TYPES["DT_FLOAT"]
INT32 = DATA_TYPES["DT_INT32"]


@dataclass(frozen=True)
class Value:
    name: str
    shape: tuple[int, ...]
    """NHWC; dim 0 is the batch (free in the graph)."""


@dataclass
class GraphDefBuilder:
    rng: np.random.Generator
    graph: GraphDef = field(default_factory=GraphDef)
    shared: dict[tuple[int, ...], str] = field(default_factory=dict)
    count: int = 0

    def node(self, op: str, inputs: list[str], **attrs) -> str:
        self.count += 1
        name = f"{op.lower()}_{self.count}"
        node = self.graph.node.add(name=name, op=op)
        node.input.extend(inputs)
        for key, value in attrs.items():
            set_attr(node.attr[key], value)
        return name

    def const(self, array: np.ndarray) -> str:
        array = np.asarray(array)
        dtype = FLOAT if array.dtype == np.float32 else INT32
        name = self.node("Const", [], dtype=Type(dtype))
        tensor = self.graph.node[-1].attr["value"].tensor
        tensor.dtype = dtype
        for size in array.shape:
            tensor.tensor_shape.dim.add(size=size)
        tensor.tensor_content = array.tobytes()
        return name

    def weight(self, shape: tuple[int, ...], scale: float = 0.3) -> str:
        """A float weight read through an Identity (a frozen ReadVariableOp); one
        of a shape already made is reused half the time."""
        if shape in self.shared and self.rng.random() < 0.5:
            return self.shared[shape]
        data = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        read = self.node("Identity", [self.const(data)], T=Type(FLOAT))
        self.shared[shape] = read
        return read


T = Type(FLOAT)


def _step(b: GraphDefBuilder, x: Value, pool: list[Value]) -> Value:
    n, h, w, c = x.shape
    choice = b.rng.integers(0, 8)
    if choice <= 1:
        out_c = int(b.rng.choice([c, 4, 8]))
        k = int(b.rng.choice([1, 3]))
        stride = int(b.rng.choice([1, 2])) if h >= 4 else 1
        fits = 1 < k <= min(h, w)
        padding = str(b.rng.choice(["SAME", "VALID"])) if fits else "SAME"
        y = b.node("Conv2D", [x.name, b.weight((k, k, c, out_c))], T=T,
                   strides=[1, stride, stride, 1], padding=padding,
                   data_format="NHWC", dilations=[1, 1, 1, 1])  # fmt: skip
        if padding == "SAME":
            size = -(-h // stride), -(-w // stride)
        else:
            size = (h - k) // stride + 1, (w - k) // stride + 1
        if b.rng.random() < 0.7:
            y = b.node("BiasAdd", [y, b.weight((out_c,), 0.1)], T=T, data_format="NHWC")
        return Value(y, (n, *size, out_c))
    if choice == 2:
        params = [b.weight((c,), 0.2) for _ in range(3)]
        var = b.const(b.rng.uniform(0.5, 1.5, (c,)).astype(np.float32))
        y = b.node("FusedBatchNormV3", [x.name, *params, var], T=T, U=T,
                   epsilon=0.001, is_training=False, data_format="NHWC")  # fmt: skip
        return Value(y, x.shape)
    if choice == 3:
        op = str(b.rng.choice(["Relu", "Relu6", "Sigmoid", "Tanh", "Elu"]))
        return Value(b.node(op, [x.name], T=T), x.shape)
    if choice == 4:
        same = [v for v in pool if v.shape == x.shape and v.name != x.name]
        if same:
            other = same[int(b.rng.integers(len(same)))]
            op = str(b.rng.choice(["AddV2", "Mul", "Sub", "Maximum"]))
            return Value(b.node(op, [x.name, other.name], T=T), x.shape)
        return Value(b.node("Relu", [x.name], T=T), x.shape)
    if choice == 5 and h >= 2:
        op = str(b.rng.choice(["MaxPool", "AvgPool"]))
        y = b.node(op, [x.name], T=T, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1],
                   padding="VALID", data_format="NHWC")  # fmt: skip
        return Value(y, (n, h // 2, w // 2, c))
    if choice == 6:
        same = [v for v in pool if v.shape[1:3] == x.shape[1:3]]
        other = same[int(b.rng.integers(len(same)))]
        axis = b.const(np.int32(3))
        y = b.node("ConcatV2", [x.name, other.name, axis], T=T, N=2,
                   Tidx=Type(INT32))  # fmt: skip
        return Value(y, (n, h, w, c + other.shape[3]))
    scale = b.node(
        "Mul", [b.weight((c,)), b.const(np.full((c,), 2.0, np.float32))], T=T
    )
    return Value(b.node("Mul", [x.name, scale], T=T), x.shape)


def random_graph_def(seed: int) -> tuple[GraphDef, list[str]]:
    """A random GraphDef with placeholder `x` [?, H, W, C], and its output names."""
    rng = np.random.default_rng(seed)
    b = GraphDefBuilder(rng)
    c, size = int(rng.choice([1, 3])), int(rng.choice([4, 6, 8]))
    node = b.graph.node.add(name="x", op="Placeholder")
    node.attr["dtype"].type = FLOAT
    for dim in (-1, size, size, c):
        node.attr["shape"].shape.dim.add(size=dim)
    x = Value("x", (2, size, size, c))
    pool = [x]
    for _ in range(int(rng.integers(3, 12))):
        pool.append(_step(b, pool[-1], pool))
    last = pool[-1]
    axes = b.const(np.array([1, 2], np.int32))
    flat = b.node("Mean", [last.name, axes], T=T, keep_dims=False, Tidx=Type(INT32))
    classes = int(rng.choice([3, 5]))
    logits = b.node("MatMul", [flat, b.weight((last.shape[3], classes))], T=T,
                    transpose_a=False, transpose_b=False)  # fmt: skip
    logits = b.node("BiasAdd", [logits, b.weight((classes,), 0.1)], T=T)
    outputs = [b.node("Softmax", [logits], T=T) if rng.random() < 0.5 else logits]
    if rng.random() < 0.3:
        outputs.append(pool[int(rng.integers(1, len(pool)))].name)
    return b.graph, list(dict.fromkeys(outputs))
