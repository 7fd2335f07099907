"""Functional control flow and function calls -> scf regions and inlined bodies.

If/StatelessIf become `scf.if` whose regions hold the two branch functions;
While/StatelessWhile become `scf.while` whose before region holds the cond
function (ending in `scf.condition`) and whose after region the body. Their
predicates are 0-d tensor<i1> values read with `tensor.extract`. A loop value
whose type changes across iterations gets the join of the types (dynamic
dims, or unranked), with `tensor.cast` where a value is more precise.
PartitionedCall/StatefulPartitionedCall bodies are inlined.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.builder import Builder, InsertPoint
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import (
    IntegerType,
    TensorType,
    UnrankedTensorType,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.rewriter import Rewriter

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.shapes import DYN
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow.mappings.tensor_list import sized_list
from graph_opt.formats.tensorflow.op_table import importer


def _function_name(b, attr: str) -> str:
    if attr not in b.node.attr or not b.node.attr[attr].func.name:
        b.decline(f"attribute '{attr}' does not name a function")
    return b.node.attr[attr].func.name


def joined_type(a: Attribute, b: Attribute) -> Attribute:
    """The most precise tensor type both `a` and `b` cast to."""
    if a == b:
        return a
    element = getattr(a, "element_type", None)
    if element is None or element != getattr(b, "element_type", None):
        raise FrontendError(f"a value is {a} on one path and {b} on another")
    if isinstance(a, TensorType) and isinstance(b, TensorType):
        a_shape, b_shape = a.get_shape(), b.get_shape()
        if len(a_shape) == len(b_shape):
            dims = [x if x == y else DYN for x, y in zip(a_shape, b_shape)]
            return TensorType(element, dims)
    return UnrankedTensorType(element)


def cast_to(builder: Builder, values: Sequence[SSAValue], types) -> list[SSAValue]:
    return [
        v if v.type == t else builder.insert(tensor.CastOp(v, t)).dest
        for v, t in zip(values, types)
    ]


def predicate(b, builder: Builder, value: SSAValue) -> SSAValue:
    """The i1 a one-element bool tensor holds."""
    value_type = value.type
    if not (
        isinstance(value_type, TensorType)
        and value_type.element_type == IntegerType(1)
        and all(d == 1 for d in value_type.get_shape())
    ):
        raise b.error(
            f"the predicate must be a one-element bool tensor, not {value_type}"
        )
    if value_type.get_shape():
        shape = builder.insert(ConstantOp.from_array(np.zeros(0, np.int64)))
        value = builder.insert(
            ReshapeOp.create_inferred([value, shape.results[0]], {})
        ).results[0]
    return builder.insert(tensor.ExtractOp(value, [], IntegerType(1))).result


@importer("PartitionedCall", "StatefulPartitionedCall")
def import_call(b, node, inputs):
    block = b.builder.insertion_point.block
    return b.import_function(_function_name(b, "f"), inputs, block)


@importer("If", "StatelessIf")
def import_if(b, node, inputs):
    if not inputs:
        raise b.error("If has no predicate")
    condition, *args = inputs
    branches = []
    for attr in ("then_branch", "else_branch"):
        block = Block()
        branches.append(
            (block, b.import_function(_function_name(b, attr), args, block))
        )
    (then_block, then_results), (else_block, else_results) = branches
    if len(then_results) != len(else_results):
        raise b.error(
            f"the branches return {len(then_results)} and {len(else_results)} values"
        )
    try:
        types = [
            joined_type(t.type, e.type) for t, e in zip(then_results, else_results)
        ]
    except FrontendError as e:
        raise b.error(str(e)) from e
    for block, results in branches:
        builder = Builder(InsertPoint.at_end(block))
        builder.insert(scf.YieldOp(*cast_to(builder, results, types)))
    flag = predicate(b, b.builder, condition)
    return b.builder.insert(
        scf.IfOp(flag, types, Region(then_block), Region(else_block))
    )


def _loop_regions(b, types: list[Attribute], inputs: list[SSAValue]):
    cond_name, body_name = _function_name(b, "cond"), _function_name(b, "body")
    before, after = Block(arg_types=types), Block(arg_types=types)
    unsized = b.context.unsized_lists
    for value, *args in zip(inputs, before.args, after.args):
        if value in unsized:  # a list whose open dims the loop's writes size
            unsized.update(dict.fromkeys(args, unsized[value]))
    (flag_tensor, *extra) = b.import_function(cond_name, before.args, before) or [None]
    if flag_tensor is None or extra:
        raise b.error(f"the loop condition '{cond_name}' must return one value")
    results = b.import_function(body_name, after.args, after)
    if len(results) != len(types):
        raise b.error(
            f"the loop body '{body_name}' returns {len(results)} values for {len(types)} loop values"
        )
    return before, after, flag_tensor, results


@importer("While", "StatelessWhile")
def import_while(b, node, inputs):
    types = [v.type for v in inputs]
    before, after, flag_tensor, results = _loop_regions(b, types, inputs)
    sized = [sized_list(b, v, r.type) for v, r in zip(inputs, results)]
    if any(sized):
        for placeholder, s in zip(inputs, sized):
            if s is not None and not placeholder.uses:
                s.name_hint = placeholder.name_hint
                Rewriter.erase_op(placeholder.owner)
        inputs = [s or v for s, v in zip(sized, inputs)]
        types = [v.type for v in inputs]
        before, after, flag_tensor, results = _loop_regions(b, types, inputs)
    if [r.type for r in results] != types:
        try:
            types = [joined_type(t, r.type) for t, r in zip(types, results)]
        except FrontendError as e:
            raise b.error(str(e)) from e
        before, after, flag_tensor, results = _loop_regions(b, types, inputs)
    before_builder = Builder(InsertPoint.at_end(before))
    flag = predicate(b, before_builder, flag_tensor)
    before_builder.insert(scf.ConditionOp(flag, *before.args))
    after_builder = Builder(InsertPoint.at_end(after))
    after_builder.insert(scf.YieldOp(*cast_to(after_builder, results, types)))
    initial = cast_to(b.builder, inputs, types)
    return b.builder.insert(scf.WhileOp(initial, types, Region(before), Region(after)))
