"""Building ops in a rewrite as TVM callbacks do: `nn.batch_norm(x, g, b, m, v, epsilon=eps)`.

`nn.<op>(*operands, **properties)` creates the op with its inferred result
types, inserts it where the running rewrite builds (before the matched root),
and returns its result (a tuple for several). Python values become the
property's attribute kind (float -> f32, int -> i64, str, int or float
lists -> arrays, dtype names -> element types); numpy arrays given as
operands become `nn.constant`s. `with building(rewriter_or_insert_point):`
builds outside a DFPatternRewrite.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from functools import cache
from typing import Any

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    StringAttr,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue, TypeAttribute
from xdsl.irdl import BaseAttr, IRDLOperation
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.rewriter import InsertPoint, Rewriter

from graph_opt.dialects.nn.base import f32_attr, i64_array, i64_attr, str_attr
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dtypes import element_type, numpy_dtype
from graph_opt.dialects.nn.quant import f32_array

Target = PatternRewriter | InsertPoint | Block

_target: ContextVar[Target | None] = ContextVar("graph_opt_build_target", default=None)


@contextmanager
def building(target: Target) -> Iterator[None]:
    """Ops built by `nn.<op>(...)` inside go to `target` (a rewriter, an insert
    point, or the end of a block)."""
    token = _target.set(target)
    try:
        yield
    finally:
        _target.reset(token)


class OpNamespace:
    """`nn.relu(x)`, `nn.conv(x, w, strides=[2, 2])`: builders of a dialect's ops by name."""

    def __init__(self, dialect: str):
        self._dialect = dialect

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        op_class = _op_classes().get(f"{self._dialect}.{name}")
        if op_class is None:
            raise AttributeError(f"no op {self._dialect}.{name}")
        if op_class is ConstantOp:
            return constant

        def build(*operands: SSAValue | np.ndarray, **properties: Any):
            return _results(_insert(_create(op_class, operands, properties)))

        build.__name__ = name
        return build


nn = OpNamespace("nn")


def constant(value: Any, dtype: Any = None) -> SSAValue:
    """An `nn.constant` of an array or scalar (of `dtype` when given: a numpy
    dtype, or an MLIR element type such as the matched value's)."""
    if isinstance(dtype, Attribute):
        array = np.asarray(value, dtype=numpy_dtype(dtype))
        return _insert(ConstantOp.from_array(array, dtype)).results[0]
    array = np.asarray(value, dtype=dtype)
    return _insert(ConstantOp.from_array(array)).results[0]


def insert(op: Operation) -> Operation:
    """Insert an op made by hand (e.g. a producer rebuilt with more properties)
    where `nn.<op>(...)` builds, before the matched root; returns it."""
    return _insert(op)


def _create(op_class: type[IRDLOperation], operands: Sequence, properties: dict):
    values = [
        _insert(ConstantOp.from_array(np.asarray(v))).results[0]
        if isinstance(v, np.ndarray | np.generic)
        else v
        for v in operands
    ]
    declared = op_class.get_irdl_definition().properties
    attrs = {}
    for name, value in properties.items():
        if name not in declared:
            raise ValueError(
                f"{op_class.name} has no property {name!r}; it has: {', '.join(sorted(declared))}"
            )
        if value is not None:
            attrs[name] = _attribute(value, declared[name].constr)
    return op_class.create_inferred(values, attrs)  # type: ignore[attr-defined]


def _attribute(value: Any, constraint: Any) -> Attribute:
    """`value` as the attribute kind `constraint` (a property definition's) takes."""
    if isinstance(value, Attribute):
        return value
    kind = constraint.attr if isinstance(constraint, BaseAttr) else None
    if kind is FloatAttr:
        return f32_attr(float(value))
    if kind is IntegerAttr:
        return i64_attr(int(value))
    if kind is StringAttr:
        return str_attr(str(value))
    if kind is DenseArrayBase:
        values = list(np.asarray(value).reshape(-1))
        floats = any(isinstance(v, float | np.floating) for v in values)
        return f32_array(values) if floats else i64_array([int(v) for v in values])
    if kind is TypeAttribute:
        return element_type(np.dtype(value))
    raise TypeError(f"give {value!r} as an xDSL attribute ({constraint})")


def _insert(op: Operation) -> Operation:
    target = _target.get()
    if target is None:
        raise RuntimeError(
            f"{op.name} built outside a rewrite: use `with building(rewriter):`"
        )
    if isinstance(target, PatternRewriter):
        target.insert(op)
    else:
        point = (
            target if isinstance(target, InsertPoint) else InsertPoint.at_end(target)
        )
        Rewriter.insert_op(op, point)
    return op


def _results(op: Operation):
    return op.results[0] if len(op.results) == 1 else tuple(op.results)


@cache
def _op_classes() -> dict[str, type[IRDLOperation]]:
    from graph_opt.dialects.nn import NN

    return {op.name: op for op in NN.operations}
