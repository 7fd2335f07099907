"""SpaceToBatchND and BatchToSpaceND on their own, as pad / reshape / transpose / slice
(static shapes but for the batch); DepthToSpace and SpaceToDepth as reshape /
transpose. Around a convolution, the import first makes the three nodes one dilated
convolution (see `dilated_conv`)."""

from __future__ import annotations

import math

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.layout import CHANNELS_FIRST
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import PadOp
from graph_opt.formats.tensorflow.mappings.layouts import (
    data_layout,
    reshaped,
    transposed,
)
from graph_opt.formats.tensorflow.mappings.shape_ops import int_constant
from graph_opt.formats.tensorflow.mappings.tensor_ops import sliced
from graph_opt.formats.tensorflow.op_table import importer


def batch_and_static_shape(b, x, what: str) -> list[int]:
    """The shape of `x`: static but for the batch (dim 0), which may be unknown."""
    x_type = ranked(x)
    if x_type is None or DYN in x_type.get_shape()[1:]:
        b.decline(f"{what} needs static sizes but for the batch")
    return list(x_type.get_shape())


def reshaped_batch(b, x, shape: list[int]):
    """`reshaped`, an unknown batch size as -1."""
    return reshaped(b, x, [-1 if d == DYN else d for d in shape])


def _block_and_pairs(b, block_shape, pairs, shape: list[int], what: str):
    block = int_constant(b, block_shape, "block_shape")
    flat = int_constant(b, pairs, what)
    if (
        len(flat) != 2 * len(block)
        or len(block) >= len(shape)
        or min(block, default=1) < 1
    ):
        b.decline(f"block_shape {block} and {what} {flat} do not fit shape {shape}")
    return block, list(zip(flat[0::2], flat[1::2]))


@importer("SpaceToBatchND")
def import_space_to_batch(b, node, inputs):
    """Pad, split each spatial dim i into (dim / block_i, block_i), move the block
    dims in front of the batch, merge them into it."""
    x, block_shape, paddings = inputs
    shape = batch_and_static_shape(b, x, "SpaceToBatchND")
    block, pads = _block_and_pairs(b, block_shape, paddings, shape, "paddings")
    m, rest = len(block), shape[len(block) + 1 :]
    padded = [d + p0 + p1 for d, (p0, p1) in zip(shape[1:], pads)]
    if any(d % k for d, k in zip(padded, block)):
        b.decline(
            f"padded spatial dims {padded} are not multiples of block_shape {block}"
        )
    if any(p0 or p1 for p0, p1 in pads):
        zeros = [0] * len(rest)
        begins = [0, *(p0 for p0, _ in pads), *zeros]
        ends = [0, *(p1 for _, p1 in pads), *zeros]
        x = b.create(PadOp, [x], {"pads": i64_array(begins + ends)}).results[0]
    split = [shape[0]]
    for d, k in zip(padded, block):
        split += [d // k, k]
    x = reshaped_batch(b, x, split + rest)
    perm = [
        *range(2, 2 * m + 1, 2),
        0,
        *range(1, 2 * m, 2),
        *range(2 * m + 1, 2 * m + 1 + len(rest)),
    ]
    x = transposed(b, x, perm)
    batch = DYN if shape[0] == DYN else shape[0] * math.prod(block)
    out = [batch, *(d // k for d, k in zip(padded, block)), *rest]
    return [reshaped_batch(b, x, out)]


@importer("BatchToSpaceND")
def import_batch_to_space(b, node, inputs):
    """The inverse: split the batch into the block dims, interleave them with the
    spatial dims, merge, then crop."""
    x, block_shape, crops = inputs
    shape = batch_and_static_shape(b, x, "BatchToSpaceND")
    block, crop = _block_and_pairs(b, block_shape, crops, shape, "crops")
    m, rest = len(block), shape[len(block) + 1 :]
    batch = DYN if shape[0] == DYN else shape[0] // math.prod(block)
    if batch != DYN and batch * math.prod(block) != shape[0]:
        b.decline(
            f"batch {shape[0]} is not a multiple of the block size {math.prod(block)}"
        )
    x = reshaped_batch(b, x, [*block, batch, *shape[1:]])
    perm = [m]
    for i in range(m):
        perm += [m + 1 + i, i]
    perm += list(range(2 * m + 1, 2 * m + 1 + len(rest)))
    x = transposed(b, x, perm)
    spatial = [d * k for d, k in zip(shape[1 : m + 1], block)]
    x = reshaped_batch(b, x, [batch, *spatial, *rest])
    if not any(c0 or c1 for c0, c1 in crop):
        return [x]
    ends = [d - c1 for d, (_, c1) in zip(spatial, crop)]
    axes = list(range(1, m + 1))
    return [sliced(b, x, [c0 for c0, _ in crop], ends, axes, [1] * m)]


NHWC_TO_NCHW, NCHW_TO_NHWC = [0, 3, 1, 2], [0, 2, 3, 1]


def _block_size(b, x, what: str) -> tuple[int, list[int], bool]:
    """block_size, the NHWC shape, and whether the data is NCHW."""
    nchw = data_layout(b) == CHANNELS_FIRST
    shape = batch_and_static_shape(b, x, what)
    if len(shape) != 4:
        b.decline(f"{what} needs a 4-D input")
    if nchw:
        shape = [shape[a] for a in NCHW_TO_NHWC]
    return b.attr("block_size"), shape, nchw


@importer("DepthToSpace")
def import_depth_to_space(b, node, inputs):
    """Channel (i * block + j) * C' + c moves to row offset i, column offset j
    (NCHW: the same moves, channel index alike)."""
    (x,) = inputs
    block, (n, h, w, c), nchw = _block_size(b, x, "DepthToSpace")
    if c % (block * block):
        b.decline(f"channels {c} are not a multiple of block_size**2 = {block * block}")
    depth = c // (block * block)
    if nchw:
        x = reshaped_batch(b, x, [n, block, block, depth, h, w])
        x = transposed(b, x, [0, 3, 4, 1, 5, 2])
        return [reshaped_batch(b, x, [n, depth, h * block, w * block])]
    x = reshaped_batch(b, x, [n, h, w, block, block, depth])
    x = transposed(b, x, [0, 1, 3, 2, 4, 5])
    return [reshaped_batch(b, x, [n, h * block, w * block, depth])]


@importer("SpaceToDepth")
def import_space_to_depth(b, node, inputs):
    """The inverse of DepthToSpace."""
    (x,) = inputs
    block, (n, h, w, c), nchw = _block_size(b, x, "SpaceToDepth")
    if h % block or w % block:
        b.decline(f"spatial dims {h}x{w} are not multiples of block_size {block}")
    if nchw:
        x = reshaped_batch(b, x, [n, c, h // block, block, w // block, block])
        x = transposed(b, x, [0, 3, 5, 1, 2, 4])
        return [reshaped_batch(b, x, [n, block * block * c, h // block, w // block])]
    x = reshaped_batch(b, x, [n, h // block, block, w // block, block, c])
    x = transposed(b, x, [0, 1, 3, 2, 4, 5])
    return [reshaped_batch(b, x, [n, h // block, w // block, block * block * c])]
