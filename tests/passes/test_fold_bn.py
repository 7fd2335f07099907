"""fold-bn: folded graphs compute what the originals did; declined folds leave the graph as is."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp
from graph_opt.dialects.nn.elementwise import (
    AddOp,
    DivOp,
    IdentityOp,
    MulOp,
    ReluOp,
    StopGradientOp,
    SubOp,
)
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.interpreter import run_function
from graph_opt.passes.fold_bn.fold_bn import FoldBatchNormPass, explain_fold_bn
from graph_opt.testing.graph_builder import ModuleBuilder
from graph_opt.testing.graph_builder import props as p

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "conv_bn_relu.onnx"


def fold(module: ModuleOp) -> ModuleOp:
    folded = module.clone()
    FoldBatchNormPass().apply(Context(), folded)
    folded.verify()
    return folded


def count(module: ModuleOp, op_type: type | tuple[type, ...]) -> int:
    return sum(isinstance(op, op_type) for op in module.walk())


def check_same_results(graph: ModuleBuilder, before: ModuleOp, after: ModuleOp) -> None:
    inputs = graph.inputs()
    expected = run_function(before, inputs)
    actual = run_function(after, inputs)
    for e, a in zip(expected, actual):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)


def conv_bn(
    shape, filter_shape, bias=True, bn_props=None, **conv_props
) -> Callable[[], tuple[ModuleBuilder, SSAValue]]:
    def build():
        g = ModuleBuilder(shape)
        layout = conv_props.get("data_layout", "NCHW")
        out_channels = filter_shape[0 if layout == "NCHW" else -1]
        operands = [g.args[0], g.random(*filter_shape)]
        if bias:
            operands.append(g.random(out_channels))
        y = g.op(ConvOp, *operands, **p(**conv_props))
        return g, g.batch_norm(y, out_channels, **p(**(bn_props or {})))

    return build


def conv_transpose_bn(shape, filter_shape, group=1, layout="NCHW", bias=True):
    def build():
        g = ModuleBuilder(shape)
        per_group = filter_shape[1 if layout == "NCHW" else -2]
        operands = [g.args[0], g.random(*filter_shape)]
        if bias:
            operands.append(g.random(per_group * group))
        y = g.op(
            ConvTransposeOp,
            *operands,
            **p(group=group, data_layout=layout, strides=(2,) * (len(shape) - 2)),
        )
        return g, g.batch_norm(y, per_group * group, **p(data_layout=layout))

    return build


def matmul_bn(shape, weight_shape, bn_layout="NCHW"):
    def build():
        g = ModuleBuilder(shape)
        y = g.op(MatMulOp, g.args[0], g.random(*weight_shape))
        return g, g.batch_norm(y, weight_shape[-1], **p(data_layout=bn_layout))

    return build


def gemm_bn(trans_b: int, c_shape, beta=1.0):
    def build():
        g = ModuleBuilder((4, 6))
        b = g.random(*((5, 6) if trans_b else (6, 5)))
        operands = [g.args[0], b] + ([g.random(*c_shape)] if c_shape else [])
        y = g.op(GemmOp, *operands, **p(trans_b=trans_b, alpha=0.5, beta=beta))
        return g, g.batch_norm(y, 5)

    return build


def conv_then(*steps: Callable[[ModuleBuilder, SSAValue], SSAValue], bn=True):
    """conv (NCHW, 4 output channels) followed by `steps`, then a batch norm."""

    def build():
        g = ModuleBuilder((2, 3, 6, 6))
        y = g.op(ConvOp, g.args[0], g.random(4, 3, 3, 3))
        for step in steps:
            y = step(g, y)
        return g, g.batch_norm(y, 4) if bn else y

    return build


def bn_then_conv(layout="NCHW", group=1, **conv_props):
    def build():
        g = ModuleBuilder((2, 4, 6, 6) if layout == "NCHW" else (2, 6, 6, 4))
        x = g.batch_norm(g.args[0], 4, **p(data_layout=layout))
        filter_shape = (
            (6, 4 // group, 3, 3) if layout == "NCHW" else (3, 3, 4 // group, 6)
        )
        return g, g.op(
            ConvOp,
            x,
            g.random(*filter_shape),
            g.random(6),
            **p(data_layout=layout, group=group, **conv_props),
        )

    return build


def add_channel_constant(shape):
    return lambda g, y: g.op(AddOp, y, g.random(*shape))


def reshape_to(*shape):
    return lambda g, y: g.op(ReshapeOp, y, g.const_i64(shape))


FOLDED_CASES = {
    "conv2d_nchw_bias": conv_bn((2, 3, 6, 6), (4, 3, 3, 3), pads=(1, 1, 1, 1)),
    "conv2d_nchw_no_bias": conv_bn((2, 3, 6, 6), (4, 3, 3, 3), bias=False),
    "conv1d": conv_bn((2, 3, 8), (5, 3, 3), strides=(2,)),
    "conv3d": conv_bn((1, 2, 4, 4, 4), (3, 2, 2, 2, 2)),
    "conv2d_nhwc": conv_bn(
        (2, 6, 6, 3),
        (3, 3, 3, 4),
        bn_props={"data_layout": "NHWC"},
        data_layout="NHWC",
    ),
    "conv2d_nhwc_no_bias": conv_bn(
        (2, 6, 6, 3),
        (3, 3, 3, 4),
        bias=False,
        bn_props={"data_layout": "NHWC"},
        data_layout="NHWC",
    ),
    "grouped_conv": conv_bn((2, 4, 6, 6), (6, 2, 3, 3), group=2),
    "depthwise_conv": conv_bn((2, 4, 6, 6), (4, 1, 3, 3), group=4),
    "depthwise_conv_nhwc": conv_bn(
        (2, 6, 6, 4),
        (3, 3, 1, 4),
        group=4,
        bn_props={"data_layout": "NHWC"},
        data_layout="NHWC",
    ),
    "conv_transpose": conv_transpose_bn((2, 4, 3, 3), (4, 3, 2, 2)),
    "conv_transpose_no_bias": conv_transpose_bn((2, 4, 3, 3), (4, 3, 2, 2), bias=False),
    "conv_transpose_grouped": conv_transpose_bn((2, 4, 3, 3), (4, 3, 2, 2), group=2),
    "conv_transpose_1d_grouped": conv_transpose_bn((2, 6, 5), (6, 2, 3), group=3),
    "conv_transpose_nhwc_grouped": conv_transpose_bn(
        (2, 3, 3, 4), (2, 2, 3, 4), group=2, layout="NHWC"
    ),
    "matmul_2d": matmul_bn((4, 6), (6, 5)),
    "matmul_3d_channels_last": matmul_bn((2, 4, 6), (6, 5), bn_layout="NHWC"),
    "gemm_c_vector": gemm_bn(0, (5,), beta=2.0),
    "gemm_trans_b_c_matrix": gemm_bn(1, (4, 5), beta=0.5),
    "gemm_trans_b_c_column": gemm_bn(1, (4, 1)),
    "gemm_no_c": gemm_bn(1, None),
    "bias_add_between": conv_then(add_channel_constant((4, 1, 1))),
    "bias_add_constant_first": conv_then(
        lambda g, y: g.op(AddOp, g.random(1, 4, 1, 1), y)
    ),
    "identity_between": conv_then(lambda g, y: g.op(IdentityOp, y)),
    "stop_gradient_and_bias_add": conv_then(
        lambda g, y: g.op(StopGradientOp, y), add_channel_constant((1, 4, 1, 1))
    ),
    "reshape_of_batch_dims": conv_then(
        reshape_to(1, 2, 4, 4, 4), reshape_to(2, 4, 4, 4)
    ),
    "reshape_merging_spatial_dims": conv_then(reshape_to(2, 4, 16)),
    "decomposed_bn": conv_then(
        lambda g, y: g.op(MulOp, y, g.random(4, 1, 1)),
        add_channel_constant((1, 4, 1, 1)),
        bn=False,
    ),
    "decomposed_bn_sub_div": conv_then(
        lambda g, y: g.op(SubOp, y, g.random(4, 1, 1)),
        lambda g, y: g.op(DivOp, y, g.const(g.rng.uniform(1, 2, (4, 1, 1)))),
        lambda g, y: g.op(AddOp, y, g.random(4, 1, 1)),
        bn=False,
    ),
    "bias_add_then_scale": conv_then(
        add_channel_constant((4, 1, 1)),
        lambda g, y: g.op(MulOp, y, g.random(4, 1, 1)),
        bn=False,
    ),
    "decomposed_bn_then_bn": conv_then(
        lambda g, y: g.op(MulOp, g.random(4, 1, 1), y),
        add_channel_constant((4, 1, 1)),
        lambda g, y: g.op(IdentityOp, y),
    ),
    "bn_before_conv": bn_then_conv(),
    "bn_before_grouped_conv": bn_then_conv(group=2, strides=(2, 2)),
    "bn_before_conv_nhwc": bn_then_conv(layout="NHWC", group=2),
    "bn_before_conv_zero_pads": bn_then_conv(pads=(0, 0, 0, 0)),
}


@pytest.mark.parametrize("case", FOLDED_CASES.values(), ids=FOLDED_CASES.keys())
def test_fold_keeps_results(case):
    graph, result = case()
    before = graph.module(result)
    normalizing = (BatchNormOp, MulOp, DivOp)
    assert count(before, normalizing) > 0
    after = fold(before)
    assert count(after, normalizing) == 0
    check_same_results(graph, before, after)


def test_shared_weights_are_copied_not_changed():
    g = ModuleBuilder((2, 3, 6, 6))
    weights, bias = g.random(4, 3, 3, 3), g.random(4)
    folded = g.batch_norm(g.op(ConvOp, g.args[0], weights, bias), 4)
    plain = g.op(ConvOp, g.args[0], weights, bias)
    before = g.module(folded, plain)
    after = fold(before)
    assert count(after, BatchNormOp) == 0
    convs = [op for op in after.walk() if isinstance(op, ConvOp)]
    assert len({conv.filter for conv in convs}) == 2
    check_same_results(g, before, after)


def test_two_convs_sharing_weights_each_fold_their_own_bn():
    g = ModuleBuilder((2, 3, 6, 6))
    weights = g.random(4, 3, 3, 3)
    outs = [g.batch_norm(g.op(ConvOp, g.args[0], weights), 4) for _ in range(2)]
    before = g.module(*outs)
    after = fold(before)
    assert count(after, BatchNormOp) == 0
    assert count(after, ConstantOp) == 4
    check_same_results(g, before, after)


def negative_extra_user():
    g = ModuleBuilder((2, 3, 6, 6))
    y = g.op(ConvOp, g.args[0], g.random(4, 3, 3, 3))
    return g, [g.batch_norm(y, 4), g.op(ReluOp, y)], "other users"


def negative_extra_user_of_bias_add():
    g = ModuleBuilder((2, 3, 6, 6))
    y = g.op(AddOp, g.op(ConvOp, g.args[0], g.random(4, 3, 3, 3)), g.random(4, 1, 1))
    return g, [g.batch_norm(y, 4), y], "other users"


def negative_non_constant_params():
    g = ModuleBuilder((2, 3, 6, 6), (4,))
    y = g.op(ConvOp, g.args[0], g.random(4, 3, 3, 3))
    params = [g.args[1], g.random(4), g.random(4), g.const(np.ones(4))]
    return g, [g.op(BatchNormOp, y, *params)], "scale is not a constant"


def negative_non_constant_filter():
    g = ModuleBuilder((2, 3, 6, 6), (4, 3, 3, 3))
    y = g.op(ConvOp, g.args[0], g.args[1])
    return g, [g.batch_norm(y, 4)], "filter is not a constant"


def negative_padded_conv_after_bn():
    g = ModuleBuilder((2, 4, 6, 6))
    x = g.batch_norm(g.args[0], 4)
    y = g.op(ConvOp, x, g.random(6, 4, 3, 3), **p(pads=(1, 1, 1, 1)))
    return g, [y], "pads with zeros"


def negative_same_padded_conv_after_bn():
    g = ModuleBuilder((2, 4, 6, 6))
    x = g.batch_norm(g.args[0], 4)
    y = g.op(ConvOp, x, g.random(6, 4, 3, 3), **p(auto_pad="SAME_UPPER"))
    return g, [y], "pads with zeros"


def negative_reshape_moving_channels():
    g = ModuleBuilder((2, 3, 6, 6))
    y = g.op(ConvOp, g.args[0], g.random(4, 3, 3, 3))
    y = g.op(ReshapeOp, y, g.const_i64((2, 2, 2, 16)))
    return g, [g.batch_norm(y, 2)], "channel axis"


def negative_layout_mismatch():
    g = ModuleBuilder((2, 6, 6, 4))
    y = g.op(ConvOp, g.args[0], g.random(3, 3, 4, 4), **p(data_layout="NHWC"))
    return g, [g.batch_norm(y, 4)], "normalizes axis 1"


def negative_add_not_per_channel():
    g = ModuleBuilder((2, 3, 6, 6))
    y = g.op(ConvOp, g.args[0], g.random(4, 3, 3, 3))
    y = g.op(AddOp, y, g.random(1, 1, 1, 4))
    return g, [g.batch_norm(y, 4)], "not per-channel"


NEGATIVE_CASES = [
    negative_extra_user,
    negative_extra_user_of_bias_add,
    negative_non_constant_params,
    negative_non_constant_filter,
    negative_padded_conv_after_bn,
    negative_same_padded_conv_after_bn,
    negative_reshape_moving_channels,
    negative_layout_mismatch,
    negative_add_not_per_channel,
]


@pytest.mark.parametrize("case", NEGATIVE_CASES, ids=lambda c: c.__name__)
def test_declined_fold_changes_nothing_and_says_why(case):
    graph, results, reason = case()
    before = graph.module(*results)
    after = fold(before)
    assert str(after) == str(before)
    (batch_norm,) = [op for op in after.walk() if isinstance(op, BatchNormOp)]
    explanation = explain_fold_bn(batch_norm)
    assert explanation is not None and reason in explanation
    assert "\n" not in explanation


def test_decomposed_chain_without_scale_is_left_alone():
    graph, result = conv_then(add_channel_constant((4, 1, 1)), bn=False)()
    before = graph.module(result)
    assert str(fold(before)) == str(before)


def test_explain_option_reports_on_stderr(tmp_path):
    graph, results, _ = negative_extra_user()
    source = tmp_path / "in.mlir"
    source.write_text(str(graph.module(*results)))
    run = subprocess.run(
        [sys.executable, "-m", "graph_opt.tools.graph_opt_main", str(source)]
        + ["-p", "fold-bn{explain=true}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "nn.batch_norm" in run.stdout
    assert run.stderr.count("\n") == 1
    assert "not folded: the nn.conv result it reads has other users" in run.stderr


def test_fold_of_onnx_model_through_cli(tmp_path):
    out = tmp_path / "out.onnx"
    subprocess.run(
        [sys.executable, "-m", "graph_opt.tools.graph_opt_main", "--pass=fold-bn"]
        + [str(EXAMPLE), "-t", "onnx", "-o", str(out)],
        check=True,
    )
    assert "BatchNormalization" not in {n.op_type for n in onnx.load(out).graph.node}
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype(np.float32)
    expected, actual = (
        ort.InferenceSession(str(path)).run(None, {"input": x})
        for path in (EXAMPLE, out)
    )
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-5, atol=1e-5)
