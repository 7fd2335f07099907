"""Reference implementation of non_max_suppression (ONNX's reference, vectorized)."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.base import float_value, int_value
from graph_opt.dialects.nn.detection import NonMaxSuppressionOp


def corners(boxes: np.ndarray, center_point_box: bool) -> tuple[np.ndarray, ...]:
    """(x_min, x_max, y_min, y_max) of [..., 4] boxes, in their own float type."""
    if center_point_box:
        x, y, w, h = np.moveaxis(boxes, -1, 0)
        return x - w / 2, x + w / 2, y - h / 2, y + h / 2
    y1, x1, y2, x2 = np.moveaxis(boxes, -1, 0)
    return (
        np.minimum(x1, x2),
        np.maximum(x1, x2),
        np.minimum(y1, y2),
        np.maximum(y1, y2),
    )


def suppresses(
    box: np.ndarray, others: np.ndarray, center: bool, threshold
) -> np.ndarray:
    """Whether IoU(box, each of others) > threshold, as ONNX's reference decides
    (no overlap, an empty box or union: never)."""
    ax0, ax1, ay0, ay1 = corners(box, center)
    bx0, bx1, by0, by1 = corners(others, center)
    ix0, ix1 = np.maximum(ax0, bx0), np.minimum(ax1, bx1)
    iy0, iy1 = np.maximum(ay0, by0), np.minimum(ay1, by1)
    inter = (ix1 - ix0) * (iy1 - iy0)
    area_a, area_b = (ax1 - ax0) * (ay1 - ay0), (bx1 - bx0) * (by1 - by0)
    union = area_a + area_b - inter
    valid = (ix1 > ix0) & (iy1 > iy0) & (inter > 0) & (area_a > 0) & (area_b > 0)
    valid &= union > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        return valid & (inter / np.where(valid, union, 1) > threshold)


def non_max_suppression(
    boxes, scores, max_per_class: int, iou: float, score: float | None, center: bool
) -> np.ndarray:
    dtype = boxes.dtype.type
    selected = []
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            row = scores[b, c]
            order = np.argsort(-row, kind="stable")
            if score is not None:
                order = order[row[order] > dtype(score)]
            suppressed = np.zeros(len(row), bool)
            kept = 0
            for i in order:
                if kept == max_per_class:
                    break
                if suppressed[i]:
                    continue
                selected.append((b, c, i))
                kept += 1
                suppressed |= suppresses(boxes[b, i], boxes[b], center, dtype(iou))
    return np.array(selected, np.int64).reshape(-1, 3)


@register_impls
class DetectionFunctions(InterpreterFunctions):
    @impl(NonMaxSuppressionOp)
    def run_nms(self, interpreter: Interpreter, op: NonMaxSuppressionOp, args):
        boxes, scores = args
        props = op.properties
        score = props.get("score_threshold")
        return (
            non_max_suppression(
                boxes,
                scores,
                max(int_value(props, "max_output_boxes_per_class", 0), 0),
                float_value(props, "iou_threshold", 0.0),
                None if score is None else score.value.data,  # type: ignore[union-attr]
                bool(int_value(props, "center_point_box", 0)),
            ),
        )
