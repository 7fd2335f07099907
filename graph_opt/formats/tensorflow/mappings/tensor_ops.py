"""Ops that move or select elements: Transpose, ConcatV2/Concat, Pack, Unpack,
Split, SplitV, Slice, GatherV2/Gather, Cast. Axes, sizes and permutations must be constants."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import IntegerType, UnitAttr
from xdsl.ir import SSAValue

from graph_opt.dialects.nn import tensor_ops as t
from graph_opt.dialects.nn.base import i64_array, i64_attr
from graph_opt.dialects.nn.index_ops import GatherNdOp
from graph_opt.dialects.nn.shape_ops import SqueezeOp, UnsqueezeOp
from graph_opt.dialects.nn.shapes import DYN, normalize_axis, ranked
from graph_opt.formats.tensorflow.mappings.layouts import transposed
from graph_opt.formats.tensorflow.mappings.shape_ops import int_constant
from graph_opt.formats.tensorflow.op_table import importer
from graph_opt.formats.tensorflow.tensors import mlir_element_type

TO_END = np.iinfo(np.int64).max
"""A slice end past the last element (nn.slice clamps it)."""


def sliced(
    b,
    x: SSAValue,
    starts: Sequence[int],
    ends: Sequence[int],
    axes: Sequence[int],
    steps: Sequence[int],
) -> SSAValue:
    """An nn.slice of `x` with constant parameters."""
    params = [
        b.constant(np.array(p, dtype=np.int64)) for p in (starts, ends, axes, steps)
    ]
    return b.create(t.SliceOp, [x, *params]).results[0]


def static_dim(b, x: SSAValue, axis: int, what: str) -> tuple[int, int]:
    """(normalized axis, its static size) of `x`, or decline."""
    x_type = ranked(x)
    if x_type is None:
        b.decline(f"{what} needs an input of known rank")
    shape = x_type.get_shape()
    axis = normalize_axis(axis, len(shape))
    if shape[axis] == DYN:
        b.decline(f"{what} needs a static size along axis {axis}")
    return axis, shape[axis]


def split(b, x: SSAValue, axis: int, sizes: Sequence[int]) -> list[SSAValue]:
    props = {"axis": i64_attr(axis), "split": i64_array(sizes)}
    return list(b.create(t.SplitOp, [x], props).results)


@importer("Transpose")
def import_transpose(b, node, inputs):
    x, perm = inputs
    perm = int_constant(b, perm, "the permutation")
    return b.create(t.TransposeOp, [x], {"perm": i64_array(perm)})


@importer("ConcatV2", "Concat")
def import_concat(b, node, inputs):
    """Concat (v1) takes the axis first."""
    if node.op == "Concat":
        axis, *values = inputs
    else:
        *values, axis = inputs
    (axis,) = int_constant(b, axis, "the axis")
    return b.create(t.ConcatOp, values, {"axis": i64_attr(axis)})


@importer("Pack")
def import_pack(b, node, inputs):
    """Stack along a new axis: unsqueeze each input there, then concatenate."""
    axis = b.attr("axis", 0)
    expanded = [
        b.create(UnsqueezeOp, [x], {"axes": i64_array([axis])}).results[0]
        for x in inputs
    ]
    return b.create(t.ConcatOp, expanded, {"axis": i64_attr(axis)})


@importer("Unpack")
def import_unpack(b, node, inputs):
    """Unstack: split into `num` unit slices along `axis` and squeeze it away."""
    axis, num = b.attr("axis", 0), b.attr("num")
    parts = split(b, inputs[0], axis, [1] * num)
    axes = {"axes": i64_array([axis])}
    return [b.create(SqueezeOp, [p], axes).results[0] for p in parts]


@importer("Split")
def import_split(b, node, inputs):
    split_dim, x = inputs
    (axis,) = int_constant(b, split_dim, "split_dim")
    count = b.attr("num_split")
    axis, size = static_dim(b, x, axis, "Split")
    if size % count:
        b.decline(f"dim {axis} of size {size} does not split in {count}")
    return split(b, x, axis, [size // count] * count)


@importer("SplitV")
def import_split_v(b, node, inputs):
    """One size may be -1: the rest of the dim."""
    x, size_splits, split_dim = inputs
    sizes = int_constant(b, size_splits, "size_splits")
    (axis,) = int_constant(b, split_dim, "split_dim")
    if -1 in sizes:
        axis, size = static_dim(b, x, axis, "SplitV with a -1 size")
        sizes[sizes.index(-1)] = size - (sum(sizes) + 1)
    return split(b, x, axis, sizes)


@importer("Slice")
def import_slice(b, node, inputs):
    """`size` -1 takes the rest of the dim."""
    x, begin, size = inputs
    starts = int_constant(b, begin, "begin")
    sizes = int_constant(b, size, "size")
    ends = [TO_END if n == -1 else s + n for s, n in zip(starts, sizes)]
    axes = range(len(starts))
    return [sliced(b, x, starts, ends, axes, [1] * len(starts))]


@importer("GatherV2", "Gather")
def import_gather(b, node, inputs):
    """Gather (v1) has no axis input: axis 0."""
    if node.op == "Gather":
        (params, indices), axis = inputs, 0
    else:
        params, indices, axis_input = inputs
        (axis,) = int_constant(b, axis_input, "the axis")
    batch_dims = b.attr("batch_dims", 0)
    if batch_dims != 0:
        return [_batched_gather(b, params, indices, axis, batch_dims)]
    return b.create(t.GatherOp, [params, indices], {"axis": i64_attr(axis)})


def _batched_gather(b, params, indices, axis: int, batch_dims: int) -> SSAValue:
    """GatherV2 with batch_dims: the axis moved to just after the batch dims,
    an nn.gather_nd of the indices as [..., 1] with those batch dims, and the
    gathered dims moved back to where the axis was.

        params [B..., P..., A, Q...]  indices [B..., I...]
        -> [B..., P..., I..., Q...]
    """
    params_type, indices_type = ranked(params), ranked(indices)
    if params_type is None or indices_type is None:
        b.decline("batch_dims needs params and indices of known rank")
    rank, index_rank = params_type.get_num_dims(), indices_type.get_num_dims()
    batch = batch_dims + index_rank if batch_dims < 0 else batch_dims
    axis = axis + rank if axis < 0 else axis
    if not 0 <= batch <= min(axis, index_rank) or axis >= rank:
        raise b.error(
            f"batch_dims {batch_dims} and axis {axis} do not fit params of rank "
            f"{rank} and indices of rank {index_rank}"
        )
    moved = [*range(batch), axis, *(a for a in range(batch, rank) if a != axis)]
    params = transposed(b, params, moved)
    deep = b.create(UnsqueezeOp, [indices], {"axes": i64_array([-1])}).results[0]
    props = {"batch_dims": i64_attr(batch)}
    gathered = b.create(GatherNdOp, [params, deep], props).results[0]
    # gathered: [B..., I..., P..., Q...]; P (axis - batch dims) goes before I
    gathered_dims = index_rank - batch
    middle = list(range(batch + gathered_dims, axis + gathered_dims))
    back = [*range(batch), *middle, *range(batch, batch + gathered_dims)]
    back += range(len(back), rank - 1 + gathered_dims)
    return transposed(b, gathered, back)


@importer("Cast")
def import_cast(b, node, inputs):
    """Float to integer truncates toward zero, as nn.cast does, and to an
    integer narrower than 32 bits clamps (`clamp_narrow`: TensorFlow's graph
    Cast gives 127 for 300.5 -> int8, where ONNX's wraps to 44). Truncate,
    which changes only float narrowing, is refused there (attr_support)."""
    to = mlir_element_type(b.attr("DstT"))
    props = {"to": to}
    if isinstance(to, IntegerType) and 1 < to.width.data < 32:
        props["clamp_narrow"] = UnitAttr()
    return b.create(t.CastOp, inputs, props)
