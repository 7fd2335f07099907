"""`NNOperation.rule_result_types`: the type rule, remembered per signature only for
classes whose rule reads types and properties alone."""

import numpy as np
import pytest
from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Block
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import i64_array
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.shape_ops import ReshapeOp
from graph_opt.dialects.nn.shapes import tensor_type


def values(*shapes):
    return Block(arg_types=[tensor_type(f32, s) for s in shapes]).args


def test_conv_results_are_remembered_and_equal_to_the_rule():
    x, w = values((1, 3, 8, 8), (4, 3, 3, 3))
    props = {"strides": i64_array([2, 2])}
    first = ConvOp.rule_result_types([x, w], props)
    assert first == ConvOp.infer_result_types([x, w], props)
    first.append("scribble")  # callers get their own list
    again = ConvOp.rule_result_types([x, w], props)
    assert again == ConvOp.infer_result_types([x, w], props)
    assert again[0] == TensorType(f32, [1, 4, 3, 3])


def test_other_properties_give_other_results():
    x, w = values((1, 3, 8, 8), (4, 3, 3, 3))
    strided = ConvOp.rule_result_types([x, w], {"strides": i64_array([2, 2])})
    padded = ConvOp.rule_result_types([x, w], {"pads": i64_array([1, 1, 1, 1])})
    assert strided[0].get_shape() == (1, 4, 3, 3)
    assert padded[0].get_shape() == (1, 4, 8, 8)


def test_rule_errors_are_raised_every_time():
    x, w = values((1, 3, 8, 8), (4, 5, 3, 3))
    for _ in range(2):
        with pytest.raises(VerifyException, match="channels"):
            ConvOp.rule_result_types([x, w], {})


@pytest.mark.parametrize("target", [(6, 4), (3, 8)])
def test_value_reading_rules_are_not_remembered(target):
    """Two reshapes with the same operand types but other shape values differ."""
    block = Block(arg_types=[tensor_type(f32, (2, 12))])
    (x,) = block.args
    shape = ConstantOp.from_array(np.array(target, dtype=np.int64))
    block.add_op(shape)
    assert not ReshapeOp.RESULT_TYPES_FROM_SIGNATURE
    result = ReshapeOp.rule_result_types([x, shape.output], {})
    assert result[0].get_shape() == target
