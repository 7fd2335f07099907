"""`new_op` builds the same op as xDSL's `Operation.create`, field by field."""

import numpy as np
import pytest
from xdsl.dialects.builtin import UNKNOWN_LOC, TensorType, f32
from xdsl.ir import Block

from graph_opt.dialects.nn import elementwise as ew
from graph_opt.dialects.nn import fused, norm
from graph_opt.dialects.nn.attr_builders import name_loc
from graph_opt.dialects.nn.base import f32_attr
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.dense import from_numpy
from graph_opt.xdsl_compat.ir import new_op


def values(*shapes):
    return Block(arg_types=[TensorType(f32, s) for s in shapes]).args


def uses_of(value):
    return [(use.operation, use.index) for use in value.uses]


def fields(op):
    return {
        "operands": list(op.operands),
        "results": [(r.type, r.index, r.op is op, r.name_hint) for r in op.results],
        "properties": op.properties,
        "attributes": op.attributes,
        "location": op.location,
        "successors": list(op.successors),
        "regions": list(op.regions),
        "parent": op.parent,
        "neighbours": (op.prev_op, op.next_op),
    }


CASES = [
    (ew.AddOp, ([2, 3], [3]), {}),
    (ew.ReluOp, ([4],), {}),
    (ew.LeakyReluOp, ([4],), {}),  # alpha filled by its default
    (ew.LeakyReluOp, ([4],), {"alpha": f32_attr(0.2)}),
    (norm.BatchNormOp, ([1, 2, 4, 4], [2], [2], [2], [2]), {}),  # epsilon default
    (fused.FusedMatMulOp, ([2, 3], [3, 4]), {}),
]


@pytest.mark.parametrize("op_class, shapes, props", CASES)
def test_same_fields_as_create(op_class, shapes, props):
    operands = values(*shapes)
    types = op_class.infer_result_types(list(operands), props)
    location = name_loc("x")
    expected = op_class.create(
        operands=operands, result_types=types, properties=props, location=location
    )
    built = new_op(op_class, operands, types, props, location)
    assert fields(built) == {**fields(expected), "operands": list(operands)}
    for value in operands:  # each operand lists both ops among its users, once
        assert uses_of(value).count((built, operands.index(value))) == 1
    built.verify()


def test_properties_are_copied():
    (x,) = values([4])
    props = {"alpha": f32_attr(0.5)}
    op = new_op(ew.LeakyReluOp, [x], [x.type], props, UNKNOWN_LOC)
    op.properties["alpha"] = f32_attr(0.1)
    assert props["alpha"] == f32_attr(0.5)


def test_erasing_removes_its_uses():
    x, y = values([3], [3])
    block = Block()
    op = new_op(ew.AddOp, [x, x], [x.type], {}, UNKNOWN_LOC)
    block.add_op(op)
    assert uses_of(x) == [(op, 1), (op, 0)]
    op.operands = [y, x]
    assert uses_of(x) == [(op, 1)] and uses_of(y) == [(op, 0)]
    block.erase_op(op)
    assert uses_of(x) == [] and uses_of(y) == []


def test_constant_holding():
    value = from_numpy(np.arange(6, dtype=np.float32).reshape(2, 3))
    op = ConstantOp.holding(value)
    assert fields(op) == fields(ConstantOp(value))
    op.verify()


def test_appended_as_add_op_appends():
    x, y = values([3], [3])
    expected, built = Block(), Block()
    for block, make in ((expected, "add_op"), (built, "new_op")):
        for operands in ([x, y], [x, x]):
            if make == "add_op":
                op = new_op(ew.AddOp, operands, [x.type], {}, UNKNOWN_LOC)
                block.add_op(op)
            else:
                new_op(ew.AddOp, operands, [x.type], {}, UNKNOWN_LOC, block)
    for a, b in zip(expected.ops, built.ops, strict=True):
        assert fields(a) | {"parent": None, "neighbours": None} == fields(b) | {
            "parent": None,
            "neighbours": None,
        }
        assert b.parent is built
    first, second = built.ops
    assert (first.prev_op, first.next_op, second.prev_op, second.next_op) == (
        None,
        second,
        first,
        None,
    )
    assert (built.first_op, built.last_op) == (first, second)
