"""calibrate + quantize: recorded ranges are the tensors' ranges, inserted fake
quantizations use them, and quantized models stay within quantization error of
the float ones (and export to ONNX QDQ models that onnxruntime runs alike)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp
from xdsl.utils.exceptions import PassFailedException

from graph_opt.api import parse
from graph_opt.dialects.nn.qint import QuantizeOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.entry import entry_function
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.passes.calibrate.calibrate import CalibratePass
from graph_opt.passes.calibrate.calibration import RANGE_ATTR
from graph_opt.passes.common.quantize_patterns import activation_range, weight_range
from graph_opt.passes.fold_bn.fold_bn import FoldBatchNormPass
from graph_opt.passes.quantize.quantize import QuantizePass
from graph_opt.patterns import is_constant, is_op, registry, wildcard
from graph_opt.quantization.fake_quant_math import fake_quant, nudge
from graph_opt.remarks import GraphOptWarning
from graph_opt.testing import model_zoo

FIXTURES = Path(__file__).parents[1] / "formats" / "tensorflow" / "fixtures"
INPUT_SHAPE = (1, 3, 16, 16)
MODELS = {
    "resnet": lambda: model_zoo.resnet(blocks=(1, 1), width=4, size=16, classes=5),
    "mobilenet_v2": lambda: model_zoo.mobilenet_v2(
        width=4, size=16, classes=5, expansions=3
    ),
}


def float_module(name: str) -> ModuleOp:
    module = import_model(MODELS[name]())
    FoldBatchNormPass().apply(Context(), module)
    return module


def write_samples(
    tmp_path: Path, count: int = 3, seed: int = 0
) -> tuple[Path, np.ndarray]:
    samples = (
        np.random.default_rng(seed)
        .standard_normal((count, *INPUT_SHAPE))
        .astype(np.float32)
    )
    path = tmp_path / "samples.npz"
    np.savez(path, input=samples)
    return path, samples


def calibrated(module: ModuleOp, path: Path, **options) -> ModuleOp:
    module = module.clone()
    CalibratePass(inputs=str(path), **options).apply(Context(), module)
    return module


def quantized(module: ModuleOp, **options) -> ModuleOp:
    module = module.clone()
    QuantizePass(**options).apply(Context(), module)
    module.verify()
    return module


def fake_quants(module: ModuleOp) -> list[FakeQuantOp]:
    return [op for op in module.walk() if isinstance(op, FakeQuantOp)]


def tensors_by_name(module: ModuleOp, names: list[str], samples) -> dict[str, list]:
    """The named tensors of the float module on each sample, returned as extra results."""
    module = module.clone()
    function = entry_function(module)
    values = {r.name_hint: r for op in function.walk() for r in op.results}
    values.update((arg.name_hint, arg) for arg in function.args)
    ret = function.body.block.last_op
    results = [*ret.operands, *(values[n] for n in names)]
    ret.detach()
    ret.erase()
    function.body.block.add_op(func.ReturnOp(*results))
    function.function_type = FunctionType.from_lists(
        function.function_type.inputs.data, [r.type for r in results]
    )
    runs = [run_function(module, [s])[-len(names) :] for s in samples]
    return {n: [run[i] for run in runs] for i, n in enumerate(names)}


@pytest.mark.parametrize("name", sorted(MODELS))
def test_activation_ranges_are_the_calibrated_tensor_ranges(name, tmp_path):
    path, samples = write_samples(tmp_path)
    module = float_module(name)
    quant = quantized(calibrated(module, path))
    activations = [op for op in fake_quants(quant) if not op.is_narrow]
    assert activations
    names = [op.input.name_hint for op in activations]
    observed = tensors_by_name(module, names, samples)
    for op in activations:
        values = observed[op.input.name_hint]
        low = min(float(v.min()) for v in values)
        high = max(float(v.max()) for v in values)
        assert (op.mins[0], op.maxs[0]) == (
            np.float32(min(low, 0)),
            np.float32(max(high, 0)),
        )
    assert not any(RANGE_ATTR in op.attributes for op in quant.walk())


@pytest.mark.parametrize("name", sorted(MODELS))
def test_quantized_model_is_within_quantization_error(name, tmp_path):
    path, samples = write_samples(tmp_path)
    module = float_module(name)
    calibrated_module = calibrated(module, path)
    errors = {}
    for bits in (8, 16):
        quant = quantized(
            calibrated_module, weight_bits=bits, activation_bits=bits, per_channel=True
        )
        worst = 0.0
        for sample in samples:
            expected = run_function(module, [sample])[0]
            actual = run_function(quant, [sample])[0]
            worst = max(
                worst, float(np.abs(actual - expected).max() / np.ptp(expected))
            )
        errors[bits] = worst
    assert errors[8] < 0.05
    assert errors[16] < errors[8] / 50


def test_single_layer_is_exactly_conv_of_quantized_weights(tmp_path):
    """relu(conv(x, fq(w)) + b), fake-quantized with the calibrated relu range,
    b rounded to the int32 accumulator grid (input scale x weight scale)."""
    source = """
    func.func @main(%input: tensor<1x3x16x16xf32> {nn.name = "input"}) -> tensor<1x2x16x16xf32> {
      %w = nn.constant dense<[[[[0.5]], [[-0.25]], [[1.0]]], [[[0.75]], [[-2.0]], [[0.125]]]]> : tensor<2x3x1x1xf32>
      %b = nn.constant dense<[0.1, -0.3]> : tensor<2xf32>
      %c = nn.conv %input, %W, %b : (tensor<1x3x16x16xf32>, tensor<2x3x1x1xf32>, tensor<2xf32>) -> tensor<1x2x16x16xf32>
      %r = nn.relu %c : (tensor<1x2x16x16xf32>) -> tensor<1x2x16x16xf32>
      func.return %r : tensor<1x2x16x16xf32>
    }
    """
    weights = np.array([[0.5, -0.25, 1.0], [0.75, -2.0, 0.125]], np.float32)
    quantized_weights = fake_quant(  # symmetric per-channel weight ranges
        weights, [-1.0, -2.0], [1.0, 2.0], 8, narrow_range=True, axis=0
    ).reshape(2, 3, 1, 1)
    path, samples = write_samples(tmp_path)
    module = parse(source.replace("%W", "%w"))
    quant = quantized(calibrated(module, path), per_channel=True)
    input_low = min(min(float(s.min()) for s in samples), 0.0)
    input_high = max(max(float(s.max()) for s in samples), 0.0)
    grid = (
        nudge([input_low], [input_high], 8, False).scale.astype(np.float64)
        * nudge([-1.0, -2.0], [1.0, 2.0], 8, True).scale
    )
    bias = (np.rint(np.array([0.1, -0.3]) / grid) * grid).astype(np.float32)
    reference = parse(
        source.replace("%W", "%wq")
        .replace(
            "%b = ",
            f"%wq = nn.constant dense<{quantized_weights.tolist()}> : tensor<2x3x1x1xf32>\n%b = ",
        )
        .replace("dense<[0.1, -0.3]>", f"dense<{bias.tolist()}>")
    )
    relu_high = max(float(run_function(module, [s])[0].max()) for s in samples)
    for sample in samples:
        quantized_input = fake_quant(sample, [input_low], [input_high], 8, False)
        expected = fake_quant(
            run_function(reference, [quantized_input])[0], [0.0], [relu_high], 8, False
        )
        np.testing.assert_array_equal(run_function(quant, [sample])[0], expected)


@pytest.mark.parametrize(
    "method, options",
    [("moving_average", {"decay": 0.6}), ("percentile", {"percentile": 99.0})],
)
def test_calibration_methods(method, options, tmp_path):
    path, samples = write_samples(tmp_path, count=4)
    module = float_module("mobilenet_v2")
    marked = calibrated(module, path, method=method, **options)
    ops = [op for op in entry_function(marked).walk() if RANGE_ATTR in op.attributes]
    names = [op.results[0].name_hint for op in ops]
    observed = tensors_by_name(module, names, samples)
    for op, name in zip(ops, names):
        values = observed[name]
        if method == "moving_average":
            low, high = float(values[0].min()), float(values[0].max())
            for v in values[1:]:
                low -= (low - float(v.min())) * (1 - options["decay"])
                high -= (high - float(v.max())) * (1 - options["decay"])
        else:
            flat = np.concatenate([v.ravel() for v in values]).astype(np.float64)
            low, high = np.percentile(flat, [1.0, 99.0])
        recorded = op.attributes[RANGE_ATTR].get_values()
        np.testing.assert_allclose(recorded, [low, high], rtol=1e-6, atol=1e-6)


def test_tensorflow_quantization_aware_graph_keeps_its_ranges():
    from graph_opt.formats.tensorflow import import_graph_def, load_graph_def

    graph = load_graph_def(str(FIXTURES / "fake_quant_qat.pb"))
    module = import_graph_def(graph, outputs=["out"])
    before = [(op.mins.tolist(), op.maxs.tolist()) for op in fake_quants(module)]
    assert len(before) == 2
    with pytest.warns(GraphOptWarning, match="layer input.*stay float"):
        quant = quantized(module)
    assert [(op.mins.tolist(), op.maxs.tolist()) for op in fake_quants(quant)] == before


def test_quantize_without_calibration_names_the_tensors():
    module = float_module("resnet")
    with (
        pytest.raises(
            PassFailedException, match="no calibrated range for nn.relu .*run calibrate"
        ),
        pytest.warns(GraphOptWarning, match="argument input.*run calibrate"),
    ):
        QuantizePass().apply(Context(), module)


@pytest.mark.parametrize(
    "options, message",
    [
        ({"weight_bits": 1}, r"bits must be in \[2, 16\], got 1"),
        ({"include": "("}, "bad regular expression '\\('"),
    ],
)
def test_quantize_option_errors(options, message):
    with pytest.raises(PassFailedException, match=message):
        QuantizePass(**options).apply(Context(), float_module("resnet"))


def test_calibration_input_errors(tmp_path):
    module = float_module("resnet")
    with pytest.raises(PassFailedException, match="calibrate needs inputs"):
        CalibratePass().apply(Context(), module)
    with pytest.raises(PassFailedException, match="cannot read calibration inputs"):
        CalibratePass(inputs=str(tmp_path / "none.npz")).apply(Context(), module)
    np.savez(tmp_path / "bad.npz", input=np.zeros((2, 1, 3, 5, 5), np.float32))
    with pytest.raises(
        PassFailedException,
        match=r"input has samples of shape \[1, 3, 5, 5\], the argument is tensor<1x3x16x16xf32>",
    ):
        CalibratePass(inputs=str(tmp_path / "bad.npz")).apply(Context(), module)
    with pytest.raises(PassFailedException, match="decay must be in"):
        CalibratePass(inputs="x.npz", method="moving_average", decay=1.0).apply(
            Context(), module
        )


def test_cli_pipeline_exports_a_qdq_model_onnxruntime_agrees_with(tmp_path):
    path, samples = write_samples(tmp_path)
    source = tmp_path / "model.onnx"
    onnx.save(MODELS["mobilenet_v2"](), source)
    target = tmp_path / "quantized.onnx"
    pipeline = f'fold-bn,calibrate{{inputs="{path}"}},quantize{{per-channel=true}}'
    subprocess.run(
        [sys.executable, "-m", "graph_opt.tools.graph_opt_main", str(source),
         "-p", pipeline, "-t", "onnx", "-o", str(target)],
        check=True,
    )  # fmt: skip
    model = onnx.load(target)
    types = [n.op_type for n in model.graph.node]
    assert types.count("QuantizeLinear") == types.count("DequantizeLinear") > 10
    options = ort.SessionOptions()
    # unoptimized: QDQ stays float math instead of becoming integer kernels
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(
        str(target), options, providers=["CPUExecutionProvider"]
    )
    reimported = import_model(model)
    quantize_ops = [op for op in reimported.walk() if isinstance(op, QuantizeOp)]
    assert len(quantize_ops) == types.count("QuantizeLinear")
    in_process = quantized(
        calibrated(float_module("mobilenet_v2"), path), per_channel=True
    )
    for sample in samples:
        (expected,) = session.run(None, {"input": sample})
        np.testing.assert_array_equal(run_function(reimported, [sample])[0], expected)
        np.testing.assert_allclose(
            run_function(in_process, [sample])[0], expected, rtol=1e-5, atol=1e-5
        )


def test_biases_sit_on_the_accumulator_grid_so_int8_matches_fake_quant(tmp_path):
    """quantize rounds each layer's bias to input scale x weight scale, the grid
    convert-to-int adds it on: the integer ResNet then stays within one output
    step of its fake-quantized graph (45% of logits were a step or more apart)."""
    from graph_opt.dialects.nn.constant import constant_value
    from graph_opt.dialects.nn.conv import ConvOp
    from graph_opt.passes.convert_to_int.bias_rounding import input_quantization
    from graph_opt.passes.convert_to_int.convert_to_int import ConvertToIntPass
    from graph_opt.passes.convert_to_int.params import activation_params, int_weights

    path, samples = write_samples(tmp_path, count=8)
    quant = quantized(calibrated(float_module("resnet"), path), per_channel=True)
    checked = 0
    for op in quant.walk():
        if isinstance(op, ConvOp) and op.bias is not None:
            x_quant, w_quant = input_quantization(op.input), op.filter.owner
            weights = np.asarray(constant_value(w_quant.input), np.float32)
            grid = (
                activation_params(x_quant).scale
                * int_weights(w_quant, weights, 0).scales
            )
            steps = constant_value(op.bias) / grid
            np.testing.assert_allclose(steps, np.rint(steps), atol=1e-3)
            checked += 1
    assert checked >= 4
    converted = quant.clone()
    ConvertToIntPass().apply(Context(), converted)
    step = float(
        entry_function(converted).body.block.last_op.operands[0].owner.scales[0]
    )
    for sample in write_samples(tmp_path, count=8, seed=1)[1]:
        apart = np.abs(
            run_function(converted, [sample])[0] - run_function(quant, [sample])[0]
        )
        assert apart.max() <= step * 1.001


def test_user_pattern_layers_are_within_quantization_error(tmp_path, monkeypatch):
    """quantize{patterns=conv-relu}: only convs followed by a relu are layers;
    their relu output is quantized, the rest of the model stays float."""

    monkeypatch.setattr(registry, "_user_patterns", {})
    conv = is_op("conv")(wildcard(), is_constant(), None)
    registry.register_pattern("conv-relu", is_op("relu")(conv))
    path, samples = write_samples(tmp_path)
    module = float_module("resnet")
    quant = quantized(calibrated(module, path), patterns="conv-relu")
    relu_convs = [
        op
        for op in module.walk()
        if op.name == "nn.conv"
        and any(u.operation.name == "nn.relu" for u in op.results[0].uses)
    ]
    weights = [op for op in fake_quants(quant) if op.is_narrow]
    assert (
        0
        < len(weights)
        == len(relu_convs)
        < sum(1 for o in module.walk() if o.name == "nn.conv")
    )
    for sample in samples:
        expected = run_function(module, [sample])[0]
        actual = run_function(quant, [sample])[0]
        assert float(np.abs(actual - expected).max() / np.ptp(expected)) < 0.05


def test_user_pattern_ending_in_a_softmax_quantizes_its_root(monkeypatch):
    """A pattern's root is quantized as asked even past a softmax; the logits
    the softmax reads stay unrounded, as in the built-in rules."""
    monkeypatch.setattr(registry, "_user_patterns", {})
    layer = is_op("matmul")(wildcard(), is_constant())
    registry.register_pattern("classifier", is_op("softmax")(layer))
    module = parse(
        """
        func.func @main(%x: tensor<1x2xf32> {nn.range = array<f32: -1.0, 1.0>}) -> tensor<1x2xf32> {
          %w = nn.constant dense<[[1.0, -1.0], [2.0, 0.5]]> : tensor<2x2xf32>
          %m = nn.matmul %x, %w {nn.range = array<f32: -3.0, 3.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
          %s = nn.softmax %m {nn.range = array<f32: 0.0, 1.0>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
          func.return %s : tensor<1x2xf32>
        }
        """
    )
    quant = quantized(module, patterns="classifier")
    quantized_values = [op.input for op in fake_quants(quant) if not op.is_narrow]
    assert [getattr(v.owner, "name", "argument") for v in quantized_values] == [
        "argument",
        "nn.softmax",
    ]


def test_statistics_count_concat_inputs_and_classifier_logits():
    """Two layers only a quantized concat reads, and a classifier whose
    logits only a softmax reads, are counted in the pass statistics."""
    from graph_opt import api

    module = parse(
        """
        func.func @main(%x: tensor<1x2xf32> {nn.range = array<f32: -1.0, 1.0>}) -> tensor<1x2xf32> {
          %w = nn.constant dense<[[1.0, -1.0], [2.0, 0.5]]> : tensor<2x2xf32>
          %a = nn.matmul %x, %w {nn.range = array<f32: -1.0, 1.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
          %b = nn.matmul %x, %w {nn.range = array<f32: 0.5, 4.0>} : (tensor<1x2xf32>, tensor<2x2xf32>) -> tensor<1x2xf32>
          %c = nn.concat %a, %b {axis = 1 : i64, nn.range = array<f32: -1.0, 4.0>} : (tensor<1x2xf32>, tensor<1x2xf32>) -> tensor<1x4xf32>
          %v = nn.constant dense<0.5> : tensor<4x2xf32>
          %m = nn.matmul %c, %v {nn.range = array<f32: -2.0, 2.0>} : (tensor<1x4xf32>, tensor<4x2xf32>) -> tensor<1x2xf32>
          %s = nn.softmax %m {nn.range = array<f32: 0.0, 1.0>} : (tensor<1x2xf32>) -> tensor<1x2xf32>
          func.return %s : tensor<1x2xf32>
        }
        """
    )
    stats: list = []
    api.run(module, "quantize", statistics=stats)
    counters = stats[0].counters
    assert counters["inputs at their concat's range"] == 2
    assert counters["classifier logits left unrounded"] == 1


def test_quantize_unknown_pattern_is_one_line():
    with pytest.raises(PassFailedException, match="quantize: unknown pattern 'nope'"):
        QuantizePass(patterns="nope").apply(Context(), float_module("resnet"))


COMPUTED_ZERO_BIAS = """
func.func @main(%input: tensor<2x3xf32> {nn.name = "input"}) -> tensor<2x2xf32> {
  %w = nn.constant dense<[[0.5, -1.0], [0.25, 2.0], [-0.75, 1.5]]> : tensor<3x2xf32>
  %zero = nn.constant dense<0.0> : tensor<2xf32>
  %shape = nn.constant dense<[1, 2]> : tensor<2xi64>
  %b_row = nn.reshape %zero, %shape : (tensor<2xf32>, tensor<2xi64>) -> tensor<1x2xf32>
  %b = nn.squeeze %b_row : (tensor<1x2xf32>) -> tensor<2xf32>
  %y = nn.matmul %input, %w : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %z = nn.add %y, %b : (tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  func.return %z : tensor<2x2xf32>
}
"""


def test_a_bias_computed_from_constants_is_a_bias(tmp_path):
    """A frozen Keras bias is reshaped and squeezed: not an activation to
    quantize (its calibrated range, [0, 0], had no scale and no ONNX form)."""
    path = tmp_path / "samples.npz"
    rng = np.random.default_rng(0)
    np.savez(path, input=rng.standard_normal((3, 2, 3)).astype(np.float32))
    quant = quantized(calibrated(parse(COMPUTED_ZERO_BIAS), path))
    producers = {
        getattr(op.operands[0].owner, "name", "arg") for op in fake_quants(quant)
    }
    assert producers == {"arg", "nn.constant", "nn.add"}  # input, weight, output
    assert not [op for op in quant.walk() if op.name in ("nn.reshape", "nn.squeeze")]
    for op in fake_quants(quant):
        assert (op.mins < op.maxs).all()


def test_an_all_zero_weight_gets_scale_one():
    """TFLite's quantizer gives an all-zero range a scale of 1: 0 stays exact."""
    low, high = weight_range(np.zeros((3, 2), np.float32), 1, True, 8)
    assert low.tolist() == [-127.0, -127.0] and high.tolist() == [127.0, 127.0]
    assert activation_range(0.0, 0.0, 8, symmetric=False) == (0.0, 255.0)
    assert activation_range(-1.0, 2.0, 8, symmetric=False) == (-1.0, 2.0)
