"""The TFLite kernels' recipes (convert-to-int{recipe=tflite-builtin} and
{recipe=tflite-reference}: i32-to-i32 rescales, DOUBLE_ROUND, ruy's two
rescales, the spatial mean's i32 offset) lower to TOSA and run on IREE bit
for bit as graph-opt's interpreter runs them."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from graph_opt import api
from graph_opt.interpreter import run_function
from graph_opt.testing.quantized_blocks import mobilenet_block, resnet_block

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import CompiledGraphs  # noqa: E402

BLOCKS = {
    "resnet": (lambda: resnet_block("NHWC", True)[1], (1, 8, 8, 4)),
    "mobilenet": (lambda: mobilenet_block("NHWC", True)[1], (1, 6, 6, 4)),
}


@pytest.mark.parametrize("recipe", ["tflite-builtin", "tflite-reference"])
@pytest.mark.parametrize("block", list(BLOCKS))
def test_recipe_runs_on_iree_bit_exact(block, recipe):
    build, shape = BLOCKS[block]
    module = api.run(build(), f"convert-to-int{{recipe={recipe} integer-io=true}}")
    compiled = CompiledGraphs(module)
    rng = np.random.default_rng(3)
    for _ in range(8):
        codes = rng.integers(-128, 128, shape).astype(np.int8)
        (expected,) = run_function(module, [codes])
        (actual,) = compiled.run("main", [codes])
        np.testing.assert_array_equal(actual, expected)
