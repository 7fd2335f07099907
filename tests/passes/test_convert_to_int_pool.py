"""convert-to-int's integer means (nn.reduce_mean, nn.global_avg_pool) and
average pools (nn.qavg_pool): the int8 graph computes what the fake-quantized
float graph does within one output step on random inputs, and what stays
float on int8 values is reported."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from graph_opt import api
from graph_opt.interpreter import run_function
from graph_opt.quantization.fake_quant_math import nudge
from graph_opt.remarks import GraphOptWarning


def mean_graph(
    op: tuple[str, str, str],
    shape: tuple[int, ...],
    in_range: tuple[float, float],
    out_range,
) -> str:
    """x -> fake quant -> mean `op` (name, properties, result type) -> fake quant."""
    t = "tensor<" + "x".join(map(str, shape)) + "xf32>"
    op_name, props, out_t = op
    quant = "{{min = array<f32: {}>, max = array<f32: {}>, num_bits = 8 : i64}}"
    return f"""
func.func @main(%x: {t}) -> {out_t} {{
  %0 = nn.fake_quant %x {quant.format(*in_range)} : ({t}) -> {t}
  %1 = {op_name} %0 {props} : ({t}) -> {out_t}
  %2 = nn.fake_quant %1 {quant.format(*out_range)} : ({out_t}) -> {out_t}
  func.return %2 : {out_t}
}}"""


MEANS = {
    "reduce_mean_nhwc": (
        "nn.reduce_mean",
        "{axes = array<i64: 1, 2>, keepdims = 0 : i64}",
        "tensor<2x3xf32>",
        (2, 7, 5, 3),
    ),
    "reduce_mean_all_axes": (
        "nn.reduce_mean",
        "",
        "tensor<1x1x1x1xf32>",
        (1, 3, 4, 4),
    ),
    "global_avg_pool_nchw": (
        "nn.global_avg_pool",
        "",
        "tensor<1x3x1x1xf32>",
        (1, 3, 6, 6),
    ),
    "global_avg_pool_nhwc": (
        "nn.global_avg_pool",
        '{data_layout = "NHWC"}',
        "tensor<1x1x1x5xf32>",
        (1, 9, 9, 5),
    ),
}
RANGES = [
    ((-1.0, 1.0), (-0.3, 0.2)),
    ((0.0, 6.0), (0.0, 2.7)),
    ((-2.0, 0.5), (-2.0, 0.5)),
]


@pytest.mark.parametrize("ranges", RANGES)
@pytest.mark.parametrize("name", sorted(MEANS))
def test_integer_mean_is_within_one_step_of_fake_quant(name, ranges):
    *op, shape = MEANS[name]
    text = mean_graph(tuple(op), shape, *ranges)
    module = api.parse(text)
    converted = api.run(api.parse(text), "convert-to-int")
    names = [op.name for op in converted.walk()]
    assert names.count("nn.reduce_sum") == 1 and names.count("nn.rescale") == 2
    assert "nn.reduce_mean" not in names and "nn.global_avg_pool" not in names
    steps = output_steps(module, converted, shape, ranges)
    assert steps.max() <= 1.001
    assert (steps > 0.5).mean() < 0.05  # off by one at rounding ties only


def out_shape(module: ModuleOp) -> tuple[int, ...]:
    (function,) = module.ops
    return function.function_type.outputs.data[0].get_shape()  # type: ignore[attr-defined]


AVG_POOLS = {
    "avg_pool_same_nhwc": (
        "nn.avg_pool",
        '{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>, auto_pad = "SAME_UPPER", data_layout = "NHWC"}',
        "tensor<1x4x4x3xf32>",
        (1, 7, 7, 3),
    ),
    "avg_pool_pads_ceil_nchw": (
        "nn.avg_pool",
        "{kernel_shape = array<i64: 3, 2>, strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 1, 0>, ceil_mode = 1 : i64}",
        "tensor<1x2x4x3xf32>",
        (1, 2, 6, 5),
    ),
}


@pytest.mark.parametrize(
    ("ranges", "ties"),
    [(((0.0, 3.0), (0.0, 3.0)), 0.05), (((-1.0, 2.0), (-0.7, 1.3)), 0.5)],
)
@pytest.mark.parametrize("name", sorted(AVG_POOLS))
def test_integer_avg_pool_is_within_one_step_of_fake_quant(name, ranges, ties):
    """At the input's scale one rounding (off by one at ties); at an output
    scale up to twice finer, a second (the rescale after TOSA's pool), still
    within one step."""
    *op, shape = AVG_POOLS[name]
    text = mean_graph(tuple(op), shape, *ranges)
    converted = api.run(api.parse(text), "convert-to-int")
    names = [op.name for op in converted.walk()]
    assert "nn.qavg_pool" in names and "nn.avg_pool" not in names
    assert names.count("nn.rescale") == (ranges[0] != ranges[1])
    steps = output_steps(api.parse(text), converted, shape, ranges)
    assert steps.max() <= 1.001
    assert (steps > 0.5).mean() < ties


def output_steps(module, converted, shape, ranges) -> np.ndarray:
    """|converted - module| in output steps, on inputs over the input range."""
    scale = float(nudge([ranges[1][0]], [ranges[1][1]], 8, False).scale[0])
    rng = np.random.default_rng(7)
    steps = []
    outputs = int(np.prod(out_shape(converted)))
    for _ in range(max(20, 400 // outputs)):
        low, high = ranges[0]
        x = rng.uniform(low - 0.2, high + 0.2, shape).astype(np.float32)
        (expected,) = run_function(module, [x])
        (actual,) = run_function(converted, [x])
        steps.append((np.abs(actual - expected) / scale).ravel())
    return np.concatenate(steps)


def float_mean_module() -> ModuleOp:
    """A mean whose result has no fake quantization (no output scale)."""
    return api.parse("""
func.func @main(%x: tensor<1x4x4x2xf32>) -> tensor<1x2xf32> {
  %0 = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %1 = nn.reduce_mean %0 {axes = array<i64: 1, 2>, keepdims = 0 : i64} : (tensor<1x4x4x2xf32>) -> tensor<1x2xf32>
  %2 = nn.sigmoid %1 : (tensor<1x2xf32>) -> tensor<1x2xf32>
  func.return %2 : tensor<1x2xf32>
}""")


def test_negative_ops_left_float_on_int8_values_are_counted_and_named():
    statistics: list = []
    with pytest.warns(
        GraphOptWarning,
        match=r"left float on dequantized int8 values .*: 1 nn.reduce_mean, 1 nn.sigmoid \(first: nn.reduce_mean",
    ):
        api.run(float_mean_module(), "convert-to-int", statistics=statistics)
    (stats,) = statistics
    assert stats.counters["ops float on int8 values"] == 2
    assert stats.counters["float on int8 values: nn.reduce_mean"] == 1
    assert stats.counters["float on int8 values: nn.sigmoid"] == 1


def test_an_all_int8_graph_reports_no_float_ops(recwarn):
    *op, shape = MEANS["reduce_mean_nhwc"]
    statistics: list = []
    api.run(
        api.parse(mean_graph(tuple(op), shape, *RANGES[0])),
        "convert-to-int",
        statistics=statistics,
    )
    assert statistics[0].counters["ops float on int8 values"] == 0
    assert not [w for w in recwarn if issubclass(w.category, GraphOptWarning)]


def conv_pool_conv(tmp_path) -> tuple[ModuleOp, np.ndarray]:
    """conv -> relu -> average pool -> conv, calibrated on random samples."""
    from onnx import TensorProto, helper, numpy_helper

    from graph_opt.formats.onnx.importer import import_model
    from graph_opt.passes.calibrate.calibrate import CalibratePass

    rng = np.random.default_rng(3)
    weights = [
        numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
        for n, s in (("w1", (4, 3, 3, 3)), ("w2", (2, 4, 1, 1)))
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"]),
        helper.make_node(
            "AveragePool", ["r"], ["p"], kernel_shape=[2, 2], strides=[2, 2]
        ),
        helper.make_node("Conv", ["p", "w2"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 4, 4])],
        weights,
    )  # fmt: skip
    module = import_model(
        helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    )
    samples = rng.standard_normal((8, 1, 3, 8, 8)).astype(np.float32)
    np.savez(tmp_path / "samples.npz", x=samples)
    CalibratePass(inputs=str(tmp_path / "samples.npz")).apply(api.context(), module)
    return module, samples


def test_average_pool_keeps_its_input_range_and_rounds_once(tmp_path):
    """quantize gives the pool's result its input's range (TFLite's
    AVERAGE_POOL_2D restriction): no rescale follows nn.qavg_pool, and the int8
    graph is within one output step of the fake-quant graph (with a range of its
    own, the second rounding put a third of the outputs one step off, some two)."""
    module, samples = conv_pool_conv(tmp_path)
    api.run(module, "quantize")
    quants = {
        op.operands[0].owner.name: (tuple(op.mins), tuple(op.maxs))
        for op in module.walk()
        if op.name == "nn.fake_quant" and isinstance(op.operands[0].owner, Operation)
    }
    assert quants["nn.avg_pool"] == quants["nn.relu"]
    converted = api.run(module.clone(), "convert-to-int")
    (pool,) = [op for op in converted.walk() if op.name == "nn.qavg_pool"]
    assert all(use.operation.name != "nn.rescale" for use in pool.results[0].uses)
    low, high = quants["nn.conv"] if "nn.conv" in quants else quants["nn.fused_conv"]
    scale = (high[0] - low[0]) / 255
    steps = []
    for x in samples:
        (expected,) = run_function(module, [x])
        (actual,) = run_function(converted, [x])
        steps.append(np.abs(actual - expected).ravel() / scale)
    steps = np.concatenate(steps)
    assert steps.max() <= 1.001
    assert (steps > 0.5).mean() < 0.1
