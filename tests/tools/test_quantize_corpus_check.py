"""bench/quantize_corpus.py's corpus check: a model misses the goal when a conv
or matmul stays float, when its integer graph picks a level of a tensor other
than its fake-quant graph evaluated exactly, away from a rounding tie, or when
its mean relative error is above onnxruntime's as the table prints it; more
than one output step (near-tie flips only), a max or rms error above
onnxruntime's are notes."""

from __future__ import annotations

import numpy as np
import pytest

from bench.quantize_corpus import (
    as_printed,
    detection_cells,
    detector_notes,
    detector_shortfalls,
    matched_detections,
    notes,
    relative_l2,
    relative_rms,
    shortfalls,
    spread,
)


def row(**changes) -> dict:
    """A row that meets the goal, with `changes`."""
    return {
        "float": "0",
        "steps": "1.00",
        "max tie": 5e-8,
        "go err": 1.0e-2,
        "ort err": 1.2e-2,
        "go rms": 2.0e-3,
        "ort rms": 2.5e-3,
        "go l2": 1.5e-2,
        "ort l2": 1.8e-2,
    } | changes


def test_a_model_meeting_the_goal_is_ok():
    assert shortfalls(row()) == "ok" and notes(row()) == "-"
    assert shortfalls(row(steps="-")) == "ok"  # float output: no steps to count
    assert shortfalls(row(**{"max tie": None})) == "ok"  # no level flips


@pytest.mark.parametrize(
    ("changes", "missed"),
    [
        ({"float": "1"}, "float"),
        ({"max tie": 0.3}, "flip"),
        ({"go l2": 1.9e-2}, "l2"),
        ({"float": "2", "max tie": 2e-3, "go l2": 2e-2}, "float,flip,l2"),
    ],
)
def test_each_shortfall_is_named(changes, missed):
    assert shortfalls(row(**changes)) == missed


@pytest.mark.parametrize(
    ("changes", "noted"),
    [
        ({"steps": "2.00"}, "steps"),
        ({"go err": 1.3e-2}, "err"),
        ({"go rms": 2.6e-3, "steps": "5.00"}, "steps,rms"),
    ],
)
def test_what_the_check_does_not_count_is_noted(changes, noted):
    assert shortfalls(row(**changes)) == "ok"
    assert notes(row(**changes)) == noted


def test_a_flip_counts_only_away_from_a_tie():
    assert shortfalls(row(steps="5.00", **{"max tie": 9e-4})) == "ok"
    assert shortfalls(row(steps="1.00", **{"max tie": 1.1e-3})) == "flip"


def test_errors_are_compared_as_printed():
    assert as_printed(2.0512e-2) == as_printed(2.0508e-2) == 2.05e-2
    assert shortfalls(row(**{"go l2": 2.0512e-2, "ort l2": 2.0508e-2})) == "ok"
    assert shortfalls(row(**{"go l2": 2.056e-2, "ort l2": 2.054e-2})) == "l2"
    assert notes(row(**{"go err": 2.0512e-2, "ort err": 2.0508e-2})) == "-"


def test_rms_is_over_all_values_relative_to_the_largest_reference():
    reference = [np.array([4.0, -2.0]), np.array([1.0, 0.0])]
    outputs = [np.array([4.0, -1.0]), np.array([1.0, 1.0])]
    assert relative_rms(outputs, reference) == pytest.approx(np.sqrt(2 / 4) / 4)


def test_l2_is_each_inputs_relative_error_averaged():
    reference = [np.array([3.0, 4.0]), np.array([1.0, 0.0])]
    outputs = [np.array([3.0, 3.0]), np.array([1.0, 0.0])]
    assert relative_l2(outputs, reference) == pytest.approx((1 / 5 + 0) / 2)


def test_spread_is_zero_for_an_input_independent_output():
    constant = [np.array([2.0, -1.0])] * 3
    assert spread(constant) == 0.0
    varying = [np.array([1.0, 3.0]), np.array([3.0, 1.0])]
    assert spread(varying) == pytest.approx(1.0 / 2.0)


def detections(*rows) -> list[np.ndarray]:
    """(boxes [1, n, 4], scores [1, n], labels [1, n]) from (box, score, label) rows."""
    return [
        np.array([[r[0] for r in rows]], np.float32),
        np.array([[r[1] for r in rows]], np.float32),
        np.array([[r[2] for r in rows]], np.int64),
    ]


def test_detections_match_by_label_and_overlap_best_score_first():
    reference = detections(
        ([0, 0, 10, 10], 0.9, 1),
        ([0, 0, 10, 10], 0.8, 2),
        ([20, 20, 30, 30], 0.7, 1),
        ([50, 50, 60, 60], 0.0, 1),  # suppressed: not a detection
    )
    outputs = detections(
        ([1, 1, 10, 10], 0.85, 1),  # IoU 0.81 with the first
        ([0, 0, 10, 10], 0.8, 3),  # another label: no match for the second
        ([25, 25, 35, 35], 0.7, 1),  # IoU 0.14 with the third: too small
    )
    kept, differences = matched_detections(reference, outputs)
    assert kept == 3
    assert differences == [pytest.approx(0.05)]


def test_a_quantized_detection_matches_once():
    reference = detections(([0, 0, 10, 10], 0.9, 1), ([0, 0, 10, 10], 0.8, 1))
    outputs = detections(([0, 0, 10, 10], 0.7, 1), ([0, 0, 0, 0], 0.0, 1))
    assert matched_detections(reference, outputs) == (2, [pytest.approx(0.2)])
    recall, largest, mean = detection_cells(
        [reference, reference], [outputs, reference]
    )
    assert recall == pytest.approx(0.75)
    assert (largest, mean) == (pytest.approx(0.2), pytest.approx(0.2 / 3))


@pytest.mark.parametrize(
    ("changes", "missed", "noted"),
    [
        ({}, "ok", "-"),
        ({"go recall": 0.954}, "recall", "-"),
        ({"go recall": 0.9549}, "ok", "-"),  # 95.5% as printed
        ({"go mean": 4.1e-4}, "mean", "-"),
        ({"go score": 2.1e-3, "float": "1"}, "float", "score"),
    ],
)
def test_detector_shortfalls(changes, missed, noted):
    row = {"float": "0", "go recall": 0.955, "ort recall": 0.955,
           "go score": 2.0e-3, "ort score": 2.0e-3,
           "go mean": 4.0e-4, "ort mean": 4.0e-4} | changes  # fmt: skip
    assert detector_shortfalls(row) == missed
    assert detector_notes(row) == noted
