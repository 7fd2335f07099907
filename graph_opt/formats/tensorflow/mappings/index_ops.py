"""Tile, BroadcastTo, ReverseV2, Range, OneHot, TopKV2, GatherNd and
InvertPermutation."""

from __future__ import annotations

import numpy as np

from graph_opt.dialects.nn import index_ops as ix
from graph_opt.dialects.nn.base import i64_array, i64_attr
from graph_opt.dialects.nn.shape_ops import UnsqueezeOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import ConcatOp, TileOp
from graph_opt.formats.tensorflow.mappings.layouts import reshaped
from graph_opt.formats.tensorflow.mappings.shape_ops import (
    INT32,
    cast_to,
    int64_input,
    int_constant,
)
from graph_opt.formats.tensorflow.mappings.tensor_ops import TO_END, sliced
from graph_opt.formats.tensorflow.op_table import importer, register_simple

register_simple("Range", ix.RangeOp)
# TensorFlow refuses negative indices: that nn.gather_nd wraps them does not matter
register_simple("GatherNd", ix.GatherNdOp)


@importer("Tile")
def import_tile(b, node, inputs):
    x, multiples = inputs
    return b.create(TileOp, [x, int64_input(b, multiples, "multiples")])


def static_shape(b, value, what: str) -> list[int]:
    value_type = ranked(value)
    if value_type is None or DYN in value_type.get_shape():
        b.decline(f"{what} needs a static shape")
    return list(value_type.get_shape())


@importer("BroadcastTo")
def import_broadcast_to(b, node, inputs):
    """A reshape to the target's rank, then a tile of the unit dims."""
    x, shape = inputs
    target = int_constant(b, shape, "the shape")
    shape = static_shape(b, x, "BroadcastTo")
    if len(shape) > len(target):
        b.decline(f"cannot broadcast shape {shape} to {target}")
    dims = [1] * (len(target) - len(shape)) + shape
    if any(d not in (1, t) for d, t in zip(dims, target)):
        b.decline(f"cannot broadcast shape {dims} to {target}")
    if dims != shape:
        x = reshaped(b, x, dims)
    repeats = [t if d == 1 else 1 for d, t in zip(dims, target)]
    return b.create(TileOp, [x, b.constant(np.array(repeats, np.int64))])


@importer("ReverseV2")
def import_reverse(b, node, inputs):
    """Slices with step -1 along the axes."""
    x, axis = inputs
    axes = int_constant(b, axis, "the axes")
    if not axes:
        return [x]
    count = len(axes)
    return [sliced(b, x, [-1] * count, [-TO_END] * count, axes, [-1] * count)]


@importer("OneHot")
def import_one_hot(b, node, inputs):
    """TensorFlow gives all off for every index outside [0, depth)."""
    indices, depth, on, off = inputs
    (depth_value,) = int_constant(b, depth, "the depth")
    on_value, off_value = b.constant_value(on), b.constant_value(off)
    if on_value is not None and off_value is not None:
        values = b.constant(np.stack([off_value, on_value]).reshape(2))
    else:
        parts = [
            b.create(UnsqueezeOp, [v], {"axes": i64_array([0])}).results[0]
            for v in (off, on)
        ]
        values = b.create(ConcatOp, parts, {"axis": i64_attr(0)}).results[0]
    props = {"depth": i64_attr(depth_value), "axis": i64_attr(b.attr("axis", -1))}
    return b.create(ix.OneHotOp, [indices, values], props)


@importer("TopKV2")
def import_top_k(b, node, inputs):
    """Always sorted (TensorFlow leaves the order open when sorted=false)."""
    x, k = inputs
    (k_value,) = int_constant(b, k, "k")
    values, indices = b.create(ix.TopKOp, [x], {"k": i64_attr(k_value)}).results
    return [values, cast_to(b, indices, b.attr("index_type", INT32))]


@importer("InvertPermutation")
def import_invert_permutation(b, node, inputs):
    """The inverse of a permutation sorts it: the indices of its k = n smallest."""
    (x,) = inputs
    (n,) = static_shape(b, x, "InvertPermutation")
    props = {"k": i64_attr(n), "largest": i64_attr(0)}
    _, indices = b.create(ix.TopKOp, [x], props).results
    return [cast_to(b, indices, b.attr("T", INT32))]
