"""ONNX mapping of NonMaxSuppression."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import f32_attr, float_value, i64_attr, int_value
from graph_opt.dialects.nn.detection import NonMaxSuppressionOp
from graph_opt.formats.onnx.op_table import exporter, importer


@importer("NonMaxSuppression")
def import_nms(b, node, inputs):
    """Its thresholds and box limit must be constants (absent: 0 boxes, IoU
    threshold 0, no score threshold); otherwise it stays nn.opaque."""
    boxes, scores, *limits = [*inputs, None, None, None][:5]
    if boxes is None or scores is None:
        return None
    values = []
    for value in limits:
        known = None if value is None else b.constant_value(value)
        if value is not None and (known is None or known.size != 1):
            return None
        values.append(None if known is None else known.reshape(-1)[0])
    max_boxes, iou, score = values
    props = {
        "max_output_boxes_per_class": i64_attr(
            0 if max_boxes is None else int(max_boxes)
        ),
        "iou_threshold": f32_attr(0.0 if iou is None else float(iou)),
        "center_point_box": i64_attr(b.attrs(node).get("center_point_box", 0)),
    }
    if score is not None:
        props["score_threshold"] = f32_attr(float(score))
    return b.create(NonMaxSuppressionOp, [boxes, scores], props)


@exporter(NonMaxSuppressionOp)
def export_nms(e, op: NonMaxSuppressionOp):
    props = op.properties
    inputs = [
        e.name(op.boxes),
        e.name(op.scores),
        e.initializer(
            np.array([int_value(props, "max_output_boxes_per_class", 0)], np.int64),
            "max_boxes",
        ),
        e.initializer(
            np.array([float_value(props, "iou_threshold", 0.0)], np.float32), "iou"
        ),
    ]
    if "score_threshold" in props:
        score = float_value(props, "score_threshold", 0.0)
        inputs.append(e.initializer(np.array([score], np.float32), "score"))
    attrs = e.attrs(center_point_box=int_value(props, "center_point_box", 0))
    e.node("NonMaxSuppression", inputs, [op.selected], attrs)
