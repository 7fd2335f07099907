"""Per-channel int8 CNNs lowered to TOSA and printed with `--weights-as-resources`
run on IREE bit for bit as the interpreter runs them.

A rescale's multiplier (C x i32) can reach the resource size while its shift
(C x i8) does not; upstream MLIR's TosaToLinalg then reads the multiplier
from an empty table (IREE returned zeros, or logits far from the
interpreter's, and needed a 147 KB stack frame). The printer keeps both
inline (graph_opt/resources.py, INLINE_OPERANDS)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

from graph_opt.interpreter import run_function
from graph_opt.resources import DEFAULT_MIN_BYTES
from graph_opt.testing import model_zoo

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import CompiledGraphs, int8_cnn  # noqa: E402

CNNS = {
    "unet": (lambda: model_zoo.unet(width=16), (1, 3, 16, 16)),
    "mobilenet_v2": (
        lambda: model_zoo.mobilenet_v2(width=8, size=16, classes=10, expansions=3),
        (1, 3, 16, 16),
    ),
}


def int8_module(tmp_path, name: str):
    model, shape = CNNS[name]
    rng = np.random.default_rng(11)
    module = int8_cnn(model(), shape, tmp_path, rng, True, "convert-to-int")
    return module, shape


def rescale_operands(text: str) -> list[str]:
    """The defining line of each multiplier and shift of the text's rescales."""
    defining = {}
    for line in text.splitlines():
        found = re.match(r"\s*(%[\w.]+) = ", line)
        if found:
            defining[found.group(1)] = line
    operands = []
    for line in text.splitlines():
        if '"tosa.rescale"(' in line:
            names = line.split('"tosa.rescale"(')[1].split(")")[0].split(", ")
            operands += [defining[n] for n in names[1:3]]
    return operands


@pytest.mark.parametrize("name", sorted(CNNS))
def test_int8_cnn_with_resource_weights_runs_on_iree_bit_exact(tmp_path, name):
    module, shape = int8_module(tmp_path, name)
    compiled = CompiledGraphs(module, resources=DEFAULT_MIN_BYTES)
    assert compiled.tosa_text.count("dense_resource<") >= 4
    parameters = rescale_operands(compiled.tosa_text)
    assert any("tensor<16xi32>" in line for line in parameters)
    assert not [line for line in parameters if "dense_resource<" in line]
    rng = np.random.default_rng(5)
    for _ in range(4):
        x = rng.standard_normal(shape).astype(np.float32)
        (expected,) = run_function(module, [x])
        (actual,) = compiled.run("main", [x])
        np.testing.assert_array_equal(actual, expected)
