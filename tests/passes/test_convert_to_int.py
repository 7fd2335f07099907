"""convert-to-int: the int8 graph computes what the fake-quantized float graph
computes, to within one quantization step of the output, on random inputs."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from graph_opt.dialects.nn.base import i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import (
    ClipOp,
    HardSwishOp,
    IdentityOp,
    ReluOp,
    SigmoidOp,
)
from graph_opt.dialects.nn.fused import FusedConvOp, FusedMatMulOp
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.dialects.nn.qint import QuantizeOp, RescaleOp
from graph_opt.dialects.nn.quant import FakeQuantOp, fake_quant_props
from graph_opt.dialects.nn.shape_ops import FlattenOp, SqueezeOp, UnsqueezeOp
from graph_opt.dialects.nn.tensor_ops import ConcatOp, PadOp, TransposeOp
from graph_opt.entry import entry_function
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.passes.calibrate.calibrate import CalibratePass
from graph_opt.passes.convert_to_int.convert_to_int import ConvertToIntPass
from graph_opt.passes.fold_bn.fold_bn import FoldBatchNormPass
from graph_opt.passes.fuse_ops.fuse_ops import FuseOpsPass
from graph_opt.passes.quantize.quantize import QuantizePass
from graph_opt.quantization.fake_quant_math import fake_quant, nudge
from graph_opt.testing import model_zoo
from graph_opt.testing.graph_builder import FakeQuantBuilder
from graph_opt.testing.quantized_blocks import (
    mobilenet_block,
    resnet_block,
)


def op_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk()]


def check_converted(graph: FakeQuantBuilder, module: ModuleOp, **options) -> ModuleOp:
    """Convert a clone (pass options as keywords) and compare outputs on random
    inputs: at most one step apart."""
    converted = module.clone()
    ConvertToIntPass(**options).apply(Context(), converted)
    converted.verify()
    for inputs in graph.input_sets():
        (expected,) = run_function(module, inputs)
        (actual,) = run_function(converted, inputs)
        assert actual.dtype == np.float32 and actual.shape == expected.shape
        steps = np.abs(actual - expected) / graph.output_scale
        assert steps.max() <= 1.001, steps.max()
        # Off-by-one steps come from rounding ties only: rare.
        assert (steps > 0.5).mean() < 0.02
    return converted


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_resnet_block(layout, per_channel):
    graph, module = resnet_block(layout, per_channel)
    converted = check_converted(graph, module)
    names = op_names(converted)
    assert names.count("nn.qconv") == 2 and "nn.qmatmul" in names
    assert "nn.conv" not in names and "nn.gemm" not in names
    assert "nn.fake_quant" not in names
    # The global average pool is an i32 sum rescaled to int8 too.
    assert "nn.global_avg_pool" not in names and "nn.reduce_sum" in names
    assert names.count("nn.quantize") == 1


@pytest.mark.parametrize("layout", ["NCHW", "NHWC"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_mobilenet_block(layout, per_channel):
    graph, module = mobilenet_block(layout, per_channel)
    converted = check_converted(graph, module)
    names = op_names(converted)
    assert names.count("nn.qconv") == 3
    assert not {"nn.conv", "nn.fused_conv", "nn.fake_quant"} & set(names)
    assert names.count("nn.quantize") == 1 and names.count("nn.dequantize") == 1


def test_unsigned_io_quantizes_inputs_and_outputs_as_uint8():
    graph, module = mobilenet_block("NHWC", True)
    converted = check_converted(graph, module, unsigned_io=True)
    quantize = next(op for op in converted.walk() if isinstance(op, QuantizeOp))
    assert str(quantize.output.type.element_type) == "ui8"
    rescales = [op for op in converted.walk() if isinstance(op, RescaleOp)]
    assert rescales[0].flag("input_unsigned") and rescales[-1].flag("output_unsigned")
    assert str(rescales[-1].output.type.element_type) == "ui8"


def test_double_round_rescales_round_twice():
    graph, module = mobilenet_block("NHWC", True)
    converted = check_converted(graph, module, double_round=True)
    rescales = [op for op in converted.walk() if isinstance(op, RescaleOp)]
    assert {op.rounding for op in rescales} == {"DOUBLE_ROUND"}  # convs' and adds'


def test_matmul_and_concat():
    g = FakeQuantBuilder((3, 6), seed=3)
    x = g.act(g.block.args[0], -3.0, 3.0)
    h1 = g.op(
        FusedMatMulOp, x, g.weights((6, 5), 1), g.bias(5), activation=str_attr("relu")
    )
    h1 = g.act(h1, 0.0, 3.0)
    h2 = g.act(g.op(MatMulOp, x, g.weights((6, 4), None)), -2.0, 2.5)
    out = g.act(g.op(ConcatOp, h1, h2, axis=i64_attr(1)), -2.0, 3.0)
    converted = check_converted(g, g.module(out))
    names = op_names(converted)
    assert names.count("nn.qmatmul") == 2 and "nn.concat" in names
    assert not {"nn.matmul", "nn.fused_matmul", "nn.fake_quant"} & set(names)


def test_zero_padding_pads_with_the_zero_point():
    g = FakeQuantBuilder((1, 2, 4, 4), seed=9)
    x = g.act(g.block.args[0], -1.0, 3.0)
    padded = g.op(PadOp, x, pads=i64_array([0, 0, 1, 1, 0, 0, 1, 1]))
    out = g.act(g.op(ConvOp, padded, g.weights((3, 2, 3, 3), 0)), -3.0, 3.0)
    converted = check_converted(g, g.module(out))
    (pad,) = [op for op in converted.walk() if isinstance(op, PadOp)]
    zero_point = pad.input.owner.properties["zero_point"].get_values()[0]
    assert zero_point != 0 and pad.fill == zero_point


def test_scale_preserving_ops_run_on_int8_exactly():
    g = FakeQuantBuilder((2, 3, 4), seed=11)
    x = g.act(g.block.args[0], -2.0, 3.0)
    h = g.op(TransposeOp, x, perm=i64_array([0, 2, 1]))
    h = g.op(SqueezeOp, g.op(UnsqueezeOp, g.op(ReluOp, h), axes=i64_array([0])))
    h = g.op(ConcatOp, g.op(IdentityOp, h), h, axis=i64_attr(2))
    module = g.module(g.op(FlattenOp, h))
    converted = check_converted(g, module)
    names = op_names(converted)
    assert names.count("nn.dequantize") == 1 and "nn.relu" not in names
    for inputs in g.input_sets():
        np.testing.assert_array_equal(
            run_function(converted, inputs)[0], run_function(module, inputs)[0]
        )


def test_activation_without_int8_form_runs_float_after_an_int8_conv():
    g = FakeQuantBuilder((1, 3, 5, 5), seed=4)
    x = g.act(g.block.args[0], -3.0, 3.0)
    h = g.op(ConvOp, x, g.weights((4, 3, 3, 3), 0))
    h = g.act(g.op(SigmoidOp, h), 0.0, 1.0)
    out = g.act(g.op(ConvOp, h, g.weights((2, 4, 1, 1), None)), -3.0, 3.0)
    converted = check_converted(g, g.module(out))
    names = op_names(converted)
    # The first conv feeds the sigmoid: int8, its accumulator dequantized.
    assert names.count("nn.conv") == 0 and names.count("nn.qconv") == 2
    assert "nn.sigmoid" in names and "nn.fake_quant" not in names
    assert names.count("nn.quantize") == 2
    [sigmoid] = [op for op in converted.walk() if isinstance(op, SigmoidOp)]
    assert sigmoid.operands[0].owner.operands[0].owner.name == "nn.qconv"


def test_negative_per_channel_and_16_bit_activations_stay_fake_quant():
    g = FakeQuantBuilder((2, 3), seed=5)
    per_channel = g.op(
        FakeQuantOp,
        g.block.args[0],
        **fake_quant_props([-1, -2, -3], [1, 2, 3], axis=1),
    )
    wide = g.op(FakeQuantOp, per_channel, **fake_quant_props([-1], [1], num_bits=16))
    module = g.module(wide)
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    assert op_names(converted) == op_names(module)


def test_negative_without_fake_quant_nothing_changes():
    g = FakeQuantBuilder((1, 3, 5, 5), seed=6)
    w = g.const(g.rng.standard_normal((4, 3, 3, 3)))
    module = g.module(g.op(ReluOp, g.op(ConvOp, g.block.args[0], w)))
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    assert op_names(converted) == op_names(module)


def test_narrow_range_activation_is_clamped_to_its_levels():
    g = FakeQuantBuilder((4, 4), seed=7)
    out = g.act(g.block.args[0], -1.0, 1.0, narrow_range=True)
    g.output_scale = float(nudge([-1.0], [1.0], 8, True).scale[0])
    module = g.module(out)
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    names = op_names(converted)
    assert "nn.clip" in names
    big = [np.full((4, 4), -10.0, np.float32)]
    np.testing.assert_allclose(
        run_function(converted, big)[0], run_function(module, big)[0], rtol=1e-6
    )


def test_fused_relu_folds_into_the_output_clamp():
    g = FakeQuantBuilder((1, 2, 4, 4), seed=8)
    x = g.act(g.block.args[0], -3.0, 3.0)
    # The output range reaches below 0, so relu must clamp at the zero point.
    h = g.op(FusedConvOp, x, g.weights((3, 2, 1, 1), None), activation=str_attr("relu"))
    out = g.act(h, -1.0, 3.0)
    converted = check_converted(g, g.module(out))
    clips = [op for op in converted.walk() if isinstance(op, ClipOp)]
    assert len(clips) == 1
    assert "nn.relu" not in op_names(converted)


@pytest.mark.parametrize("zoo_model", ["resnet", "mobilenet_v2"])
@pytest.mark.parametrize(("per_channel", "symmetric"), [(False, True), (True, True)])
def test_quantize_calibrate_convert_pipeline(
    tmp_path, zoo_model, per_channel, symmetric
):
    model = {
        "resnet": lambda: model_zoo.resnet(blocks=(1, 1), width=8, size=16, classes=10),
        "mobilenet_v2": lambda: model_zoo.mobilenet_v2(
            width=8, size=16, classes=10, expansions=3
        ),
    }[zoo_model]()
    module = import_model(model)
    for float_pass in (FoldBatchNormPass(), FuseOpsPass()):
        float_pass.apply(Context(), module)
    rng = np.random.default_rng(10)
    samples = tmp_path / "samples.npz"
    np.savez(samples, input=rng.standard_normal((8, 1, 3, 16, 16)).astype(np.float32))
    CalibratePass(inputs=str(samples)).apply(Context(), module)
    QuantizePass(per_channel=per_channel, symmetric=symmetric).apply(Context(), module)
    (result,) = entry_function(module).body.block.last_op.operands
    assert isinstance(result.owner, FakeQuantOp)
    nudged = nudge(result.owner.mins, result.owner.maxs, 8, False)
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    converted.verify()
    names = op_names(converted)
    # Every conv and the classifier are int8, the first conv included.
    assert names.count("nn.qconv") >= 9
    assert names.count("nn.conv") + names.count("nn.fused_conv") == 0
    assert "nn.gemm" not in names and "nn.matmul" not in names
    assert "nn.fake_quant" not in names
    for _ in range(3):
        x = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
        (expected,) = run_function(module, [x])
        (actual,) = run_function(converted, [x])
        assert np.abs(actual - expected).max() <= 1.001 * nudged.scale[0]


def gemm_hard_swish_gemm() -> onnx.ModelProto:
    """Gemm, HardSwish (which fuse-ops leaves apart from a gemm), Gemm."""
    rng = np.random.default_rng(11)
    weights = [
        numpy_helper.from_array(rng.standard_normal((8, 6), np.float32) * 0.5, "w1"),
        numpy_helper.from_array(rng.standard_normal(8, np.float32), "b1"),
        numpy_helper.from_array(rng.standard_normal((4, 8), np.float32) * 0.3, "w2"),
        numpy_helper.from_array(rng.standard_normal(4, np.float32) * 0.1, "b2"),
    ]
    nodes = [
        helper.make_node("Gemm", ["x", "w1", "b1"], ["g"], transB=1),
        helper.make_node("HardSwish", ["g"], ["h"]),
        helper.make_node("Gemm", ["h", "w2", "b2"], ["y"], transB=1),
    ]
    graph = helper.make_graph(
        nodes,
        "gemm_hard_swish_gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
        weights,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def test_layer_then_float_activation_is_quantized_after_the_activation_only(
    tmp_path,
):
    module = import_model(gemm_hard_swish_gemm())
    rng = np.random.default_rng(12)
    samples = tmp_path / "samples.npz"
    np.savez(samples, x=rng.standard_normal((16, 1, 6)).astype(np.float32))
    CalibratePass(inputs=str(samples)).apply(Context(), module)
    QuantizePass(per_channel=True).apply(Context(), module)
    [swish] = [op for op in module.walk() if isinstance(op, HardSwishOp)]
    # The gemm's accumulator goes to the hard_swish unrounded, as if fused.
    assert isinstance(swish.operands[0].owner, GemmOp)
    assert isinstance(swish.output.get_user_of_unique_use(), FakeQuantOp)
    (result,) = entry_function(module).body.block.last_op.operands
    step = nudge(result.owner.mins, result.owner.maxs, 8, False).scale[0]
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    names = op_names(converted)
    assert names.count("nn.qmatmul") == 2 and "nn.gemm" not in names
    assert "nn.hard_swish" in names and "nn.fake_quant" not in names
    for _ in range(3):
        x = rng.standard_normal((1, 6)).astype(np.float32)
        (expected,) = run_function(module, [x])
        (actual,) = run_function(converted, [x])
        assert np.abs(actual - expected).max() <= 1.001 * step


def gemm_model(name: str, nodes, outputs, weights) -> onnx.ModelProto:
    """A graph on x: [1, 6] of the nodes, with seeded weights (name: shape)."""
    rng = np.random.default_rng(13)
    initializers = [
        numpy_helper.from_array(rng.standard_normal(shape, np.float32) * 0.4, n)
        for n, shape in weights.items()
    ]
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 6])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs],
        initializers,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def calibrated_and_quantized(model: onnx.ModelProto, tmp_path) -> ModuleOp:
    module = import_model(model)
    samples = tmp_path / "samples.npz"
    rng = np.random.default_rng(14)
    np.savez(samples, x=rng.standard_normal((16, 1, 6)).astype(np.float32))
    CalibratePass(inputs=str(samples)).apply(Context(), module)
    QuantizePass(per_channel=True).apply(Context(), module)
    return module


def logits_of(module: ModuleOp) -> ModuleOp:
    """A clone returning the gemm's result instead of the softmax's."""
    clone = module.clone()
    [gemm] = [op for op in clone.walk() if isinstance(op, GemmOp)]
    entry_function(clone).body.block.last_op.operands[0] = gemm.results[0]
    return clone


def test_classifier_logits_reach_the_softmax_unrounded(tmp_path):
    """Gemm then Softmax: the gemm runs in int8 and the softmax on its
    dequantized accumulator, so the int8 graph computes the fake-quant graph's
    probabilities, and these are nearer the float model's than with the
    logits rounded to int8 at their calibrated range."""
    model = gemm_model(
        "classifier",
        [
            helper.make_node("Gemm", ["x", "w", "b"], ["logits"], transB=1),
            helper.make_node("Softmax", ["logits"], ["p"]),
        ],
        [("p", [1, 10])],
        {"w": (10, 6), "b": (10,)},
    )
    reference = import_model(model)
    module = calibrated_and_quantized(model, tmp_path)
    [gemm] = [op for op in module.walk() if isinstance(op, GemmOp)]
    assert not isinstance(gemm.results[0].get_user_of_unique_use(), FakeQuantOp)
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    names = op_names(converted)
    assert "nn.qmatmul" in names and "nn.gemm" not in names
    assert "nn.fake_quant" not in names
    samples = np.load(tmp_path / "samples.npz")["x"]
    float_logits = [run_function(logits_of(reference), [x])[0] for x in samples]
    low = min(0.0, min(float(v.min()) for v in float_logits))
    high = max(0.0, max(float(v.max()) for v in float_logits))
    rng = np.random.default_rng(15)
    unrounded_errors, rounded_errors = [], []
    for x in rng.standard_normal((16, 1, 6)).astype(np.float32):
        (expected,) = run_function(module, [x])
        (actual,) = run_function(converted, [x])
        np.testing.assert_allclose(actual, expected, atol=1e-6)
        (logits,) = run_function(logits_of(module), [x])
        rounded = fake_quant(logits, np.array([low]), np.array([high]), 8, False)
        rounded = np.exp(rounded - rounded.max())
        (probabilities,) = run_function(reference, [x])
        unrounded_errors.append(actual - probabilities)
        rounded_errors.append(rounded / rounded.sum() - probabilities)
    assert np.sqrt(np.mean(np.square(unrounded_errors))) < np.sqrt(
        np.mean(np.square(rounded_errors))
    )


def test_concat_inputs_are_rounded_once_on_the_concat_grid(tmp_path):
    """Two layers that only a concat reads take the concat's range (one
    rounding, no rescale before the int8 concat); a third that the graph also
    returns keeps its own and is rescaled. The int8 graph stays within one
    output step of the fake-quant graph."""
    model = gemm_model(
        "concat",
        [
            helper.make_node("Gemm", ["x", "w1"], ["a"], transB=1),
            helper.make_node("Gemm", ["x", "w2"], ["g"], transB=1),
            helper.make_node("Relu", ["g"], ["r"]),
            helper.make_node("Gemm", ["x", "w3"], ["s"], transB=1),
            helper.make_node("Concat", ["a", "r", "s"], ["c"], axis=1),
            helper.make_node("Gemm", ["c", "w4"], ["y"], transB=1),
        ],
        [("y", [1, 3]), ("s", [1, 2])],
        {"w1": (4, 6), "w2": (5, 6), "w3": (2, 6), "w4": (3, 11)},
    )
    module = calibrated_and_quantized(model, tmp_path)
    [concat] = [op for op in module.walk() if isinstance(op, ConcatOp)]
    out = concat.output.get_user_of_unique_use()
    ranges = [(op.mins, op.maxs) for op in (v.owner for v in concat.inputs)]
    assert ranges[0] == ranges[1] == (out.mins, out.maxs) != ranges[2]
    (result, _) = entry_function(module).body.block.last_op.operands
    step = nudge(result.owner.mins, result.owner.maxs, 8, False).scale[0]
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    # each layer's requantization, and the third input's move to the concat's scale
    assert op_names(converted).count("nn.rescale") == 4 + 1
    rng = np.random.default_rng(16)
    for x in rng.standard_normal((8, 1, 6)).astype(np.float32):
        expected, actual = run_function(module, [x])[0], run_function(converted, [x])[0]
        assert np.abs(actual - expected).max() <= 1.001 * step


def test_a_float32_tie_rounds_exactly_in_int8_where_fake_quant_rounds_up():
    """The one input of the zoo ResNet's eval set where the integer graph and
    its fake-quant graph part: x / scale = 22.4999964 rounds to 22, as the
    integer graph's quantize does; TF's FakeQuant computes (x - nudged_min) /
    scale = 148.5 in float32 and rounds up."""
    g = FakeQuantBuilder((1, 1))
    props = fake_quant_props([-4.59399033], [4.73195791])
    module = g.module(g.op(FakeQuantOp, g.block.args[0], **props))
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    x = np.array([[0.8228777]], np.float32)
    nudged = nudge([-4.59399033], [4.73195791], 8, False)
    scale, zero = float(nudged.scale[0]), int(nudged.zero_point[0]) - 128
    exact = np.floor(np.float64(x[0, 0]) / np.float64(scale) + 0.5) + zero
    (fake,) = run_function(module, [x])
    (integer,) = run_function(converted, [x])
    assert np.rint(integer[0, 0] / scale) + zero == exact == 20
    assert np.rint(fake[0, 0] / scale) + zero == 21
