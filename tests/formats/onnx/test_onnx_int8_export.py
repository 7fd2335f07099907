"""ONNX export of convert-to-int's int8 graphs (graph_opt/formats/onnx/int8.py):
QDQ nodes around float ops, run by onnxruntime (its int8 kernels where it
fuses them) bit for bit as graph-opt's interpreter on the int8 graph."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import numpy_helper
from xdsl.dialects.builtin import ModuleOp

from graph_opt import api
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import SigmoidOp
from graph_opt.dialects.nn.qint import QConvOp
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.tensorflow.saved_model import import_saved_model
from graph_opt.interpreter import run_function
from graph_opt.quantization.tensor_quantization import recorded_quantization
from graph_opt.testing.graph_builder import FakeQuantBuilder
from graph_opt.testing.quantized_blocks import mobilenet_block, resnet_block

QAT = Path(__file__).parents[1] / "tensorflow" / "corpus" / "qat_conv_bn_saved_model"
INPUTS = 64


def session(
    model: onnx.ModelProto, tmp_path: Path
) -> tuple[ort.InferenceSession, list[str]]:
    """onnxruntime's session and the node types it runs (after its fusions)."""
    options = ort.SessionOptions()
    options.optimized_model_filepath = str(tmp_path / "optimized.onnx")
    options.log_severity_level = 3
    runner = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    nodes = [n.op_type for n in onnx.load(tmp_path / "optimized.onnx").graph.node]
    return runner, nodes


def differing(module: ModuleOp, runner: ort.InferenceSession, inputs) -> int:
    name = runner.get_inputs()[0].name
    return sum(
        int((runner.run(None, {name: x})[0] != run_function(module, [x])[0]).sum())
        for x in inputs
    )


def float_inputs(shape) -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [(rng.standard_normal(shape) * 2).astype(np.float32) for _ in range(INPUTS)]


@pytest.mark.parametrize("integer_io", [False, True])
def test_qat_model_runs_bit_identically_in_onnxruntime(integer_io, tmp_path):
    options = "{integer-io=true}" if integer_io else ""
    pipeline = f"optimize,quantize,convert-to-int{options}"
    module = api.run(import_saved_model(QAT), pipeline)
    runner, nodes = session(export_module(module), tmp_path)
    if not integer_io:  # (a Gemm whose QuantizeLinear is the output stays float)
        assert "QGemm" in nodes  # the dense layer in onnxruntime's int8 kernel
    shape = (1, 16, 16, 3)
    if integer_io:
        rng = np.random.default_rng(4)
        inputs = [rng.integers(-128, 128, shape).astype(np.int8) for _ in range(INPUTS)]
    else:
        inputs = float_inputs(shape)
    assert differing(module, runner, inputs) == 0


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("block", [resnet_block, mobilenet_block])
def test_blocks_run_bit_identically_in_onnxruntime(block, layout, tmp_path):
    graph, fake_quant = block(layout, True)
    module = api.run(fake_quant, "convert-to-int")
    runner, nodes = session(export_module(module), tmp_path)
    assert "QLinearConv" in nodes
    shape = tuple(graph.block.args[0].type.get_shape())
    assert differing(module, runner, float_inputs(shape)) == 0


def test_float_activation_after_an_int8_layer(tmp_path):
    """convert-to-int dequantizes the conv's accumulator for a sigmoid: the
    export keeps that exact accumulator, ConvInteger and an int32 bias Add,
    then DequantizeLinear of it (int32, per channel)."""
    g = FakeQuantBuilder((1, 3, 6, 6), seed=9)
    x = g.act(g.block.args[0], -2.0, 2.0)
    h = g.op(ConvOp, x, g.weights((4, 3, 3, 3), 0), g.bias(4))
    module = api.run(g.module(g.act(g.op(SigmoidOp, h), 0.0, 1.0)), "convert-to-int")
    model = export_module(module)
    nodes = [n.op_type for n in model.graph.node]
    assert "Conv" not in nodes
    conv = nodes.index("ConvInteger")
    assert nodes[conv : conv + 4] == [
        "ConvInteger",
        "Reshape",
        "Add",
        "DequantizeLinear",
    ]
    assert nodes.index("Sigmoid") > conv
    runner, _ = session(model, tmp_path)
    assert differing(module, runner, float_inputs((1, 3, 6, 6))) == 0


def test_weights_are_int8_initializers_with_the_recorded_scales():
    module = api.run(resnet_block("NCHW", True)[1], "convert-to-int")
    qconv = next(op for op in module.walk() if isinstance(op, QConvOp))
    recorded = recorded_quantization(qconv.operands[1].owner)
    model = export_module(module)
    init = {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}
    conv = next(n for n in model.graph.node if n.op_type == "Conv")
    weights = next(n for n in model.graph.node if n.output[0] == conv.input[1])
    assert weights.op_type == "DequantizeLinear"
    np.testing.assert_array_equal(
        init[weights.input[0]], constant_value(qconv.operands[1])
    )
    np.testing.assert_array_equal(init[weights.input[1]], recorded.scales)
    bias = next(n for n in model.graph.node if n.output[0] == conv.input[2])
    assert init[bias.input[0]].dtype == np.int32


def test_int8_layer_without_qdq_form_is_refused_naming_it():
    text = """
    func.func @f(%x: tensor<1x2xi8>) -> tensor<1x2xi32> {
      %0 = nn.rescale %x {multiplier = array<i32: 1073741824>, shift = array<i8: 30>, input_zp = 0 : i64, output_zp = 0 : i64} : (tensor<1x2xi8>) -> tensor<1x2xi32>
      func.return %0 : tensor<1x2xi32>
    }"""
    with pytest.raises(
        FrontendError,
        match=r"^cannot export nn.rescale to ONNX: no ONNX form \(an int8 op with no QDQ form",
    ):
        export_module(api.parse(text))


def test_a_tflite_runtimes_quantize_arithmetic_is_refused_naming_it():
    """QuantizeLinear rounds half to even: a half-away quantize (the TFLite
    reference kernels', convert-to-int{recipe=tflite-reference}) has no QDQ form."""
    module = api.run(
        resnet_block("NHWC", True)[1], "convert-to-int{recipe=tflite-reference}"
    )
    with pytest.raises(
        FrontendError,
        match=r"^cannot export nn.quantize with arithmetic 'divide-half-away'",
    ):
        export_module(module)
