"""Rewrites of convert-layout: layout-sensitive ops into the target data layout,
transposes moved through layout-agnostic ops, composed, cancelled and folded."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import StringAttr, TensorType
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.nn.base import (
    NNOperation,
    i64_array,
    i64_attr,
    int_list,
    int_value,
)
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.conv import ConvolutionBase
from graph_opt.dialects.nn.elementwise import ElementwiseBinaryOp, ElementwiseUnaryOp
from graph_opt.dialects.nn.layout import CHANNELS_FIRST
from graph_opt.dialects.nn.norm import BatchNormOp, SoftmaxOp
from graph_opt.dialects.nn.pool import GlobalAvgPoolOp, PoolOp
from graph_opt.dialects.nn.pool_grad import AvgPoolGradOp, MaxPoolGradOp, PoolGradOp
from graph_opt.dialects.nn.reduce import ReduceOp
from graph_opt.dialects.nn.shapes import normalize_axis, ranked
from graph_opt.dialects.nn.tensor_ops import (
    CastOp,
    ConcatOp,
    PadOp,
    SliceOp,
    SplitOp,
    TransposeOp,
)
from graph_opt.dialects.nn.training import (
    BatchNormGradOp,
    BatchNormTrainingOp,
    ConvFilterGradOp,
    ReluGradOp,
)
from graph_opt.passes.common.constant_patterns import dense_attr

Perm = tuple[int, ...]
"""A transpose's permutation: result dim i is input dim perm[i]."""

LAYOUT_SENSITIVE_OPS = (
    ConvolutionBase, PoolOp, GlobalAvgPoolOp, BatchNormOp, BatchNormTrainingOp,
    BatchNormGradOp, ConvFilterGradOp, PoolGradOp,
)  # fmt: skip
"""Ops with a `data_layout` property (and a `layout` accessor)."""


@dataclass(frozen=True)
class LayoutRoles:
    """Which operands and results of a layout-sensitive op are data (in its
    layout) or a filter (HWIO with NHWC data, OIHW with NCHW), and which
    property lists a data or filter shape: what moves when its layout does."""

    data_operands: tuple[int, ...]
    filter_operands: tuple[int, ...] = ()
    data_results: tuple[int, ...] = (0,)
    filter_results: tuple[int, ...] = ()
    data_shape_prop: str | None = None
    filter_shape_prop: str | None = None


def layout_roles(op: Operation) -> LayoutRoles:
    """The roles of a layout-sensitive op's values (see LayoutRoles)."""
    if isinstance(op, ConvolutionBase):
        return LayoutRoles((0,), filter_operands=(1,))
    if isinstance(op, (BatchNormGradOp, MaxPoolGradOp)):
        return LayoutRoles((0, 1))  # the output gradient and the input
    if isinstance(op, AvgPoolGradOp):
        return LayoutRoles((0,), data_shape_prop="input_shape")
    if isinstance(op, ConvFilterGradOp):
        return LayoutRoles(
            (0, 1),
            data_results=(),
            filter_results=(0,),
            filter_shape_prop="filter_shape",
        )
    return LayoutRoles((0,))


def inverse(perm: Perm) -> Perm:
    out = [0] * len(perm)
    for i, p in enumerate(perm):
        out[p] = i
    return tuple(out)


def compose(first: Perm, then: Perm) -> Perm:
    """The one permutation that transposes by `first`, then by `then`."""
    return tuple(first[i] for i in then)


def is_identity(perm: Perm) -> bool:
    return all(i == p for i, p in enumerate(perm))


def layout_perm(target: str, rank: int) -> Perm:
    """Data from the other layout into `target` (NHWC -> NCHW or NCHW -> NHWC)."""
    if target == CHANNELS_FIRST:
        return (0, rank - 1, *range(1, rank - 1))
    return (0, *range(2, rank), 1)


def filter_perm(target: str, rank: int) -> Perm:
    """A filter from the other layout into `target`'s: HWIO -> OIHW or OIHW -> HWIO
    (conv_transpose's HWOI -> IOHW and IOHW -> HWOI move the same way)."""
    if target == CHANNELS_FIRST:
        return (rank - 1, rank - 2, *range(rank - 2))
    return (*range(2, rank), 1, 0)


def transpose_perm(op: TransposeOp) -> Perm | None:
    x = ranked(op.input)
    if x is None:
        return None
    return tuple(TransposeOp.permutation(op.properties, x.get_num_dims()))


def transpose_op(value: SSAValue, perm: Perm) -> TransposeOp:
    return TransposeOp.create_inferred([value], {"perm": i64_array(perm)})


def has_other_layout(op: Operation, target: str) -> bool:
    """Whether convert-layout moves `op` into `target`'s layout."""
    return isinstance(op, LAYOUT_SENSITIVE_OPS) and op.layout != target


class Transposes:
    """Transposes the rewrites build, one per (value, perm), placed right after the
    value's definition so that every user may share it; a transpose of a
    transpose is composed and one of a constant folded.

    With `free_inputs`, moving a function input into the `target` layout counts
    as free: the signature takes that layout afterwards. `converts` says which
    layout-sensitive ops the rewrites convert (by default all).
    """

    def __init__(
        self,
        target: str,
        free_inputs: bool = False,
        converts: Callable[[Operation], bool] = lambda op: True,
    ) -> None:
        self.target = target
        self.free_inputs = free_inputs
        self.converts = converts
        self._built: dict[tuple[SSAValue, Perm], SSAValue] = {}

    def converted(self, op: Operation) -> bool:
        """Whether the rewrites move `op` into the target layout."""
        return has_other_layout(op, self.target) and self.converts(op)

    @staticmethod
    def cancelled(value: SSAValue, perm: Perm) -> SSAValue | None:
        """`value` transposed by `perm` when that is the identity or undoes the
        transpose defining `value`, else None."""
        if is_identity(perm):
            return value
        owner = value.owner
        if isinstance(owner, TransposeOp):
            inner = transpose_perm(owner)
            if inner is not None and is_identity(compose(inner, perm)):
                return owner.input
        return None

    def existing(self, value: SSAValue, perm: Perm) -> SSAValue | None:
        """`value` transposed by `perm` when that needs no new transpose, else None."""
        cancelled = self.cancelled(value, perm)
        if cancelled is not None:
            return cancelled
        built = self._built.get((value, perm))
        if built is not None and isinstance(built.owner, Operation):
            if built.owner.parent is not None:
                return built
        return None

    def free(self, value: SSAValue, perm: Perm, reuse: bool) -> bool:
        """Whether transposing `value` adds no transpose: it folds, cancels or (with
        `reuse`) is one built already."""
        if constant_value(value) is not None or self.is_free_input(value, perm):
            return True
        if reuse:
            return self.existing(value, perm) is not None
        return self.cancelled(value, perm) is not None

    def is_free_input(self, value: SSAValue, perm: Perm) -> bool:
        return (
            self.free_inputs
            and isinstance(value, BlockArgument)
            and isinstance(value.block.parent_op(), func.FuncOp)
            and perm == layout_perm(self.target, len(perm))
        )

    def get(self, rewriter: PatternRewriter, value: SSAValue, perm: Perm) -> SSAValue:
        found = self.existing(value, perm)
        if found is not None:
            return found
        owner = value.owner
        if isinstance(owner, TransposeOp):
            inner = transpose_perm(owner)
            if inner is not None:
                return self.get(rewriter, owner.input, compose(inner, perm))
        folded = _folded_transpose(value, perm)
        if folded is not None:
            folded.output.name_hint = value.name_hint
        made = folded or transpose_op(value, perm)
        rewriter.insert(made, _after_definition(value))
        self.record(value, perm, made.results[0])
        return made.results[0]

    def record(self, value: SSAValue, perm: Perm, transposed: SSAValue) -> None:
        self._built[(value, perm)] = transposed


def erase_unused(rewriter: PatternRewriter, values: Sequence[SSAValue]) -> None:
    """Erase the transposes and constants among `values` that a rewrite left
    unused (and, in turn, a transpose's unused input)."""
    for value in values:
        owner = value.owner
        if isinstance(owner, (TransposeOp, ConstantOp)) and not value.uses:
            operands = list(owner.operands)
            rewriter.erase(owner)
            erase_unused(rewriter, operands)


def _after_definition(value: SSAValue) -> InsertPoint:
    if isinstance(value, OpResult):
        return InsertPoint.after(value.op)
    return InsertPoint.at_start(value.block)  # type: ignore[attr-defined]


def _folded_transpose(value: SSAValue, perm: Perm) -> ConstantOp | None:
    array = constant_value(value)
    if array is None:
        return None
    attr = dense_attr(np.transpose(array, perm), value.type.element_type)  # type: ignore[attr-defined]
    return None if attr is None else ConstantOp(attr)


def permuted_type(t: TensorType, perm: Perm) -> TensorType:
    shape = t.get_shape()
    return TensorType(t.element_type, [shape[p] for p in perm])


# Layout-agnostic ops: computed on transposed operands, they give transposed results.


def layout_operands(op: Operation) -> tuple[int, ...] | None:
    """The operands of a layout-agnostic op that carry the data layout; None for
    any other op."""
    if isinstance(op, ElementwiseBinaryOp):
        return (0, 1)
    if isinstance(op, ConcatOp):
        return tuple(range(len(op.operands)))
    if isinstance(op, ReluGradOp):
        return (0, 1)
    agnostic = (ElementwiseUnaryOp, CastOp, SplitOp, PadOp, SoftmaxOp, ReduceOp)
    if isinstance(op, agnostic):
        return (0,)
    if isinstance(op, SliceOp) and constant_value(op.axes) is not None:
        return (0,)
    return None


@dataclass
class Rebuilt:
    """An op computed on un-transposed operands: `ops` to insert, and per result of
    the original op the new value and the perm that turns it into the original."""

    ops: list[Operation]
    results: list[tuple[SSAValue, Perm]]


def rebuild(op: NNOperation, operands: list[SSAValue], perm: Perm) -> Rebuilt:
    """`op` on `operands`, whose layout operands are the original ones transposed
    by inverse(perm): the original results are the new ones transposed by perm
    (by a shorter perm where a reduction drops dims)."""
    props = dict(op.properties)
    rank = len(perm)
    result_perms = [perm] * len(op.results)
    ops: list[Operation] = []
    if isinstance(op, (ConcatOp, SplitOp, SoftmaxOp)):
        default = -1 if isinstance(op, SoftmaxOp) else 0
        axis = normalize_axis(int_value(props, "axis", default), rank)
        props["axis"] = i64_attr(perm[axis])
    elif isinstance(op, PadOp):
        pads = int_list(props, "pads") or ()
        moved = [0] * (2 * rank)
        for i, p in enumerate(perm):
            moved[p], moved[rank + p] = pads[i], pads[rank + i]
        props["pads"] = i64_array(moved)
    elif isinstance(op, ReduceOp):
        result_perms = [_reduce(props, perm, op.keeps_dims)]
    elif isinstance(op, SliceOp):
        axes = constant_value(op.axes)
        assert axes is not None
        moved = [perm[normalize_axis(int(a), rank)] for a in axes.reshape(-1)]
        axes_op = ConstantOp.from_array(
            np.array(moved, axes.dtype), op.axes.type.element_type
        )  # type: ignore[attr-defined]
        ops.append(axes_op)
        operands = [*operands[:3], axes_op.output, operands[4]]
    new_op = type(op).create_inferred(operands, props)
    new_op.location = op.location
    ops.append(new_op)
    return Rebuilt(ops, list(zip(new_op.results, result_perms)))


def _reduce(props: dict, perm: Perm, keeps_dims: bool) -> Perm:
    """Moves a reduction's axes (in `props`); the perm of its result."""
    rank = len(perm)
    axes = [normalize_axis(a, rank) for a in int_list(props, "axes") or ()]
    if not axes:
        noop = int_value(props, "noop_with_empty_axes", 0)
        return perm if keeps_dims or noop else ()
    props["axes"] = i64_array(sorted(perm[a] for a in axes))
    if keeps_dims:
        return perm
    kept = [perm[i] for i in range(rank) if i not in axes]
    order = sorted(kept)
    return tuple(order.index(q) for q in kept)


def adapt(
    transposes: Transposes,
    rewriter: PatternRewriter | None,
    value: SSAValue,
    perm: Perm,
    broadcasts: bool,
    reuse: bool = True,
) -> SSAValue | None:
    """`value` transposed by `perm` as a layout operand, when that adds no
    transpose; with `broadcasts`, a lower-rank value is first padded with unit
    dims (a constant is transposed, a value of unit dims kept). With no
    rewriter, only checks (and returns `value` when it would succeed)."""
    t = ranked(value)
    if t is None or t.get_num_dims() > len(perm):
        return None
    if t.get_num_dims() < len(perm):
        if not broadcasts:
            return None
        array = constant_value(value)
        if array is None:
            return value if all(d == 1 for d in t.get_shape()) else None
        if rewriter is None:
            return value
        return _broadcast_constant(rewriter, value, array, perm)
    if not transposes.free(value, perm, reuse):
        return None
    return value if rewriter is None else transposes.get(rewriter, value, perm)


def _broadcast_constant(
    rewriter: PatternRewriter, value: SSAValue, array: np.ndarray, perm: Perm
) -> SSAValue:
    """A constant of lower rank transposed as if padded with leading unit dims;
    leading unit dims of the result are dropped again."""
    full = np.reshape(array, (1,) * (len(perm) - array.ndim) + array.shape)
    moved = np.transpose(full, perm)
    while moved.ndim > array.ndim and moved.shape[0] == 1:
        moved = moved[0]
    attr = dense_attr(moved, value.type.element_type)  # type: ignore[attr-defined]
    assert attr is not None  # the same element type as an existing constant
    constant = ConstantOp(attr)
    constant.output.name_hint = value.name_hint
    rewriter.insert(constant, _after_definition(value))
    return constant.output


def can_adapt_all(
    transposes: Transposes,
    op: Operation,
    perm: Perm,
    pending: set[SSAValue],
    reuse: bool = True,
) -> bool:
    """Whether every layout operand of `op` transposes by `perm` for free (or is in
    `pending`, values about to be given such a transpose); without `reuse`, an
    existing transpose does not count as free."""
    indices = layout_operands(op)
    if indices is None:
        return False
    broadcasts = isinstance(op, ElementwiseBinaryOp)
    return all(
        op.operands[i] in pending
        or adapt(transposes, None, op.operands[i], perm, broadcasts, reuse) is not None
        for i in indices
    )


def move_through(
    transposes: Transposes,
    rewriter: PatternRewriter,
    op: NNOperation,
    perm: Perm,
) -> Rebuilt:
    """`op` on its layout operands transposed by `perm` (which must be free)."""
    operands = list(op.operands)
    broadcasts = isinstance(op, ElementwiseBinaryOp)
    for i in layout_operands(op) or ():
        moved = adapt(transposes, rewriter, operands[i], perm, broadcasts)
        assert moved is not None
        operands[i] = moved
    return rebuild(op, operands, inverse(perm))


# Patterns.


@dataclass
class ConvertLayoutSensitiveOp(RewritePattern):
    """A layout-sensitive op in the other layout (conv, conv_transpose,
    fused_conv, pooling, batch norm, and the gradients of training graphs:
    conv_filter_grad, batch_norm_training, batch_norm_grad, max/avg_pool_grad)
    becomes one in `target`, between transposes of its data (and filter)
    operands and results; shape properties move with them."""

    target: str
    transposes: Transposes

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not self.transposes.converted(op):
            return
        roles = layout_roles(op)
        data = [ranked(op.operands[i]) for i in roles.data_operands]
        data += [ranked(op.results[i]) for i in roles.data_results]
        if any(t is None for t in data) or data[0].get_num_dims() < 3:
            return  # unranked, or no spatial dims: both layouts are the same
        rank = data[0].get_num_dims()
        filters = [ranked(op.operands[i]) for i in roles.filter_operands]
        filters += [ranked(op.results[i]) for i in roles.filter_results]
        if any(t is None or t.get_num_dims() != rank for t in data + filters):
            return  # a filter's layout is unknown, or ranks differ
        to_target, to_filter = (
            layout_perm(self.target, rank),
            filter_perm(self.target, rank),
        )
        operands = list(op.operands)
        for indices, perm in (
            (roles.data_operands, to_target),
            (roles.filter_operands, to_filter),
        ):
            for i in indices:
                operands[i] = self.transposes.get(rewriter, op.operands[i], perm)
        props = dict(op.properties) | {"data_layout": StringAttr(self.target)}
        for name, perm in (
            (roles.data_shape_prop, to_target),
            (roles.filter_shape_prop, to_filter),
        ):
            if name is not None:
                shape = int_list(props, name) or ()
                props[name] = i64_array([shape[p] for p in perm])
        converted = type(op).create_inferred(operands, props)
        converted.location = op.location
        new_ops: list[Operation] = [converted]
        results = list(converted.results)
        for indices, perm in (
            (roles.data_results, to_target),
            (roles.filter_results, to_filter),
        ):
            for i in indices:
                back = transpose_op(converted.results[i], inverse(perm))
                new_ops.append(back)
                results[i] = back.output
                self.transposes.record(converted.results[i], inverse(perm), back.output)
        old_operands = list(op.operands)
        rewriter.replace(op, new_ops, results)
        erase_unused(rewriter, old_operands)


@dataclass
class ComposeTransposes(RewritePattern):
    """A transpose of a transpose or of a constant becomes one transpose, a constant
    or, when the perms cancel, the input itself; so does an identity transpose."""

    transposes: Transposes

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter):
        perm = transpose_perm(op)
        if perm is None:
            return
        source = op.input.owner
        if not (
            is_identity(perm)
            or isinstance(source, TransposeOp)
            or constant_value(op.input) is not None
        ):
            return
        replacement = self.transposes.get(rewriter, op.input, perm)
        if replacement is op.output:
            return
        rewriter.replace_all_uses_with(op.output, replacement)
        rewriter.erase(op)
        erase_unused(rewriter, [op.input])


@dataclass
class SinkTranspose(RewritePattern):
    """Move a transpose below the layout-agnostic ops that use it.

    Every user must take it: a transpose or a layout-sensitive op still to
    convert (both absorb it), or a layout-agnostic op whose other layout operands
    transpose for free. The transpose goes away and each agnostic user gets one
    on its results; this happens only when at most one of those new transposes
    is not absorbed by the next op, so the count of transposes never grows.
    """

    target: str
    transposes: Transposes

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter):
        perm = transpose_perm(op)
        source = op.input.owner
        if perm is None or isinstance(source, (TransposeOp, ConstantOp)):
            return  # ComposeTransposes handles these first
        if self.transposes.is_free_input(op.input, perm):
            return  # the signature absorbs it
        movers = self._agnostic_users(op, perm)
        if not movers:
            return
        back = inverse(perm)
        while movers:
            ready = next(
                (u for u in movers if can_adapt_all(self.transposes, u, back, set())),
                None,
            )
            if ready is None:
                break  # a user's operand turned out not to be free: it stays
            movers.remove(ready)
            rebuilt = move_through(self.transposes, rewriter, ready, back)
            self._replace(rewriter, ready, rebuilt)
        erase_unused(rewriter, [op.output])

    def _agnostic_users(self, op: TransposeOp, perm: Perm) -> list[NNOperation]:
        """The agnostic users to move `op` through, or [] when not every user takes it."""
        users = list(dict.fromkeys(use.operation for use in op.output.uses))
        movers = [
            u
            for u in users
            if not isinstance(u, TransposeOp) and not self.transposes.converted(u)
        ]
        group = set(movers)
        pending = {op.output} | {r for u in movers for r in u.results}
        back = inverse(perm)
        if not all(can_adapt_all(self.transposes, u, back, pending) for u in movers):
            return []
        new_transposes = sum(
            1
            for u in movers
            for r in u.results
            if r.uses and not all(self._absorbs(x.operation, group) for x in r.uses)
        )
        return movers if new_transposes <= 1 else []  # type: ignore[return-value]

    def _absorbs(self, user: Operation, group: set[Operation]) -> bool:
        return (
            user in group
            or isinstance(user, TransposeOp)
            or self.transposes.converted(user)
        )

    def _replace(
        self, rewriter: PatternRewriter, op: Operation, rebuilt: Rebuilt
    ) -> None:
        ops, values = list(rebuilt.ops), []
        for value, perm in rebuilt.results:
            if is_identity(perm):
                values.append(value)
                continue
            back = transpose_op(value, perm)
            ops.append(back)
            values.append(back.output)
            self.transposes.record(value, perm, back.output)
        old_operands = list(op.operands)
        rewriter.replace(op, ops, values)
        erase_unused(rewriter, old_operands)


@dataclass
class HoistTranspose(RewritePattern):
    """Move a transpose above the layout-agnostic op it follows (its only user)
    when every layout operand of that op cancels a transpose or is a constant:
    the transpose goes away and none is added (nor is an existing one reused,
    which SinkTranspose could move back)."""

    transposes: Transposes

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TransposeOp, rewriter: PatternRewriter):
        perm = transpose_perm(op)
        source = op.input.owner
        if perm is None or not isinstance(source, NNOperation):
            return
        indices = layout_operands(source)
        if indices is None or len(source.results) != 1 or not op.input.has_one_use():
            return
        if isinstance(source, ReduceOp) and not source.keeps_dims:
            return  # the result has fewer dims: a transpose would remain
        if not can_adapt_all(self.transposes, source, perm, set(), reuse=False):
            return
        if all(constant_value(source.operands[i]) is not None for i in indices):
            return  # nothing cancels: fold-constants evaluates such an op
        rebuilt = move_through(self.transposes, rewriter, source, perm)
        rewriter.replace(op, rebuilt.ops, [rebuilt.results[0][0]])
        old_operands = list(source.operands)
        rewriter.erase(source)
        erase_unused(rewriter, old_operands)


def layout_patterns(target: str, transposes: Transposes) -> list[RewritePattern]:
    return [
        ComposeTransposes(transposes),
        ConvertLayoutSensitiveOp(target, transposes),
        HoistTranspose(transposes),
        SinkTranspose(target, transposes),
    ]
