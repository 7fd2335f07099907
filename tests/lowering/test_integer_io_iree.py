"""A CNN converted with convert-to-int{integer-io=true} lowers to TOSA with i8
function arguments and results and runs on IREE bit for bit as graph-opt's
interpreter runs it, fed int8 codes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from iree.compiler import ir

from graph_opt import api
from graph_opt.frontend.onnx_import import import_model
from graph_opt.interpreter import run_function
from graph_opt.testing import model_zoo

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import CompiledGraphs  # noqa: E402

INPUT_SHAPE = (1, 3, 16, 16)


@pytest.mark.parametrize("per_channel", [False, True])
def test_integer_io_unet_runs_on_iree_bit_exact(tmp_path, per_channel):
    module = import_model(model_zoo.unet())
    rng = np.random.default_rng(7)
    samples = tmp_path / "samples.npz"
    np.savez(samples, input=rng.standard_normal((8, *INPUT_SHAPE)).astype(np.float32))
    quantize = f"quantize{{per-channel={str(per_channel).lower()}}}"
    api.run(
        module,
        f'fold-bn,calibrate{{inputs="{samples}"}},{quantize},'
        "convert-to-int{integer-io=true}",
    )
    compiled = CompiledGraphs(module)
    with ir.Context():
        lowered = ir.Module.parse(compiled.tosa_text)
        assert lowered.operation.verify()
    (signature,) = [
        line for line in compiled.tosa_text.splitlines() if '"func.func"' in line
    ]
    types = "function_type = (tensor<1x3x16x16xi8>) -> tensor<1x2x16x16xi8>"
    assert types in signature and signature.count("nn.quantization") == 2
    for _ in range(3):
        codes = rng.integers(-128, 128, INPUT_SHAPE).astype(np.int8)
        (expected,) = run_function(module, [codes])
        (actual,) = compiled.run("main", [codes])
        assert actual.dtype == np.int8
        np.testing.assert_array_equal(actual, expected)
