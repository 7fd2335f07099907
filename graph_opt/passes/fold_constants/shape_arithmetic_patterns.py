"""Patterns on the shape arithmetic exporters write: reshape targets computed
from the input's own dims, chains of squeezes, unsqueezes and reshapes, and
dims compared with negative numbers."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from graph_opt.dialects.nn.base import i64_array, int_list, int_value
from graph_opt.dialects.nn.compare import EqualOp
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.shape_ops import (
    FlattenOp,
    ReshapeOp,
    SqueezeOp,
    UnsqueezeOp,
)
from graph_opt.dialects.nn.shape_values import DimOf, dim_of, is_expand, shape_elements
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import ExpandOp
from graph_opt.passes.common.constant_patterns import replace_by_arrays
from graph_opt.rewriting.value_forwarding import forward_operand


def normalized_axes(axes: Sequence[int] | None, rank: int) -> list[int] | None:
    """`axes` counted from 0 and sorted, or None when absent or out of range."""
    if axes is None or not all(-rank <= a < rank for a in axes):
        return None
    return sorted(a % rank for a in axes)


class ReshapeToKnownTarget(RewritePattern):
    """A reshape to a computed target whose elements are all known: constants,
    the input's own dims at their place (read from any tensor they are copied
    to, `shape_values.dim_of`) (written 0, which copies them), and at
    most one other element (written -1, which infers it). The target becomes a
    constant, and the shape arithmetic that computed it dead.

    As in onnxsim and onnxslim, the -1 assumes the input is not empty: with a
    zero-size dim elsewhere, -1 is ambiguous and onnxruntime rejects it.
    """

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter):
        if int_value(op.properties, "allowzero", 0):
            return  # a 0 in the target would be a size, not a copy
        if constant_value(op.shape) is not None:
            return  # nothing to compute
        elements = shape_elements(op.shape)
        if elements is None:
            return  # the target's length is unknown
        target: list[int | None] = []
        for i, element in enumerate(elements):
            if isinstance(element, int):
                target.append(element)
            elif isinstance(element, DimOf) and element.same(dim_of(op.input, i)):
                target.append(0)
            else:
                target.append(None)
        if target.count(None) > 1 or (None in target and -1 in target):
            return  # more than one element left for -1 to infer
        target = [-1 if d is None else d for d in target]
        constant = ConstantOp.from_array(np.array(target, np.int64))
        reshape = ReshapeOp.create_inferred(
            [op.input, constant.output], op.properties, [op.output.type]
        )
        rewriter.replace(op, [constant, reshape], reshape.results)


class ExpandToKnownTarget(RewritePattern):
    """ONNX Expand (nn.expand, or an `nn.opaque`) to a computed target whose elements are all
    known: constants, and the input's own dims at their place (right-aligned),
    written 1, which keeps them: broadcast(d, 1) = d. The target becomes a
    constant, and the shape arithmetic that computed it dead."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: OpaqueOp | ExpandOp, rewriter: PatternRewriter):
        if not is_expand(op):
            return  # another operator
        if len(op.operands) != 2 or constant_value(op.operands[1]) is not None:
            return  # a malformed Expand, or nothing to compute
        x, elements = ranked(op.operands[0]), shape_elements(op.operands[1])
        if x is None or elements is None:
            return  # the input's rank or the target's length is unknown
        offset = len(elements) - x.get_num_dims()
        target: list[int] = []
        for k, element in enumerate(elements):
            if isinstance(element, int):
                target.append(element)
            elif (
                isinstance(element, DimOf)
                and k - offset >= 0
                and element.same(dim_of(op.operands[0], k - offset))
            ):
                target.append(1)
            else:
                return  # a dim from elsewhere: the broadcast may change it
        constant = ConstantOp.from_array(np.array(target, np.int64))
        rewriter.insert(constant, InsertPoint.before(op))
        op.operands = [op.operands[0], constant.output]
        rewriter.notify_op_modified(op)


class RemoveReshapeToOwnShape(RewritePattern):
    """A reshape whose constant target gives each dim of the input back (0
    copies a dim, a number repeats a static one, one -1 infers the last),
    also when some dims are dynamic."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter):
        x, target = ranked(op.input), constant_value(op.shape)
        if x is None or target is None:
            return
        shape, target = x.get_shape(), [int(d) for d in target.reshape(-1)]
        if len(target) != len(shape) or target.count(-1) > 1:
            return
        copies = None if int_value(op.properties, "allowzero", 0) else 0
        for dim, wanted in zip(shape, target):
            if wanted not in (-1, copies) and (dim == DYN or wanted != dim):
                return  # a dim that may change
        forward_operand(rewriter, op, op.input)


class CancelSqueezeUnsqueeze(RewritePattern):
    """squeeze(unsqueeze(x, a), a) and unsqueeze(squeeze(x, a), a) are x."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SqueezeOp | UnsqueezeOp, rewriter: PatternRewriter):
        inner = op.input.owner
        inverse = UnsqueezeOp if isinstance(op, SqueezeOp) else SqueezeOp
        x = ranked(inner.input) if isinstance(inner, inverse) else None
        if x is None:
            return  # not the inverse op, or a rank to count axes in unknown
        outer_axes, inner_axes = (
            int_list(op.properties, "axes"),
            int_list(inner.properties, "axes"),
        )
        if outer_axes is None or inner_axes is None:
            return  # a squeeze of every unit dim: which depends on the shape
        rank = x.get_num_dims()  # the rank with the unit dims
        if isinstance(op, SqueezeOp):
            rank += len(inner_axes)
        removed = normalized_axes(outer_axes, rank)
        if removed is None or removed != normalized_axes(inner_axes, rank):
            return  # other axes
        forward_operand(rewriter, op, inner.input)


def _merged_axes(op: Operation) -> list[int] | None:
    """The axes of one squeeze or unsqueeze that does what `op` and the op of
    the same kind before it do, or None."""
    inner = op.operands[0].owner
    if type(inner) is not type(op):
        return None
    x = ranked(inner.operands[0])  # type: ignore[union-attr]
    first = int_list(inner.properties, "axes")  # type: ignore[union-attr]
    second = int_list(op.properties, "axes")
    if x is None or first is None or second is None:
        return None
    rank = x.get_num_dims()
    if isinstance(op, UnsqueezeOp):
        # positions in the result: the second's, and the first's among the rest
        outer = normalized_axes(second, rank + len(first) + len(second))
        inner_axes = normalized_axes(first, rank + len(first))
        if outer is None or inner_axes is None:
            return None
        rest = [i for i in range(rank + len(first) + len(second)) if i not in outer]
        return sorted(outer + [rest[a] for a in inner_axes])
    # positions in the input: the first's, and the second's among the rest
    inner_axes = normalized_axes(first, rank)
    outer = normalized_axes(second, rank - len(first))
    if inner_axes is None or outer is None:
        return None
    rest = [i for i in range(rank) if i not in inner_axes]
    return sorted(inner_axes + [rest[a] for a in outer])


class MergeSqueezesOrUnsqueezes(RewritePattern):
    """Two unsqueezes in a row are one; so are two squeezes with axes."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: SqueezeOp | UnsqueezeOp, rewriter: PatternRewriter):
        axes = _merged_axes(op)
        if axes is None:
            return
        merged = type(op).create_inferred(
            [op.input.owner.input],  # type: ignore[union-attr]
            {"axes": i64_array(axes)},
            [op.output.type],
        )
        rewriter.replace(op, merged)


class MergeReshapes(RewritePattern):
    """A reshape to a constant target that copies no dim (no 0, or allowzero)
    of a reshape, flatten, squeeze or unsqueeze: a reshape of the latter's input."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter):
        inner = op.input.owner
        if not isinstance(inner, ReshapeOp | FlattenOp | SqueezeOp | UnsqueezeOp):
            return
        target = constant_value(op.shape)
        if target is None:
            return
        if 0 in target and not int_value(op.properties, "allowzero", 0):
            return  # a 0 copies a dim of the inner op's result
        reshape = ReshapeOp.create_inferred(
            [inner.input, op.shape], op.properties, [op.output.type]
        )
        rewriter.replace(op, reshape)


class FoldDimComparison(RewritePattern):
    """`equal` of dims and known numbers with a constant: a dim is never
    negative, so it differs from a negative constant (TorchScript's expand
    writes `where(equal(shape, -1), ones, shape)`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: EqualOp, rewriter: PatternRewriter):
        for dims, other in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            elements, constant = shape_elements(dims), constant_value(other)
            if elements is None or constant is None or constant.ndim > 1:
                continue
            result = ranked(op.output)
            if (
                result is None
                or result.get_num_dims() > 1
                or DYN in result.get_shape()
                or math.prod(result.get_shape()) != len(elements)
                or constant.size not in (1, len(elements))
            ):
                continue  # a broadcast to another shape
            values = np.broadcast_to(constant.reshape(-1), (len(elements),))
            equal = [_dim_equals(e, int(v)) for e, v in zip(elements, values)]
            if None in equal:
                continue
            array = np.array(equal, np.bool_).reshape(result.get_shape())
            replace_by_arrays(rewriter, op, [array])
            return


def _dim_equals(element: int | DimOf | None, value: int) -> bool | None:
    if isinstance(element, int):
        return element == value
    if isinstance(element, DimOf) and value < 0:
        return False
    return None


Reimport = Callable[[OpaqueOp], tuple[list[Operation], list[SSAValue]] | None]


def _onnx_reimport() -> Reimport:
    from graph_opt.formats.onnx.reimport import reimport

    return reimport


REIMPORTERS: dict[str, Callable[[], Reimport]] = {"onnx": _onnx_reimport}
"""The formats that import an nn.opaque again: name -> a function that imports
the format's `reimport` (a lazy registry, as passes/__init__.py's: the formats
stand above the passes)."""


class ImportOpaqueAgain(RewritePattern):
    """An ONNX nn.opaque with a constant input -> the nn ops the importer makes of
    it now (a Resize whose sizes fold-constants computed becomes nn.resize)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: OpaqueOp, rewriter: PatternRewriter):
        if not any(isinstance(v.owner, ConstantOp) for v in op.operands):
            return  # nothing became known since the import
        for get_reimport in REIMPORTERS.values():
            imported = get_reimport()(op)
            if imported is not None:
                rewriter.replace(op, *imported)
                return
        # still not expressible in nn


SHAPE_ARITHMETIC_PATTERNS: tuple[type[RewritePattern], ...] = (
    ReshapeToKnownTarget,
    ExpandToKnownTarget,
    RemoveReshapeToOwnShape,
    CancelSqueezeUnsqueeze,
    MergeSqueezesOrUnsqueezes,
    MergeReshapes,
    FoldDimComparison,
    ImportOpaqueAgain,
)
"""Every shape-arithmetic rewrite; instantiate them for a walker."""
