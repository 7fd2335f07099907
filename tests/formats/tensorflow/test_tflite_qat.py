"""The corpus's tensorflow-model-optimization QAT model (conv+BN+ReLU, depthwise
conv+BN+ReLU, mean, dense) through graph-opt's QAT path, `optimize, quantize,
convert-to-int` with no calibration, against TFLite's full-integer model of the
same SavedModel (fixtures/qat_conv_bn_tflite.npz, written by
make_tflite_qat_reference.py with TensorFlow): the int8 values after each of
TFLite's four operators and at the output, in the default interpreter (XNNPACK)
and in TFLite's builtin kernels."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp, f32, i32
from xdsl.dialects.func import FunctionType

from graph_opt import api
from graph_opt.dialects.nn.qint import (
    DequantizeOp,
    QConvOp,
    QMatMulOp,
    QuantizeOp,
    RescaleOp,
)
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.entry import entry_function
from graph_opt.formats.tensorflow.saved_model import import_saved_model
from graph_opt.interpreter import run_function
from graph_opt.interpreter.runner import make_interpreter
from graph_opt.passes.convert_to_int.convert_to_int import FLOAT_LINEAR_OPS

HERE = Path(__file__).parent
TFLITE = np.load(HERE / "fixtures" / "qat_conv_bn_tflite.npz")


def convert(options: str = "") -> ModuleOp:
    """The QAT path of docs/quantization.md; `options` of convert-to-int as `{name=value}`."""
    module = import_saved_model(HERE / "corpus" / "qat_conv_bn_saved_model")
    return api.run(module, f"optimize,quantize,convert-to-int{options}")


@pytest.fixture(scope="module")
def integer_module() -> ModuleOp:
    return convert()


def boundary_ops(module: ModuleOp) -> tuple[QuantizeOp, DequantizeOp]:
    """The nn.quantize of the graph input and the nn.dequantize of the result."""
    function = entry_function(module)
    (quantize,) = function.args[0].uses
    returned = function.body.block.last_op.operands[0].owner
    assert isinstance(quantize.operation, QuantizeOp)
    assert isinstance(returned, DequantizeOp)
    return quantize.operation, returned


def test_every_conv_and_matmul_is_int8(integer_module):
    names = [op.name for op in integer_module.walk()]
    assert names.count("nn.qconv") == 2 and names.count("nn.qmatmul") == 1
    float_linear = [
        op
        for op in integer_module.walk()
        if isinstance(op, FLOAT_LINEAR_OPS) and not isinstance(op, QConvOp)
    ]
    assert not float_linear
    assert not [op for op in integer_module.walk() if isinstance(op, FakeQuantOp)]
    float_results = [
        op.name
        for op in entry_function(integer_module).body.ops
        if op.results and ranked(op.results[0]).element_type == f32
    ]  # the mean too is int8: an i32 sum rescaled once
    assert float_results == ["nn.dequantize"]
    assert names.count("nn.reduce_sum") == 1 and "nn.reduce_mean" not in names
    assert list(TFLITE["ops"]) == [
        "CONV_2D:int8", "DEPTHWISE_CONV_2D:int8", "MEAN:int8", "FULLY_CONNECTED:int8"
    ]  # fmt: skip


def test_input_and_output_parameters_are_tflites(integer_module):
    quantize, dequantize = boundary_ops(integer_module)
    for op, scale, zero_point in (
        (quantize, TFLITE["input_scale"], TFLITE["input_zero_point"]),
        (dequantize, TFLITE["output_scale"], TFLITE["output_zero_point"]),
    ):
        assert op.scales.tolist() == pytest.approx([float(scale)], rel=1e-6)
        assert op.zero_points.tolist() == [int(zero_point)]


def test_input_quantizes_to_tflites_int8_input(integer_module):
    quantize, _ = boundary_ops(integer_module)
    interpreter = make_interpreter(integer_module)
    for x, expected in zip(TFLITE["x"], TFLITE["x_int8"]):
        (got,) = interpreter.run_op(quantize, (x,))
        np.testing.assert_array_equal(got, expected)


def int8_outputs(module: ModuleOp) -> np.ndarray:
    """graph-opt's outputs in the output's int8 domain (before its dequantize)."""
    _, dequantize = boundary_ops(module)
    scale, zero_point = float(dequantize.scales[0]), int(dequantize.zero_points[0])
    outputs = np.stack([run_function(module, [x])[0] for x in TFLITE["x"]])
    return np.rint(outputs / np.float32(scale)).astype(np.int64) + zero_point


def widens(op) -> bool:
    """An nn.rescale of int8 to i32 (the mean's sum reads those)."""
    return isinstance(op, RescaleOp) and ranked(op.output).element_type == i32


def int8_layers(module: ModuleOp) -> list[np.ndarray]:
    """graph-opt's int8 value after each TFLite operator, on each input: the
    int8 operands of the integer layers (the mean's: of its widening to i32)
    and of the dequantizes, after the first (the graph input's), returned by a
    copy of the function."""
    probe = module.clone()
    function = entry_function(probe)
    values = [
        op.operands[0]
        for op in function.walk()
        if isinstance(op, QConvOp | QMatMulOp | DequantizeOp) or widens(op)
    ][1:]
    function.body.block.last_op.operands = values
    function.function_type = FunctionType.from_lists(
        function.function_type.inputs.data, [v.type for v in values]
    )
    runs = [run_function(probe, [x]) for x in TFLITE["x"]]
    return [np.stack(layer).astype(np.int64) for layer in zip(*runs)]


def test_output_is_the_default_interpreters_int8_output(integer_module):
    """The default interpreter (XNNPACK) rounds each requantization once, as
    nn.rescale does."""
    np.testing.assert_array_equal(int8_outputs(integer_module), TFLITE["out_int8"])


def test_every_layer_is_the_default_interpreters(integer_module):
    layers = int8_layers(integer_module)
    assert len(layers) == len(TFLITE["ops"])
    for i, layer in enumerate(layers):
        np.testing.assert_array_equal(layer, TFLITE[f"layer{i}_int8"])


def test_builtin_kernels_are_within_one_step(integer_module):
    builtin = TFLITE["out_int8_builtin"].astype(np.int64)
    assert np.abs(int8_outputs(integer_module) - builtin).max() <= 1
    for i, layer in enumerate(int8_layers(integer_module)):
        assert np.abs(layer - TFLITE[f"layer{i}_int8_builtin"]).max() <= 1


def test_double_round_gives_the_builtin_kernels_convs(integer_module):
    """TFLite's builtin kernels requantize as gemmlowp does, rounding twice:
    with `double-round` the conv layers are theirs bit for bit (their mean
    is an integer kernel of its own, within one step)."""
    conv, depthwise, *_ = int8_layers(convert("{double-round=true}"))
    np.testing.assert_array_equal(conv, TFLITE["layer0_int8_builtin"])
    np.testing.assert_array_equal(depthwise, TFLITE["layer1_int8_builtin"])
    assert (int8_layers(integer_module)[0] != conv).any()  # the roundings differ
