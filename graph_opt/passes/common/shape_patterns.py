"""Materializing shape queries from static types (Grappler's MaterializeShapes)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt.dialects.nn.constant import constant_value
from graph_opt.dialects.nn.shape_ops import RankOp, ShapeOp, SizeOp
from graph_opt.dialects.nn.shapes import DYN, ranked
from graph_opt.dialects.nn.tensor_ops import GatherOp, SliceOp
from graph_opt.passes.common.constant_patterns import (
    EVALUATION_ERRORS,
    replace_by_arrays,
)


def shape_dims(query: ShapeOp) -> np.ndarray | None:
    """The dims an nn.shape returns (DYN where unknown), when its input is ranked."""
    x = ranked(query.input)
    if x is None:
        return None
    shape = x.get_shape()
    return np.array([shape[i] for i in query.dims(len(shape))], dtype=np.int64)


def query_value(op: ShapeOp | SizeOp | RankOp) -> np.ndarray | None:
    """What a shape, size or rank query returns, or None when it reads an unknown dim."""
    if isinstance(op, ShapeOp):
        dims = shape_dims(op)
        return None if dims is None or DYN in dims else dims
    x = ranked(op.input)
    if x is None:
        return None
    shape = x.get_shape()
    if isinstance(op, RankOp):
        return np.array(len(shape), dtype=np.int64)
    if 0 in shape:
        return np.array(0, dtype=np.int64)
    return None if DYN in shape else np.array(math.prod(shape), dtype=np.int64)


@dataclass
class MaterializeShapeQueries(RewritePattern):
    """Replace nn.shape, nn.size, nn.rank, and gathers or slices of shapes, by constants.

    Only the dims that are read must be static: `shape(x)[1]` folds when x's
    batch dim is dynamic. A gather or slice of an nn.shape is evaluated on the
    dims with DYN (-1) for unknown ones; as both only pick elements, a result
    without -1 holds known dims only.
    """

    interpreter: Interpreter

    @op_type_rewrite_pattern
    def match_and_rewrite(
        self,
        op: ShapeOp | SizeOp | RankOp | GatherOp | SliceOp,
        rewriter: PatternRewriter,
    ):
        if isinstance(op, GatherOp | SliceOp):
            value = self.picked_dims(op)
        else:
            value = query_value(op)
        if value is None:
            return
        replace_by_arrays(rewriter, op, [value])

    def picked_dims(self, op: GatherOp | SliceOp) -> np.ndarray | None:
        source = op.operands[0].owner
        if not isinstance(source, ShapeOp):
            return None
        dims = shape_dims(source)
        params = [constant_value(v) for v in op.operands[1:]]
        if dims is None or any(p is None for p in params):
            return None
        try:
            (value,) = self.interpreter.run_op(op, (dims, *params))
        except EVALUATION_ERRORS:
            return None  # e.g. an index out of range: the error is left to run time
        value = np.asarray(value)
        return None if (value == DYN).any() else value
