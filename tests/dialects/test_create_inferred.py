"""`NNOperation.create_inferred` builds the same op as IRDL's `build`, on its fast
path (flat operand lists) and where it falls back to `build`."""

import inspect

import pytest
from xdsl.dialects.builtin import TensorType, f32
from xdsl.ir import Block
from xdsl.irdl import AttrSizedOperandSegments, irdl_op_definition, var_operand_def
from xdsl.utils.exceptions import VerifyException

from graph_opt.dialects.nn.base import NNOperation, i64_array
from graph_opt.dialects.nn.conv import ConvOp
from graph_opt.dialects.nn.elementwise import AddOp


@irdl_op_definition
class TwoListsOp(NNOperation):
    """Two variadic operand lists: only IRDL's `build` can split a flat list."""

    name = "test.two_lists"
    first = var_operand_def()
    second = var_operand_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)


def args(*shapes):
    return Block(arg_types=[TensorType(f32, s) for s in shapes]).args


def same_op(built, expected):
    assert type(built) is type(expected)
    assert list(built.operands) == list(expected.operands)
    assert built.result_types == expected.result_types
    assert built.properties == expected.properties


@pytest.mark.parametrize("with_bias", [False, True])
def test_optional_operand(with_bias):
    x, w, b = args([1, 3, 8, 8], [4, 3, 3, 3], [4])
    operands = [x, w, b] if with_bias else [x, w]
    props = {"strides": i64_array([1, 1]), "pads": i64_array([1, 1, 1, 1])}
    op = ConvOp.create_inferred(operands, props)
    types = ConvOp.infer_result_types(operands, props)
    bias = [b] if with_bias else []
    same_op(
        op, ConvOp.build(operands=[x, w, bias], properties=props, result_types=types)
    )
    assert (op.bias is not None) == with_bias
    assert op.result_types == (TensorType(f32, [1, 4, 8, 8]),)
    op.verify()


def test_given_result_types_and_none_properties():
    a, b = args([2, 3], [2, 3])
    result = TensorType(f32, [2, 3])
    op = AddOp.create_inferred([a, b], {"unused": None}, [result])
    same_op(op, AddOp.build(operands=[a, b], result_types=[result]))


def test_segments_fall_back_to_build():
    a, b, c = args([2], [2], [2])
    op = TwoListsOp.create_inferred([a, b, c], result_types=[])
    assert list(op.first) == [a, b, c] and list(op.second) == []


def test_no_rule_and_no_types():
    a, b = args([2], [2])
    with pytest.raises(VerifyException, match="cannot infer the result types"):
        TwoListsOp.create_inferred([a, b])


def test_nn_ops_check_in_verify_properties_not_verify_():
    """The ONNX importer's verification (`_verify_ops`) relies on it."""
    from graph_opt.dialects.nn import NN

    modules = {
        inspect.getmodule(cls)
        for op_class in NN.operations
        for cls in op_class.__mro__[: op_class.__mro__.index(NNOperation)]
    }
    for module in modules:
        assert "def verify_(" not in inspect.getsource(module), module
