"""TensorFlow control flow: functional If/While and calls, and v1 Switch/Merge/Enter/Exit
graphs, against TensorFlow's own outputs (make_control_flow_fixtures.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import IntegerType, TensorType, UnrankedTensorType, f32

from graph_opt import api
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.shapes import DYN
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.control_flow import joined_type
from graph_opt.formats.tensorflow.schema import GraphDef
from graph_opt.interpreter import run_function

FIXTURES = Path(__file__).parent / "fixtures"
STRUCTURE = {
    "cond_v2": [scf.IfOp],
    "while_v2": [scf.WhileOp],
    "cond_in_while_v2": [scf.WhileOp, scf.IfOp],
    "partitioned_call": [],
    "cond_v1": [scf.IfOp],
    "while_v1": [scf.WhileOp],
    "cond_in_while_v1": [scf.WhileOp, scf.IfOp],
}
"""Each fixture and the region ops its import holds."""


def load(name: str):
    path = next(FIXTURES.glob(f"{name}.pb*"))
    # v1 graphs also leave the loop counter's Exit unread: name the real output
    outputs = ["result"] if name.endswith("_v1") else None
    return import_graph_def(load_graph_def(str(path)), outputs=outputs)


def cases(name: str) -> list[tuple[dict[str, np.ndarray], np.ndarray]]:
    """TensorFlow's inputs and output for each input set of a fixture."""
    data = np.load(FIXTURES / f"{name}.npz")
    found, k = [], 0
    while f"out{k}_0" in data.files:
        prefix = f"in{k}_"
        inputs = {
            key[len(prefix) :]: data[key] for key in data if key.startswith(prefix)
        }
        found.append((inputs, data[f"out{k}_0"]))
        k += 1
    return found


def assert_close(actual: np.ndarray, expected: np.ndarray) -> None:
    scale = max(float(np.abs(expected).max()), 1.0)
    assert actual.shape == expected.shape
    assert float(np.abs(actual - expected).max()) / scale < 1e-5


@pytest.mark.parametrize(
    "passes", [None, "fold-bn", "fold-constants", "prune", "optimize"]
)
@pytest.mark.parametrize("name", sorted(STRUCTURE))
def test_interpreter_matches_tensorflow(name, passes):
    module = load(name)
    if passes:
        api.run(module, passes)
    for inputs, expected in cases(name):
        (actual,) = run_function(module, inputs)
        assert_close(actual, expected)


@pytest.mark.parametrize("name", sorted(STRUCTURE))
def test_import_structure(name):
    module = load(name)
    module.verify()
    ops = list(module.walk())
    assert not [op for op in ops if isinstance(op, OpaqueOp) and op.domain.data == "tf"]
    for op_class in STRUCTURE[name]:
        assert any(isinstance(op, op_class) for op in ops)
    if not STRUCTURE[name]:
        assert not any(
            op.regions for op in ops if op is not module and op.name != "func.func"
        )


def test_both_branches_run():
    """The fixtures' two input sets take different branches of the cond."""
    (first, _), (second, _) = cases("cond_v2")
    assert (first["x"].sum() > 0) != (second["x"].sum() > 0)


@pytest.mark.parametrize("name", sorted(STRUCTURE))
def test_onnx_export_runs_in_onnxruntime(name):
    model = export_module(load(name))
    onnx.checker.check_model(model, full_check=True)
    ops = {node.op_type for node in model.graph.node}
    if scf.IfOp in STRUCTURE[name] and scf.WhileOp not in STRUCTURE[name]:
        assert "If" in ops
    if scf.WhileOp in STRUCTURE[name]:
        assert "Loop" in ops
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    for inputs, expected in cases(name):
        feeds = {i.name: inputs[i.name] for i in session.get_inputs()}
        (actual,) = session.run(None, feeds)
        assert_close(actual, expected)


def test_optimized_export_runs_in_onnxruntime():
    module = api.run(load("cond_in_while_v1"), "optimize")
    session = ort.InferenceSession(export_module(module).SerializeToString())
    for inputs, expected in cases("cond_in_while_v1"):
        (actual,) = session.run(None, inputs)
        assert_close(actual, expected)


def test_not_well_nested_v1_is_an_error():
    graph = load_graph_def(str(FIXTURES / "not_nested_v1.pbtxt"))
    with pytest.raises(FrontendError, match="not well nested: Merge 'Merge'") as info:
        import_graph_def(graph, outputs=["result"])
    assert "'Switch:1' (true side of 'Greater')" in str(info.value)
    assert "'Switch_1:1' (true side of 'Greater_1')" in str(info.value)


def _graph(text: str) -> GraphDef:
    from google.protobuf import text_format

    return text_format.Parse(text, GraphDef())


PLACEHOLDER = """
node { name: "x" op: "Placeholder"
  attr { key: "dtype" value { type: DT_FLOAT } }
  attr { key: "shape" value { shape { dim { size: 2 } } } } }
node { name: "p" op: "Placeholder"
  attr { key: "dtype" value { type: DT_BOOL } }
  attr { key: "shape" value { shape { } } } }
"""


def test_if_naming_a_missing_function_is_an_error():
    graph = _graph(
        PLACEHOLDER
        + """node { name: "if" op: "If" input: "p" input: "x"
          attr { key: "Tcond" value { type: DT_BOOL } }
          attr { key: "Tin" value { list { type: DT_FLOAT } } }
          attr { key: "Tout" value { list { type: DT_FLOAT } } }
          attr { key: "then_branch" value { func { name: "absent" } } }
          attr { key: "else_branch" value { func { name: "absent" } } } }"""
    )
    with pytest.raises(FrontendError, match="attr 'then_branch': no function 'absent'"):
        import_graph_def(graph)
    with pytest.raises(
        FrontendError, match="function 'absent' is not in the graph's library"
    ):
        import_graph_def(graph, validate=False)


def test_loop_without_loop_cond_is_an_error():
    graph = _graph(
        PLACEHOLDER
        + """node { name: "enter" op: "Enter" input: "x"
          attr { key: "T" value { type: DT_FLOAT } }
          attr { key: "frame_name" value { s: "loop" } } }
        node { name: "out" op: "Identity" input: "enter"
          attr { key: "T" value { type: DT_FLOAT } } }"""
    )
    with pytest.raises(
        FrontendError, match="v1 loop 'loop': Enter 'enter' does not feed"
    ):
        import_graph_def(graph)


DOUBLE = """function {
          signature { name: "double" input_arg { name: "a" type: DT_FLOAT }
                      output_arg { name: "r" type: DT_FLOAT } }
          node_def { name: "sum" op: "AddV2" input: "a" input: "a" BODY }
          ret { key: "r" value: "sum:z:0" } }"""
NEGATE = """function {
          signature { name: "negate" input_arg { name: "a" type: DT_FLOAT }
                      output_arg { name: "r" type: DT_FLOAT } }
          node_def { name: "neg" op: "Neg" input: "a"
                     attr { key: "T" value { type: DT_FLOAT } } }
          ret { key: "r" value: "neg:y:0" } }"""


def _if_graph(functions: str, then: str, otherwise: str, **node) -> object:
    """PLACEHOLDER's graph with library `functions` and an If (`node`: op,
    cond, tcond) choosing between `then` and `otherwise` on x."""
    op, cond = node.get("op", "StatelessIf"), node.get("cond", "p")
    tcond = node.get("tcond", "DT_BOOL")
    return _graph(
        PLACEHOLDER
        + f"""library {{ {functions} }}
        node {{ name: "if" op: "{op}" input: "{cond}" input: "x"
          attr {{ key: "Tcond" value {{ type: {tcond} }} }}
          attr {{ key: "Tin" value {{ list {{ type: DT_FLOAT }} }} }}
          attr {{ key: "Tout" value {{ list {{ type: DT_FLOAT }} }} }}
          attr {{ key: "then_branch" value {{ func {{ name: "{then}" }} }} }}
          attr {{ key: "else_branch" value {{ func {{ name: "{otherwise}" }} }} }} }}"""
    )


def test_predicate_must_be_a_bool_scalar():
    function = """function {
          signature { name: "same" input_arg { name: "a" type: DT_FLOAT }
                      output_arg { name: "r" type: DT_FLOAT } }
          ret { key: "r" value: "a" } }"""
    graph = _if_graph(function, "same", "same", op="If", cond="x", tcond="DT_FLOAT")
    with pytest.raises(
        FrontendError, match="one-element bool tensor, not tensor<2xf32>"
    ):
        import_graph_def(graph)


def test_scalar_predicate_selects_the_branch():
    """A hand-written If whose branches read a multi-output op by `node:arg:index`."""
    graph = _if_graph(
        DOUBLE.replace("BODY", 'attr { key: "T" value { type: DT_FLOAT } }') + NEGATE,
        "double",
        "negate",
    )
    module = import_graph_def(graph)
    x = np.array([1.5, -2.0], np.float32)
    for flag, expected in ((True, 2 * x), (False, -x)):
        (actual,) = run_function(module, {"x": x, "p": np.array(flag)})
        np.testing.assert_array_equal(actual, expected)


def test_joined_types():
    a, b = TensorType(f32, [2, 3]), TensorType(f32, [2, 4])
    assert joined_type(a, a) == a
    assert joined_type(a, b) == TensorType(f32, [2, DYN])
    assert joined_type(a, TensorType(f32, [6])) == UnrankedTensorType(f32)
    with pytest.raises(FrontendError, match="on one path"):
        joined_type(a, TensorType(IntegerType(32), [2, 3]))


def test_import_leaves_the_graph_def_unchanged():
    graph = load_graph_def(str(FIXTURES / "cond_in_while_v1.pb"))
    before = graph.SerializeToString()
    import_graph_def(graph, outputs=["result"])
    assert graph.SerializeToString() == before


def test_a_function_tensorflow_would_refuse_is_refused_on_import():
    """Library functions are checked against the op registry like the graph's
    own nodes: a branch whose AddV2 lacks its `T`."""
    graph = _if_graph(DOUBLE.replace("BODY", ""), "double", "double")
    with pytest.raises(
        FrontendError,
        match=r"function 'double': node 'sum' \(AddV2\): missing attr 'T'",
    ):
        import_graph_def(graph)
    import_graph_def(graph, validate=False)
