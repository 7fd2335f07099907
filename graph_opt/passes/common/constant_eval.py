"""Values that are constant although the graph computes them, evaluated without
changing the IR: small subgraphs of pure ops on constants and on static shapes.

TensorFlow computes `tf.argsort`'s k as `tf.shape(x)[-1]` and a resize's size as
`tf.shape(x)[1:3] * 2`: the TF importer (`ImportBuilder.constant_input`) needs
them as constants. A frozen Keras batch norm computes its scale and shift from
its parameters (`gamma * rsqrt(variance + eps)`, read through Identity ops):
fold-bn reads them here without waiting for fold-constants."""

from __future__ import annotations

from functools import cache

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.ir import OpResult, SSAValue
from xdsl.traits import Pure

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.shape_ops import RankOp, ShapeOp, SizeOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import CastOp, GatherOp, SliceOp

MAX_DEPTH = 24
"""Ops followed back from the value: shape arithmetic is short."""
MAX_ELEMENTS = 4096
"""Larger values are data, not shapes or parameters: not evaluated."""


@cache
def _interpreter() -> Interpreter:
    from graph_opt.interpreter.runner import make_interpreter

    return make_interpreter(ModuleOp([]))


def computed_constant(value: SSAValue) -> np.ndarray | None:
    """The array `value` always holds, or None when it depends on an argument, an
    unknown dim, an impure op, or is too far or too large to evaluate."""
    if isinstance(value, OpResult) and isinstance(value.owner, ConstantOp):
        return value.owner.to_array()  # the common case
    return _Evaluation().value(value, MAX_DEPTH)


class _Evaluation:
    """One evaluation: each value is evaluated once (shape arithmetic shares terms)."""

    def __init__(self) -> None:
        self.known: dict[SSAValue, np.ndarray | None] = {}

    def value(self, value: SSAValue, depth: int) -> np.ndarray | None:
        if value not in self.known:
            self.known[value] = self._evaluate(value, depth)
        return self.known[value]

    def _evaluate(self, value: SSAValue, depth: int) -> np.ndarray | None:
        if not isinstance(value, OpResult):
            return None
        op = value.owner
        if isinstance(op, ConstantOp):
            return op.to_array()
        if depth == 0 or not _small(value):
            return None
        if isinstance(op, (ShapeOp, SizeOp, RankOp)):
            from graph_opt.passes.common.shape_patterns import query_value

            return query_value(op)
        if not isinstance(op, NNOperation) or not op.has_trait(Pure):
            return None
        if isinstance(op, (SliceOp, GatherOp)) and _shape_query(op.operands[0]):
            return self._part_of_shape(op, depth)
        computed = [v for v in op.operands if not isinstance(v.owner, ConstantOp)]
        if any(self.value(v, depth - 1) is None for v in computed):
            return None  # (before reading a constant: a weight may be large)
        args = [self.value(v, depth - 1) for v in op.operands]
        return evaluate_op(op, args, value.index)

    def _part_of_shape(self, op: SliceOp | GatherOp, depth: int) -> np.ndarray | None:
        """A slice or gather of a shape with unknown dims, which need not be read."""
        from graph_opt.passes.common.shape_patterns import shape_dims

        dims = shape_dims(_shape_query(op.operands[0]))
        rest = [self.value(v, depth - 1) for v in op.operands[1:]]
        if dims is None or any(a is None for a in rest):
            return None
        result = evaluate_op(op, [dims, *rest], 0)
        if result is None or DYN in result:
            return None
        return result.astype(numpy_dtype(op.results[0].type.element_type))


def _small(value: SSAValue) -> bool:
    value_type = ranked(value)
    return (
        value_type is not None
        and DYN not in value_type.get_shape()
        and int(np.prod(value_type.get_shape())) <= MAX_ELEMENTS
    )


def _shape_query(value: SSAValue) -> ShapeOp | None:
    """The nn.shape that `value` is, maybe cast (TensorFlow's int32 shapes)."""
    op = value.owner
    if isinstance(op, CastOp):
        op = op.input.owner
    return op if isinstance(op, ShapeOp) else None


def evaluate_op(
    op: NNOperation, args: list[np.ndarray], index: int
) -> np.ndarray | None:
    from graph_opt.passes.common.constant_patterns import EVALUATION_ERRORS

    try:
        with np.errstate(all="ignore"):
            outputs = _interpreter().run_op(op, tuple(args))
    except EVALUATION_ERRORS:
        return None
    return np.asarray(outputs[index])
