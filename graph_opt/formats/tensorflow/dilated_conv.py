"""SpaceToBatchND -> Conv2D / DepthwiseConv2dNative (VALID) -> BatchToSpaceND, the
form tf.nn.convolution gives a dilated convolution, as one dilated convolution
node, as TensorFlow's own converters and tf2onnx do: the batch norm after it then
folds like any other. The fused node takes the BatchToSpaceND's name; the
SpaceToBatchND and the inner convolution stay for any other reader (and are
imported only if something needs them)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graph_opt.dialects.nn.dense import to_numpy
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.schema import NodeDef
from graph_opt.formats.tensorflow.tensors import dense_from_tensor

CONVOLUTIONS = ("Conv2D", "DepthwiseConv2dNative")


def fuse_dilated_convs(nodes: Sequence[NodeDef]) -> Sequence[NodeDef]:
    """The nodes, each BatchToSpaceND that ends the pattern replaced by the
    dilated convolution (the same sequence when there is none)."""
    if not any(node.op == "BatchToSpaceND" for node in nodes):
        return nodes
    by_name = {node.name: node for node in nodes}
    return [
        (_dilated_conv(node, by_name) if node.op == "BatchToSpaceND" else None) or node
        for node in nodes
    ]


def _data_inputs(node: NodeDef) -> list[str]:
    return [i for i in node.input if not i.startswith("^")]


def _producer(ref: str, by_name: dict[str, NodeDef]) -> NodeDef | None:
    """The node whose output 0 `ref` is, or None (another output, unknown node)."""
    name = ref.removesuffix(":0")
    return None if ":" in name else by_name.get(name)


def _constant(ref: str, by_name: dict[str, NodeDef]) -> np.ndarray | None:
    node = _producer(ref, by_name)
    while node is not None and node.op == "Identity" and _data_inputs(node):
        node = _producer(_data_inputs(node)[0], by_name)
    if node is None or node.op != "Const" or "value" not in node.attr:
        return None
    try:
        return to_numpy(dense_from_tensor(node.attr["value"].tensor, node.name))
    except FrontendError:
        return None


def _attr_ints(node: NodeDef, name: str, default: list[int]) -> list[int]:
    return list(node.attr[name].list.i) if name in node.attr else default


def _plain_valid_conv(conv: NodeDef | None) -> bool:
    """A VALID NHWC convolution without strides or dilations."""
    if conv is None or conv.op not in CONVOLUTIONS:
        return False
    layout = conv.attr["data_format"].s if "data_format" in conv.attr else b"NHWC"
    return (
        layout == b"NHWC"
        and "padding" in conv.attr
        and conv.attr["padding"].s == b"VALID"
        and _attr_ints(conv, "strides", [1] * 4) == [1] * 4
        and _attr_ints(conv, "dilations", [1] * 4) == [1] * 4
    )


def _dilated_conv(b2s: NodeDef, by_name: dict[str, NodeDef]) -> NodeDef | None:
    """The fused node, or None when the pattern does not hold."""
    b2s_inputs = _data_inputs(b2s)
    conv = _producer(b2s_inputs[0], by_name) if len(b2s_inputs) == 3 else None
    if not _plain_valid_conv(conv) or len(_data_inputs(conv)) != 2:
        return None
    s2b = _producer(_data_inputs(conv)[0], by_name)
    if s2b is None or s2b.op != "SpaceToBatchND" or len(_data_inputs(s2b)) != 3:
        return None
    block = _constant(b2s_inputs[1], by_name)
    s2b_block = _constant(_data_inputs(s2b)[1], by_name)
    paddings = _constant(_data_inputs(s2b)[2], by_name)
    crops = _constant(b2s_inputs[2], by_name)
    if any(a is None for a in (block, s2b_block, paddings, crops)):
        return None
    if block.shape != (2,) or not np.array_equal(block, s2b_block):
        return None
    if paddings.shape != (2, 2) or crops.shape != (2, 2):
        return None
    pads = paddings - crops
    if (pads < 0).any():
        return None
    fused = NodeDef()
    fused.CopyFrom(conv)
    fused.name = b2s.name
    del fused.input[:]
    fused.input.extend([_data_inputs(s2b)[0], _data_inputs(conv)[1]])
    controls = [i for n in (s2b, conv, b2s) for i in n.input if i.startswith("^")]
    fused.input.extend(dict.fromkeys(controls))
    fused.attr["dilations"].list.i[:] = [1, int(block[0]), int(block[1]), 1]
    if pads.any():
        fused.attr["padding"].s = b"EXPLICIT"
        fused.attr["explicit_paddings"].list.i[:] = [
            0,
            0,
            *pads.reshape(-1).tolist(),
            0,
            0,
        ]
    return fused
