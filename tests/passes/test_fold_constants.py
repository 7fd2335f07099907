"""fold-constants: same results before and after, on random inputs and against onnxruntime."""

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.entry import entry_function
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.passes import get_all_passes
from graph_opt.remarks import GraphOptWarning

GRAPH = """
func.func @main(%x: tensor<2x3xf32>, %y: tensor<?x1x3xf32>) -> (tensor<2x3xf32>, tensor<?x3xf32>, tensor<2x3xf32>) {
  %w = nn.constant dense<[[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]]> : tensor<2x3xf32>
  %p = nn.constant dense<[1, 0]> : tensor<2xi64>
  %wt = nn.transpose %w {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %wtt = nn.transpose %wt {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %e = nn.exp %wtt : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %one = nn.constant dense<1.0> : tensor<3xf32>
  %m = nn.mul %x, %one : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %a = nn.add %m, %e : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %s = nn.shape %a : (tensor<2x3xf32>) -> tensor<2xi64>
  %r = nn.reshape %a, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<2x3xf32>
  %c = nn.cast %r {to = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %mean = nn.reduce_mean %y {axes = array<i64: 1>, keepdims = 0 : i64} : (tensor<?x1x3xf32>) -> tensor<?x3xf32>
  %zero = nn.constant dense<0.0> : tensor<1x3xf32>
  %z = nn.add %mean, %zero : (tensor<?x3xf32>, tensor<1x3xf32>) -> tensor<?x3xf32>
  %ys = nn.constant dense<[2, 3]> : tensor<2xi64>
  %filled = nn.constant_of_shape %ys {value = dense<2.5> : tensor<1xf32>} : (tensor<2xi64>) -> tensor<2x3xf32>
  %f = nn.sub %c, %filled : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  func.return %c, %z, %f : tensor<2x3xf32>, tensor<?x3xf32>, tensor<2x3xf32>
}
"""


def op_names(module) -> list[str]:
    return [op.name for op in entry_function(module).body.ops]


def test_fold_constants_keeps_results():
    rng = np.random.default_rng(0)
    inputs = [
        rng.standard_normal((2, 3)).astype(np.float32),
        rng.standard_normal((4, 1, 3)).astype(np.float32),
    ]
    module = api.parse(GRAPH)
    expected = run_function(module, inputs)

    api.run(module, "fold-constants")

    for got, want in zip(run_function(module, inputs), expected):
        np.testing.assert_allclose(got, want, rtol=1e-6)
    assert op_names(module) == [
        "nn.constant", "nn.add", "nn.squeeze", "nn.constant", "nn.sub", "func.return",
    ]  # fmt: skip


def test_fold_constants_registered_with_option():
    pass_class = get_all_passes()["fold-constants"]()
    assert pass_class.name == "fold-constants"
    assert api.pipeline("fold-constants{max-size=7}").passes[0].max_size == 7


def test_duplicates_after_folding_are_merged():
    module = api.parse(
        """
        func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
          %a = nn.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
          %b = nn.neg %a : (tensor<4xf32>) -> tensor<4xf32>
          %c = nn.constant dense<[-1.0, -2.0, -3.0, -4.0]> : tensor<4xf32>
          %0 = nn.mul %x, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
          %1 = nn.div %x, %c : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
          func.return %0, %1 : tensor<4xf32>, tensor<4xf32>
        }
        """
    )
    x = np.random.default_rng(2).standard_normal(4).astype(np.float32)
    expected = run_function(module, [x])

    api.run(module, "fold-constants")

    constants = [op for op in module.walk() if isinstance(op, ConstantOp)]
    assert len(constants) == 1
    for got, want in zip(run_function(module, [x]), expected):
        np.testing.assert_array_equal(got, want)


def shape_chain_model(batch: int | str) -> onnx.ModelProto:
    """Reshape x to [-1, dim1 * dim2] computed by a Shape chain, plus a
    ConstantOfShape of the result's shape, a Size and a Range."""

    def const(name, value):
        return helper.make_node(
            "Constant", [], [name], value=numpy_helper.from_array(np.array(value))
        )

    nodes = [
        const("one", np.int64(1)),
        const("two", np.int64(2)),
        const("axes", [0]),
        const("minus_one", np.array([-1], np.int64)),
        helper.make_node("Identity", ["x"], ["x_id"]),
        helper.make_node("Shape", ["x_id"], ["shape"]),
        helper.make_node("Gather", ["shape", "one"], ["d1"]),
        helper.make_node("Gather", ["shape", "two"], ["d2"]),
        helper.make_node("Mul", ["d1", "d2"], ["cols"]),
        helper.make_node("Unsqueeze", ["cols", "axes"], ["cols_1d"]),
        helper.make_node("Concat", ["minus_one", "cols_1d"], ["target"], axis=0),
        helper.make_node("Reshape", ["x_id", "target"], ["flat"]),
        helper.make_node("Shape", ["flat"], ["flat_shape"], start=1),
        helper.make_node(
            "ConstantOfShape",
            ["flat_shape"],
            ["halves"],
            value=numpy_helper.from_array(np.array([0.5], np.float32)),
        ),
        helper.make_node("Size", ["halves"], ["count"]),
        helper.make_node("Cast", ["count"], ["count_f"], to=TensorProto.FLOAT),
        const("start", np.float32(0)),
        const("delta", np.float32(1)),
        helper.make_node("Range", ["start", "count_f", "delta"], ["ramp"]),
        helper.make_node("Mul", ["ramp", "halves"], ["scaled"]),
        helper.make_node("Add", ["flat", "scaled"], ["out"]),
    ]
    graph = helper.make_graph(
        nodes,
        "shape_chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, 3, 4])],
        [helper.make_tensor_value_info("out", TensorProto.FLOAT, [batch, 12])],
    )
    return helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8
    )


def test_shape_chain_collapses_and_matches_onnxruntime():
    """With a dynamic batch only the static dims are read: the chain still folds."""
    model = shape_chain_model("batch")
    x = np.random.default_rng(1).standard_normal((5, 3, 4)).astype(np.float32)
    (expected,) = onnxruntime.InferenceSession(model.SerializeToString()).run(
        None, {"x": x}
    )

    module = api.run(import_model(model), "prune,fold-constants")
    exported = export_module(module)
    onnx.checker.check_model(exported)

    assert [n.op_type for n in exported.graph.node] == ["Reshape", "Add"]
    session = onnxruntime.InferenceSession(exported.SerializeToString())
    np.testing.assert_allclose(session.run(None, {"x": x})[0], expected, rtol=1e-6)


REFINED_THEN_FOLDED = """
func.func @main(%x: tensor<2x3xf32>) -> (tensor<?x?xf32>, tensor<2xi64>) {
  %s = nn.constant dense<[3, 2]> : tensor<2xi64>
  %r = nn.reshape %x, %s : (tensor<2x3xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  %q = nn.shape %r : (tensor<?x?xf32>) -> tensor<2xi64>
  %r2 = nn.reshape %r, %q : (tensor<?x?xf32>, tensor<2xi64>) -> tensor<?x?xf32>
  func.return %r2, %q : tensor<?x?xf32>, tensor<2xi64>
}
"""


def test_a_type_refined_on_the_way_lets_the_same_run_fold_more():
    """An exporter's shape query of a reshape to constant dims: static only once
    the reshape's type is refined, then folded in the same run (a second
    fold-constants used to fold what the first left)."""
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    module = api.parse(REFINED_THEN_FOLDED)
    expected = run_function(module, [x])
    api.run(module, "fold-constants")
    assert "nn.shape" not in op_names(module)
    for got, want in zip(run_function(module, [x]), expected, strict=True):
        np.testing.assert_array_equal(got, want)
    with pytest.warns(GraphOptWarning, match="fold-constants: found nothing to fold"):
        api.run(module, "fold-constants")
