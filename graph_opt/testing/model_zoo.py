"""Generated ONNX models with seeded random weights: ResNet-, MobileNetV2-, UNet- and
BERT-style graphs and deep Conv+BN+Relu chains, at any size, without downloads."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
IR_VERSION = 8


class GraphBuilder:
    """Appends nodes and seeded initializers; `finish` makes a checked ModelProto."""

    def __init__(self, seed: int = 0):
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.initializers: list[onnx.TensorProto] = []
        self.count = 0

    def name(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def weight(self, shape, scale: float = 0.1, positive: bool = False) -> str:
        data = (
            self.rng.uniform(0.5, 1.5, shape)
            if positive
            else self.rng.standard_normal(shape) * scale
        )
        name = self.name("w")
        self.initializers.append(numpy_helper.from_array(data.astype(np.float32), name))
        return name

    def const(self, array: np.ndarray) -> str:
        name = self.name("c")
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], **attrs) -> str:
        out = self.name(op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def conv_bn(
        self,
        x: str,
        c_in: int,
        c_out: int,
        kernel: int = 3,
        stride: int = 1,
        group: int = 1,
    ) -> str:
        w = self.weight(
            (c_out, c_in // group, kernel, kernel),
            scale=1 / np.sqrt(c_in * kernel * kernel / group),
        )
        pad = kernel // 2
        y = self.op("Conv", [x, w], pads=[pad] * 4, strides=[stride] * 2, group=group)
        params = [
            self.weight((c_out,), positive=True),
            self.weight((c_out,)),
            self.weight((c_out,)),
            self.weight((c_out,), positive=True),
        ]
        return self.op("BatchNormalization", [y, *params], epsilon=1e-5)

    def finish(self, inputs, outputs, name: str = "model") -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.initializers)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
        model.ir_version = IR_VERSION
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True)
        known = {
            v.name: v for v in [*inferred.graph.value_info, *inferred.graph.output]
        }
        for output in model.graph.output:
            if not output.type.tensor_type.HasField("shape") and output.name in known:
                output.CopyFrom(known[output.name])
        onnx.checker.check_model(model)
        return model


def _image_input(channels: int, size: int) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(
        "input", TensorProto.FLOAT, [1, channels, size, size]
    )


def _output() -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info("output", TensorProto.FLOAT, None)


def classifier_head(b: GraphBuilder, x: str, channels: int, classes: int) -> str:
    pooled = b.op("GlobalAveragePool", [x])
    flat = b.op("Flatten", [pooled], axis=1)
    return b.op(
        "Gemm", [flat, b.weight((classes, channels)), b.weight((classes,))], transB=1
    )


def resnet(
    blocks: tuple[int, ...] = (3, 4, 6, 3),
    width: int = 64,
    size: int = 224,
    classes: int = 1000,
    seed: int = 0,
) -> onnx.ModelProto:
    """A ResNet-50-shaped network (bottleneck blocks) with BN after every conv."""
    b = GraphBuilder(seed)
    x = b.op("Relu", [b.conv_bn("input", 3, width, kernel=7, stride=2)])
    x = b.op("MaxPool", [x], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    channels = width
    for stage, count in enumerate(blocks):
        mid = width * 2**stage
        out = mid * 4
        for i in range(count):
            stride = 2 if i == 0 and stage > 0 else 1
            y = b.op("Relu", [b.conv_bn(x, channels, mid, kernel=1)])
            y = b.op("Relu", [b.conv_bn(y, mid, mid, kernel=3, stride=stride)])
            y = b.conv_bn(y, mid, out, kernel=1)
            shortcut = (
                b.conv_bn(x, channels, out, kernel=1, stride=stride) if i == 0 else x
            )
            x = b.op("Relu", [b.op("Add", [y, shortcut])])
            channels = out
    y = classifier_head(b, x, channels, classes)
    b.nodes[-1].output[0] = "output"
    return b.finish([_image_input(3, size)], [_output()], "resnet")


def mobilenet_v2(
    width: int = 32,
    size: int = 224,
    classes: int = 1000,
    seed: int = 0,
    expansions: int = 7,
) -> onnx.ModelProto:
    """MobileNetV2-style inverted residuals: 1x1 expand, depthwise 3x3, Relu6 (Clip), 1x1 project."""
    b = GraphBuilder(seed)
    zero, six = b.const(np.float32(0)), b.const(np.float32(6))

    def relu6(v: str) -> str:
        return b.op("Clip", [v, zero, six])

    x = relu6(b.conv_bn("input", 3, width, stride=2))
    channels = width
    for i in range(expansions):
        out = width * (1 + i // 2)
        stride = 2 if i % 3 == 2 else 1
        hidden = channels * 6
        y = relu6(b.conv_bn(x, channels, hidden, kernel=1))
        y = relu6(b.conv_bn(y, hidden, hidden, stride=stride, group=hidden))
        y = b.conv_bn(y, hidden, out, kernel=1)
        x = b.op("Add", [x, y]) if stride == 1 and out == channels else y
        channels = out
    y = classifier_head(b, x, channels, classes)
    b.nodes[-1].output[0] = "output"
    return b.finish([_image_input(3, size)], [_output()], "mobilenet_v2")


def unet(width: int = 8, size: int = 16, seed: int = 0) -> onnx.ModelProto:
    """A two-level UNet: Conv+BN+Relu, a stride-2 Conv+BN+Relu down, a 2x2
    stride-2 ConvTranspose (biased, then BN and Relu) up, the skip concatenated,
    Conv+BN+Relu and a 1x1 Conv head with two output channels."""
    b = GraphBuilder(seed)
    skip = b.op("Relu", [b.conv_bn("input", 3, width)])
    down = b.op("Relu", [b.conv_bn(skip, width, 2 * width, stride=2)])
    w = b.weight((2 * width, width, 2, 2), scale=1 / np.sqrt(2 * width))
    up = b.op("ConvTranspose", [down, w, b.weight((width,))], strides=[2, 2])
    params = [b.weight((width,), positive=True), b.weight((width,)),
              b.weight((width,)), b.weight((width,), positive=True)]  # fmt: skip
    up = b.op("Relu", [b.op("BatchNormalization", [up, *params], epsilon=1e-5)])
    x = b.op("Relu", [b.conv_bn(b.op("Concat", [up, skip], axis=1), 2 * width, width)])
    b.op("Conv", [x, b.weight((2, width, 1, 1)), b.weight((2,))])
    b.nodes[-1].output[0] = "output"
    return b.finish([_image_input(3, size)], [_output()], "unet")


def bert_encoder(
    layers: int = 2, hidden: int = 64, heads: int = 4, seq: int = 16, seed: int = 0
) -> onnx.ModelProto:
    """A BERT-like encoder: attention with Shape-computed reshapes, decomposed LayerNorm and Gelu, Identity nodes."""
    b = GraphBuilder(seed)
    x = encoder_layers(b, "input", layers, hidden, heads, seq)
    b.nodes.append(helper.make_node("Identity", [x], ["output"], name="output"))
    return b.finish(
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, seq, hidden])],
        [_output()],
        "bert",
    )


def vit(
    layers: int = 12,
    hidden: int = 768,
    heads: int = 12,
    patch: int = 16,
    size: int = 224,
    classes: int = 1000,
    seed: int = 0,
) -> onnx.ModelProto:
    """A ViT (ViT-B/16 by default): patch-embedding conv, class token, position
    embedding, `encoder_layers`, classifier on the class token."""
    b = GraphBuilder(seed)
    patches = (size // patch) ** 2
    x = b.op(
        "Conv",
        ["input", b.weight((hidden, 3, patch, patch)), b.weight((hidden,))],
        strides=[patch, patch],
    )
    x = b.op("Reshape", [x, b.const(np.array([1, hidden, patches], dtype=np.int64))])
    x = b.op("Transpose", [x], perm=[0, 2, 1])
    x = b.op("Concat", [b.weight((1, 1, hidden)), x], axis=1)
    x = b.op("Add", [x, b.weight((1, patches + 1, hidden))])
    x = encoder_layers(b, x, layers, hidden, heads, patches + 1)
    token = b.op("Gather", [x, b.const(np.array(0, dtype=np.int64))], axis=1)
    b.op("Gemm", [token, b.weight((classes, hidden)), b.weight((classes,))], transB=1)
    b.nodes[-1].output[0] = "output"
    return b.finish([_image_input(3, size)], [_output()], "vit")


def encoder_layers(
    b: GraphBuilder, x: str, layers: int, hidden: int, heads: int, seq: int
) -> str:
    """BERT's post-norm transformer layers on `x` ([1, seq, hidden])."""
    head = hidden // heads

    def dense(v: str, c_in: int, c_out: int) -> str:
        return b.op(
            "Add", [b.op("MatMul", [v, b.weight((c_in, c_out))]), b.weight((c_out,))]
        )

    def layer_norm(v: str) -> str:
        mean = b.op("ReduceMean", [v], axes=[-1])
        centered = b.op("Sub", [v, mean])
        var = b.op(
            "ReduceMean", [b.op("Pow", [centered, b.const(np.float32(2))])], axes=[-1]
        )
        std = b.op("Sqrt", [b.op("Add", [var, b.const(np.float32(1e-5))])])
        return b.op(
            "Add",
            [
                b.op(
                    "Mul",
                    [b.op("Div", [centered, std]), b.weight((hidden,), positive=True)],
                ),
                b.weight((hidden,)),
            ],
        )

    def gelu(v: str) -> str:
        inner = b.op("Erf", [b.op("Div", [v, b.const(np.float32(np.sqrt(2)))])])
        return b.op(
            "Mul",
            [
                b.op("Mul", [v, b.op("Add", [inner, b.const(np.float32(1))])]),
                b.const(np.float32(0.5)),
            ],
        )

    def split_heads(v: str) -> str:
        batch = b.op(
            "Gather",
            [b.op("Shape", [v]), b.const(np.array([0], dtype=np.int64))],
            axis=0,
        )
        shape = b.op(
            "Concat",
            [batch, b.const(np.array([seq, heads, head], dtype=np.int64))],
            axis=0,
        )
        return b.op("Transpose", [b.op("Reshape", [v, shape])], perm=[0, 2, 1, 3])

    for _ in range(layers):
        x = b.op("Identity", [x])
        q, k, v = (split_heads(dense(x, hidden, hidden)) for _ in range(3))
        scores = b.op(
            "Div",
            [
                b.op("MatMul", [q, b.op("Transpose", [k], perm=[0, 1, 3, 2])]),
                b.const(np.float32(np.sqrt(head))),
            ],
        )
        context = b.op("MatMul", [b.op("Softmax", [scores], axis=-1), v])
        merged = b.op(
            "Reshape",
            [
                b.op("Transpose", [context], perm=[0, 2, 1, 3]),
                b.const(np.array([1, seq, hidden], dtype=np.int64)),
            ],
        )
        x = layer_norm(b.op("Add", [x, dense(merged, hidden, hidden)]))
        x = layer_norm(
            b.op(
                "Add",
                [x, dense(gelu(dense(x, hidden, hidden * 4)), hidden * 4, hidden)],
            )
        )
    return x


def conv_chain(
    nodes: int, channels: int = 4, size: int = 8, seed: int = 0
) -> onnx.ModelProto:
    """A deep chain of Conv+BN+Relu (with an Identity every third block), about `nodes` nodes."""
    b = GraphBuilder(seed)
    x = "input"
    block = 0
    while len(b.nodes) < nodes:
        x = b.op("Relu", [b.conv_bn(x, channels, channels, kernel=1)])
        block += 1
        if block % 3 == 0:
            x = b.op("Identity", [x])
    b.nodes.append(helper.make_node("Identity", [x], ["output"], name="output"))
    return b.finish([_image_input(channels, size)], [_output()], "conv_chain")


def small_models(chain_nodes: int) -> dict[str, Callable[[], onnx.ModelProto]]:
    """Reduced ResNet, MobileNetV2 and BERT encoder and a `chain_nodes` conv chain, for tests."""
    return {
        "resnet": lambda: resnet(blocks=(1, 1), width=8, size=32, classes=10),
        "mobilenet_v2": lambda: mobilenet_v2(
            width=8, size=32, classes=10, expansions=4
        ),
        "bert": lambda: bert_encoder(layers=1),
        "conv_chain": lambda: conv_chain(chain_nodes),
    }
