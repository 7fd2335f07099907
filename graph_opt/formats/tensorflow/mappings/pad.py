"""Pad, PadV2 (a constant fill) and MirrorPad (REFLECT or SYMMETRIC)."""

from __future__ import annotations

import numpy as np
from xdsl.ir import SSAValue

from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.tensor_ops import ConcatOp, PadOp
from graph_opt.formats.tensorflow.mappings.strided_slice import BEFORE_START
from graph_opt.formats.tensorflow.mappings.tensor_ops import sliced
from graph_opt.formats.tensorflow.op_table import importer


def paddings(b, value: SSAValue) -> np.ndarray:
    """The constant [rank, 2] paddings (before, after per dim)."""
    array = b.constant_input(value, "the paddings")
    if array.ndim != 2 or array.shape[1] != 2:
        b.decline(f"paddings must have shape [rank, 2], got {list(array.shape)}")
    return array.astype(np.int64)


def _pad(b, x: SSAValue, pads: np.ndarray, mode: str, fill: float = 0.0):
    props = {"pads": i64_array([*pads[:, 0], *pads[:, 1]]), "mode": str_attr(mode)}
    if fill:
        props["value"] = f32_attr(fill)
    return b.create(PadOp, [x], props)


@importer("Pad", "PadV2")
def import_pad(b, node, inputs):
    x, pads, *fill = inputs
    value = 0.0
    if fill:
        constant = b.constant_input(fill[0], "constant_values")
        if constant.size != 1:
            b.decline("constant_values must be a scalar")
        value = float(constant.reshape(()))
    return _pad(b, x, paddings(b, pads), "constant", value)


@importer("MirrorPad")
def import_mirror_pad(b, node, inputs):
    """REFLECT is nn.pad's reflect mode. SYMMETRIC (the edge repeated) has no nn.pad
    mode: along each padded axis, the first `before` and last `after` entries are
    sliced out reversed and concatenated around the data."""
    x, pads = inputs
    pads = paddings(b, pads)
    mode = b.attr("mode")
    if mode == "REFLECT":
        return _pad(b, x, pads, "reflect")
    if mode != "SYMMETRIC":
        b.decline(f"mode {mode} is not supported")
    value = x
    for axis, (before, after) in enumerate(pads.tolist()):
        if before < 0 or after < 0:
            b.decline("negative paddings are not supported")
        parts = [value]
        if before:
            parts.insert(
                0, sliced(b, value, [before - 1], [BEFORE_START], [axis], [-1])
            )
        if after:
            parts.append(sliced(b, value, [-1], [-1 - after], [axis], [-1]))
        if len(parts) > 1:
            value = b.create(ConcatOp, parts, {"axis": i64_attr(axis)}).results[0]
    return [value]
