"""Reductions over constant axes (keep_dims, default false): Mean, Sum, Max, Min,
Prod, Any, All; ArgMax and ArgMin along a constant dimension; Cumsum."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import i64

from graph_opt.dialects.nn import reduce as r
from graph_opt.dialects.nn.base import i64_array, i64_attr
from graph_opt.formats.tensorflow.mappings.compare import create_typed
from graph_opt.formats.tensorflow.mappings.shape_ops import int_constant
from graph_opt.formats.tensorflow.op_table import importer
from graph_opt.formats.tensorflow.schema import DATA_TYPES
from graph_opt.formats.tensorflow.tensors import mlir_element_type

REDUCTIONS = {
    "Mean": r.ReduceMeanOp,
    "Sum": r.ReduceSumOp,
    "Max": r.ReduceMaxOp,
    "Min": r.ReduceMinOp,
    "Prod": r.ReduceProdOp,
    "Any": r.ReduceAnyOp,
    "All": r.ReduceAllOp,
}


@importer(*REDUCTIONS)
def import_reduction(b, node, inputs):
    """An empty reduction_indices reduces nothing (noop_with_empty_axes)."""
    x, axes = inputs
    axes = np.asarray(b.constant_input(axes, "reduction_indices")).reshape(-1)
    props = {
        "axes": i64_array([int(a) for a in axes]),
        "keepdims": i64_attr(int(b.attr("keep_dims", False))),
    }
    if axes.size == 0:
        props["noop_with_empty_axes"] = i64_attr(1)
    return b.create(REDUCTIONS[node.op], [x], props)


def single_axis(b, value, what: str) -> int:
    values = int_constant(b, value, what)
    if len(values) != 1:
        raise b.error(f"{what} must be one value, got {values}")
    return values[0]


@importer("ArgMax", "ArgMin")
def import_arg_reduction(b, node, inputs):
    x, dimension = inputs
    axis = single_axis(b, dimension, "the dimension")
    index_type = mlir_element_type(b.attr("output_type", DATA_TYPES["DT_INT64"]))
    props = {"axis": i64_attr(axis), "keepdims": i64_attr(0)}
    if index_type != i64:
        props["output_type"] = index_type
    op_class = r.ArgMaxOp if node.op == "ArgMax" else r.ArgMinOp
    return create_typed(b, op_class, [x], props, index_type)


@importer("Cumsum")
def import_cumsum(b, node, inputs):
    x, axis = inputs
    axis = single_axis(b, axis, "the axis")
    props = {
        "axis": i64_attr(axis),
        "exclusive": i64_attr(int(b.attr("exclusive", False))),
        "reverse": i64_attr(int(b.attr("reverse", False))),
    }
    return b.create(r.CumSumOp, [x], props)
