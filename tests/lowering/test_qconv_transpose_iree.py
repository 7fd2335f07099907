"""An int8 UNet (model_zoo.unet through fold-bn, calibrate, quantize and
convert-to-int) lowers to TOSA with an int8 tosa.transpose_conv2d and runs on
IREE bit for bit as graph-opt's interpreter runs it."""

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
def test_int8_unet_runs_on_iree_bit_exact(tmp_path, per_channel):
    rng = np.random.default_rng(5)
    module = int8_unet(tmp_path, rng, per_channel, "convert-to-int")
    names = [op.name for op in module.walk()]
    assert names.count("nn.qconv_transpose") == 1 and "nn.conv_transpose" not in names
    compiled = CompiledGraphs(module)
    with ir.Context():
        lowered = ir.Module.parse(compiled.tosa_text)
        assert lowered.operation.verify()
    (transposed,) = [
        line
        for line in compiled.tosa_text.splitlines()
        if "tosa.transpose_conv2d" in line
    ]
    assert "acc_type = i32" in transposed and "tensor<1x8x8x16xi8>" in transposed
    for _ in range(3):
        x = rng.standard_normal(UNET_INPUT_SHAPE).astype(np.float32)
        (expected,) = run_function(module, [x])
        (actual,) = compiled.run("main", [x])
        np.testing.assert_array_equal(actual, expected)
