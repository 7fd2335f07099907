"""What is known of the elements of small integer vectors that describe shapes.

Exporters compute shapes at run time: `Concat(Unsqueeze(Gather(Shape(x), 1)),
[-1])`. Each element of such a vector is a known integer, a dim of some
tensor (`DimOf`), or unknown; type rules use the integers (a reshape's result
rank and static dims), rewrites the dims (a reshape target that copies the
input's own dims).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import int_list, int_value
from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.shapes import DYN, normalize_axis, ranked

MAX_LENGTH = 16
"""Longest vector followed: shape vectors are as long as a rank."""

MAX_DEPTH = 8
"""Most ops followed back from a value (Shape, Gather, Unsqueeze, Concat...)."""


@dataclass(frozen=True, eq=False)
class DimOf:
    """Dim `index` (counted from 0) of `source`, a size not known statically."""

    source: SSAValue
    index: int

    def same(self, other: object) -> bool:
        return (
            isinstance(other, DimOf)
            and other.source is self.source
            and other.index == self.index
        )


Element = int | DimOf | None
"""A known integer, a dynamic dim of a tensor, or unknown."""


def dim_of(value: SSAValue, index: int) -> DimOf:
    """Dim `index` of `value`, named by the earliest tensor it is copied from
    through ops that keep it (elementwise ops, matmul rows, reshape's 0, transpose,
    unsqueeze, expand, the batch of convs and pools),
    so that two tensors' dims that are the same compare equal."""
    for _ in range(MAX_DEPTH):
        source = _kept_from(value, index)
        if source is None:
            break
        value, index = source
    return _named_dim(value, index) or DimOf(value, index)


def _named_dim(value: SSAValue, index: int) -> DimOf | None:
    """For a function argument's dim with a symbolic name (`nn.dim_names`, ONNX's
    dim_param), the first argument dim of that name: ONNX declares dims of
    the same name equal."""
    from xdsl.dialects.func import FuncOp

    from graph_opt.dialects.nn.names import dim_names_of

    if not isinstance(value, BlockArgument):
        return None
    function = value.block.parent_op()
    if not isinstance(function, FuncOp) or function.arg_attrs is None:
        return None
    names = dim_names_of(function.arg_attrs, len(value.block.args))
    own = names[value.index]
    if index >= len(own) or not own[index]:
        return None  # no name
    for arg, dims in zip(value.block.args, names, strict=True):
        if own[index] in dims and _rank(arg) == len(dims):
            return DimOf(arg, dims.index(own[index]))
    return None


def _rank(value: SSAValue) -> int | None:
    value_type = ranked(value)
    return None if value_type is None else value_type.get_num_dims()


def _attention_kept_from(op: Operation, index: int) -> tuple[SSAValue, int] | None:
    """nn.attention's query rows, and its batch and head dims where the key's
    and the value's are provably the query's (none broadcasts)."""
    query = op.operands[0]
    if index == 2:
        return query, 2
    if index > 1:
        return None
    own = dim_of(query, index)
    if all(dim_of(x, index).same(own) for x in op.operands[1:3]):
        return query, index
    return None


def _kept_from(value: SSAValue, index: int) -> tuple[SSAValue, int] | None:
    """The operand and dim that `value`'s dim `index` is a copy of, if known."""
    from graph_opt.dialects.nn.attention import AttentionOp
    from graph_opt.dialects.nn.conv import ConvolutionBase
    from graph_opt.dialects.nn.elementwise import (
        ElementwiseBinaryOp,
        ElementwiseUnaryOp,
    )
    from graph_opt.dialects.nn.fused import FusedMatMulOp
    from graph_opt.dialects.nn.linalg import MatMulOp
    from graph_opt.dialects.nn.norm import LayerNormOp, SoftmaxOp
    from graph_opt.dialects.nn.pool import GlobalAvgPoolOp, PoolOp
    from graph_opt.dialects.nn.shape_ops import ReshapeOp, UnsqueezeOp
    from graph_opt.dialects.nn.tensor_ops import CastOp, SplitOp, TransposeOp

    op, rank = value.owner, _rank(value)
    if rank is None or not 0 <= index < rank:
        return None
    if isinstance(op, SplitOp):
        axis = int_value(op.properties, "axis", 0) % rank
        return None if index == axis else (op.input, index)
    if not isinstance(op, Operation) or len(op.results) != 1:
        return None
    if isinstance(op, ElementwiseUnaryOp | CastOp | LayerNormOp | SoftmaxOp):
        x = op.operands[0]
        return (x, index) if _rank(x) == rank else None
    if isinstance(op, ElementwiseBinaryOp):
        for a, b in (
            (op.operands[0], op.operands[1]),
            (op.operands[1], op.operands[0]),
        ):
            b_type = ranked(b)
            if _rank(a) != rank or b_type is None:
                continue
            j = index - (rank - b_type.get_num_dims())
            if j < 0 or b_type.get_shape()[j] == 1:
                return a, index  # the other operand does not broadcast this dim
        return None
    if isinstance(op, MatMulOp | FusedMatMulOp):
        x, w, *bias = op.operands
        if _rank(x) == rank and _rank(w) == 2 and index < rank - 1:
            if all((_rank(b) or 2) <= 1 for b in bias):
                return x, index  # a row dim of a matmul by a matrix
        return None
    if isinstance(op, AttentionOp):
        return _attention_kept_from(op, index)
    if isinstance(op, ReshapeOp):
        target = constant_value(op.shape)
        if target is not None and not int_value(op.properties, "allowzero", 0):
            if target.reshape(-1)[index] == 0:
                return op.input, index
        return None
    if isinstance(op, TransposeOp):
        perm = op.permutation(op.properties, rank)
        return op.input, int(perm[index])
    if isinstance(op, UnsqueezeOp):
        axes = int_list(op.properties, "axes")
        inserted = {normalize_axis(a, rank) for a in axes or ()}
        if axes is None or index in inserted:
            return None  # a unit dim, or axes unknown
        return op.input, index - sum(1 for a in inserted if a < index)
    if is_expand(op):
        return _expanded_from(op, index, rank)
    if isinstance(op, ConvolutionBase | PoolOp | GlobalAvgPoolOp) and index == 0:
        x = op.operands[0]
        return (x, 0) if _rank(x) == rank else None  # the batch, in either layout
    return None


def is_expand(op: Operation) -> bool:
    """ONNX Expand: nn.expand, or an nn.opaque of it (from older imports)."""
    from graph_opt.dialects.nn.opaque import OpaqueOp

    if isinstance(op, OpaqueOp):
        return op.op_type.data == "Expand" and op.domain is None
    return op.name == "nn.expand"


def _expanded_from(op: Operation, index: int, rank: int) -> tuple[SSAValue, int] | None:
    """Dim `index` of ONNX Expand's result: broadcast(input dims, target)."""
    if len(op.operands) != 2:
        return None
    x, target = op.operands
    x_type, elements = ranked(x), shape_elements(target)
    if x_type is None or elements is None:
        return None
    j = index - (rank - x_type.get_num_dims())  # the input's dim, if any
    k = index - (rank - len(elements))  # the target's element, if any
    element = elements[k] if k >= 0 else 1
    if j >= 0 and (
        element == 1 or (isinstance(element, DimOf) and element.same(dim_of(x, j)))
    ):
        return x, j  # the target keeps the input's dim
    if (j < 0 or x_type.get_shape()[j] == 1) and isinstance(element, DimOf):
        return element.source, element.index  # the target sets the dim
    return None


def known_ints(value: SSAValue) -> list[int | None] | None:
    """The elements of a 0-D or 1-D integer value of static length, None where
    not known as an integer; None when the length is not known."""
    elements = shape_elements(value)
    if elements is None:
        return None
    return [e if isinstance(e, int) else None for e in elements]


def shape_elements(value: SSAValue, depth: int = MAX_DEPTH) -> list[Element] | None:
    """The elements of a 0-D or 1-D integer value (flattened), or None when its
    length is not known."""
    value_type = ranked(value)
    if value_type is None or not isinstance(value_type.element_type, IntegerType):
        return None
    shape = value_type.get_shape()
    if len(shape) > 1 or DYN in shape or (shape and shape[0] > MAX_LENGTH):
        return None
    length = shape[0] if shape else 1
    array = constant_value(value)
    if array is not None:
        return [int(v) for v in array.reshape(-1)]
    elements = _derived(value, depth - 1) if depth > 0 else None
    if elements is None or len(elements) != length:
        return [None] * length
    return elements


def _derived(value: SSAValue, depth: int) -> list[Element] | None:
    """The elements from the op that computes `value`, when it is one followed."""
    from graph_opt.dialects.nn.elementwise import AddOp, MulOp, SubOp
    from graph_opt.dialects.nn.shape_ops import (
        ReshapeOp,
        ShapeOp,
        SqueezeOp,
        UnsqueezeOp,
    )
    from graph_opt.dialects.nn.tensor_ops import CastOp, ConcatOp, GatherOp, SliceOp

    op = value.owner
    if isinstance(op, ShapeOp):
        return _shape_dims(op)
    if isinstance(op, UnsqueezeOp | SqueezeOp | ReshapeOp | CastOp):
        if isinstance(op, CastOp) and not isinstance(op.to, IntegerType):
            return None
        return shape_elements(op.input, depth)
    if isinstance(op, ConcatOp):
        parts = [shape_elements(part, depth) for part in op.inputs]
        if any(p is None for p in parts):
            return None
        return [e for part in parts for e in part]  # type: ignore[union-attr]
    if isinstance(op, GatherOp):
        return _gathered(op, depth)
    if isinstance(op, SliceOp):
        return _sliced(op, depth)
    if isinstance(op, AddOp | SubOp | MulOp):
        return _arithmetic(op, depth)
    return None


_ARITHMETIC = {"nn.add": int.__add__, "nn.sub": int.__sub__, "nn.mul": int.__mul__}


def _arithmetic(op, depth: int) -> list[Element] | None:
    """Add, Sub or Mul of vectors of equal length (or of one element)."""
    lhs, rhs = shape_elements(op.lhs, depth), shape_elements(op.rhs, depth)
    if lhs is None or rhs is None:
        return None
    length = max(len(lhs), len(rhs))
    if {len(lhs), len(rhs)} - {1, length}:
        return None
    lhs, rhs = lhs * (length // len(lhs)), rhs * (length // len(rhs))
    apply = _ARITHMETIC[op.name]
    return [
        apply(a, b) if isinstance(a, int) and isinstance(b, int) else None
        for a, b in zip(lhs, rhs)
    ]


def _shape_dims(op) -> list[Element] | None:
    x = ranked(op.input)
    if x is None:
        return None
    shape = x.get_shape()
    return [
        shape[i] if shape[i] != DYN else dim_of(op.input, i)
        for i in op.dims(len(shape))
    ]


def _gathered(op, depth: int) -> list[Element] | None:
    data_type, indices = ranked(op.data), constant_value(op.indices)
    if data_type is None or data_type.get_num_dims() != 1 or indices is None:
        return None
    if op.axis is not None and op.axis.value.data not in (0, -1):
        return None
    data = shape_elements(op.data, depth)
    if data is None:
        return None
    picked = []
    for index in indices.reshape(-1):
        if not -len(data) <= int(index) < len(data):
            return None  # the error is left to run time
        picked.append(data[int(index)])
    return picked


def _sliced(op, depth: int) -> list[Element] | None:
    from graph_opt.dialects.nn.tensor_ops import slice_axes, slice_bounds

    params = [constant_value(v) for v in (op.starts, op.ends, op.axes, op.steps)]
    data = shape_elements(op.data, depth)
    if data is None or any(p is None for p in params) or ranked(op.data) is None:
        return None
    if ranked(op.data).get_num_dims() != 1:  # type: ignore[union-attr]
        return None
    try:
        axes = slice_axes(1, *[p.reshape(-1) for p in params])  # type: ignore[union-attr]
    except VerifyException:
        return None  # invalid parameters: the verifier reports them
    if not axes:
        return data
    start, end, step = axes[normalize_axis(0, 1)]
    first, _, count = slice_bounds(len(data), start, end, step)
    return [data[first + k * step] for k in range(count)]
