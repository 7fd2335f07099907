"""The .tflite export of int8 graphs (graph_opt/formats/tflite/exporter.py).

Without TFLite: the flatbuffer read back with the `tflite` schema package has
the operators, tensor types, quantization parameters and buffers the int8
graph says. With TFLite's interpreter (ai-edge-litert, or TensorFlow's
tf.lite): its outputs on many inputs are graph-opt-run's, bit for bit."""

from __future__ import annotations

import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import DenseArrayBase, ModuleOp, i32

from graph_opt import api
from graph_opt.dialects.nn.base import i64_array, str_attr
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import SigmoidOp
from graph_opt.dialects.nn.pool import MaxPoolOp
from graph_opt.dialects.nn.qint import QConvOp, QMatMulOp, QuantizeOp, RescaleOp
from graph_opt.entry import entry_function
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.saved_model import import_saved_model
from graph_opt.formats.tflite.exporter import tflite_bytes
from graph_opt.formats.tflite.flatbuffer import operator_names
from graph_opt.interpreter import run_function
from graph_opt.quantization.boundary import boundary_quantization
from graph_opt.quantization.fixed_point import apply_scale, quantize_multiplier
from graph_opt.quantization.runtime_recipes import int8_requantization
from graph_opt.quantization.tensor_quantization import recorded_quantization
from graph_opt.remarks import GraphOptWarning
from graph_opt.testing.graph_builder import FakeQuantBuilder
from graph_opt.testing.quantized_blocks import mobilenet_block, resnet_block
from graph_opt.testing.tflite_runtime import tflite_outputs

tflite = pytest.importorskip("tflite")  # the schema package of graph-opt[tflite]

QAT = Path(__file__).parents[1] / "tensorflow" / "corpus" / "qat_conv_bn_saved_model"
INPUTS = 64


def qat_model(options: str = "") -> ModuleOp:
    """The corpus's tfmot QAT model through docs/quantization.md's QAT path."""
    return api.run(
        import_saved_model(QAT), f"optimize,quantize,convert-to-int{options}"
    )


def converted(builder_model, options: str = "") -> ModuleOp:
    _, module = builder_model
    return api.run(module, f"convert-to-int{options}")


def read(data: bytes):
    """The model, its subgraph, its operators and their names."""
    model = tflite.Model.GetRootAs(data, 0)
    graph = model.Subgraphs(0)
    ops = [graph.Operators(i) for i in range(graph.OperatorsLength())]
    return model, graph, ops, operator_names(data)


def tensor_data(model, tensor) -> np.ndarray:
    dtype = {tflite.TensorType.INT8: np.int8, tflite.TensorType.INT32: np.int32}[
        tensor.Type()
    ]
    raw = model.Buffers(tensor.Buffer()).DataAsNumpy()
    return np.frombuffer(raw.tobytes(), dtype).reshape(tensor.ShapeAsNumpy())


def test_qat_model_operators_are_tflite_converters():
    """The operators tf.lite.TFLiteConverter writes for this SavedModel
    (tests/formats/tensorflow/fixtures/qat_conv_bn_tflite.npz), QUANTIZE and
    DEQUANTIZE at the float boundaries."""
    _, graph, _, codes = read(tflite_bytes(qat_model()))
    assert codes == [
        "QUANTIZE", "CONV_2D", "DEPTHWISE_CONV_2D", "MEAN", "FULLY_CONNECTED", "DEQUANTIZE"
    ]  # fmt: skip
    (inp,), (out,) = graph.InputsAsNumpy(), graph.OutputsAsNumpy()
    assert graph.Tensors(inp).Type() == tflite.TensorType.FLOAT32
    assert graph.Tensors(out).Type() == tflite.TensorType.FLOAT32


def test_conv_filter_bias_and_scales_are_the_graphs():
    module = qat_model()
    model, graph, ops, codes = read(tflite_bytes(module))
    qconv = next(op for op in module.walk() if isinstance(op, QConvOp))
    weights_op = qconv.operands[1].owner
    recorded = recorded_quantization(weights_op)
    conv = ops[codes.index("CONV_2D")]
    x, w, b = (graph.Tensors(i) for i in conv.InputsAsNumpy())
    hwio = constant_value(qconv.operands[1])
    np.testing.assert_array_equal(tensor_data(model, w), hwio.transpose(3, 0, 1, 2))
    assert w.Type() == tflite.TensorType.INT8
    wq = w.Quantization()
    assert wq.QuantizedDimension() == 0 and recorded.axis == 3
    np.testing.assert_array_equal(wq.ScaleAsNumpy(), recorded.scales)
    assert not wq.ZeroPointAsNumpy().any()
    np.testing.assert_array_equal(
        tensor_data(model, b), constant_value(qconv.operands[2])
    )
    x_scale = np.float64(x.Quantization().ScaleAsNumpy()[0])
    np.testing.assert_array_equal(
        b.Quantization().ScaleAsNumpy(), (x_scale * recorded.scales).astype(np.float32)
    )
    (use,) = entry_function(module).args[0].uses
    quantize = use.operation
    assert x.Quantization().ZeroPointAsNumpy().tolist() == quantize.zero_points.tolist()


def test_fused_relu_and_depthwise_multiplier():
    model, graph, ops, codes = read(tflite_bytes(qat_model()))
    for code, table in (
        ("CONV_2D", tflite.Conv2DOptions),
        ("DEPTHWISE_CONV_2D", tflite.DepthwiseConv2DOptions),
    ):
        op = ops[codes.index(code)]
        options = table()
        options.Init(op.BuiltinOptions().Bytes, op.BuiltinOptions().Pos)
        assert options.FusedActivationFunction() == tflite.ActivationFunctionType.RELU
        assert options.Padding() == tflite.Padding.SAME
    depthwise = tflite.DepthwiseConv2DOptions()
    dw = ops[codes.index("DEPTHWISE_CONV_2D")]
    depthwise.Init(dw.BuiltinOptions().Bytes, dw.BuiltinOptions().Pos)
    assert depthwise.DepthMultiplier() == 1
    assert graph.Tensors(dw.InputsAsNumpy()[1]).ShapeAsNumpy().tolist()[0] == 1


def test_fully_connected_weights_are_out_by_in():
    module = qat_model()
    model, graph, ops, codes = read(tflite_bytes(module))
    qmatmul = next(op for op in module.walk() if isinstance(op, QMatMulOp))
    fc = ops[codes.index("FULLY_CONNECTED")]
    w = graph.Tensors(fc.InputsAsNumpy()[1])
    np.testing.assert_array_equal(tensor_data(model, w), constant_value(qmatmul.rhs).T)


def test_integer_io_inputs_and_outputs_carry_the_recorded_parameters():
    module = qat_model("{integer-io=true}")
    _, graph, _, codes = read(tflite_bytes(module))
    assert "QUANTIZE" not in codes and "DEQUANTIZE" not in codes
    function = entry_function(module)
    (inp,), (out,) = graph.InputsAsNumpy(), graph.OutputsAsNumpy()
    for index, attrs in ((inp, function.arg_attrs), (out, function.res_attrs)):
        tensor = graph.Tensors(index)
        assert tensor.Type() == tflite.TensorType.INT8
        scale, zero_point = boundary_quantization(attrs, 0)
        assert tensor.Quantization().ScaleAsNumpy().tolist() == [np.float32(scale)]
        assert tensor.Quantization().ZeroPointAsNumpy().tolist() == [zero_point]


def test_input_stats_requantize_to_the_graphs_input():
    """tflite_convert's mean/std: the input is read as (q - mean) / std and
    requantized to what the graph's first layer reads."""
    data = tflite_bytes(qat_model("{integer-io=true}"), [(-3.0, 40.0)])
    _, graph, ops, codes = read(data)
    assert codes[0] == "QUANTIZE"
    inp = graph.Tensors(graph.InputsAsNumpy()[0])
    assert inp.Quantization().ScaleAsNumpy().tolist() == [np.float32(1 / 40.0)]
    assert inp.Quantization().ZeroPointAsNumpy().tolist() == [-3]
    assert ops[0].InputsAsNumpy().tolist() == graph.InputsAsNumpy().tolist()


@pytest.mark.parametrize("stats", [[(0.0, 1.0)], [(300.0, 1.0)]])
def test_input_stats_need_an_integer_input_and_mean(stats):
    module = qat_model("" if stats[0][0] == 0 else "{integer-io=true}")
    with pytest.raises(FrontendError, match="^tflite export: input input: mean"):
        tflite_bytes(module, stats)


def narrow_range_conv() -> ModuleOp:
    """A conv whose output fake quant is narrow range: int8 levels [-127, 127],
    a clamp that no fused activation computes."""
    g = FakeQuantBuilder((1, 6, 6, 3), seed=5)
    x = g.act(g.block.args[0], -2.0, 2.0)
    w = g.weights((3, 3, 3, 4), 3)
    h = g.op(ConvOp, x, w, g.bias(4), data_layout=str_attr("NHWC"))
    return api.run(g.module(g.act(h, -3.0, 3.0, narrow_range=True)), "convert-to-int")


def test_a_clamp_no_fused_activation_computes_is_maximum():
    model, graph, ops, codes = read(tflite_bytes(narrow_range_conv()))
    assert codes == ["QUANTIZE", "CONV_2D", "MAXIMUM", "DEQUANTIZE"]
    bound = graph.Tensors(ops[2].InputsAsNumpy()[1])
    assert tensor_data(model, bound).tolist() == -127


def padded_conv_pool() -> ModuleOp:
    """A conv and a max pool whose pads are neither SAME nor VALID."""
    g = FakeQuantBuilder((1, 8, 8, 3), seed=6)
    x = g.act(g.block.args[0], -2.0, 2.0)
    w = g.weights((3, 3, 3, 4), 3)
    nhwc = {"data_layout": str_attr("NHWC")}
    h = g.op(ConvOp, x, w, g.bias(4), pads=i64_array([2, 2, 2, 2]), **nhwc)
    h = g.act(h, -3.0, 3.0)
    pool = {"kernel_shape": i64_array([2, 2]), "strides": i64_array([2, 2])}
    h = g.op(MaxPoolOp, h, pads=i64_array([1, 1, 1, 1]), **pool, **nhwc)
    return api.run(g.module(h), "convert-to-int")


def test_other_pads_are_padv2_by_zero_point_and_int8_min():
    module = padded_conv_pool()
    model, graph, ops, codes = read(tflite_bytes(module))
    assert codes == [
        "QUANTIZE",
        "PADV2",
        "CONV_2D",
        "PADV2",
        "MAX_POOL_2D",
        "DEQUANTIZE",
    ]
    quantize = next(op for op in module.walk() if isinstance(op, QuantizeOp))
    fills = [
        tensor_data(model, graph.Tensors(ops[i].InputsAsNumpy()[2])) for i in (1, 3)
    ]
    assert [f.tolist() for f in fills] == [int(quantize.zero_points[0]), -128]
    padded = graph.Tensors(ops[1].OutputsAsNumpy()[0])
    assert padded.ShapeAsNumpy().tolist() == [1, 12, 12, 3]


def test_resnet_block_writes_add_max_pool_mean():
    codes = read(tflite_bytes(converted(resnet_block("NHWC", True))))[3]
    assert codes == [
        "QUANTIZE", "CONV_2D", "CONV_2D", "ADD", "MAX_POOL_2D", "MEAN", "RESHAPE",
        "FULLY_CONNECTED", "DEQUANTIZE",
    ]  # fmt: skip


def test_a_multiplier_tflite_would_not_compute_is_warned_of():
    """TFLite recomputes each requantization from the tensor scales: a rescale
    whose multiplier is another would round differently there."""
    module = qat_model()
    rescale = next(op for op in module.walk() if isinstance(op, RescaleOp))
    values = rescale.multipliers + 1
    rescale.properties["multiplier"] = DenseArrayBase.from_list(i32, values.tolist())
    with pytest.warns(
        GraphOptWarning, match="its multipliers are not those TFLite computes"
    ):
        tflite_bytes(module)


@pytest.mark.parametrize("recipe", ["xnnpack", "tflite-builtin", "tflite-reference"])
def test_graph_multipliers_are_tflites(recipe):
    with warnings.catch_warnings():
        warnings.simplefilter("error", GraphOptWarning)
        tflite_bytes(qat_model())
        tflite_bytes(converted(resnet_block("NHWC", True), f"{{recipe={recipe}}}"))


def test_an_add_no_tflite_runtime_computes_is_warned_of():
    """The default recipe adds at a common scale, rounding each input once:
    neither TFLite runtime's ADD."""
    with pytest.warns(
        GraphOptWarning, match=r"nn.add %\S+: rounds as no TFLite runtime"
    ):
        tflite_bytes(converted(resnet_block("NHWC", True)))


@pytest.mark.parametrize(
    "built, exported",
    [("xnnpack", "tflite-builtin"), ("tflite-builtin", "xnnpack")],
)
def test_a_graph_of_another_recipe_is_warned_of(built, exported):
    """The recipe recorded on the module is the runtime the export checks for."""
    module = converted(resnet_block("NHWC", True), f"{{recipe={built}}}")
    module.attributes["nn.int8_recipe"] = str_attr(exported)
    with pytest.warns(
        GraphOptWarning, match=f"not TFLite's int8 ADD in .*recipe={exported}"
    ):
        tflite_bytes(module)


def test_a_boundary_of_another_recipe_is_warned_of():
    """The float input's QUANTIZE is checked against the recorded runtime's."""
    module = converted(resnet_block("NHWC", True), "{recipe=xnnpack}")
    module.attributes["nn.int8_recipe"] = str_attr("tflite-reference")
    with pytest.warns(
        GraphOptWarning,
        match=r"nn.quantize %\S+: computes 'reciprocal-half-even', not "
        r"'divide-half-away' as the reference kernels",
    ):
        tflite_bytes(module)


def test_float_op_is_refused_naming_it():
    g = FakeQuantBuilder((1, 4, 4, 2), seed=3)
    x = g.act(g.block.args[0], -1.0, 1.0)
    module = api.run(g.module(g.act(g.op(SigmoidOp, x), 0.0, 1.0)), "convert-to-int")
    with pytest.raises(
        FrontendError, match=r"^tflite export: nn.sigmoid\b.*no TFLite form"
    ):
        tflite_bytes(module)


def test_nchw_is_refused():
    module = converted(resnet_block("NCHW", True))
    with pytest.raises(FrontendError, match="NHWC windows only"):
        tflite_bytes(module)


def test_int8_value_without_recorded_scale_is_refused():
    module = qat_model()
    for op in module.walk():
        if not isinstance(op, ConstantOp):
            op.attributes.pop("nn.quantization", None)
    with pytest.raises(FrontendError, match="no scale recorded"):
        tflite_bytes(module)


def test_graph_opt_writes_tflite_by_suffix_and_refuses_without_o(tmp_path):
    source = tmp_path / "fq.mlir"
    api.save(api.run(import_saved_model(QAT), "optimize,quantize"), source)
    out = tmp_path / "m.tflite"
    cmd = [sys.executable, "-m", "graph_opt", str(source), "-p", "convert-to-int"]
    subprocess.run([*cmd, "-o", str(out)], check=True)
    assert read(out.read_bytes())[3][1] == "CONV_2D"
    bad = subprocess.run(
        [*cmd[:4], "-t", "tflite", "-o", str(out)], capture_output=True, text=True
    )
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "nn.fake_quant" in bad.stderr.strip().splitlines()[-1]


def test_cli_input_stats(tmp_path):
    source = tmp_path / "fq.mlir"
    api.save(api.run(import_saved_model(QAT), "optimize,quantize"), source)
    out = tmp_path / "m.tflite"
    cmd = [
        sys.executable,
        "-m",
        "graph_opt",
        str(source),
        "-p",
        "convert-to-int{integer-io=true}",
    ]
    subprocess.run([*cmd, "--tflite-input-stats=-3,40", "-o", str(out)], check=True)
    assert read(out.read_bytes())[3][0] == "QUANTIZE"
    for args, message in (
        (["--tflite-input-stats", "3", "-o", str(out)], "takes MEAN,STD"),
        (["--tflite-input-stats", "0,1", "-o", str(tmp_path / "m.mlir")], "option of the TFLite output"),
    ):  # fmt: skip
        bad = subprocess.run([*cmd, *args], capture_output=True, text=True)
        assert bad.returncode != 0 and "Traceback" not in bad.stderr
        assert message in bad.stderr.strip().splitlines()[-1]


def test_api_save_writes_tflite(tmp_path):
    module = qat_model()
    api.save(module, tmp_path / "m.tflite")
    assert (tmp_path / "m.tflite").read_bytes() == tflite_bytes(module)


# In TFLite's own interpreter


def skip_without_interpreter() -> None:
    """TFLite's interpreter is dev time: ai-edge-litert's, or TensorFlow's."""
    try:
        import ai_edge_litert.interpreter  # noqa: F401 - only whether it imports
    except ImportError:
        pytest.importorskip("tensorflow")


def interpreter(data: bytes, delegates: bool = True):
    """TFLite's default interpreter (XNNPACK delegate) on the model, or its
    builtin kernels keeping every tensor."""
    try:
        from ai_edge_litert.interpreter import Interpreter, OpResolverType
    except ImportError:
        tf = pytest.importorskip("tensorflow")
        Interpreter, OpResolverType = (
            tf.lite.Interpreter,
            tf.lite.experimental.OpResolverType,
        )
    if delegates:
        runner = Interpreter(model_content=data)
    else:
        runner = Interpreter(
            model_content=data,
            experimental_op_resolver_type=OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
            experimental_preserve_all_tensors=True,
        )
    runner.allocate_tensors()
    return runner


def differing(module: ModuleOp, data: bytes, inputs: list[np.ndarray]) -> int:
    """How many output values TFLite and graph-opt's interpreter differ in."""
    runner = interpreter(data)
    (inp,), (out,) = runner.get_input_details(), runner.get_output_details()
    count = 0
    for x in inputs:
        runner.set_tensor(inp["index"], x)
        runner.invoke()
        count += int(
            (runner.get_tensor(out["index"]) != run_function(module, [x])[0]).sum()
        )
    return count


def float_inputs(shape, scale: float = 2.0) -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    return [
        (rng.standard_normal(shape) * scale).astype(np.float32) for _ in range(INPUTS)
    ]


def integer_inputs(shape, dtype=np.int8) -> list[np.ndarray]:
    rng = np.random.default_rng(8)
    info = np.iinfo(dtype)
    return [
        rng.integers(info.min, info.max + 1, shape).astype(dtype) for _ in range(INPUTS)
    ]


@pytest.mark.parametrize(
    "options, dtype",
    [
        ("", np.float32),
        ("{integer-io=true}", np.int8),
        ("{unsigned-io=true}", np.float32),
        ("{unsigned-io=true integer-io=true}", np.uint8),  # QUANTIZE uint8 <-> int8
    ],
)
def test_qat_model_is_bit_identical_in_tflite(options, dtype):
    module = qat_model(options)
    shape = (1, 16, 16, 3)
    if dtype == np.float32:
        inputs = float_inputs(shape)
    else:
        inputs = integer_inputs(shape, dtype)
    assert differing(module, tflite_bytes(module), inputs) == 0


def test_padded_conv_pool_is_bit_identical_in_tflite():
    module = padded_conv_pool()
    assert differing(module, tflite_bytes(module), float_inputs((1, 8, 8, 3))) == 0


def test_input_stats_requantize_as_nn_rescale_in_builtin_kernels():
    """TFLite's QUANTIZE from the (mean, std) input to the graph's input is
    nn.rescale's fixed-point requantization (multiplier of (1/std) / scale,
    rounding once), in its builtin kernels."""
    module = qat_model("{integer-io=true}")
    scale, zero_point = boundary_quantization(entry_function(module).arg_attrs, 0)
    mean, std = -3, 40.0
    runner = interpreter(tflite_bytes(module, [(mean, std)]), delegates=False)
    (inp,) = runner.get_input_details()
    (requantize,) = [o for o in runner._get_ops_details() if o["op_name"] == "QUANTIZE"]  # noqa: SLF001 - the op list
    ratio = float(np.float32(1 / std)) / float(np.float32(scale))
    multiplier, shift = quantize_multiplier(ratio)
    for x in integer_inputs((1, 16, 16, 3)):
        runner.set_tensor(inp["index"], x)
        runner.invoke()
        steps = apply_scale(x.astype(np.int64) - mean, multiplier, shift)
        expected = np.clip(steps + zero_point, -128, 127)
        np.testing.assert_array_equal(
            runner.get_tensor(requantize["outputs"][0]), expected
        )


@pytest.mark.parametrize("stats", [(-3, 40.0), (10, 3.0), (-128, 50.0)])
def test_input_stats_requantize_as_xnnpack_converts(stats):
    """In the default interpreter that QUANTIZE is XNNPACK's qs8 convert:
    nn.rescale by int8_requantization("xnnpack", ...) then the graph gives
    TFLite's outputs bit for bit (the builtin kernels' multiplier does not,
    for mean -3, std 40)."""
    skip_without_interpreter()
    module = qat_model("{integer-io=true recipe=xnnpack}")
    scale, zero_point = boundary_quantization(entry_function(module).arg_attrs, 0)
    mean, std = stats
    inputs = integer_inputs((1, 16, 16, 3))
    outputs = tflite_outputs(tflite_bytes(module, [stats]), "xnnpack", inputs)

    def differing_with(recipe: str) -> int:
        multiplier, shift = int8_requantization(recipe, 1 / std, scale)
        wrong = 0
        for x, got in zip(inputs, outputs, strict=True):
            steps = apply_scale(x.astype(np.int64) - mean, multiplier, shift)
            codes = np.clip(steps + zero_point, -128, 127).astype(np.int8)
            wrong += int((run_function(module, [codes])[0] != got).sum())
        return wrong

    assert differing_with("xnnpack") == 0
    if stats == (-3, 40.0):
        assert differing_with("tflite-builtin") > 0


def test_maximum_clamp_is_bit_identical_in_tflite():
    module = narrow_range_conv()
    assert differing(module, tflite_bytes(module), float_inputs((1, 6, 6, 3))) == 0


@pytest.mark.parametrize("per_channel", [True, False])
def test_mobilenet_block_is_bit_identical_in_tflite(per_channel):
    module = converted(mobilenet_block("NHWC", per_channel))
    data = tflite_bytes(module)
    assert "DEPTHWISE_CONV_2D" in read(data)[3]
    assert differing(module, data, float_inputs((1, 6, 6, 4))) == 0
