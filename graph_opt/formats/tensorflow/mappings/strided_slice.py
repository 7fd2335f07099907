"""StridedSlice with every mask, lowered to nn.slice, then nn.squeeze for the
shrunk axes and nn.unsqueeze for the new ones.

The sparse spec (one entry per begin/end/strides value) is expanded into one
entry per input dim as TensorFlow's ValidateStridedSliceOp does: the ellipsis
(implicitly at the end when absent) stands for the dims no other entry takes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.shape_ops import SqueezeOp, UnsqueezeOp
from graph_opt.dialects.nn.shapes import ranked
from graph_opt.formats.tensorflow.mappings.shape_ops import int_constant
from graph_opt.formats.tensorflow.mappings.tensor_ops import TO_END, sliced
from graph_opt.formats.tensorflow.op_table import importer

BEFORE_START = np.iinfo(np.int64).min
"""A slice end before the first element, for negative strides (nn.slice clamps it)."""

NEW_AXIS = -1
"""A result axis of size 1 that no input dim gives."""


@dataclass
class DenseSpec:
    """Per input dim, the slice (start, end, step) when it is not the whole dim;
    the input dims to squeeze; the result dims, as input dims or NEW_AXIS."""

    slices: dict[int, tuple[int, int, int]]
    shrunk: list[int]
    result: list[int]


def _bit(mask: int, i: int) -> bool:
    return bool(mask >> i & 1)


def dense_spec(b, rank: int, begin, end, strides) -> DenseSpec:
    masks = {
        name: b.attr(name, 0)
        for name in (
            "begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask",
            "shrink_axis_mask",
        )
    }  # fmt: skip
    ellipsis, new_axis = masks["ellipsis_mask"], masks["new_axis_mask"]
    entries = len(begin)
    if bin(ellipsis).count("1") > 1:
        b.decline("more than one ellipsis")
    if not ellipsis:
        ellipsis |= 1 << entries
        entries += 1
    ellipsis_at = ellipsis.bit_length() - 1
    real_entries = sum(
        1 for i in range(entries) if i != ellipsis_at and not _bit(new_axis, i)
    )
    spec = DenseSpec({}, [], [])
    dim = 0
    for i in range(entries):
        if i == ellipsis_at:
            skipped = max(0, rank - real_entries)
            spec.result.extend(range(dim, dim + skipped))
            dim += skipped
            continue
        if _bit(new_axis, i):
            spec.result.append(NEW_AXIS)
            continue
        if dim >= rank:
            b.decline(f"the slice has more entries than the input's rank {rank}")
        start, stop, step = begin[i], end[i], strides[i]
        if step == 0:
            b.decline("strides must not be 0")
        if _bit(masks["shrink_axis_mask"], i):
            if step < 0:
                b.decline("only stride 1 is allowed on a shrunk axis")
            spec.slices[dim] = (start, start + 1 if start != -1 else TO_END, 1)
            spec.shrunk.append(dim)
        else:
            if _bit(masks["begin_mask"], i):
                start = 0 if step > 0 else TO_END
            if _bit(masks["end_mask"], i):
                stop = TO_END if step > 0 else BEFORE_START
            if (start, stop, step) != (0, TO_END, 1):
                spec.slices[dim] = (start, stop, step)
            spec.result.append(dim)
        dim += 1
    if dim != rank:
        b.decline(f"the slice has more entries than the input's rank {rank}")
    return spec


@importer("StridedSlice")
def import_strided_slice(b, node, inputs):
    x, begin, end, strides = inputs
    x_type = ranked(x)
    if x_type is None:
        b.decline("the input needs a known rank")
    begin, end, strides = (
        int_constant(b, v, name)
        for v, name in ((begin, "begin"), (end, "end"), (strides, "strides"))
    )
    if not len(begin) == len(end) == len(strides):
        b.decline("begin, end and strides must have the same length")
    spec = dense_spec(b, x_type.get_num_dims(), begin, end, strides)
    value = x
    if spec.slices:
        axes = sorted(spec.slices)
        starts, stops, steps = zip(*(spec.slices[a] for a in axes))
        value = sliced(b, value, starts, stops, axes, steps)
    if spec.shrunk:
        props = {"axes": i64_array(spec.shrunk)}
        value = b.create(SqueezeOp, [value], props).results[0]
    new_axes = [i for i, d in enumerate(spec.result) if d == NEW_AXIS]
    if new_axes:
        props = {"axes": i64_array(new_axes)}
        value = b.create(UnsqueezeOp, [value], props).results[0]
    return [value]
