"""Data-dependent row counts bounded for TOSA: a value whose dim 0 only the data
decides (nn.non_max_suppression's selected rows) gets a static upper bound,
and the ops it reaches are retyped with it, as long as each maps row r of its
inputs to row r of its result (so rows past the real count are padding that
is never mixed in). The function returns the real rows: see `slice_returns`.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from xdsl.dialects import arith, func, tensor
from xdsl.dialects.builtin import FunctionType, IndexType, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from graph_opt.dialects.nn.base import NNOperation, int_value
from graph_opt.dialects.nn.index_ops import GatherNdOp
from graph_opt.dialects.nn.shape_ops import FlattenOp, ReshapeOp, SqueezeOp, UnsqueezeOp
from graph_opt.dialects.nn.shapes import DYN, normalize_axis
from graph_opt.dialects.nn.tensor_ops import ConcatOp, GatherOp
from graph_opt.lowering.tosa_builder import shape_of
from graph_opt.patterns.op_kinds import OpKind, op_kind

RESHAPES = (ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp)


def row_wise(op: Operation, rows: set[SSAValue]) -> str | None:
    """Why `op` (using some bounded values) does not keep rows apart, or None."""
    bounded = [v for v in op.operands if v in rows]
    if op_kind(op) in (OpKind.ELEMWISE, OpKind.BROADCAST):
        rank = len(shape_of(op.results[0]))
        for v in op.operands:
            if v not in rows and len(shape_of(v)) == rank and shape_of(v)[0] != 1:
                return "it broadcasts an operand of other rows against them"
            if v in rows and len(shape_of(v)) != rank:
                return "it broadcasts them to a higher rank"
        return None
    if isinstance(op, GatherOp):
        axis = normalize_axis(
            int_value(op.properties, "axis", 0), len(shape_of(op.data))
        )
        if op.data in rows:
            gathers_rows = op.indices in rows or axis == 0
            return "it gathers rows of them" if gathers_rows else None
        return None if axis == 0 else "it gathers them along an inner axis"
    if isinstance(op, GatherNdOp):
        if op.data in rows or int_value(op.properties, "batch_dims", 0):
            return "it gathers from them, or with batch dims"
        return None
    if isinstance(op, ConcatOp):
        axis = normalize_axis(
            int_value(op.properties, "axis", 0), len(shape_of(op.results[0]))
        )
        if axis == 0 or len(bounded) != len(op.operands):
            return "it concatenates them with other rows"
        return None
    if isinstance(op, RESHAPES):
        return None  # checked on the retyped result: see same_rows
    return "it is not a row-wise op"


def same_rows(source: SSAValue, result: SSAValue, bound: int) -> bool:
    """A reshape keeps rows when dim 0 stays `bound` and each row's size stays."""
    before, after = shape_of(source), shape_of(result)
    return (
        bool(after)
        and after[0] == bound
        and math.prod(before[1:]) == math.prod(after[1:])
    )


def bound_rows(
    value: SSAValue, bound: int, describe: Callable[[Operation], str]
) -> list[int]:
    """Retype the ops `value` (dim 0 == `bound`) reaches in its block with that
    bound; the positions of the function results it reaches. Raises ValueError
    naming the first op that would mix rows (`describe(op)` names ops)."""
    rows = {value}
    block = value.owner.parent_block()  # type: ignore[union-attr]
    returned: list[int] = []
    for op in block.ops:  # type: ignore[union-attr]
        used = [v for v in op.operands if v in rows]
        if not used:
            continue
        for use in (u for v in used for u in v.uses):
            if use.operation.parent_block() is not block:
                raise ValueError(
                    f"it reaches {describe(use.operation)} in a nested region"
                )
        if isinstance(op, func.ReturnOp):
            returned += [i for i, v in enumerate(op.operands) if v in rows]
            continue
        if not isinstance(op, NNOperation) or op.regions:
            raise ValueError(f"it reaches {describe(op)}, which is not row-wise")
        new_types = op.rule_result_types(list(op.operands), op.properties)
        if new_types is None:
            raise ValueError(f"it reaches {describe(op)}, whose type is not inferred")
        for result, new_type in zip(list(op.results), new_types):
            rows.add(Rewriter.replace_value_with_new_type(result, new_type))
        reason = row_wise(op, rows)
        if reason is None and isinstance(op, RESHAPES):
            reason = (
                None if same_rows(used[0], op.results[0], bound) else "it mixes rows"
            )
        if reason is None and not all(
            isinstance(r.type, TensorType)
            and r.type.has_static_shape()
            and shape_of(r)[0] == bound
            for r in op.results
        ):
            reason = "its result does not keep the rows in dim 0"
        if reason:
            raise ValueError(f"it reaches {describe(op)}: {reason}")
    return returned


def slice_returns(function: func.FuncOp, positions: list[int], count: SSAValue) -> None:
    """The function returns the first `count` (a rank-0 i32 tensor) rows of the
    results at `positions`, typed with a dynamic dim 0."""
    terminator = function.body.block.last_op
    if not isinstance(terminator, func.ReturnOp):
        return
    extract = tensor.ExtractOp(count, [], count.type.element_type)  # type: ignore[attr-defined]
    size = arith.IndexCastOp(extract.result, IndexType())
    ops: list[Operation] = [extract, size]
    outputs = list(terminator.operands)
    for position in positions:
        value = outputs[position]
        shape = shape_of(value)
        sliced = tensor.ExtractSliceOp(
            value,
            [0] * len(shape),
            [size.result, *shape[1:]],
            [1] * len(shape),
            TensorType(value.type.element_type, [DYN, *shape[1:]]),  # type: ignore[attr-defined]
        )
        ops.append(sliced)
        outputs[position] = sliced.result
    Rewriter.insert_op(ops, InsertPoint.before(terminator))
    terminator.operands = outputs
    function.function_type = FunctionType.from_lists(
        function.function_type.inputs.data, [v.type for v in outputs]
    )
