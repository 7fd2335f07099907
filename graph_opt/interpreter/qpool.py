"""Reference implementation of integer average pooling (TOSA 1.0 AVG_POOL2D)."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.qint import int_range
from graph_opt.dialects.nn.qpool import QAvgPoolOp
from graph_opt.interpreter.pool import PoolGeometry, channels_first_call
from graph_opt.quantization.fixed_point import apply_scale, reciprocal_scale


def qavg_pool_nchw(op: QAvgPoolOp, x: np.ndarray) -> np.ndarray:
    geometry = PoolGeometry(op, x.shape[2:])
    window_axes = tuple(range(-len(geometry.kernel), 0))
    values = x.astype(np.int64) - int_value(op.properties, "input_zp", 0)
    sums = geometry.windows(values, 0, 0).sum(axis=window_axes)
    ones = np.ones((1, 1, *x.shape[2:]), np.int64)
    counts = geometry.windows(ones, 0, 0).sum(axis=window_axes)
    multiplier, shift = reciprocal_scale(counts)
    low, high = int_range(op.output.type.element_type)  # type: ignore[attr-defined]
    out = apply_scale(sums, multiplier, shift) + int_value(
        op.properties, "output_zp", 0
    )
    return np.clip(out, low, high).astype(x.dtype)


@register_impls
class QPoolFunctions(InterpreterFunctions):
    @impl(QAvgPoolOp)
    def run_qavg_pool(self, interpreter: Interpreter, op: QAvgPoolOp, args):
        return (channels_first_call(op, args[0], lambda x: qavg_pool_nchw(op, x)),)
