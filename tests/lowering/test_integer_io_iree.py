"""A CNN converted with convert-to-int{integer-io=true} lowers to TOSA with i8
function arguments and results and runs on IREE bit for bit as graph-opt's
interpreter runs it, fed int8 codes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from iree.compiler import ir

from graph_opt.interpreter import run_function

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import UNET_INPUT_SHAPE, CompiledGraphs, int8_unet  # noqa: E402


@pytest.mark.parametrize("per_channel", [False, True])
def test_integer_io_unet_runs_on_iree_bit_exact(tmp_path, per_channel):
    rng = np.random.default_rng(7)
    module = int8_unet(tmp_path, rng, per_channel, "convert-to-int{integer-io=true}")
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
        codes = rng.integers(-128, 128, UNET_INPUT_SHAPE).astype(np.int8)
        (expected,) = run_function(module, [codes])
        (actual,) = compiled.run("main", [codes])
        assert actual.dtype == np.int8
        np.testing.assert_array_equal(actual, expected)
