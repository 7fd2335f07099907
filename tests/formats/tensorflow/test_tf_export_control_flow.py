"""scf.while / scf.if -> StatelessWhile / StatelessIf with library functions:
hand-built loops and branches export to nodes TensorFlow's op registry
accepts (op_defs), re-import, and compute what the original computes in the
interpreter; what has no TensorFlow form fails in one line naming it."""

from __future__ import annotations

import numpy as np
import pytest

from graph_opt import api
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.tensorflow import import_graph_def
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.formats.tensorflow.schema import GraphDef
from graph_opt.formats.tensorflow.validation import (
    validate_graph_def,
)
from graph_opt.interpreter import run_function

LOOP = """
func.func @main(%x: tensor<2x3xf32> {nn.name = "x"}, %n: tensor<i32> {nn.name = "n"}) -> (tensor<2x3xf32> {nn.name = "y"}) {
  %zero = nn.constant dense<0> : tensor<i32>
  %one = nn.constant dense<1> : tensor<i32>
  %half = nn.constant dense<0.5> : tensor<f32>
  %i, %y = scf.while (%a = %zero, %b = %x) : (tensor<i32>, tensor<2x3xf32>) -> (tensor<i32>, tensor<2x3xf32>) {
    %less = nn.less %a, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %p = tensor.extract %less[] : tensor<i1>
    scf.condition(%p) %a, %b : tensor<i32>, tensor<2x3xf32>
  } do {
  ^bb0(%a: tensor<i32>, %b: tensor<2x3xf32>):
    %next = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>
    %scaled = nn.mul %b, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %sum = nn.add %scaled, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    BODY
    scf.yield %next, %sum : tensor<i32>, tensor<2x3xf32>
  }
  func.return %y : tensor<2x3xf32>
}
"""

BRANCH_IN_LOOP = LOOP.replace(
    "BODY",
    """
    %limit = nn.constant dense<1.0> : tensor<f32>
    %total = nn.reduce_sum %b {axes = array<i64: 0, 1>, keepdims = 0 : i64} : (tensor<2x3xf32>) -> tensor<f32>
    %big = nn.greater %total, %limit : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %q = tensor.extract %big[] : tensor<i1>
    %c = scf.if %q -> (tensor<2x3xf32>) {
      %m = nn.mul %b, %half : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
      scf.yield %m : tensor<2x3xf32>
    } else {
      %s = nn.add %sum, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      scf.yield %s : tensor<2x3xf32>
    }
    """,
).replace("scf.yield %next, %sum", "scf.yield %next, %c")


def export(text: str) -> tuple[object, GraphDef]:
    module = api.parse(text)
    graph = export_graph_def(module)
    validate_graph_def(graph)  # the library's functions too
    again = GraphDef()
    again.ParseFromString(graph.SerializeToString())
    return module, again


def assert_same_results(module, graph: GraphDef, outputs: list[str]) -> None:
    reimported = import_graph_def(graph, outputs=outputs)
    rng = np.random.default_rng(0)
    for n in (0, 1, 4):
        inputs = [rng.standard_normal((2, 3)).astype(np.float32), np.int32(n)]
        expected = run_function(module, inputs)
        actual = run_function(reimported, dict(zip(["x", "n"], inputs)))
        for a, e in zip(actual, expected, strict=True):
            assert a.shape == e.shape and a.dtype == e.dtype
            np.testing.assert_allclose(a, e, rtol=1e-6, atol=1e-6)


def node(graph: GraphDef, op: str):
    (found,) = [n for n in graph.node if n.op == op]
    return found


def library(graph: GraphDef) -> dict:
    return {f.signature.name: f for f in graph.library.function}


def test_loop_becomes_stateless_while_with_captures_as_loop_values():
    module, graph = export(LOOP.replace("BODY", ""))
    loop = node(graph, "StatelessWhile")
    # loop values a, b, then what the regions read from outside: n, one, half, x
    assert len(loop.input) == 6 and loop.input[2:] == ["n", "one", "half", "x"]
    assert list(loop.attr["T"].list.type) == [3, 1, 3, 3, 1, 1]  # int32, float
    assert [len(s.dim) for s in loop.attr["output_shapes"].list.shape] == [
        0,
        2,
        0,
        0,
        0,
        2,
    ]
    assert loop.attr["parallel_iterations"].i == 10
    assert loop.attr["_lower_using_switch_merge"].b
    functions = library(graph)
    cond, body = (
        functions[loop.attr["cond"].func.name],
        functions[loop.attr["body"].func.name],
    )
    assert [a.type for a in cond.signature.output_arg] == [10]  # bool
    assert len(cond.signature.input_arg) == len(body.signature.output_arg) == 6
    less = next(n for n in cond.node_def if n.op == "Less")
    assert list(less.input) == ["arg_0", "arg_2"]
    assert cond.ret["output_0"] == f"{less.name}:z:0"
    # a captured value leaves the body unchanged, through an Identity
    passed = body.ret["output_5"].split(":")[0]
    assert next(n for n in body.node_def if n.name == passed).input == ["arg_5"]
    assert_same_results(module, graph, ["y"])


def test_branch_in_loop_becomes_stateless_if_in_the_body_function():
    module, graph = export(BRANCH_IN_LOOP)
    functions = library(graph)
    body = functions[node(graph, "StatelessWhile").attr["body"].func.name]
    (branch,) = [n for n in body.node_def if n.op == "StatelessIf"]
    greater = next(n for n in body.node_def if n.op == "Greater")
    assert branch.input[0] == f"{greater.name}:z:0"
    assert branch.attr["Tcond"].type == 10 and list(branch.attr["Tout"].list.type) == [
        1
    ]
    # captured: b, half and x (body arguments 1, 4, 5), and sum of the body
    add = next(n for n in body.node_def if list(n.input) == ["scaled:z:0", "arg_5"])
    assert branch.input[1:] == ["arg_1", "arg_4", f"{add.name}:z:0", "arg_5"]
    assert len(branch.attr["Tin"].list.type) == 4
    then = functions[branch.attr["then_branch"].func.name]
    otherwise = functions[branch.attr["else_branch"].func.name]
    assert [n.op for n in then.node_def] == ["Mul"]
    assert [n.op for n in otherwise.node_def] == ["AddV2"]
    assert_same_results(module, graph, ["y"])


def test_function_inputs_name_the_output_argument_of_the_node():
    """TopKV2's second output is `indices:0`, SplitV's second `output:1`."""
    body = """
    %top, %index = nn.top_k %sum {k = 3 : i64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)
    %p1, %p2 = nn.split %top {axis = 1 : i64, split = array<i64: 1, 2>} : (tensor<2x3xf32>) -> (tensor<2x1xf32>, tensor<2x2xf32>)
    %index_f = nn.cast %index {to = f32} : (tensor<2x3xi64>) -> tensor<2x3xf32>
    %w = nn.add %p2, %p2 : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
    %w_sum = nn.reduce_sum %w {axes = array<i64: 0, 1>, keepdims = 0 : i64} : (tensor<2x2xf32>) -> tensor<f32>
    %index_w = nn.mul %index_f, %w_sum : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %out = nn.add %sum, %index_w : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    """
    loop = LOOP.replace("BODY", body).replace("yield %next, %sum", "yield %next, %out")
    module, graph = export(loop)  # (values the loop does not use are not written)
    body_function = library(graph)[node(graph, "StatelessWhile").attr["body"].func.name]
    by_op = {n.op: n for n in body_function.node_def}
    top, split = by_op["TopKV2"].name, by_op["SplitV"].name
    inputs = [list(n.input) for n in body_function.node_def]
    assert any(i[:1] == [f"{top}:indices:0"] for i in inputs)
    assert by_op["SplitV"].input[0] == f"{top}:values:0"
    assert [f"{split}:output:1"] * 2 in inputs
    assert_same_results(module, graph, ["y"])


def test_two_loops_get_functions_of_their_own():
    loop = LOOP.replace("BODY", "")
    start, end = loop.index("  %i, %y = scf.while"), loop.index("  func.return")
    second = loop[start:end].replace("%i, %y", "%i2, %y2").replace("= %x)", "= %y)")
    text = loop[:end] + second + loop[end:].replace("%y :", "%y2 :")
    module, graph = export(text)
    names = {f.signature.name for f in graph.library.function}
    assert len(names) == len(graph.library.function) == 4
    assert_same_results(module, graph, ["y"])


def test_validation_refuses_a_wrong_output_argument_and_a_wrong_return_type():
    _, graph = export(LOOP.replace("BODY", ""))
    functions = library(graph)
    cond = functions[node(graph, "StatelessWhile").attr["cond"].func.name]
    cond.ret["output_0"] = cond.ret["output_0"].replace(":z:", ":y:")
    with pytest.raises(FrontendError, match=r"has no output 'y'"):
        import_graph_def(graph)  # validated on import
    cond.ret["output_0"] = cond.ret["output_0"].replace(":y:", ":z:")
    cond.signature.output_arg[0].type = 1
    with pytest.raises(
        FrontendError, match=r"output 'output_0' is bool .*declared float"
    ):
        validate_graph_def(graph)


def test_condition_passing_other_values_has_no_form():
    text = LOOP.replace("BODY", "").replace(
        "scf.condition(%p) %a, %b",
        "%a2 = nn.add %a, %one : (tensor<i32>, tensor<i32>) -> tensor<i32>\n    scf.condition(%p) %a2, %b",
    )
    with pytest.raises(FrontendError) as error:
        export_graph_def(api.parse(text))
    message = str(error.value)
    assert "\n" not in message
    assert "no TensorFlow form for scf.while" in message
    assert "the condition passes on other values than the loop's" in message


def test_op_without_a_form_in_a_loop_is_named():
    body = "%g = nn.gelu %sum : (tensor<2x3xf32>) -> tensor<2x3xf32>"
    with pytest.raises(
        FrontendError, match=r"^ops without a TensorFlow GraphDef form: nn.gelu \(1\)$"
    ):
        export_graph_def(api.parse(LOOP.replace("BODY", body)))


def test_predicate_read_as_a_value_has_no_form():
    text = """
    func.func @main(%x: tensor<f32>) -> i1 {
      %zero = nn.constant dense<0.0> : tensor<f32>
      %big = nn.greater %x, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %p = tensor.extract %big[] : tensor<i1>
      func.return %p : i1
    }
    """
    with pytest.raises(
        FrontendError, match="the i1 is read by func.return, not as a predicate"
    ):
        export_graph_def(api.parse(text))


def test_stateful_op_in_a_function_makes_while_and_if_stateful():
    """Timestamp is stateful in TensorFlow's registry: the loop and the branch
    holding it are While and If (a nested stateful op counts too)."""
    stamp = '%t = nn.opaque {op_type = "Timestamp", domain = "tf"} : () -> tensor<f64>'
    branch = BRANCH_IN_LOOP.replace(
        "scf.yield %m : tensor<2x3xf32>",
        f"{stamp}\n      scf.yield %m : tensor<2x3xf32>",
    )
    _, graph = export(branch)
    loop = node(graph, "While")
    body = library(graph)[loop.attr["body"].func.name]
    assert [n.op for n in body.node_def if n.op.endswith("If")] == ["If"]


VARIABLE_LOOP = """
func.func @main(%x: tensor<2xf32>, %p: tensor<i1>) -> tensor<2xf32> {
  OUTSIDE
  %y = scf.while (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    %c = tensor.extract %p[] : tensor<i1>
    scf.condition(%c) %a : tensor<2xf32>
  } do {
  ^bb0(%a: tensor<2xf32>):
    INSIDE
    %r = tf_state.read %v : (!tf_state.variable<tensor<2xf32>>) -> tensor<2xf32>
    scf.yield %r : tensor<2xf32>
  }
  func.return %y : tensor<2xf32>
}
"""
VARIABLE = (
    '%v = tf_state.variable {var_name = "v", initial_value = dense<1.0> : tensor<2xf32>}'
    " : !tf_state.variable<tensor<2xf32>>"
)


@pytest.mark.parametrize(
    "where, reason",
    [
        (
            "OUTSIDE",
            "a region reads a !tf_state.variable<tensor<2xf32>>, which is no tensor",
        ),
        ("INSIDE", "a variable is declared in a region"),
    ],
)
def test_variables_in_loops_have_no_form(where: str, reason: str):
    text = (
        VARIABLE_LOOP.replace(where, VARIABLE)
        .replace("OUTSIDE", "")
        .replace("INSIDE", "")
    )
    with pytest.raises(FrontendError) as error:
        export_graph_def(api.parse(text))
    assert "no TensorFlow form for scf.while" in str(error.value)
    assert reason in str(error.value) and "\n" not in str(error.value)
