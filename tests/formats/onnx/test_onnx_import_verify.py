"""`import_model(verify=True)` (what `graph-opt` runs on .onnx input instead of
`module.verify()`) accepts and rejects the same models as `module.verify()`, with
the same message. The invalid models are also what validation refuses first
(onnxruntime would not load them): these tests import them without it."""

import re

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.utils.exceptions import VerifyException

from graph_opt.driver.diagnostics import one_line
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.importer import import_model
from graph_opt.testing.model_zoo import bert_encoder, conv_chain, mobilenet_v2, resnet


def _model(nodes, inputs, output_type, initializers=()):
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
        [helper.make_tensor_value_info("y", *output_type)],
        list(initializers),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)])


def conv(**attrs):
    weight = numpy_helper.from_array(np.ones((2, 3, 1, 1), np.float32), "w")
    node = helper.make_node("Conv", ["x", "w"], ["y"], name="conv", **attrs)
    return _model([node], [("x", [1, 3, 4, 4])], (TensorProto.FLOAT, None), [weight])


def cast_to(dtype):
    node = helper.make_node("Cast", ["x"], ["y"], to=dtype)
    return _model([node], [("x", [2, 3])], (dtype, [2, 3]))


def qdq_pair():
    scale = numpy_helper.from_array(np.float32(0.1), "scale")
    zero = numpy_helper.from_array(np.int8(0), "zero")
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"]),
        helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["d"]),
        helper.make_node("Relu", ["d"], ["y"]),
    ]
    return _model([*nodes], [("x", [2, 3])], (TensorProto.FLOAT, [2, 3]), [scale, zero])


def if_with_outer_values():
    """An If whose branches read the outer `x` and `w` (nn.opaque with implicit inputs)."""
    out = helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3])
    then_branch = helper.make_graph(
        [helper.make_node("Mul", ["x", "w"], ["out"])], "then", [], [out]
    )
    else_branch = helper.make_graph(
        [helper.make_node("Add", ["x", "w"], ["out"])], "else", [], [out]
    )
    w = numpy_helper.from_array(np.ones((2, 3), np.float32), "w")
    zero = numpy_helper.from_array(np.float32(0), "zero")
    nodes = [
        helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0),
        helper.make_node("Greater", ["m", "zero"], ["c"]),
        helper.make_node(
            "If", ["c"], ["y"], then_branch=then_branch, else_branch=else_branch
        ),
    ]
    return _model(nodes, [("x", [2, 3])], (TensorProto.FLOAT, [2, 3]), [w, zero])


VALID = {
    "resnet": lambda: resnet(blocks=(1, 1), width=8, size=32, classes=10),
    "mobilenet": lambda: mobilenet_v2(width=8, size=32, classes=10, expansions=2),
    "bert": lambda: bert_encoder(layers=1, hidden=16, heads=2, seq=4),
    "conv_chain": lambda: conv_chain(40),
    "qdq_pair": qdq_pair,
    "cast": lambda: cast_to(TensorProto.INT32),
    "if_with_outer_values": if_with_outer_values,
}
INVALID = {
    "float_group": (lambda: conv(group=1.0), "should be of base attribute integer"),
    "narrow_cast": (lambda: cast_to(TensorProto.INT4), "cannot cast"),
}


def outcome(check) -> str:
    try:
        check()
    except VerifyException as e:
        return one_line(e)
    return "verifies"


def both_outcomes(model: onnx.ModelProto) -> tuple[str, str]:
    imported = import_model(model, validate=False)
    return (
        outcome(lambda: import_model(model, verify=True, validate=False)),
        outcome(imported.verify),
    )


@pytest.mark.parametrize("make", VALID.values(), ids=VALID.keys())
def test_valid_models_verify(make):
    assert both_outcomes(make()) == ("verifies", "verifies")


@pytest.mark.parametrize("make, message", INVALID.values(), ids=INVALID.keys())
def test_invalid_models_fail_with_the_module_verifier_message(make, message):
    fast, full = both_outcomes(make())
    assert message in full
    assert fast == full


VALIDATION_MESSAGES = {
    "float_group": "node 'conv' (Conv): Mismatched attribute type in 'conv : group'",
    "narrow_cast": "node 'y' (Cast): output has unsupported type tensor(int4)",
}


@pytest.mark.parametrize("make, message", INVALID.values(), ids=INVALID.keys())
def test_validation_refuses_the_invalid_models_first(make, message, request):
    case = request.node.callspec.id
    with pytest.raises(FrontendError, match=re.escape(VALIDATION_MESSAGES[case])):
        import_model(make(), verify=True)


def test_without_verify_an_invalid_model_still_imports():
    module = import_model(conv(group=1.0), validate=False)
    with pytest.raises(VerifyException):
        module.verify()
