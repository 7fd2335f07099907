"""convert-layout: converted graphs compute what the originals did, with the expected transposes left."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.utils.exceptions import PassFailedException, VerifyException

from graph_opt.dialects.nn.base import i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp, ConvTransposeOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.elementwise import (
    AddOp,
    ClipOp,
    MulOp,
    ReluOp,
    SigmoidOp,
    SubOp,
)
from graph_opt.dialects.nn.fused import FusedConvOp, f32_array
from graph_opt.dialects.nn.layout import CHANNELS_FIRST, CHANNELS_LAST
from graph_opt.dialects.nn.norm import LayerNormOp, SoftmaxOp
from graph_opt.dialects.nn.pool import AvgPoolOp, GlobalAvgPoolOp, MaxPoolOp
from graph_opt.dialects.nn.reduce import ReduceMaxOp, ReduceMeanOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.tensor_ops import (
    ConcatOp,
    PadOp,
    SliceOp,
    SplitOp,
    TransposeOp,
)
from graph_opt.entry import entry_function
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function
from graph_opt.passes.convert_layout.convert_layout import ConvertLayoutPass
from graph_opt.passes.convert_layout.layout_patterns import has_other_layout
from graph_opt.testing import model_zoo
from graph_opt.testing.graph_builder import ModuleBuilder
from graph_opt.testing.graph_builder import props as p

FIXTURES = Path(__file__).resolve().parents[1] / "formats" / "tensorflow" / "fixtures"
NHWC = {"data_layout": str_attr(CHANNELS_LAST)}


def conv(g: ModuleBuilder, x: SSAValue, c_in: int, c_out: int, k: int = 3, **props):
    """An NHWC conv (HWIO filter), SAME_UPPER padded, random filter and bias."""
    return g.conv(x, c_in, c_out, k, layout=CHANNELS_LAST, **props)


def convert(module: ModuleOp, **options) -> ModuleOp:
    converted = module.clone()
    ConvertLayoutPass(**options).apply(Context(), converted)
    converted.verify()
    return converted


def count(module: ModuleOp, op_type) -> int:
    return sum(isinstance(op, op_type) for op in module.walk())


def layouts(module: ModuleOp) -> set[str]:
    return {op.layout for op in module.walk() if hasattr(op, "layout")}


def assert_close(actual, expected) -> None:
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape and a.dtype == e.dtype
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-4)


def check(
    graph: ModuleBuilder, module: ModuleOp, transposes: int, **options
) -> ModuleOp:
    """Convert; same results on random inputs, `transposes` left, no op in the old layout."""
    converted = convert(module, **options)
    inputs = graph.inputs()
    assert_close(run_function(converted, inputs), run_function(module, inputs))
    assert count(converted, TransposeOp) == transposes
    target = options.get("target", CHANNELS_FIRST)
    assert layouts(converted) <= {target}
    return converted


# Case families: each NHWC graph keeps one transpose at its input and one at its output.


def test_conv_chain_keeps_one_transpose_at_each_edge():
    g = ModuleBuilder((1, 6, 6, 3))
    y = g.op(ReluOp, conv(g, g.x, 3, 4))
    y = g.batch_norm(conv(g, y, 4, 4, k=1), 4, **NHWC)
    z = g.op(AddOp, g.op(ClipOp, conv(g, y, 4, 4), **p(min=0.0, max=6.0)), y)
    check(g, g.module(z), transposes=2)


def test_long_conv_chain_is_linear():
    g = ModuleBuilder((1, 4, 4, 2))
    y = g.x
    for _ in range(150):
        y = g.op(ReluOp, conv(g, y, 2, 2, k=1))
    module = g.module(y)
    start = time.perf_counter()
    converted = check(g, module, transposes=2)
    assert time.perf_counter() - start < 20
    assert count(converted, ConvOp) == 150


def test_conv_variants():
    """Strided, dilated, depthwise, fused, transposed: filters HWIO -> OIHW, HWOI -> IOHW."""
    g = ModuleBuilder((2, 7, 6, 4))
    y = conv(g, g.x, 4, 4, strides=i64_array([2, 1]), dilations=i64_array([1, 2]))
    w = g.random(3, 3, 1, 8)
    y = g.op(ConvOp, y, w, **NHWC, group=i64_attr(4), pads=i64_array([1, 0, 1, 2]))
    y = g.op(
        FusedConvOp,
        y,
        g.random(1, 1, 8, 5),
        g.random(5),
        **NHWC,
        **p(activation="leaky_relu"),
        activation_params=f32_array([0.2]),
    )
    y = g.op(
        ConvTransposeOp,
        y,
        g.random(3, 3, 3, 5),
        g.random(3),
        **NHWC,
        **p(strides=(2, 2), output_padding=(1, 0)),
    )
    converted = check(g, g.module(y), transposes=2)
    assert count(converted, ConvTransposeOp) == 1


@pytest.mark.parametrize("rank", [3, 5])
def test_conv_of_other_ranks(rank):
    spatial = (5,) * (rank - 2)
    g = ModuleBuilder((1, *spatial, 2))
    w = g.random(*(3,) * (rank - 2), 2, 3)
    y = g.op(ConvOp, g.x, w, **NHWC, auto_pad=str_attr("SAME_UPPER"))
    y = g.op(MaxPoolOp, y, **NHWC, **p(kernel_shape=(2,) * (rank - 2)))
    check(g, g.module(g.op(ReluOp, y)), transposes=2)


def test_pooling_and_batch_norm():
    g = ModuleBuilder((1, 7, 7, 3))
    y = conv(g, g.x, 3, 4)
    y = g.op(MaxPoolOp, y, **NHWC, **p(kernel_shape=(3, 3), strides=(2, 2)))
    window = p(kernel_shape=(2, 2), pads=(1, 1, 0, 0), count_include_pad=1)
    y = g.batch_norm(g.op(AvgPoolOp, y, **NHWC, **window), 4, **NHWC)
    pooled = g.op(GlobalAvgPoolOp, y, **NHWC)
    check(g, g.module(pooled), transposes=2)


def test_batch_norm_alone_is_converted():
    """Every op in the other layout converts, even with nothing to share transposes with."""
    g = ModuleBuilder((2, 3, 3, 5))
    check(g, g.module(g.batch_norm(g.x, 5, **NHWC)), transposes=2)


def test_concat_split_on_channel_axis():
    g = ModuleBuilder((1, 5, 5, 3))
    a, b = conv(g, g.x, 3, 4), conv(g, g.x, 3, 2, k=1)
    joined = g.op(ConcatOp, a, b, axis=i64_attr(-1))
    left, right = g.op(SplitOp, joined, axis=i64_attr(3), split=i64_array([2, 4]))
    y = g.op(AddOp, conv(g, left, 2, 3), conv(g, right, 4, 3))
    converted = check(g, g.module(y), transposes=2)
    (concat,) = [op for op in converted.walk() if isinstance(op, ConcatOp)]
    assert concat.axis.value.data == 1


def test_elementwise_with_per_channel_constants():
    """A [C] constant on NHWC data broadcasts as [C, 1, 1] on NCHW data."""
    g = ModuleBuilder((2, 4, 4, 3))
    y = conv(g, g.x, 3, 6)
    y = g.op(MulOp, g.random(6), y)
    y = g.op(SubOp, y, g.random(1, 1, 6))
    y = g.op(MulOp, y, g.op(SigmoidOp, y))
    y = g.op(AddOp, y, g.const(np.float32(0.5)))
    converted = check(g, g.module(conv(g, y, 6, 2)), transposes=2)
    shapes = {
        tuple(op.output.type.get_shape())
        for op in converted.walk()
        if isinstance(op, ConstantOp)
    }
    assert {(6, 1, 1), ()} <= shapes


@pytest.mark.parametrize("keepdims,transposes", [(0, 1), (1, 2)])
def test_reduce_over_spatial_axes(keepdims, transposes):
    """Without keepdims, [N, C] is the same in both layouts: no output transpose."""
    g = ModuleBuilder((2, 5, 4, 3))
    y = conv(g, g.x, 3, 4)
    y = g.op(ReduceMeanOp, y, axes=i64_array([1, -2]), keepdims=i64_attr(keepdims))
    check(g, g.module(y), transposes=transposes)


@pytest.mark.parametrize("axis,transposes", [(3, 1), (1, 2)])
def test_reduce_dropping_one_axis(axis, transposes):
    """Dropping C leaves [N, H, W] in both layouts; dropping H leaves [N, W, C] vs [N, C, W]."""
    g = ModuleBuilder((2, 5, 4, 3))
    y = conv(g, g.x, 3, 4)
    y = g.op(ReduceMaxOp, y, axes=i64_array([axis]), keepdims=i64_attr(0))
    check(g, g.module(y), transposes=transposes)


def test_pad_slice_softmax():
    g = ModuleBuilder((1, 6, 5, 3))
    y = conv(g, g.x, 3, 4)
    y = g.op(PadOp, y, pads=i64_array([0, 1, 2, 0, 0, 0, 1, 0]), mode=str_attr("edge"))
    starts, ends = g.const_i64([1, 0]), g.const_i64([-1, 3])
    axes, steps = g.const_i64([1, 3]), g.const_i64([2, 1])
    y = g.op(SliceOp, y, starts, ends, axes, steps)
    y = g.op(SoftmaxOp, y, axis=i64_attr(-1))
    check(g, g.module(conv(g, y, 3, 2)), transposes=2)


def test_residual_with_graph_input_reuses_the_input_transpose():
    g = ModuleBuilder((1, 4, 4, 3))
    y = g.op(AddOp, conv(g, g.x, 3, 3), g.x)
    check(g, g.module(conv(g, y, 3, 3)), transposes=2)


def test_output_also_used_inside_keeps_one_transpose_per_use_site():
    """A converted value returned and used by a relu then a conv: the relu moves
    above the transpose, which stays only for the returned value."""
    g = ModuleBuilder((1, 4, 4, 3))
    y = conv(g, g.x, 3, 3)
    z = conv(g, g.op(ReluOp, y), 3, 3)
    check(g, g.module(y, z), transposes=3)


def test_target_nhwc_on_onnx_resnet():
    from graph_opt.formats.onnx.importer import import_model

    model = model_zoo.resnet(blocks=(1, 1), width=4, size=16, classes=5)
    module = import_model(model)
    converted = convert(module, target=CHANNELS_LAST)
    inputs = [np.random.default_rng(1).standard_normal((1, 3, 16, 16), np.float32)]
    assert_close(run_function(converted, inputs), run_function(module, inputs))
    assert layouts(converted) == {CHANNELS_LAST}
    # the input, and the global pool's [N, 1, 1, C] result before the flatten
    assert count(converted, TransposeOp) == 2


def test_round_trip_nhwc_to_nchw_and_back():
    g = ModuleBuilder((1, 5, 5, 2))
    y = g.batch_norm(conv(g, g.op(ReluOp, g.x), 2, 3), 3, **NHWC)
    module = g.module(g.op(MaxPoolOp, y, **NHWC, **p(kernel_shape=(2, 2))))
    back = convert(convert(module), target=CHANNELS_LAST)
    inputs = g.inputs()
    assert_close(run_function(back, inputs), run_function(module, inputs))
    assert count(back, TransposeOp) == 0
    assert layouts(back) == {CHANNELS_LAST}


def test_changed_signature():
    """With keep_io_layout=False, inputs and outputs take the target layout."""
    g = ModuleBuilder((1, 5, 4, 3), (1, 5, 4, 2))
    y = conv(g, g.x, 3, 2)
    z = g.op(AddOp, y, g.block.args[1])  # the second input becomes NCHW too
    module = g.module(conv(g, z, 2, 2), y)
    converted = convert(module, keep_io_layout=False)
    assert count(converted, TransposeOp) == 0
    function = next(op for op in converted.ops if isinstance(op, func.FuncOp))
    shapes = [tuple(t.get_shape()) for t in function.function_type.inputs]
    assert shapes == [(1, 3, 5, 4), (1, 2, 5, 4)]
    inputs = g.inputs()
    nchw = [np.ascontiguousarray(a.transpose(0, 3, 1, 2)) for a in inputs]
    expected = [e.transpose(0, 3, 1, 2) for e in run_function(module, inputs)]
    assert_close(run_function(converted, nchw), expected)


def test_unknown_target_is_a_clear_error():
    g = ModuleBuilder((1, 3, 3, 1))
    module = g.module(g.op(ReluOp, g.x))
    with pytest.raises(PassFailedException, match="target must be one of"):
        convert(module, target="NCWH")


# Negative cases.


def test_negative_already_in_target_layout():
    g = ModuleBuilder((1, 3, 5, 5))
    w = g.random(4, 3, 3, 3)
    y = g.op(MaxPoolOp, g.op(ConvOp, g.x, w), kernel_shape=i64_array([2, 2]))
    module = g.module(g.op(ReluOp, y))
    converted = convert(module)
    assert converted.is_structurally_equivalent(module)


def test_negative_unconvertible_op_keeps_transposes_around_it():
    """A reshape and a layer norm depend on the dim order: they stay NHWC, between transposes."""
    g = ModuleBuilder((1, 4, 4, 2))
    y = conv(g, g.x, 2, 3)
    y = g.op(LayerNormOp, y, g.random(3))
    flat = g.op(ReshapeOp, y, g.const_i64([1, 16, 3]))
    y = g.op(ReshapeOp, flat, g.const_i64([1, 4, 4, 3]))
    converted = check(g, g.module(conv(g, y, 3, 2)), transposes=4)
    assert count(converted, LayerNormOp) == 1


def test_negative_elementwise_with_unrelated_input_keeps_its_transpose():
    """Moving the transpose below the add would need a new one on the other input."""
    g = ModuleBuilder((1, 4, 4, 3), (1, 4, 4, 3))
    y = g.op(AddOp, conv(g, g.x, 3, 3), g.block.args[1])
    converted = check(g, g.module(y), transposes=2)
    (add,) = [op for op in converted.walk() if isinstance(op, AddOp)]
    assert add.output.type.get_shape() == (1, 4, 4, 3)


# TensorFlow fixtures: NHWC graphs as imported.

TRANSPOSES_LEFT = {
    "conv_bn_relu6.pb": 2,
    "depthwise.pb": 2,
    "fake_quant.pb": 3,  # the fake-quantized filter, and around the fake_quant ops
    "tf_conv_bn_relu6.pb": 2,
    "tf_conv_transpose.pb": 5,  # four outputs
    "tf_depthwise_blocks.pb": 2,
    "tf_einsum.pb": 6,  # no NHWC op, but TensorFlow's identity transpose goes
}
"""Fixtures with NHWC ops (or transposes the pass simplifies), and the transposes
left after conversion."""


def importable_fixtures() -> dict[str, ModuleOp]:
    modules = {}
    for path in sorted(FIXTURES.glob("*.pb*")):
        try:
            modules[path.name] = import_graph_def(load_graph_def(str(path)))
        except FrontendError:
            continue  # the fixtures of import errors
    return modules


FIXTURE_MODULES = importable_fixtures()


def random_arguments(module: ModuleOp) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    arrays = []
    for arg_type in entry_function(module).function_type.inputs.data:
        dtype, shape = numpy_dtype(arg_type.element_type), arg_type.get_shape()
        if dtype.kind == "f":
            arrays.append(rng.standard_normal(shape).astype(dtype))
        else:  # small counts, as loop bounds; never 0, a divisor in some fixtures
            arrays.append(rng.integers(1, 3, shape).astype(dtype))
    return arrays


def test_fixtures_import():
    assert set(TRANSPOSES_LEFT) <= set(FIXTURE_MODULES)


@pytest.mark.parametrize("name", sorted(FIXTURE_MODULES))
def test_tensorflow_fixture(name):
    """Same results; the expected transposes left, and never more than three per
    converted op (data, filter, result); a fixture without NHWC ops is left as it was."""
    module = FIXTURE_MODULES[name]
    converted = convert(module)
    inputs = random_arguments(module)
    expected = run_function(module, inputs)
    for a, e in zip(run_function(converted, inputs), expected, strict=True):
        np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-5)
    nhwc_ops = sum(has_other_layout(op, CHANNELS_FIRST) for op in module.walk())
    left = count(converted, TransposeOp)
    assert layouts(converted) <= {CHANNELS_FIRST}
    if name in TRANSPOSES_LEFT:
        assert left == TRANSPOSES_LEFT[name]
    elif nhwc_ops == 0:
        assert converted.is_structurally_equivalent(module)
    assert left <= count(module, TransposeOp) + 3 * nhwc_ops


def test_converted_tensorflow_conv_runs_in_onnxruntime():
    """An NHWC conv cannot be exported to ONNX; converted, it can, and onnxruntime agrees."""
    from graph_opt.formats.onnx.exporter import export_module

    module = FIXTURE_MODULES["conv_bn_relu6.pb"]
    model = export_module(convert(module))
    (x,) = random_arguments(module)
    inputs = {"input": x}
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    (actual,) = session.run(None, inputs)
    (expected,) = run_function(module, inputs)
    np.testing.assert_allclose(actual, expected, rtol=1e-5, atol=1e-5)


def test_negative_transpose_not_moved_when_that_adds_transposes():
    """Two elementwise users going to outputs: moving the transpose below both would
    leave two where there is one."""
    g = ModuleBuilder((1, 4, 4, 3))
    y = conv(g, g.x, 3, 3)
    converted = check(g, g.module(g.op(ReluOp, y), g.op(SigmoidOp, y)), transposes=2)
    (relu,) = [op for op in converted.walk() if isinstance(op, ReluOp)]
    assert relu.output.type.get_shape() == (1, 4, 4, 3)


def random_graph(seed: int) -> tuple[ModuleBuilder, ModuleOp]:
    """Convs in both layouts, batch norms, transposes, elementwise ops and concats,
    wired at random; three outputs."""
    rng = np.random.default_rng(seed)
    g = ModuleBuilder((1, 4, 5, 2), (1, 4, 5, 2), seed=seed)
    values = list(g.block.args)

    def pick() -> SSAValue:
        return values[rng.integers(len(values))]

    steps = [
        lambda a: conv(g, a, 2, 2, k=1),
        lambda a: g.op(ConvOp, a, g.random(2, 2, 1, 1)),
        lambda a: g.batch_norm(a, 2, **NHWC),
        lambda a: g.op(TransposeOp, a, perm=i64_array([0, 3, 1, 2])),
        lambda a: g.op(TransposeOp, a, perm=i64_array([0, 2, 3, 1])),
        lambda a: g.op(ReluOp, a),
        lambda a: g.op(MulOp, a, g.random(2)),
        lambda a: g.op(AddOp, a, pick()),
        lambda a: g.op(ConcatOp, a, pick(), axis=i64_attr(int(rng.integers(4)))),
    ]
    for _ in range(rng.integers(3, 25)):
        try:
            values.append(steps[rng.integers(len(steps))](pick()))
        except VerifyException:
            continue  # shapes that do not fit this op
    outputs = [values[-1], *(values[i] for i in rng.choice(len(values), 2))]
    return g, g.module(*outputs)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("options", [{}, {"target": CHANNELS_LAST}])
def test_random_graphs(seed, options):
    """Same results, and no more transposes than converting each op in isolation."""
    g, module = random_graph(seed)
    converted = convert(module, **options)
    inputs = g.inputs()
    assert_close(run_function(converted, inputs), run_function(module, inputs))
    moved = sum(has_other_layout(op, converted_target(options)) for op in module.walk())
    # a converted op adds two transposes at most; moving them never adds any
    assert count(converted, TransposeOp) <= count(module, TransposeOp) + 2 * moved
    assert layouts(converted) <= {converted_target(options)}


def converted_target(options) -> str:
    return options.get("target", CHANNELS_FIRST)
