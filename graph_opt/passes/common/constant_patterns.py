"""Patterns that evaluate ops on constant operands, and merging equal constants."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr
from xdsl.interpreter import Interpreter
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter
from xdsl.traits import ConstantLike
from xdsl.utils.exceptions import InterpretationError

from graph_opt.dialects.nn.attr_builders import dense_elements
from graph_opt.dialects.nn.base import NNOperation
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.dtypes import numpy_dtype
from graph_opt.dialects.nn.names import name_location, op_result_names
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.shapes import dims_compatible, ranked, tensor_type
from graph_opt.interpreter.limits import (
    TensorTooLarge,
    elements_over_budget,
    static_size,
    tensor_limit,
)
from graph_opt.passes.common.opaque_folding import (
    opaque_fold_refusal,
    reported_refusal,
)
from graph_opt.rewriting.op_dispatch import ClassFilteredPattern, walk_ops
from graph_opt.rewriting.purity import is_pure
from graph_opt.rewriting.value_forwarding import can_forward


def is_splat(array: np.ndarray) -> bool:
    """Whether every element has the same bytes (so one element can store it)."""
    if array.size <= 1 or not any(array.strides):
        return True  # a broadcast scalar, as to_numpy gives for a splat constant
    flat = np.ascontiguousarray(array).reshape(-1)  # a reversed slice is a view
    rows = flat.view(np.uint8).reshape(array.size, array.itemsize)
    return bool((rows == rows[0]).all())


def dense_attr(
    array: np.ndarray, element: Attribute
) -> DenseIntOrFPElementsAttr | None:
    """The array as a dense attribute of `element`s (one element for a splat), if it converts."""
    try:
        array = np.asarray(array, dtype=numpy_dtype(element))
    except (ValueError, TypeError):
        return None  # strings, or an element type numpy cannot hold
    stored = array.reshape(-1)[:1] if array.size > 1 and is_splat(array) else array
    stored = np.ascontiguousarray(stored)
    if stored.dtype.byteorder == ">":
        stored = stored.astype(stored.dtype.newbyteorder("<"))
    return dense_elements(tensor_type(element, array.shape), stored.tobytes())


def constant_for(result: SSAValue, array: np.ndarray) -> ConstantOp | None:
    """An nn.constant that can replace `result`, or None when the array does not fit its type."""
    element = getattr(result.type, "element_type", None)
    declared = ranked(result)
    if element is None or (
        declared is not None
        and not dims_compatible(declared.get_shape(), np.shape(array))
    ):
        return None
    value = dense_attr(array, element)
    if value is None:
        return None
    constant = ConstantOp.holding(value)
    if not can_forward(result, constant.output):
        return None
    name = op_result_names(result.owner)[result.index]  # type: ignore[arg-type]
    if name is not None:
        constant.location = name_location([name])
    return constant


def replace_by_arrays(
    rewriter: PatternRewriter, op: Operation, arrays: Sequence[np.ndarray]
) -> None:
    """Replace every result of `op` by an nn.constant, unless one cannot be."""
    constants = [constant_for(r, a) for r, a in zip(op.results, arrays)]
    if len(constants) != len(op.results) or None in constants:
        return
    rewriter.replace(op, constants, [c.output for c in constants])  # type: ignore[union-attr]


EVALUATION_ERRORS = (
    InterpretationError,
    ArithmeticError,
    ValueError,
    TypeError,
    IndexError,
)
"""What an implementation raises when it cannot evaluate an op on given values."""


@dataclass
class FoldConstantOps(ClassFilteredPattern):
    """Evaluate a side-effect-free op whose operands are all constants.

    The fold is declined when its results would hold more than `max_size`
    elements beyond those of its operands (full sizes: a splat is exported
    whole), checked before the op runs, from its result types or, for results
    whose size depends on values, by the op itself (`interpreter.limits`).
    Declined ops are not evaluated again; those declined for size are kept
    in `too_large` with the elements they would have made, the nn.opaque ops
    left for another reason in `opaque_left` with the reason.
    """

    interpreter: Interpreter
    max_size: int
    declined: set[Operation] = field(default_factory=set[Operation])
    too_large: dict[Operation, str] = field(default_factory=dict[Operation, str])
    opaque_left: dict[Operation, str] = field(default_factory=dict[Operation, str])
    evaluated_classes: dict[type[Operation], bool] = field(
        default_factory=dict[type[Operation], bool]
    )
    """Whether ops of a class may be evaluated (traits and class flags, looked up once)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        for operand in op.operands:
            if type(operand.owner) is not ConstantOp:
                return  # checked first: most ops read a computed value
        if not self.accepts_class(type(op)):
            return
        if op in self.declined or not self.may_evaluate(op):
            return
        self.declined.add(op)
        inputs = [constant_value(v) for v in op.operands]
        distinct_inputs = {v: a for v, a in zip(op.operands, inputs)}.values()
        budget = self.max_size + sum(a.size for a in distinct_inputs)
        declared = [static_size(r.type) for r in op.results]
        if None not in declared:
            count = sum(math.prod(shape) for shape, _ in declared)  # type: ignore[misc]
            if count > budget:
                self.too_large[op] = elements_over_budget(count, budget)
                return
        try:
            with np.errstate(all="ignore"), tensor_limit(max_elements=budget):
                outputs = self.interpreter.run_op(op, tuple(inputs))
        except TensorTooLarge as e:
            self.too_large[op] = e.what
            return
        except EVALUATION_ERRORS as e:
            # no implementation, or it rejects these values: keep the op
            if isinstance(op, OpaqueOp):
                self.opaque_left[op] = f"evaluation failed: {str(e).splitlines()[0]}"
            return
        outputs = [np.asarray(o) for o in outputs]
        count = sum(o.size for o in outputs)
        if count > budget:
            self.too_large[op] = elements_over_budget(count, budget)
            return
        replace_by_arrays(rewriter, op, outputs)
        if isinstance(op, OpaqueOp) and op.parent is not None:
            self.opaque_left[op] = (
                "a result no constant holds (strings, or a shape its type contradicts)"
            )

    def may_evaluate(self, op: Operation) -> bool:
        """Side-effect-free ops, and the nn.opaque ops `opaque_fold_refusal`
        accepts (those it refuses noted in `opaque_left`)."""
        if is_pure(op):
            return True
        if not isinstance(op, OpaqueOp):
            return False
        refusal = opaque_fold_refusal(op)
        if refusal is not None and reported_refusal(op):
            self.opaque_left[op] = refusal
            self.declined.add(op)
        return refusal is None

    def accepts_class(self, op_class: type[Operation]) -> bool:
        """nn ops other than constants and those kept on constants."""
        found = self.evaluated_classes.get(op_class)
        if found is None:
            found = (
                issubclass(op_class, NNOperation)
                and not op_class.has_trait(ConstantLike)
                and not op_class.KEEP_ON_CONSTANTS
            )
            self.evaluated_classes[op_class] = found
        return found


def deduplicate_constants(root: Operation) -> bool:
    """Make equal constants of a block (same type and bytes) one, in one walk; whether any were."""
    by_bytes: dict[bytes, list[ConstantOp]] = {}
    duplicates: list[tuple[ConstantOp, ConstantOp]] = []
    ops = (op for region in root.regions for op in walk_ops(region, False, False))
    for op in ops:
        if isinstance(op, ConstantOp):
            value = op.value
            same_bytes = by_bytes.setdefault(value.data.data, [])
            for kept in same_bytes:  # types are compared only for equal bytes
                if kept.parent is op.parent and kept.value.type == value.type:
                    duplicates.append((op, kept))
                    break
            else:
                same_bytes.append(op)
    for duplicate, kept in duplicates:
        duplicate.output.replace_all_uses_with(kept.output)
        duplicate.parent_block().erase_op(duplicate)  # type: ignore[union-attr]
    return bool(duplicates)
