"""Small fake-quantized CNN blocks (a ResNet block, a MobileNetV2 block) in
either layout, with per-tensor or per-channel weights: the graphs the
convert-to-int, TFLite and int8 ONNX export tests share."""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp

from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import AddOp, ClipOp, ReluOp
from graph_opt.dialects.nn.fused import FusedConvOp
from graph_opt.dialects.nn.linalg import GemmOp
from graph_opt.dialects.nn.pool import GlobalAvgPoolOp, MaxPoolOp
from graph_opt.dialects.nn.shape_ops import FlattenOp
from graph_opt.testing.graph_builder import FakeQuantBuilder


def conv_props(layout: str, **props):
    if layout == "NHWC":
        props["data_layout"] = str_attr("NHWC")
    return props


def conv_weights(
    graph: FakeQuantBuilder,
    layout: str,
    out_c: int,
    in_c: int,
    k: int,
    per_channel: bool,
):
    if layout == "NCHW":
        return graph.weights((out_c, in_c, k, k), 0 if per_channel else None)
    return graph.weights((k, k, in_c, out_c), 3 if per_channel else None)


def resnet_block(layout: str, per_channel: bool) -> tuple[FakeQuantBuilder, ModuleOp]:
    c = 4
    shape = (1, c, 8, 8) if layout == "NCHW" else (1, 8, 8, c)
    g = FakeQuantBuilder(shape, seed=1)
    x = g.act(g.block.args[0], -3.0, 3.0)
    pads = i64_array([1, 1, 1, 1])
    w1 = conv_weights(g, layout, c, c, 3, per_channel)
    h = g.op(ConvOp, x, w1, g.bias(c), **conv_props(layout, pads=pads))
    h = g.act(g.op(ReluOp, h), 0.0, 3.0)
    w2 = conv_weights(g, layout, c, c, 3, per_channel)
    h = g.act(
        g.op(ConvOp, h, w2, g.bias(c), **conv_props(layout, pads=pads)), -3.0, 3.0
    )
    h = g.act(g.op(ReluOp, g.op(AddOp, x, h)), 0.0, 4.0)
    h = g.op(
        MaxPoolOp,
        h,
        kernel_shape=i64_array([2, 2]),
        strides=i64_array([2, 2]),
        **conv_props(layout),
    )
    pooled = g.act(g.op(GlobalAvgPoolOp, h, **conv_props(layout)), 0.0, 2.0)
    flat = g.op(FlattenOp, pooled)
    w3 = g.weights((5, c), 0 if per_channel else None)
    out = g.act(g.op(GemmOp, flat, w3, g.bias(5), trans_b=i64_attr(1)), -2.0, 2.0)
    return g, g.module(out)


def mobilenet_block(
    layout: str, per_channel: bool
) -> tuple[FakeQuantBuilder, ModuleOp]:
    c, expanded = 4, 8
    shape = (1, c, 6, 6) if layout == "NCHW" else (1, 6, 6, c)
    g = FakeQuantBuilder(shape, seed=2)
    x = g.act(g.block.args[0], -3.0, 3.0)
    relu6 = {"activation": str_attr("relu6")}
    w1 = conv_weights(g, layout, expanded, c, 1, per_channel)
    h = g.act(
        g.op(FusedConvOp, x, w1, g.bias(expanded), **conv_props(layout, **relu6)),
        0.0,
        6.0,
    )
    dw = conv_weights(g, layout, expanded, 1, 3, per_channel)
    depthwise = conv_props(
        layout, pads=i64_array([1, 1, 1, 1]), group=i64_attr(expanded)
    )
    h = g.op(ConvOp, h, dw, g.bias(expanded), **depthwise)
    h = g.act(g.op(ClipOp, h, min=f32_attr(0.0), max=f32_attr(6.0)), 0.0, 6.0)
    w2 = conv_weights(g, layout, c, expanded, 1, per_channel)
    h = g.act(g.op(ConvOp, h, w2, g.bias(c), **conv_props(layout)), -4.0, 4.0)
    out = g.act(g.op(AddOp, h, x), -5.0, 5.0)
    return g, g.module(out)
