"""Small graphs with long skip connections for the memory passes' tests: a
UNet-like encoder/decoder whose skips cross a wide bottleneck, and a
ResNet-like chain of residual blocks."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper
from xdsl.ir import Operation

from graph_opt.entry import entry_function
from graph_opt.formats.onnx.importer import import_model


class _Graph:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.weights: list[onnx.TensorProto] = []

    def weight(self, name: str, shape: tuple[int, ...]) -> str:
        scale = 1 / np.sqrt(np.prod(shape[1:]))
        value = (self.rng.standard_normal(shape) * scale).astype(np.float32)
        self.weights.append(numpy_helper.from_array(value, name))
        return name

    def node(self, op_type: str, inputs: list[str], name: str, **attrs) -> str:
        self.nodes.append(helper.make_node(op_type, inputs, [name], name=name, **attrs))
        return name

    def conv(self, x: str, cin: int, cout: int, name: str, kernel: int = 3) -> str:
        w = self.weight(f"{name}_w", (cout, cin, kernel, kernel))
        pad = kernel // 2
        conv = self.node("Conv", [x, w], f"{name}_conv", pads=[pad] * 4)
        return self.node("Relu", [conv], name)

    def up(self, x: str, cin: int, cout: int, name: str) -> str:
        w = self.weight(f"{name}_w", (cin, cout, 2, 2))
        return self.node("ConvTranspose", [x, w], name, strides=[2, 2])

    def branches(self, x: str, cin: int, cout: int, count: int, name: str) -> str:
        """`count` parallel branches (1x1 conv expanding 4x, 1x1 conv back),
        concatenated and mixed by a 1x1 conv: the order of the branches'
        ops decides how many expansions are live at once."""
        outs = []
        for b in range(count):
            wide = self.conv(x, cin, 4 * cout, f"{name}_br{b}_wide", kernel=1)
            outs.append(self.conv(wide, 4 * cout, cout, f"{name}_br{b}", kernel=1))
        cat = self.node("Concat", outs, f"{name}_cat", axis=1)
        return self.conv(cat, count * cout, cout, name, kernel=1)

    def model(self, x_shape, out: str, out_shape) -> onnx.ModelProto:
        graph = helper.make_graph(
            self.nodes,
            "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
            [helper.make_tensor_value_info(out, TensorProto.FLOAT, out_shape)],
            self.weights,
        )
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def unet_like(
    size: int = 16, channels=(4, 8), wide: int = 256, branches: int = 0, seed: int = 0
):
    """Encoder convs (kept as skips) and max pools, a wide 1x1 bottleneck,
    transposed-conv upsampling and concatenations with the skips; with
    `branches`, each encoder level is that many parallel branches."""
    g = _Graph(seed)
    x, cin, skips = "x", 3, []
    for level, c in enumerate(channels):
        if branches:
            x = g.branches(x, cin, c, branches, f"enc{level}")
        else:
            x = g.conv(x, cin, c, f"enc{level}")
        skips.append((x, c))
        x = g.node("MaxPool", [x], f"pool{level}", kernel_shape=[2, 2], strides=[2, 2])
        cin = c
    x = g.conv(x, cin, wide, "wide0", kernel=1)
    x = g.conv(x, wide, wide, "wide1", kernel=1)
    x, cin = g.conv(x, wide, cin, "narrow", kernel=1), cin
    for level in reversed(range(len(channels))):
        skip, c = skips[level]
        x = g.up(x, cin, c, f"up{level}")
        x = g.node("Concat", [x, skip], f"cat{level}", axis=1)
        x = g.conv(x, 2 * c, c, f"dec{level}")
        cin = c
    out = g.node("Conv", [x, g.weight("head_w", (1, cin, 1, 1))], "out")
    return import_model(g.model([1, 3, size, size], out, [1, 1, size, size]))


def resnet_like(
    size: int = 16, width: int = 8, blocks: int = 2, expansion: int = 4, seed: int = 0
):
    """A stem conv and bottleneck residual blocks: 1x1 conv expanding the
    channels, 3x3 conv, 1x1 conv back, add the block's input, relu."""
    g = _Graph(seed)
    x = g.conv("x", 3, width, "stem")
    wide = width * expansion
    for b in range(blocks):
        h = g.conv(x, width, wide, f"b{b}_a", kernel=1)
        h = g.conv(h, wide, wide, f"b{b}_b")
        h = g.node("Conv", [h, g.weight(f"b{b}_c_w", (width, wide, 1, 1))], f"b{b}_c")
        h = g.node("Add", [h, x], f"b{b}_add")
        x = g.node("Relu", [h], f"b{b}_out")
    return import_model(g.model([1, 3, size, size], x, [1, width, size, size]))


def training_like(size: int = 8, width: int = 8, layers: int = 3, seed: int = 0):
    """A forward pass of conv, batch norm and relu layers, then a backward-like
    pass reading each layer's batch norm output and activation in reverse, as
    gradients do: the activations are live across the whole graph."""
    g = _Graph(seed)
    x, cin, kept = "x", 3, []
    for i in range(layers):
        w = g.weight(f"l{i}_w", (width, cin, 3, 3))
        conv = g.node("Conv", [x, w], f"l{i}_conv", pads=[1] * 4)
        stats = [g.weight(f"l{i}_{n}", (width,)) for n in ("scale", "bias", "mean")]
        var = f"l{i}_var"
        g.weights.append(numpy_helper.from_array(np.ones(width, np.float32), var))
        bn = g.node("BatchNormalization", [conv, *stats, var], f"l{i}_bn")
        x = g.node("Relu", [bn], f"l{i}_relu")
        kept.append((bn, x))
        cin = width
    grad = x
    for i, (bn, act) in reversed(list(enumerate(kept))):
        grad = g.node("Mul", [grad, act], f"grad{i}_act")
        grad = g.node("Add", [grad, bn], f"grad{i}_bn")
    return import_model(g.model([1, 3, size, size], grad, [1, width, size, size]))


def random_topological_order(module, seed: int) -> None:
    """Put the entry function's ops in a random order that respects their data
    dependencies (the terminator stays last)."""
    block = entry_function(module).body.block
    ops = list(block.ops)
    terminator = ops.pop()
    rng = np.random.default_rng(seed)
    done: set = set()
    order = []
    while len(order) < len(ops):
        ready = [
            op
            for op in ops
            if op not in done
            and all(
                not isinstance(v.owner, Operation) or v.owner in done
                for v in op.operands
            )
        ]
        pick = ready[rng.integers(len(ready))]
        done.add(pick)
        order.append(pick)
    for op in [*order, terminator]:
        block.detach_op(op)
        block.add_op(op)


def random_inputs(module, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal(t.get_shape()).astype(np.float32)
        for t in entry_function(module).function_type.inputs.data
    ]
