"""Reductions over constant axes: Mean, Sum, Max, Min (keep_dims, default false)."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn.base import i64_array, i64_attr
from graph_opt.dialects.nn.reduce import (
    ReduceMaxOp,
    ReduceMeanOp,
    ReduceMinOp,
    ReduceSumOp,
)
from graph_opt.frontend.tensorflow.op_table import importer

REDUCTIONS = {
    "Mean": ReduceMeanOp,
    "Sum": ReduceSumOp,
    "Max": ReduceMaxOp,
    "Min": ReduceMinOp,
}


@importer(*REDUCTIONS)
def import_reduction(b, node, inputs):
    x, axes = inputs
    axes = np.asarray(b.constant_input(axes, "reduction_indices")).reshape(-1)
    if axes.size == 0:  # TensorFlow reduces nothing then; nn would reduce every axis
        b.decline("an empty reduction_indices is not supported")
    props = {
        "axes": i64_array([int(a) for a in axes]),
        "keepdims": i64_attr(int(b.attr("keep_dims", False))),
    }
    return b.create(REDUCTIONS[node.op], [x], props)
