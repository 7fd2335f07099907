"""lower-to-tosa keeps the special-value semantics nn properties ask for
(TensorFlow's clamping cast, TensorFlow's and ONNX's arg max/min scans): IREE
runs the lowering to the interpreter's results bit for bit on NaN, infinities
and the types' extremes (docs/guarantees.md, "Special values")."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from graph_opt.api import parse
from graph_opt.interpreter import run_function
from graph_opt.testing.special_values import special_array, special_floats

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import CompiledGraphs  # noqa: E402

NAN, INF = np.nan, np.inf
LOWEST = -np.finfo(np.float32).max
ROWS = np.array(
    [
        [NAN, 1, 2, -INF, INF],  # a leading NaN
        [NAN] * 5,
        [-INF, NAN, -INF, INF, NAN],
        [INF, -INF, NAN, -INF, INF],
        [-INF] * 5,
        [3, NAN, 3, -1, 3],
        [1, NAN, 5, NAN, 2],
        [LOWEST, -INF, NAN, -LOWEST, 0],
    ],
    np.float32,
)
ONNX_ONLY_ROW = np.array([[-INF, LOWEST, NAN, LOWEST, -INF]], np.float32)
"""Where ONNX's scan (from the first element, -inf) finds the lowest finite
value; IREE's tosa.argmax starts its scan at that value (index 0)."""
CAST_N = 70


def graphs():
    n, r = CAST_N, len(ROWS) + 1
    arg = "(%x: tensor<{r}x5xf32>) -> tensor<{r}xi64> {{\n  %0 = nn.{op} %x {{axis = 1 : i64, keepdims = 0 : i64{props}}} : (tensor<{r}x5xf32>) -> tensor<{r}xi64>\n  func.return %0 : tensor<{r}xi64>\n}}\n"
    text = ""
    for op in ("argmax", "argmin"):
        for name, props in (("tensorflow", ""), ("onnx", ", scan_from_first")):
            text += f"func.func @{op}_{name}" + arg.format(r=r, op=op, props=props)
    for target in ("i8", "i16"):
        text += (
            f"func.func @cast_{target}(%x: tensor<{n}xf32>) -> tensor<{n}x{target}> {{\n"
            f"  %0 = nn.cast %x {{to = {target}, clamp_narrow}} : (tensor<{n}xf32>) -> tensor<{n}x{target}>\n"
            f"  func.return %0 : tensor<{n}x{target}>\n}}\n"
        )
    return parse(text)


@pytest.fixture(scope="module")
def compiled() -> CompiledGraphs:
    return CompiledGraphs(graphs())


def same(compiled: CompiledGraphs, name: str, x: np.ndarray) -> np.ndarray:
    want = run_function(compiled.module, [x], name)[0]
    got = compiled.run(name, [x])[0]
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    return got


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_tensorflow_scan_runs_on_iree_as_interpreted(compiled, op):
    x = np.concatenate([ROWS, ONNX_ONLY_ROW])
    x = x if op == "argmax" else -x
    got = same(compiled, f"{op}_tensorflow", x)
    assert got[0] == 4  # NaN never wins: inf (-inf for argmin of -x) does


@pytest.mark.parametrize("op", ["argmax", "argmin"])
def test_onnx_scan_runs_on_iree_as_interpreted(compiled, op):
    x = np.concatenate([ROWS, ROWS[:1]])  # ONNX_ONLY_ROW left out (see there)
    x = x if op == "argmax" else -x
    got = same(compiled, f"{op}_onnx", x)
    assert got[0] == 0  # a leading NaN wins


@pytest.mark.parametrize("target", ["i8", "i16"])
def test_clamped_cast_runs_on_iree_as_interpreted(compiled, target):
    rng = np.random.default_rng(11)
    specials = special_floats(np.float32)
    x = np.concatenate(
        [specials, special_array(rng, np.float32, [CAST_N - specials.size])]
    )
    got = same(compiled, f"cast_{target}", x)
    assert got[list(specials).index(np.inf)] == np.iinfo(got.dtype).min
