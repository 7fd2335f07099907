"""The float64 evaluation of fake-quantized graphs (graph_opt/interpreter/precise.py):
float graphs give float32's numbers to float precision, fake quantizations keep
their grid and round exactly, and integer graphs from convert-to-int match it
where the float32 fake-quant graph does not."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import FunctionType, ModuleOp, TensorType, f32
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import InterpretationError

from graph_opt import api
from graph_opt.dialects.nn.base import i64_attr
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.dialects.nn.quant import FakeQuantOp, fake_quant_props
from graph_opt.dialects.nn.quant_training import FakeQuantVarsOp
from graph_opt.dialects.nn.tensor_ops import CastOp
from graph_opt.entry import entry_function
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.interpreter.precise import run_float64
from graph_opt.passes.convert_to_int.convert_to_int import ConvertToIntPass
from graph_opt.quantization.fake_quant_math import fake_quant, fake_quant_exact, nudge
from graph_opt.testing import model_zoo

F32 = np.float32


def one_op_module(build) -> ModuleOp:
    """main(x: 1x1xf32) returning build(block, x)."""
    block = Block(arg_types=[TensorType(f32, (1, 1))])
    ops = build(block.args[0])
    block.add_ops([*ops, func.ReturnOp(ops[-1].results[0])])
    signature = FunctionType.from_lists([block.args[0].type], [ops[-1].results[0].type])
    module = ModuleOp([func.FuncOp("main", signature, Region(block))])
    module.verify()
    return module


def quantized_resnet(tmp_path) -> ModuleOp:
    """A small ResNet (conv + relu, residual adds, gemm classifier) after
    optimize, calibrate and quantize{per-channel=true}."""
    module = import_model(model_zoo.resnet(blocks=(1, 1), width=8, size=16, classes=10))
    api.run(module, "optimize")
    samples = tmp_path / "samples.npz"
    rng = np.random.default_rng(0)
    np.savez(samples, input=rng.standard_normal((8, 1, 3, 16, 16)).astype(F32))
    api.run(module, f'calibrate{{inputs="{samples}"}},quantize{{per-channel=true}}')
    return module


def output_scale(module: ModuleOp) -> float:
    (result,) = entry_function(module).body.block.last_op.operands
    assert isinstance(result.owner, FakeQuantOp)
    return float(nudge(result.owner.mins, result.owner.maxs, 8, False).scale[0])


def test_float64_evaluation_of_a_float_graph_matches_float32():
    module = import_model(model_zoo.resnet(blocks=(1, 1), width=8, size=16, classes=10))
    api.run(module, "optimize")
    x = np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(F32)
    (single,) = run_function(module, [x])
    (double,) = run_float64(module, [x])
    assert single.dtype == np.float32 and double.dtype == np.float64
    scale = np.abs(double).max()
    assert 0 < np.abs(single - double).max() <= 1e-5 * scale


@pytest.mark.parametrize("axis", [None, 1])
def test_exact_fake_quant_keeps_the_float32_grid(axis):
    rng = np.random.default_rng(2)
    mins, maxs = np.array([-1.3, -0.2, 0.4], F32), np.array([2.1, 0.9, 3.0], F32)
    if axis is None:
        mins, maxs = mins[:1], maxs[:1]
    x = (rng.standard_normal((200, 3)) * 2).astype(F32)
    single = fake_quant(x, mins, maxs, 8, False, axis)
    double = fake_quant_exact(x.astype(np.float64), mins, maxs, 8, False, axis)
    nudged = nudge(mins, maxs, 8, False)
    scale = nudged.scale.astype(np.float64).reshape(1, -1)
    levels = double / scale
    assert np.array_equal(levels, np.rint(levels))  # exactly level x scale
    assert levels.min() == -nudged.zero_point.max() and levels.max() > 0  # clamped
    # The same levels as TensorFlow's float32 kernel away from ties.
    assert np.array_equal(np.rint(single / scale), levels)


def test_a_tie_rounds_exactly_in_float64_and_in_int8_not_in_float32():
    """The zoo ResNet's input at 22.4999964 steps: TF's float32 FakeQuant
    computes (x - nudged_min) / scale = 148.5 and rounds up to level 21, exact
    arithmetic and the integer graph give 20."""
    props = fake_quant_props([-4.59399033], [4.73195791])
    module = one_op_module(lambda x: [FakeQuantOp.create_inferred([x], props)])
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    x = np.array([[0.8228777]], F32)
    nudged = nudge([-4.59399033], [4.73195791], 8, False)
    scale = float(nudged.scale[0])
    assert np.float64(x[0, 0]) / scale == pytest.approx(22.4999964, abs=1e-7)

    def level(run, m) -> float:
        return float(np.rint(run(m, [x])[0][0, 0] / scale)) + nudged.zero_point[0] - 128

    assert level(run_function, module) == 21
    assert level(run_float64, module) == level(run_function, converted) == 20


def test_a_tie_rounds_exactly_with_the_range_as_operands():
    """nn.fake_quant_vars (QAT's range variables) on the same tie."""

    def build(x):
        low, high = (
            ConstantOp.from_array(np.array(v, F32)) for v in (-4.59399033, 4.73195791)
        )
        quantized = FakeQuantVarsOp.create_inferred(
            [x, low.output, high.output], {"num_bits": i64_attr(8)}
        )
        return [low, high, quantized]

    module = one_op_module(build)
    x = np.array([[0.8228777]], F32)
    scale = float(nudge([-4.59399033], [4.73195791], 8, False).scale[0])
    assert np.rint(run_function(module, [x])[0][0, 0] / scale) == 23
    assert np.rint(run_float64(module, [x])[0][0, 0] / scale) == 22


def test_a_fake_quantized_constant_keeps_tensorflow_float32_levels():
    """A weight 0.49999997 steps above zero: TF's float32 kernel gives level 1
    (what convert-to-int stores), exact rounding 0; the float64 evaluation keeps
    the weight's stored level and computes with it exactly."""
    mins, maxs = np.array([-0.113625579], F32), np.array([0.113625579], F32)
    weight = np.array([[0.00044734476]], F32)
    scale = float(nudge(mins, maxs, 8, True).scale[0])
    assert fake_quant(weight, mins, maxs, 8, True)[0, 0] / scale == pytest.approx(1)
    exact = fake_quant_exact(weight.astype(np.float64), mins, maxs, 8, True)
    assert exact[0, 0] == 0
    props = fake_quant_props(mins, maxs, narrow_range=True)

    def build(x):
        constant = ConstantOp.from_array(weight)
        quantized = FakeQuantOp.create_inferred([constant.output], props)
        return [constant, quantized, AddOp.create_inferred([x, quantized.output], {})]

    x = np.array([[0.25]], F32)
    (out,) = run_float64(one_op_module(build), [x])
    assert out[0, 0] == 0.25 + scale


def test_negative_an_op_computing_in_float32_is_refused():
    module = one_op_module(lambda x: [CastOp.create_inferred([x], {"to": f32})])
    with pytest.raises(InterpretationError, match="nn.cast computed in float32"):
        run_float64(module, [np.ones((1, 1), F32)])


def test_int8_resnet_matches_its_float64_fake_quant_reference(tmp_path):
    module = quantized_resnet(tmp_path)
    step = output_scale(module)
    converted = module.clone()
    ConvertToIntPass().apply(Context(), converted)
    names = [op.name for op in converted.walk()]
    assert names.count("nn.qconv") == 9 and names.count("nn.qmatmul") == 1
    assert "nn.conv" not in names and "nn.fused_conv" not in names
    rng = np.random.default_rng(3)
    differing = 0
    for _ in range(16):
        x = rng.standard_normal((1, 3, 16, 16)).astype(F32)
        (integer,) = run_function(converted, [x])
        (reference,) = run_float64(module, [x])
        steps = np.abs(np.rint(integer / step) - np.rint(reference / step))
        assert steps.max() <= 1
        differing += int(np.count_nonzero(steps))
    # Exact but for the 31-bit rescale multipliers and the float32 input
    # quantize (a logit one step off in about 1 of 200 inputs).
    assert differing <= 1
