"""End to end: float models through fold-bn, fuse-ops, calibrate, quantize,
convert-to-int and lower-to-tosa, each stage compared with the one before on
seeded random inputs (not the calibration samples), and the command of
docs/quantization.md run as a subprocess whose output upstream MLIR parses and
verifies."""

from __future__ import annotations

import subprocess
from functools import cached_property
from pathlib import Path

import iree.compiler as iree_compiler
import iree.runtime as iree_runtime
import numpy as np
import onnx
import pytest
from iree.compiler import ir
from xdsl.dialects.builtin import ModuleOp
from xdsl.rewriter import InsertPoint, Rewriter

from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.elementwise import AddOp, MaxOp, MinOp
from graph_opt.dialects.nn.names import argument_names
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.entry import entry_function
from graph_opt.formats.onnx.importer import import_model
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function
from graph_opt.quantization.fake_quant_math import channel_shape, nudge
from graph_opt.testing import model_zoo

FIXTURES = Path(__file__).parents[1] / "formats" / "tensorflow" / "fixtures"
TF_MODEL, TF_OUTPUT = FIXTURES / "tf_depthwise_blocks.pb", "Conv2D_1"

DOCS_PIPELINE = (
    'fold-bn,fuse-ops,calibrate{inputs="samples.npz"},'
    "quantize{per-channel=true symmetric=true},convert-to-int,lower-to-tosa"
)
"""docs/quantization.md's end-to-end command, word for word."""


def test_docs_state_the_pipeline():
    page = Path(__file__).parents[2] / "docs" / "quantization.md"
    assert f"-p '{DOCS_PIPELINE}'" in page.read_text()


MODELS = {
    "mobilenet_v2": lambda: model_zoo.mobilenet_v2(
        width=4, size=16, classes=10, expansions=3
    ),
    "resnet": lambda: model_zoo.resnet(blocks=(1, 1), width=4, size=16, classes=10),
}


def load(name: str) -> ModuleOp:
    if name in MODELS:
        return import_model(MODELS[name]())
    return import_graph_def(load_graph_def(str(TF_MODEL)), outputs=[TF_OUTPUT])


def input_shape(module: ModuleOp) -> tuple[int, ...]:
    (arg_type,) = entry_function(module).function_type.inputs.data
    return tuple(arg_type.get_shape())  # type: ignore[attr-defined]


def write_samples(module: ModuleOp, path: Path, count: int = 8) -> None:
    """Calibration samples keyed by the argument's name, in one leading dim."""
    (name,) = argument_names(entry_function(module))
    rng = np.random.default_rng(1)
    samples = rng.standard_normal((count, *input_shape(module)), dtype=np.float32)
    np.savez(path, **{name: samples})


class Stages:
    """One model after each stage of the docs' pipeline."""

    def __init__(self, name: str, directory: Path):
        self.float = load(name)
        samples = directory / "samples.npz"
        write_samples(self.float, samples)
        self.folded = api.run(self.float.clone(), "fold-bn,fuse-ops")
        self.fake_quant = api.run(
            self.folded.clone(),
            f'calibrate{{inputs="{samples}"}},quantize{{per-channel=true symmetric=true}}',
        )
        self.int = api.run(self.fake_quant.clone(), "convert-to-int")
        self.tosa = api.run(self.int.clone(), "lower-to-tosa")
        rng = np.random.default_rng(2)
        shape = input_shape(self.float)
        self.inputs = [rng.standard_normal(shape, dtype=np.float32) for _ in range(8)]

    @cached_property
    def iree_main(self):
        vmfb = iree_compiler.compile_str(
            api.to_mlir(self.tosa, generic=True),
            target_backends=["llvm-cpu"],
            input_type="tosa",
            extra_args=["--iree-llvmcpu-target-cpu=generic"],
        )
        runtime = iree_runtime.SystemContext(config=iree_runtime.Config("local-task"))
        runtime.add_vm_module(iree_runtime.VmModule.copy_buffer(runtime.instance, vmfb))
        return runtime.modules.module["main"]


@pytest.fixture(scope="module", params=[*sorted(MODELS), "tf_depthwise_blocks"])
def stages(request, tmp_path_factory) -> Stages:
    return Stages(request.param, tmp_path_factory.mktemp(request.param))


def op_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk()]


def output(module: ModuleOp, x: np.ndarray) -> np.ndarray:
    (result,) = run_function(module, [x])
    return result


def quantization_error_model(module: ModuleOp, rng: np.random.Generator) -> ModuleOp:
    """The module with every fake quant replaced by what it does to a value in
    expectation: a clamp to its nudged range, plus uniform rounding noise one
    step (its scale, per channel or per tensor) wide."""
    module = module.clone()
    for quant in [op for op in module.walk() if isinstance(op, FakeQuantOp)]:
        shape = tuple(quant.input.type.get_shape())  # type: ignore[attr-defined]
        channels = channel_shape(len(shape), quant.axis_value) or (1,)
        nudged = nudge(quant.mins, quant.maxs, quant.bits, quant.is_narrow)
        step = nudged.scale.reshape(channels)
        noise = rng.uniform(-0.5, 0.5, shape) * step
        constants = [
            ConstantOp.from_array(np.asarray(a, np.float32))
            for a in (nudged.min.reshape(channels), nudged.max.reshape(channels), noise)
        ]
        low, high, rounding = (c.output for c in constants)
        above = MaxOp.create_inferred([quant.input, low], {})
        clamped = MinOp.create_inferred([above.results[0], high], {})
        noisy = AddOp.create_inferred([clamped.results[0], rounding], {})
        Rewriter.insert_op(
            [*constants, above, clamped, noisy], InsertPoint.before(quant)
        )
        quant.output.replace_all_uses_with(noisy.results[0])
        quant.detach()
        quant.erase()
    return module


def test_fold_bn_and_fusion_keep_the_float_function(stages):
    names = op_names(stages.folded)
    assert "nn.batch_norm" not in names and "nn.fused_conv" in names
    for x in stages.inputs:
        expected = output(stages.float, x)
        np.testing.assert_allclose(
            output(stages.folded, x),
            expected,
            rtol=1e-5,
            atol=1e-5 * np.abs(expected).max(),
        )


def test_fake_quant_error_is_the_modelled_quantization_error(stages):
    """The error against the float model is what clamping to the nudged ranges
    plus rounding noise of the fake quants' steps gives, on average over inputs."""
    quants = [op for op in stages.fake_quant.walk() if isinstance(op, FakeQuantOp)]
    assert any(op.axis is not None for op in quants)  # per-channel weights
    assert any(op.axis is None and not op.is_narrow for op in quants)  # activations
    rng = np.random.default_rng(3)
    actual, modelled = [], []
    for x in stages.inputs:
        expected = output(stages.folded, x)
        actual.append(np.abs(output(stages.fake_quant, x) - expected).mean())
        for _ in range(4):
            noisy = quantization_error_model(stages.fake_quant, rng)
            modelled.append(np.abs(output(noisy, x) - expected).mean())
    ratio = np.mean(actual) / np.mean(modelled)
    assert 2 / 3 < ratio < 1.5, ratio


def test_int_graph_is_within_one_output_step_of_fake_quant(stages):
    names = op_names(stages.int)
    assert "nn.fake_quant" not in names and names.count("nn.qconv") >= 2
    returned = entry_function(stages.fake_quant).body.block.last_op.operands[0]
    assert isinstance(last := returned.owner, FakeQuantOp)
    step = nudge(last.mins, last.maxs, last.bits, last.is_narrow).scale[0]
    for x in stages.inputs:
        steps = np.abs(output(stages.int, x) - output(stages.fake_quant, x)) / step
        assert steps.max() <= 1.001, steps.max()


def test_tosa_on_iree_is_bit_exact_with_the_int_graph(stages):
    assert not any(name.startswith("nn.") for name in op_names(stages.tosa))
    for x in stages.inputs:
        actual = np.asarray(stages.iree_main(x).to_host())
        np.testing.assert_array_equal(actual, output(stages.int, x))


CLI_MODELS = {
    "model.onnx": ("mobilenet_v2", []),
    "model.pb": ("tf_depthwise_blocks", ["--outputs", TF_OUTPUT]),
}


@pytest.mark.parametrize("source", sorted(CLI_MODELS))
def test_readme_command_output_parses_in_upstream_mlir(source, tmp_path):
    name, options = CLI_MODELS[source]
    if name in MODELS:
        onnx.save(MODELS[name](), tmp_path / source)
    else:
        (tmp_path / source).write_bytes(TF_MODEL.read_bytes())
    write_samples(load(name), tmp_path / "samples.npz")
    result = subprocess.run(
        ["graph-opt", source, *options, "-p", DOCS_PIPELINE, "--print-op-generic"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    with ir.Context():
        module = ir.Module.parse(result.stdout)
        assert module.operation.verify()
        (function,) = module.body.operations
        names = {op.name for op in function.regions[0].blocks[0].operations}
    assert {"tosa.conv2d", "tosa.depthwise_conv2d", "tosa.rescale"} <= names
