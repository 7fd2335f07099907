"""convert-to-int{integer-io=true}: fed the int8 codes of random inputs, the
integer-io graph returns exactly the codes the float-io graph dequantizes last,
and its recorded (scale, zero point) give back the float-io outputs."""

from __future__ import annotations

import subprocess
import warnings

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.utils.exceptions import InterpretationError

from graph_opt import api
from graph_opt.dialects.nn.base import i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.elementwise import ReluOp, SigmoidOp
from graph_opt.dialects.nn.fused import FusedConvOp
from graph_opt.dialects.nn.linalg import GemmOp
from graph_opt.dialects.nn.pool import MaxPoolOp
from graph_opt.dialects.nn.qint import DequantizeOp, QuantizeOp
from graph_opt.dialects.nn.shape_ops import FlattenOp
from graph_opt.driver.verify_numerics import (
    NumericCheck,
    NumericChecker,
    NumericsChanged,
)
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function
from graph_opt.interpreter.runner import make_function_interpreter
from graph_opt.passes.convert_to_int.convert_to_int import ConvertToIntPass
from graph_opt.quantization.boundary import (
    boundary_quantization,
    dequantize_codes,
    quantize_codes,
)
from graph_opt.remarks import GraphOptWarning
from graph_opt.testing.graph_builder import FakeQuantBuilder
from graph_opt.testing.quantized_blocks import conv_props, conv_weights, resnet_block


def conv_relu_pool_dense(layout: str) -> tuple[FakeQuantBuilder, ModuleOp]:
    shape = (1, 3, 8, 8) if layout == "NCHW" else (1, 8, 8, 3)
    g = FakeQuantBuilder(shape, seed=4)
    x = g.act(g.block.args[0], -3.0, 3.0)
    w = conv_weights(g, layout, 6, 3, 3, True)
    h = g.op(
        FusedConvOp, x, w, g.bias(6), **conv_props(layout, pads=i64_array([1] * 4))
    )
    h = g.act(g.op(ReluOp, h), 0.0, 4.0)
    pool = {"kernel_shape": i64_array([2, 2]), "strides": i64_array([2, 2])}
    h = g.op(MaxPoolOp, h, **conv_props(layout, **pool))
    flat = g.op(FlattenOp, h)
    dense = g.weights((10, 6 * 4 * 4), 0)
    out = g.act(g.op(GemmOp, flat, dense, g.bias(10), trans_b=i64_attr(1)), -3.0, 3.0)
    return g, g.module(out)


def converted(module: ModuleOp, **options) -> ModuleOp:
    result = module.clone()
    ConvertToIntPass(**options).apply(Context(), result)
    result.verify()
    return result


def run_recording(module: ModuleOp, inputs, ops_of_interest) -> tuple[list, dict]:
    """The function's results, and the result of each op of interest."""
    seen = {}

    class Recorder(Interpreter.Listener):
        def did_interpret_op(self, op, results) -> None:
            if op in ops_of_interest:
                seen[op] = np.asarray(results[0])

    interpreter = make_function_interpreter(module)
    interpreter.listeners = (*interpreter.listeners, Recorder())
    function = entry_function(module)
    results = interpreter.call_op(function, tuple(inputs))
    return [np.asarray(r) for r in results], seen


def check_bit_exact(graph: FakeQuantBuilder, module: ModuleOp, **options) -> ModuleOp:
    float_io = converted(module, **options)
    integer_io = converted(module, integer_io=True, **options)
    function = entry_function(integer_io)
    (in_scale, in_zp) = boundary_quantization(function.arg_attrs, 0)
    (out_scale, out_zp) = boundary_quantization(function.res_attrs, 0)
    in_type = function.function_type.inputs.data[0].element_type
    out_type = function.function_type.outputs.data[0].element_type
    dtype = np.uint8 if options.get("unsigned_io") else np.int8
    assert str(in_type) == str(out_type) == ("ui8" if dtype == np.uint8 else "i8")
    first_quantize = next(o for o in float_io.walk() if isinstance(o, QuantizeOp))
    returned = entry_function(float_io).body.blocks[0].last_op.operands[0]
    last_dequantize = returned.owner
    assert isinstance(last_dequantize, DequantizeOp)
    last_codes = last_dequantize.input.owner
    for (x,) in graph.input_sets(4):
        expected, seen = run_recording(float_io, [x], {first_quantize, last_codes})
        codes = quantize_codes(x, in_scale, in_zp, np.dtype(dtype))
        np.testing.assert_array_equal(seen[first_quantize], codes)
        (actual,) = run_function(integer_io, [codes])
        assert actual.dtype == dtype
        np.testing.assert_array_equal(actual, seen[last_codes])
        real = dequantize_codes(actual, out_scale, out_zp)
        np.testing.assert_array_equal(real, expected[0])
    return integer_io


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
def test_conv_relu_pool_dense_is_bit_exact_through_integer_io(layout):
    graph, module = conv_relu_pool_dense(layout)
    integer_io = check_bit_exact(graph, module)
    names = [op.name for op in integer_io.walk()]
    assert "nn.quantize" not in names and "nn.dequantize" not in names


@pytest.mark.parametrize("per_channel", [False, True])
def test_residual_cnn_is_bit_exact_through_integer_io(per_channel):
    graph, module = resnet_block("NCHW", per_channel)
    check_bit_exact(graph, module)


def test_unsigned_io_with_integer_io_is_bit_exact_through_uint8():
    graph, module = resnet_block("NHWC", True)
    check_bit_exact(graph, module, unsigned_io=True)


def test_statistics_count_the_integer_inputs_and_outputs():
    _, module = resnet_block("NCHW", False)
    stats: list = []
    api.run(module, "convert-to-int{integer-io=true}", statistics=stats)
    counters = stats[0].counters
    assert counters["inputs integer"] == 1 and counters["outputs integer"] == 1
    assert counters["inputs and outputs float"] == 0


def test_negative_input_read_by_float_and_float_output_are_reported():
    g = FakeQuantBuilder((2, 5), seed=1)
    x = g.act(g.block.args[0], -2.0, 2.0)
    w = g.weights((5, 3), 1)
    logits = g.act(g.op(GemmOp, x, w), -2.0, 2.0)
    gate = g.op(SigmoidOp, g.block.args[0])
    module = g.module(logits, gate)
    with pytest.warns(GraphOptWarning, match="input input_0: float ops read it"):
        result = converted(module, integer_io=True)
    function = entry_function(result)
    assert [str(t.element_type) for t in function.function_type.inputs] == ["f32"]
    outputs = [str(t.element_type) for t in function.function_type.outputs]
    assert outputs == ["i8", "f32"]


def test_integer_inputs_and_outputs_are_neither_converted_nor_reported():
    text = """
    func.func @main(%x: tensor<2xf32>, %i: tensor<2xi64>) -> (tensor<2xf32>, tensor<2xi64>) {
      %q = nn.fake_quant %x {min = array<f32: -1.0>, max = array<f32: 1.0>, num_bits = 8 : i64} : (tensor<2xf32>) -> tensor<2xf32>
      func.return %q, %i : tensor<2xf32>, tensor<2xi64>
    }
    """
    module = api.parse(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphOptWarning)
        stats: list = []
        api.run(module, "convert-to-int{integer-io=true}", statistics=stats)
    function = entry_function(module)
    assert [str(t) for t in function.function_type.inputs] == [
        "tensor<2xi8>",
        "tensor<2xi64>",
    ]
    assert stats[0].counters["inputs and outputs float"] == 0
    assert not stats[0].warnings


def test_negative_nothing_integer_warns_that_nothing_changed():
    g = FakeQuantBuilder((2, 5), seed=1)
    x = g.act(g.block.args[0], -2.0, 2.0)
    out = g.op(SigmoidOp, g.op(ReluOp, x))
    module = g.module(out, g.block.args[0])
    with pytest.warns(GraphOptWarning, match="integer-io changed nothing"):
        converted(module, integer_io=True)


def test_negative_called_function_keeps_its_float_signature():
    _, module = resnet_block("NCHW", False)
    callee = entry_function(module)
    callee.sym_name = str_attr("body")
    caller = func.FuncOp("main", callee.function_type)
    args = list(caller.body.blocks[0].args)
    call = func.CallOp("body", args, list(callee.function_type.outputs))
    caller.body.blocks[0].add_ops([call, func.ReturnOp(*call.results)])
    module.body.blocks[0].add_op(caller)
    module.verify()
    with pytest.warns(GraphOptWarning, match="@body: other functions call it"):
        result = converted(module, integer_io=True)
    body = next(f for f in result.ops if f.sym_name.data == "body")
    assert str(body.function_type.inputs.data[0].element_type) == "f32"


def test_verify_numerics_reads_through_the_integer_boundary():
    """Fed the codes of its random float inputs and read through the recorded
    output quantization, the integer-io graph is within a step of the
    fake-quantized graph (without the attributes it fails on the int8 type)."""
    _, module = resnet_block("NCHW", False)
    api.run(module, "convert-to-int{integer-io=true}", verify_numerics=0.05)
    function = entry_function(module)
    assert str(function.function_type.inputs.data[0].element_type) == "i8"
    function.res_attrs = None
    check = NumericCheck(tolerance=0.05, samples=1)
    with pytest.raises(NumericsChanged, match="int8 instead of float32"):
        checker = NumericChecker(check)
        checker.after(None, resnet_block("NCHW", False)[1])
        checker.after(ConvertToIntPass(integer_io=True), module)


def test_negative_float_inputs_for_integer_arguments_are_refused():
    graph, module = resnet_block("NCHW", False)
    result = converted(module, integer_io=True)
    with pytest.raises(InterpretationError, match="input input_0 takes integer codes"):
        run_function(result, graph.input_sets(1)[0])


def test_onnx_export_has_int8_io_and_runs_in_onnxruntime(tmp_path):
    """The integer-io graph exports (QDQ, it was refused) with int8 input and
    output, and onnxruntime gives graph-opt's codes."""
    import onnxruntime as ort

    _, module = resnet_block("NCHW", False)
    result = converted(module, integer_io=True)
    api.save(result, tmp_path / "int8.onnx")
    runner = ort.InferenceSession(
        str(tmp_path / "int8.onnx"), providers=["CPUExecutionProvider"]
    )
    (inp,), (out,) = runner.get_inputs(), runner.get_outputs()
    assert inp.type == out.type == "tensor(int8)"
    rng = np.random.default_rng(0)
    for _ in range(16):
        x = rng.integers(-128, 128, (1, 4, 8, 8)).astype(np.int8)
        (got,) = runner.run(None, {inp.name: x})
        np.testing.assert_array_equal(got, run_function(result, [x])[0])


def test_graph_opt_run_real_io_quantizes_inputs_and_dequantizes_results(tmp_path):
    """`graph-opt-run --real-io` on the integer-io graph gives the float-io
    graph's outputs for float inputs; without it the float input is refused."""
    graph, module = resnet_block("NCHW", False)
    float_io = converted(module)
    integer_io = converted(module, integer_io=True)
    (x,) = graph.input_sets(1)[0]
    (expected,) = run_function(float_io, [x])
    model = tmp_path / "int8.mlir"
    model.write_text(api.to_mlir(integer_io))
    np.save(tmp_path / "x.npy", x)
    out = tmp_path / "out.npz"
    run = ["graph-opt-run", str(model), "-i", str(tmp_path / "x.npy"), "-o", str(out)]
    refused = subprocess.run(run, capture_output=True, text=True)
    assert refused.returncode != 0 and "takes integer codes" in refused.stderr
    assert "Traceback" not in refused.stderr
    subprocess.run([*run, "--real-io"], check=True, capture_output=True)
    with np.load(out) as outputs:
        (actual,) = [outputs[name] for name in outputs.files]
    assert actual.dtype == np.float32
    np.testing.assert_array_equal(actual, expected)
