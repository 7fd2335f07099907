"""Lowering of nn.non_max_suppression to TOSA plus one loop.

Per (batch, class) row, boxes are put in score order (ranks counted as for
top_k), and a [R, N, N] matrix says which earlier box would suppress which
later one (IoU as ONNX's reference decides it, the division as nn.div lowers:
a reciprocal times). Greedy suppression keeps box i when its score passes and
no kept earlier box suppresses it: the unique fixed point of
keep = valid & !any(suppresses & keep), reached from keep = valid in at most N
rounds of an scf.while (which becomes a tosa.while_loop) that runs until keep
stops changing. The first max_output_boxes_per_class kept of each row get
consecutive slots of a [R * max, 3] buffer, in row order; the kept count
travels to the function's results, which return that many rows
(`bounded_rows`).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from xdsl.dialects import func, scf, tensor, tosa
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, TensorType, f32, i1, i32, i64
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from graph_opt.dialects import tosa_ext
from graph_opt.dialects.nn.base import float_value, int_value
from graph_opt.dialects.nn.detection import NonMaxSuppressionOp
from graph_opt.lowering.bounded_rows import bound_rows, slice_returns
from graph_opt.lowering.tosa_builder import TosaBuilder, element_of, shape_of
from graph_opt.lowering.tosa_compare import elementwise, logical_not
from graph_opt.lowering.tosa_index import gather, tile
from graph_opt.lowering.tosa_quant import cast
from graph_opt.lowering.tosa_tensor import reduce, slice_along
from graph_opt.lowering.tosa_top_k import (
    MAX_RANK_MATRIX,
    positions_of_ranks,
    stable_ranks,
)


def both(b: TosaBuilder, *values: SSAValue) -> SSAValue:
    result = values[0]
    for value in values[1:]:
        result = elementwise(b, tosa_ext.LogicalAndOp, [result, value], i1)
    return result


def greater(b: TosaBuilder, lhs: SSAValue, rhs: SSAValue) -> SSAValue:
    return elementwise(b, tosa_ext.GreaterOp, [lhs, rhs], i1)


def positive(b: TosaBuilder, value: SSAValue) -> SSAValue:
    return greater(b, value, b.const_like(value, 0.0))


def extents(b: TosaBuilder, boxes: SSAValue, center: bool) -> list[SSAValue]:
    """(x_min, x_max, y_min, y_max), each [R, N, 1], of [R, N, 4] boxes."""
    columns = [slice_along(b, boxes, {2: (k, 1)}) for k in range(4)]
    if center:
        x, y, w, h = columns
        half_w, half_h = b.scale(w, 0.5), b.scale(h, 0.5)
        return [
            b.binary(tosa.SubOp, x, half_w),
            b.binary(tosa.AddOp, x, half_w),
            b.binary(tosa.SubOp, y, half_h),
            b.binary(tosa.AddOp, y, half_h),
        ]
    y1, x1, y2, x2 = columns
    low, high = tosa_ext.MinimumOp, tosa_ext.MaximumOp
    return [
        b.binary(low, x1, x2),
        b.binary(high, x1, x2),
        b.binary(low, y1, y2),
        b.binary(high, y1, y2),
    ]


def suppression_matrix(
    b: TosaBuilder, boxes: SSAValue, center: bool, threshold: float
) -> SSAValue:
    """[R, N, N] i1: box j (earlier) would suppress box i (IoU > threshold)."""
    count, size, _ = shape_of(boxes)
    mine = extents(b, boxes, center)
    other = [b.reshape(v, (count, 1, size)) for v in mine]
    x0 = b.binary(tosa_ext.MaximumOp, mine[0], other[0])
    x1 = b.binary(tosa_ext.MinimumOp, mine[1], other[1])
    y0 = b.binary(tosa_ext.MaximumOp, mine[2], other[2])
    y1 = b.binary(tosa_ext.MinimumOp, mine[3], other[3])
    inter = b.binary(
        tosa.MulOp, b.binary(tosa.SubOp, x1, x0), b.binary(tosa.SubOp, y1, y0)
    )
    area = b.binary(
        tosa.MulOp,
        b.binary(tosa.SubOp, mine[1], mine[0]),
        b.binary(tosa.SubOp, mine[3], mine[2]),
    )
    area_other = b.reshape(area, (count, 1, size))
    union = b.binary(tosa.SubOp, b.binary(tosa.AddOp, area, area_other), inter)
    iou = b.binary(tosa.MulOp, inter, b.unary(tosa.ReciprocalOp, union))
    return both(
        b,
        greater(b, x1, x0),
        greater(b, y1, y0),
        positive(b, inter),
        positive(b, area),
        positive(b, area_other),
        positive(b, union),
        greater(b, iou, b.const_like(iou, threshold)),
        earlier(b, size),
    )


def fixed_point(b: TosaBuilder, valid: SSAValue, suppresses: SSAValue) -> SSAValue:
    """The greedy keep mask: an scf.while applying keep = valid & !any(suppresses
    & keep) until keep stops changing (its `changed` flag also reads the last
    one, as IREE 3.13 wants every loop-carried value read)."""
    count, size = shape_of(valid)
    flag = TensorType(i1, [])
    changed = b.const(np.array(True))
    before = Block(arg_types=[valid.type, flag])
    go = tensor.ExtractOp(before.args[1], [], i1)
    before.add_ops([go, scf.ConditionOp(go.result, *before.args)])
    after = Block(arg_types=[valid.type, flag])
    keep, was_changed = after.args
    body = TosaBuilder()
    kept_other = body.reshape(keep, (count, 1, size))
    hit = reduce(body, tosa.ReduceAnyOp, both(body, suppresses, kept_other), (2,))
    new_keep = both(body, valid, logical_not(body, body.reshape(hit, (count, size))))
    differ = elementwise(body, tosa_ext.LogicalXorOp, [new_keep, keep], i1)
    any_differ = body.reshape(reduce(body, tosa.ReduceAnyOp, differ, (0, 1)), ())
    new_changed = both(body, any_differ, was_changed)
    after.add_ops([*body.ops, scf.YieldOp(new_keep, new_changed)])
    loop = scf.WhileOp(
        [valid, changed], [valid.type, flag], Region(before), Region(after)
    )
    b.ops.append(loop)
    return loop.results[0]


def earlier(b: TosaBuilder, size: int) -> SSAValue:
    """[1, N, N] i1: j < i."""
    return b.const(np.tri(size, size, -1, dtype=bool)[None])


def in_score_order(
    b: TosaBuilder, op: NonMaxSuppressionOp
) -> tuple[SSAValue, SSAValue, SSAValue]:
    """Per (batch, class) row: the box indices in score order [R, N] i32, which
    of them pass the score threshold [R, N] i1, and their boxes [R, N, 4]."""
    batches, size, _ = shape_of(op.boxes)
    classes = shape_of(op.scores)[1]
    count = batches * classes
    rows = b.reshape(op.scores, (count, size))
    order = positions_of_ranks(b, stable_ranks(b, rows, True), size)
    scores = b.reshape(
        gather(b, b.reshape(rows, (count, size, 1)), order), (count, size)
    )
    if "score_threshold" in op.properties:
        score = float_value(op.properties, "score_threshold", 0.0)
        valid = greater(b, scores, b.const_like(scores, score))
    else:
        valid = b.const(np.ones((count, size), bool))
    boxes = tile(b, b.reshape(op.boxes, (batches, 1, size, 4)), [1, classes, 1, 1])
    return order, valid, gather(b, b.reshape(boxes, (count, size, 4)), order)


def packed(b: TosaBuilder, keep: SSAValue, per_class: int) -> tuple[SSAValue, SSAValue]:
    """Where each row's first `per_class` kept boxes go: slot s of the
    [R * per_class] buffer takes flat position picked[0, s] of the [R, N] mask
    (row after row, in order; 0 for the slots past the count), and the count."""
    count, size = shape_of(keep)
    kept_before = both(b, b.reshape(keep, (count, 1, size)), earlier(b, size))
    place = b.reshape(
        reduce(b, tosa.ReduceSumOp, cast(b, kept_before, i32), (2,)), (count, size)
    )
    limit = b.const(np.full((1, 1), per_class, np.int32))
    chosen = both(b, keep, greater(b, limit, place))
    per_row = reduce(b, tosa.ReduceSumOp, cast(b, chosen, i32), (1,))
    rows_before = b.const(np.tri(count, count, -1, dtype=np.int32))
    offset = reduce(
        b,
        tosa.ReduceSumOp,
        b.binary(tosa.MulOp, rows_before, b.reshape(per_row, (1, count))),
        (1,),
    )
    slot = b.binary(tosa.AddOp, offset, place)
    nowhere = b.const(np.full((1, 1), -1, np.int32))
    slot = elementwise(b, tosa_ext.SelectOp, [chosen, slot, nowhere], i32)
    picked = positions_of_ranks(
        b, b.reshape(slot, (1, 1, count * size)), count * per_class
    )
    total = b.reshape(reduce(b, tosa.ReduceSumOp, per_row, (0,)), ())
    return picked, total


def selection(
    b: TosaBuilder, op: NonMaxSuppressionOp, per_class: int
) -> tuple[SSAValue, SSAValue]:
    """The [R * per_class, 3] i64 (batch, class, box) rows (padding rows are
    (0, 0, a valid box)) and the rank-0 i32 count of real ones."""
    size = shape_of(op.boxes)[1]
    classes = shape_of(op.scores)[1]
    order, valid, boxes = in_score_order(b, op)
    center = bool(int_value(op.properties, "center_point_box", 0))
    threshold = float_value(op.properties, "iou_threshold", 0.0)
    keep = fixed_point(b, valid, suppression_matrix(b, boxes, center, threshold))
    picked, total = packed(b, keep, per_class)
    slots = shape_of(picked)[1]
    flat = np.arange(math.prod(shape_of(order)), dtype=np.int32).reshape(1, -1, 1)
    tables = [
        b.const(flat // (classes * size)),
        b.const(flat // size % classes),
        b.reshape(order, flat.shape),
    ]
    columns = [b.reshape(gather(b, t, picked), (slots, 1)) for t in tables]
    selected = b.add(
        tosa.ConcatOp(columns, IntegerAttr(1, i32), TensorType(i32, (slots, 3)))
    )
    return cast(b, selected, i64), total


def per_class_limit(op: NonMaxSuppressionOp) -> int:
    size = shape_of(op.boxes)[1]
    return min(int_value(op.properties, "max_output_boxes_per_class", 0), size)


def unsupported(op: NonMaxSuppressionOp) -> str | None:
    if not all(
        isinstance(v.type, TensorType) and v.type.has_static_shape()
        for v in op.operands
    ):
        return "its boxes and scores need static shapes"
    if element_of(op.boxes) != f32:
        return "only f32 boxes lower to TOSA"
    if not isinstance(op.parent_op(), func.FuncOp):
        return "only a non_max_suppression in a function's body lowers (not in a loop or branch)"
    batches, size, _ = shape_of(op.boxes)
    count = batches * shape_of(op.scores)[1]
    if per_class_limit(op) <= 0:
        return "it selects no boxes (max_output_boxes_per_class 0)"
    slots = count * per_class_limit(op)
    if max(count * size * size, slots * count * size) > MAX_RANK_MATRIX:
        return (
            f"its {count} x {size} boxes take more than {MAX_RANK_MATRIX} comparisons"
        )
    return None


def lower_non_max_suppressions(
    module: ModuleOp, describe: Callable[[Operation], str]
) -> str | None:
    """Each nn.non_max_suppression -> its TOSA selection, the ops its rows reach
    bounded and its function's results cut to the count; else which op stops
    this and why."""
    for op in [o for o in module.walk() if isinstance(o, NonMaxSuppressionOp)]:
        where = f"{op.name} at {op.location}"
        reason = unsupported(op)
        if reason:
            return f"{where}: {reason}"
        function = op.parent_op()
        b = TosaBuilder()
        per_class = per_class_limit(op)
        selected, count = selection(b, op, per_class)
        Rewriter.insert_op(b.ops, InsertPoint.before(op))
        op.results[0].replace_all_uses_with(selected)
        op.detach()
        op.erase()
        slots = shape_of(selected)[0]
        try:
            positions = bound_rows(selected, slots, describe)
        except ValueError as error:
            return f"{where}: its rows cannot be bounded: {error}"
        slice_returns(function, positions, count)  # type: ignore[arg-type]
    return None
