"""ONNX's MaxRoiPool (Caffe's ROI pooling), which onnx's reference evaluator
lacks: see `onnx_overrides.py`."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from onnx.reference.op_run import OpRun


def _round_half_away(value: float) -> int:
    """C's round(), as onnxruntime's kernel rounds the scaled corners."""
    return int(math.copysign(math.floor(abs(value) + 0.5), value))


def max_roi_pool(x, rois, pooled_shape, spatial_scale=1.0):
    """Per region (batch index, x1, y1, x2, y2) the maximum of each of
    `pooled_shape` bins over the scaled, rounded region; 0 for an empty bin."""
    pooled_h, pooled_w = pooled_shape
    height, width = x.shape[2:]
    y = np.zeros((len(rois), x.shape[1], pooled_h, pooled_w), x.dtype)
    for n, roi in enumerate(rois):
        batch = int(roi[0])
        x1, y1, x2, y2 = (_round_half_away(c * spatial_scale) for c in roi[1:])
        bin_h = np.float32(max(y2 - y1 + 1, 1)) / np.float32(pooled_h)
        bin_w = np.float32(max(x2 - x1 + 1, 1)) / np.float32(pooled_w)
        for ph in range(pooled_h):
            h0 = min(max(math.floor(ph * bin_h) + y1, 0), height)
            h1 = min(max(math.ceil((ph + 1) * bin_h) + y1, 0), height)
            for pw in range(pooled_w):
                w0 = min(max(math.floor(pw * bin_w) + x1, 0), width)
                w1 = min(max(math.ceil((pw + 1) * bin_w) + x1, 0), width)
                if h1 > h0 and w1 > w0:
                    y[n, :, ph, pw] = x[batch, :, h0:h1, w0:w1].max(axis=(1, 2))
    return y


def max_roi_pool_kernel() -> type[OpRun]:
    # imported when first needed: onnx.reference is ~200 modules and ~10 MB
    from onnx.reference.op_run import OpRun

    class MaxRoiPool(OpRun):
        op_domain = ""

        def _run(self, x, rois, pooled_shape=None, spatial_scale=1.0):
            return (max_roi_pool(x, rois, pooled_shape, spatial_scale),)

    return MaxRoiPool
