"""nn.non_max_suppression lowered to TOSA plus a loop, its data-dependent row
count returned through tensor.extract_slice: compiled by IREE and run, the
selected rows (and what the graph gathers with them) equal to the
interpreter's, bit for bit."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from graph_opt import api
from graph_opt.interpreter import run_function

sys.path.insert(0, str(Path(__file__).parent))
from iree_harness import CompiledGraphs  # noqa: E402

RNG = np.random.default_rng(3)
CORNERS = RNG.random((2, 40, 2)).astype(np.float32)
BOXES = np.concatenate(
    [CORNERS, CORNERS + RNG.random((2, 40, 2)).astype(np.float32) * 0.4], -1
)
SCORES = RNG.random((2, 3, 40)).astype(np.float32)


def nms(name: str, limits: str, boxes: str = "tensor<2x40x4xf32>") -> str:
    """A function selecting boxes and gathering each selected box's corners
    (the torchscript export's flat index batch * 40 + box) and its score
    (the dynamo export's gather_nd of (batch, class, box))."""
    return f"""
func.func @{name}(%b: {boxes}, %s: tensor<2x3x40xf32>) -> (tensor<?x3xi64>, tensor<?x4xf32>, tensor<?xf32>) {{
  %sel = nn.non_max_suppression %b, %s {{{limits}}} : ({boxes}, tensor<2x3x40xf32>) -> tensor<?x3xi64>
  %c0 = nn.constant dense<0> : tensor<i64>
  %c2 = nn.constant dense<2> : tensor<i64>
  %batch = nn.gather %sel, %c0 {{axis = 1 : i64}} : (tensor<?x3xi64>, tensor<i64>) -> tensor<?xi64>
  %box = nn.gather %sel, %c2 {{axis = 1 : i64}} : (tensor<?x3xi64>, tensor<i64>) -> tensor<?xi64>
  %n = nn.constant dense<40> : tensor<i64>
  %first = nn.mul %batch, %n : (tensor<?xi64>, tensor<i64>) -> tensor<?xi64>
  %flat = nn.add %first, %box : (tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  %shape = nn.constant dense<[80, 4]> : tensor<2xi64>
  %all = nn.reshape %b, %shape : ({boxes}, tensor<2xi64>) -> tensor<80x4xf32>
  %corners = nn.gather %all, %flat {{axis = 0 : i64}} : (tensor<80x4xf32>, tensor<?xi64>) -> tensor<?x4xf32>
  %score = nn.gather_nd %s, %sel : (tensor<2x3x40xf32>, tensor<?x3xi64>) -> tensor<?xf32>
  func.return %sel, %corners, %score : tensor<?x3xi64>, tensor<?x4xf32>, tensor<?xf32>
}}"""


CASES = {
    "capped_with_score_threshold": (
        "max_output_boxes_per_class = 5 : i64, iou_threshold = 0.3 : f32, score_threshold = 0.2 : f32",
        lambda: (BOXES, SCORES),
    ),
    "suppression_decides_the_count": (
        "max_output_boxes_per_class = 100 : i64, iou_threshold = 0.2 : f32, score_threshold = 0.4 : f32",
        lambda: (BOXES, SCORES),
    ),
    "center_boxes_no_score_threshold": (
        "max_output_boxes_per_class = 8 : i64, iou_threshold = 0.4 : f32, center_point_box = 1 : i64",
        lambda: (BOXES, SCORES),
    ),
    "flipped_corners_and_tied_scores": (
        "max_output_boxes_per_class = 12 : i64, iou_threshold = 0.25 : f32",
        lambda: (BOXES[:, :, [2, 3, 0, 1]], np.round(SCORES * 4) / 4),
    ),
}


@pytest.fixture(scope="module")
def compiled() -> CompiledGraphs:
    text = "\n".join(nms(name, limits) for name, (limits, _) in CASES.items())
    return CompiledGraphs(api.parse(text))


@pytest.mark.parametrize("name", CASES)
def test_nms_runs_on_iree_like_the_interpreter(compiled, name):
    inputs = list(CASES[name][1]())
    expected = run_function(compiled.module, inputs, function=name)
    actual = compiled.run(name, inputs)
    for got, want in zip(actual, expected, strict=True):
        assert got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)
    count = len(expected[0])
    assert 0 < count < 2 * 3 * 40  # some boxes kept, some suppressed
