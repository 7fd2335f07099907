"""Values computed from constants alone, evaluated without changing the IR.

A frozen TensorFlow graph computes a batch norm's scale and shift from its
parameters (`gamma * rsqrt(variance + eps)`, read through Identity ops): passes
that need such a per-channel constant, such as fold-bn, read it here without
waiting for fold-constants.
"""

from __future__ import annotations

from functools import cache

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation, SSAValue

from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.constant import ConstantOp, constant_source
from graph_opt.passes.constant_patterns import EVALUATION_ERRORS
from graph_opt.passes.purity import is_pure

MAX_OPS = 32
"""Ops evaluated at most for one value: such subgraphs are a few ops deep."""
MAX_ELEMENTS = 1 << 20


@cache
def _interpreter() -> Interpreter:
    from graph_opt.interpreter.runner import make_interpreter

    return make_interpreter(ModuleOp([]))


def computed_constant(value: SSAValue) -> np.ndarray | None:
    """The array `value` holds when only constants (through identity-like and
    other side-effect-free nn ops, at most MAX_OPS of them) define it, else None."""
    arrays: dict[SSAValue, np.ndarray] = {}
    budget = [MAX_OPS]
    return _evaluate(constant_source(value), arrays, budget)


def _evaluate(
    value: SSAValue, arrays: dict[SSAValue, np.ndarray], budget: list[int]
) -> np.ndarray | None:
    if value in arrays:
        return arrays[value]
    owner = value.owner
    if isinstance(owner, ConstantOp):
        return owner.to_array()
    if not _evaluable(owner) or budget[0] <= 0:
        return None
    budget[0] -= 1
    inputs = []
    for operand in owner.operands:
        array = _evaluate(constant_source(operand), arrays, budget)
        if array is None:
            return None
        inputs.append(array)
    try:
        with np.errstate(all="ignore"):
            outputs = _interpreter().run_op(owner, tuple(inputs))
    except EVALUATION_ERRORS:
        return None
    for result, output in zip(owner.results, outputs):
        output = np.asarray(output)
        if output.size > MAX_ELEMENTS:
            return None
        arrays[result] = output
    return arrays[value]


def _evaluable(op: Operation | object) -> bool:
    return (
        isinstance(op, NNOperation)
        and not op.regions
        and not op.KEEP_ON_CONSTANTS
        and is_pure(op)
    )
