"""Transposed convolutions in int8: quantize fake-quantizes them, convert-to-int
makes nn.qconv_transpose, and the int8 graph stays within one output
quantization step of the fake-quantized one; the fake-quantized graph exports
as a QDQ ONNX model onnxruntime runs alike."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from test_convert_to_int import check_converted, op_names
from xdsl.context import Context

from graph_opt.dialects.nn.base import i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.conv import ConvTransposeOp
from graph_opt.dialects.nn.elementwise import ReluOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.entry import entry_function
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.passes.calibrate.calibrate import CalibratePass
from graph_opt.passes.convert_to_int.bias_rounding import input_quantization
from graph_opt.passes.convert_to_int.convert_to_int import ConvertToIntPass
from graph_opt.passes.convert_to_int.params import activation_params, int_weights
from graph_opt.passes.fold_bn.fold_bn import FoldBatchNormPass
from graph_opt.passes.quantize.quantize import QuantizePass
from graph_opt.testing import model_zoo
from graph_opt.testing.graph_builder import FakeQuantBuilder

INPUT_SHAPE = (1, 3, 16, 16)


def conv_transpose_graph(
    layout: str, per_channel: bool, group: int
) -> FakeQuantBuilder:
    """int8 input -> conv_transpose (stride 2, cropping pads, output_padding,
    bias) -> relu -> fake quant, with odd channel counts per group."""
    c_in, out_per_group = 4, 3
    nchw = layout == "NCHW"
    g = FakeQuantBuilder((1, c_in, 5, 5) if nchw else (1, 5, 5, c_in), seed=4 + group)
    x = g.act(g.block.args[0], -3.0, 3.0)
    shape = (c_in, out_per_group, 3, 3) if nchw else (3, 3, out_per_group, c_in)
    axis = (1 if nchw else 2) if per_channel else None
    props = {} if nchw else {"data_layout": str_attr("NHWC")}
    h = g.op(
        ConvTransposeOp,
        x,
        g.weights(shape, axis),
        g.bias(out_per_group * group),
        strides=i64_array([2, 2]),
        pads=i64_array([1, 0, 1, 1]),
        output_padding=i64_array([1, 0]),
        group=i64_attr(group),
        **props,
    )
    g.result = g.act(g.op(ReluOp, h), 0.0, 3.0)
    return g


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("per_channel", [False, True])
@pytest.mark.parametrize("group", [1, 2])
def test_conv_transpose_is_int8_within_one_step(layout, per_channel, group):
    graph = conv_transpose_graph(layout, per_channel, group)
    converted = check_converted(graph, graph.module(graph.result))
    names = op_names(converted)
    assert names.count("nn.qconv_transpose") == 1
    assert not {"nn.conv_transpose", "nn.fake_quant", "nn.relu"} & set(names)


def quantized_unet(tmp_path, per_channel: bool):
    """model_zoo.unet after fold-bn, calibrate and quantize; calibration samples."""
    module = import_model(model_zoo.unet())
    FoldBatchNormPass().apply(Context(), module)
    rng = np.random.default_rng(3)
    samples = rng.standard_normal((8, *INPUT_SHAPE)).astype(np.float32)
    path = tmp_path / "samples.npz"
    np.savez(path, input=samples)
    CalibratePass(inputs=str(path)).apply(Context(), module)
    QuantizePass(per_channel=per_channel).apply(Context(), module)
    module.verify()
    return module, samples


@pytest.mark.parametrize("per_channel", [False, True])
def test_unet_is_all_int8_within_one_step(tmp_path, per_channel):
    """Every conv of the UNet, its transposed conv included, becomes int8; its
    bias sits on the accumulator grid, so the integer graph stays within one
    output step of the fake-quantized one."""
    module, _ = quantized_unet(tmp_path, per_channel)
    (transposed,) = [o for o in module.walk() if isinstance(o, ConvTransposeOp)]
    weights = transposed.filter.owner
    assert isinstance(weights, FakeQuantOp)
    assert weights.axis_value == (1 if per_channel else None)
    grid = (
        activation_params(input_quantization(transposed.input)).scale
        * int_weights(weights, constant_value(weights.input), 1).scales
    )
    steps = constant_value(transposed.bias) / grid
    np.testing.assert_allclose(steps, np.rint(steps), atol=1e-3)
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    converted.verify()
    names = op_names(converted)
    assert names.count("nn.qconv_transpose") == 1 and names.count("nn.qconv") == 4
    assert not {"nn.conv", "nn.conv_transpose", "nn.fake_quant"} & set(names)
    step = float(
        entry_function(converted).body.block.last_op.operands[0].owner.scales[0]
    )
    rng = np.random.default_rng(4)
    for _ in range(3):
        x = rng.standard_normal(INPUT_SHAPE).astype(np.float32)
        (expected,) = run_function(module, [x])
        (actual,) = run_function(converted, [x])
        assert np.abs(actual - expected).max() <= 1.001 * step


def test_unet_exports_as_qdq_onnxruntime_runs(tmp_path):
    """The fake-quantized UNet as ONNX QDQ: the transposed conv's filter is
    dequantized per channel on axis 1; onnxruntime computes what graph-opt's
    interpreter does, as QDQ float math, and within one output step with its
    optimizations (QLinearConv for the convs; its CPU provider has no int8
    ConvTranspose and runs that one in float between the QDQ pairs)."""
    module, samples = quantized_unet(tmp_path, per_channel=True)
    model = export_module(module)
    onnx.checker.check_model(model)
    producers = {out: n for n in model.graph.node for out in n.output}
    (node,) = [n for n in model.graph.node if n.op_type == "ConvTranspose"]
    dequantize = producers[node.input[1]]
    assert dequantize.op_type == "DequantizeLinear"
    assert [(a.name, a.i) for a in dequantize.attribute] == [("axis", 1)]
    assert producers[node.input[0]].op_type == "DequantizeLinear"
    path = tmp_path / "unet_qdq.onnx"
    onnx.save(model, path)
    plain = ort.SessionOptions()
    plain.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sessions = [
        ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        for options in (plain, ort.SessionOptions())
    ]
    step = activation_params(
        entry_function(module).body.block.last_op.operands[0].owner
    ).scale
    for sample in samples[:3]:
        (expected,) = run_function(module, [sample])
        as_float, as_int8 = (s.run(None, {"input": sample})[0] for s in sessions)
        np.testing.assert_allclose(as_float, expected, rtol=1e-5, atol=1e-5)
        assert np.abs(as_int8 - expected).max() <= 1.001 * step
