"""A CNN converted with convert-to-int{integer-io=true} lowers to TOSA with i8
function arguments and results and runs on IREE bit for bit as graph-opt's
interpreter runs it, fed int8 codes; with unsigned-io, the uint8 codes are
i8 tensors holding their bits (TOSA tensors are signless)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from iree.compiler import ir

from graph_opt.interpreter import run_function

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import UNET_INPUT_SHAPE, CompiledGraphs, int8_unet  # noqa: E402


@pytest.mark.parametrize(
    "per_channel, unsigned", [(False, False), (True, False), (True, True)]
)
def test_integer_io_unet_runs_on_iree_bit_exact(tmp_path, per_channel, unsigned):
    rng = np.random.default_rng(7)
    options = "integer-io=true" + (" unsigned-io=true" if unsigned else "")
    module = int8_unet(tmp_path, rng, per_channel, f"convert-to-int{{{options}}}")
    compiled = CompiledGraphs(module)
    with ir.Context():
        lowered = ir.Module.parse(compiled.tosa_text)
        assert lowered.operation.verify()
    (signature,) = [
        line for line in compiled.tosa_text.splitlines() if '"func.func"' in line
    ]
    types = "function_type = (tensor<1x3x16x16xi8>) -> tensor<1x2x16x16xi8>"
    assert types in signature and signature.count("nn.quantization") == 2
    dtype = np.uint8 if unsigned else np.int8
    for _ in range(3):
        codes = rng.integers(0, 256, UNET_INPUT_SHAPE).astype(np.uint8).view(dtype)
        (expected,) = run_function(module, [codes])
        (actual,) = compiled.run("main", [codes.view(np.int8)])
        assert expected.dtype == dtype and actual.dtype == np.int8
        np.testing.assert_array_equal(actual.view(dtype), expected)
