"""Batch splitting for `auto-parallel` on inference graphs: each batched
argument split along dim 0 into one slice per replica, the per-sample ops
copied per replica, each result concatenated back along dim 0."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.base import i64_array, i64_attr, int_value
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.conv import ConvolutionBase
from graph_opt.dialects.nn.elementwise import ElementwiseBinaryOp, ElementwiseUnaryOp
from graph_opt.dialects.nn.fused import FusedMatMulOp
from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
from graph_opt.dialects.nn.names import (
    argument_names,
    location_names,
    name_location,
    op_result_names,
    result_names,
    set_name_hint,
)
from graph_opt.dialects.nn.norm import BatchNormOp, LayerNormOp, SoftmaxOp
from graph_opt.dialects.nn.pool import GlobalAvgPoolOp, PoolOp
from graph_opt.dialects.nn.reduce import ArgReduceOp, ReduceOp, reduced_axes
from graph_opt.dialects.nn.shape_ops import FlattenOp, ReshapeOp
from graph_opt.dialects.nn.shapes import normalize_axis
from graph_opt.dialects.nn.tensor_ops import CastOp, ConcatOp, SplitOp, TransposeOp
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, count, record

BATCH_SPLIT_STATISTICS: Statistics = {
    "replicas": "Replicas the function was split into",
    "replicated-ops": "Ops copied into each replica",
}
PREFIX = "AutoParallel"
SAMPLE_WISE_ON_DATA = (ConvolutionBase, PoolOp, GlobalAvgPoolOp, BatchNormOp)
"""Ops computing each sample of their data operand (operand 0) on its own."""


def replica_name(name: str, replica: int) -> str:
    return f"{PREFIX}-Replica-{replica}/{name}"


def shape_of(value: SSAValue) -> tuple[int, ...] | None:
    t = value.type
    return tuple(t.get_shape()) if isinstance(t, TensorType) else None


def node_names(op: Operation) -> list[str]:
    return location_names(op) or [n for n in op_result_names(op) if n]


def name_replica(target: Operation, names: list[str], replica: int) -> None:
    """Locate `target` as replica `replica` of the nodes `names`, and give its
    results the matching name hints."""
    if not names:
        return
    target.location = name_location([replica_name(n, replica) for n in names])
    for result, label in zip(target.results, op_result_names(target)):
        if label:
            set_name_hint(result, label)


def describe(op: Operation) -> str:
    names = node_names(op)
    return f"{op.name} '{names[0]}'" if names else op.name


def split_batch(function: func.FuncOp, replicas: int) -> bool:
    """Split the batch of `function` into `replicas` slices; False (with a
    warning saying why) when it cannot be done."""
    if replicas < 2:
        warn("auto-parallel: replicas=1 leaves the batch whole; nothing to split")
        return False
    block = function.body.block
    batch = batch_size(function, replicas)
    if batch is None:
        return False
    nested = next((op for op in block.ops if op.regions), None)
    if nested is not None:
        warn(f"auto-parallel: cannot split the batch: {describe(nested)} has regions")
        return False
    batched: set[SSAValue] = set(block.args)
    replicated: list[Operation] = []
    for op in list(block.ops)[:-1]:
        if not any(v in batched for v in op.operands):
            continue
        reason = mixing_reason(op, batched, batch)
        if reason is not None:
            warn(
                f"auto-parallel: cannot split the batch of {batch}: {describe(op)} {reason}"
            )
            return False
        replicated.append(op)
        batched.update(op.results)
    if not replicated:
        warn("auto-parallel: no op reads the batched arguments; nothing to split")
        return False
    _Splitter(function, replicas, batch).rewrite(replicated)
    record("replicas", replicas)
    count("replicated-ops", len(replicated))
    return True


def batch_size(function: func.FuncOp, replicas: int) -> int | None:
    """The dim 0 every argument shares, if it is static and divisible by `replicas`."""
    shapes = [shape_of(a) for a in function.body.block.args]
    if not shapes:
        warn("auto-parallel: the function has no arguments to split along the batch")
        return None
    if any(s is None or not s or s[0] < 0 for s in shapes):
        warn("auto-parallel: cannot split the batch: an argument has no static dim 0")
        return None
    sizes = sorted({s[0] for s in shapes})  # type: ignore[index]
    if len(sizes) > 1:
        warn(
            f"auto-parallel: cannot split the batch: arguments differ in dim 0 {sizes}"
        )
        return None
    if sizes[0] % replicas:
        warn(
            f"auto-parallel: cannot split the batch: batch {sizes[0]} is not divisible by {replicas} replicas"
        )
        return None
    return sizes[0]


def keeps_dim0_apart(value: SSAValue, rank: int) -> bool:
    """A shared operand broadcast against a batched result of `rank`: it must
    not reach the result's dim 0 with more than one row."""
    shape = shape_of(value)
    return shape is not None and (len(shape) < rank or shape[0] == 1)


def mixing_reason(op: Operation, batched: set[SSAValue], batch: int) -> str | None:
    """Why `op` (reading batched values) may mix samples along dim 0, or None."""
    shapes = [shape_of(r) for r in op.results]
    reason = op_reason(op, batched, len(shapes[0] or ()) if shapes else 0)
    if reason is None and any(not s or s[0] != batch for s in shapes):
        return "has a result whose dim 0 is not the batch"
    return reason


def op_reason(op: Operation, batched: set[SSAValue], rank: int) -> str | None:
    """Why `op`, by its kind and operands, may mix samples along dim 0
    (its results' dim 0 aside), or None."""
    data = [i for i, v in enumerate(op.operands) if v in batched]
    shared = [v for v in op.operands if v not in batched]
    if isinstance(op, ElementwiseBinaryOp):
        if any(len(shape_of(op.operands[i]) or ()) != rank for i in data):
            return "broadcasts a batched operand of lower rank"
        if not all(keeps_dim0_apart(v, rank) for v in shared):
            return "has a batch-sized operand that is not split"
        return None
    if isinstance(op, ConcatOp):
        if len(data) != len(op.operands):
            return "joins a batched value with one that is not split"
        return "joins along the batch axis 0" if 0 in sample_axes(op, rank) else None  # type: ignore[operator]
    if data != [0]:
        return "reads batched values in an operand other than its data"
    if isinstance(op, (ElementwiseUnaryOp, CastOp, *SAMPLE_WISE_ON_DATA)):
        return None
    if isinstance(op, MatMulOp | FusedMatMulOp):
        lhs_rank = len(shape_of(op.operands[0]) or ())
        if lhs_rank < 2:
            return "contracts the batch axis of a 1-D left-hand side"
        if lhs_rank > 2 and not keeps_dim0_apart(op.operands[1], lhs_rank):
            return "has a batch-sized right-hand side"
        return None
    if isinstance(op, GemmOp):
        if int_value(op.properties, "trans_a", 0):
            return "transposes the batched operand"
        c = op.operands[2:]
        return (
            None if all(keeps_dim0_apart(v, 2) for v in c) else "adds a batch-sized c"
        )
    if isinstance(op, ReshapeOp) and constant_value(op.operands[1]) is None:
        return "has a shape that is not a constant"
    if isinstance(op, ReshapeOp | FlattenOp):
        return None  # the result keeps dim 0 = batch (checked above)
    axes = sample_axes(op, rank)
    if axes is None:
        return "is not known to keep samples apart"
    return "works across the batch axis 0" if 0 in axes else None


def sample_axes(op: Operation, rank: int) -> tuple[int, ...] | None:
    """The axes an axis-wise op combines (a transpose: where dim 0 comes from)."""
    in_rank = len(shape_of(op.operands[0]) or ())
    if isinstance(op, SoftmaxOp | LayerNormOp):
        return (normalize_axis(op.axis_value, in_rank),)
    if isinstance(op, ReduceOp):
        return reduced_axes(op.properties, in_rank)
    if isinstance(op, ArgReduceOp):
        return (normalize_axis(int_value(op.properties, "axis", 0), in_rank),)
    if isinstance(op, ConcatOp):
        return (normalize_axis(int_value(op.properties, "axis", 0), rank),)
    if isinstance(op, TransposeOp):
        return (TransposeOp.permutation(op.properties, rank)[0],)
    return None


class _Splitter:
    """Rewrites the function's block in place: splits, replicas, concats."""

    def __init__(self, function: func.FuncOp, replicas: int, batch: int):
        self.function, self.replicas = function, replicas
        self.block = function.body.block
        self.slice = batch // replicas

    def rewrite(self, replicated: list[Operation]) -> None:
        values: list[dict[SSAValue, SSAValue]] = [{} for _ in range(self.replicas)]
        ret = self.block.last_op
        for arg, name in zip(self.block.args, argument_names(self.function)):
            split = SplitOp.create_inferred(
                [arg],
                {"axis": i64_attr(0), "split": i64_array([self.slice] * self.replicas)},
            )
            self.place(split, f"{PREFIX}-Split/{name}", before=ret)
            for replica, part in enumerate(split.results):
                values[replica][arg] = part
        for replica in range(self.replicas):  # shared ops all precede the return
            for op in replicated:
                self.copy(op, replica, values[replica], before=ret)  # type: ignore[arg-type]
        for index, (value, name) in enumerate(
            zip(ret.operands, result_names(self.function))  # type: ignore[union-attr]
        ):
            if value in values[0]:
                parts = [v[value] for v in values]
                concat = ConcatOp.create_inferred(parts, {"axis": i64_attr(0)})
                self.place(concat, f"{PREFIX}-Concat/{name}", before=ret)  # type: ignore[arg-type]
                ret.operands[index] = concat.results[0]  # type: ignore[union-attr]
        for op in reversed(replicated):
            op.detach()
            op.erase()

    def place(self, op: Operation, name: str, before: Operation | None) -> None:
        op.location = name_location([name])
        for i, result in enumerate(op.results):
            set_name_hint(result, name if len(op.results) == 1 else f"{name}:{i}")
        self.block.insert_op_before(op, before)  # type: ignore[arg-type]

    def copy(
        self, op: Operation, replica: int, values: dict, before: Operation
    ) -> None:
        operands = [values.get(v, v) for v in op.operands]
        if isinstance(op, ReshapeOp):
            operands[1] = self.slice_shape(op, replica, before)
        copy = type(op).create(
            operands=operands,
            result_types=[self.sliced_type(r.type) for r in op.results],
            properties=dict(op.properties),
            attributes=dict(op.attributes),
        )
        name_replica(copy, node_names(op), replica)
        self.block.insert_op_before(copy, before)
        values.update(zip(op.results, copy.results))

    def sliced_type(self, t: TensorType) -> TensorType:
        return TensorType(t.element_type, [self.slice, *t.get_shape()[1:]])

    def slice_shape(self, op: ReshapeOp, replica: int, before: Operation) -> SSAValue:
        """The reshape's target with a dim 0 naming the batch made the slice's."""
        target = constant_value(op.operands[1])
        if target is None or target[0] <= 0:  # 0 copies dim 0, -1 infers it
            return op.operands[1]
        target = np.array(target)
        target[0] = self.slice
        shape = ConstantOp.from_array(target)
        name = f"{PREFIX}-Shape/{(node_names(op) or ['reshape'])[0]}"
        self.place(shape, replica_name(name, replica), before)
        return shape.results[0]
