"""NonMaxSuppression: ONNX import to nn.non_max_suppression, our interpreter
against onnxruntime and the export run again in onnxruntime; computed limits
stay nn.opaque."""

from __future__ import annotations

import numpy as np
import pytest
from one_node_models import check_against_ort, model_of, op_names

from graph_opt.formats.onnx.importer import import_model

RNG = np.random.default_rng(0)
CORNERS = RNG.random((2, 30, 2)).astype(np.float32)
BOXES = np.concatenate(
    [CORNERS, CORNERS + RNG.random((2, 30, 2)).astype(np.float32) * 0.4], -1
)
SCORES = RNG.random((2, 3, 30)).astype(np.float32)
"""Two batches of 30 overlapping boxes, three classes: many suppressions."""


def limits(boxes: int, iou: float, score: float | None = None) -> dict:
    values = {"m": np.array([boxes], np.int64), "i": np.array([iou], np.float32)}
    if score is not None:
        values["s"] = np.array([score], np.float32)
    return values


@pytest.mark.parametrize(
    "consts, attrs",
    [
        (limits(5, 0.3, 0.2), {}),
        (limits(50, 0.5), {"center_point_box": 1}),
        (limits(0, 0.5), {}),
    ],
    ids=["capped_with_score_threshold", "center_boxes", "no_boxes"],
)
def test_import_run_export(consts, attrs):
    model, feeds = model_of(
        "NonMaxSuppression", {"b": BOXES, "sc": SCORES}, 13, consts, **attrs
    )
    check_against_ort(model, feeds, "nn.non_max_suppression", tol=0)


def test_flipped_corners_and_equal_scores_as_onnxruntime_orders_them():
    boxes = BOXES[:, :, [2, 3, 0, 1]]  # every box given by its other two corners
    scores = np.round(SCORES * 4) / 4  # ties: the lower index comes first
    model, feeds = model_of(
        "NonMaxSuppression", {"b": boxes, "sc": scores}, 13, limits(10, 0.4)
    )
    check_against_ort(model, feeds, "nn.non_max_suppression", tol=0)


def test_a_computed_threshold_stays_opaque():
    model, _ = model_of(
        "NonMaxSuppression",
        {"b": BOXES, "sc": SCORES, "i": np.array([0.5], np.float32)},
        13,
        inputs=["b", "sc", "m", "i"],
        consts={"m": np.array([5], np.int64)},
    )
    names = op_names(import_model(model, allow_opaque=True))
    assert "nn.non_max_suppression" not in names and "nn.opaque" in names
