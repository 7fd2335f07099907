"""Parts of ONNX models that the round trip must keep: subgraphs and the outer values
they use, non-tensor types, string and narrow-type constants, optional inputs and
outputs, local functions, the IR version and opsets."""

import io

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp

from graph_opt.dialects.nn.names import set_name_hint
from graph_opt.dialects.nn.opaque import OpaqueOp
from graph_opt.dialects.nn.types import OptionalType, SequenceType, StringType
from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model
from graph_opt.formats.onnx.types import dense_from_tensor, tensor_from_dense

RNG = np.random.default_rng(0)
OPSET_18 = [helper.make_opsetid("", 18)]


def make_model(graph: onnx.GraphProto, **kwargs) -> onnx.ModelProto:
    """onnx's default IR version is newer than onnxruntime reads."""
    model = helper.make_model(graph, **kwargs)
    model.ir_version = 10
    return model


def run(model: onnx.ModelProto, feeds: dict) -> list:
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def opaque_ops(module: ModuleOp, op_type: str) -> list[OpaqueOp]:
    return [
        op
        for op in module.walk()
        if isinstance(op, OpaqueOp) and op.op_type.data == op_type
    ]


def if_model() -> onnx.ModelProto:
    """`y = If(c) then x * w else x + 1`: both branches read outer `x` and `w` by name;
    nothing else in the main graph uses `w` or `x + 0`."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    c = helper.make_tensor_value_info("c", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    then_out = helper.make_tensor_value_info("then_y", TensorProto.FLOAT, [3])
    else_out = helper.make_tensor_value_info("else_y", TensorProto.FLOAT, [3])
    then_branch = helper.make_graph(
        [helper.make_node("Mul", ["xx", "w"], ["then_y"])], "then", [], [then_out]
    )
    else_branch = helper.make_graph(
        [helper.make_node("Add", ["xx", "one"], ["else_y"])],
        "else",
        [],
        [else_out],
        [numpy_helper.from_array(np.ones(3, np.float32), "one")],
    )
    nodes = [
        helper.make_node("Identity", ["x"], ["xx"]),
        helper.make_node(
            "If", ["c"], ["y"], then_branch=then_branch, else_branch=else_branch
        ),
    ]
    w = numpy_helper.from_array(RNG.standard_normal(3).astype(np.float32), "w")
    graph = helper.make_graph(nodes, "g", [x, c], [y], [w])
    return make_model(graph, opset_imports=[helper.make_opsetid("", 18)])


def test_subgraph_outer_values_are_operands():
    module = import_model(if_model())
    (if_op,) = opaque_ops(module, "If")
    assert if_op.implicit_inputs.value.data == 2
    outer = [v.name_hint for v in if_op.operands[1:]]
    assert outer == ["xx", "w"]


@pytest.mark.parametrize("cond", [True, False])
def test_subgraph_outer_values_follow_renames(cond):
    """Renamed outer values (as a pass may leave them) are renamed inside the bodies."""
    model = if_model()
    module = import_model(model)
    (if_op,) = opaque_ops(module, "If")
    for value, name in zip(if_op.operands[1:], ["renamed_x", "renamed_w"]):
        value.owner.location = None
        set_name_hint(value, name)
    exported = export_module(module)
    onnx.checker.check_model(exported, full_check=True)
    feeds = {"x": RNG.standard_normal(3).astype(np.float32), "c": np.array(cond)}
    np.testing.assert_allclose(run(exported, feeds)[0], run(model, feeds)[0])


def test_nested_subgraph_outer_values_are_found():
    model = if_model()
    outer_if = model.graph.node[1]
    inner = helper.make_graph(
        [outer_if],
        "inner",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    )
    wrapper = helper.make_node("If", ["c"], ["z"], then_branch=inner, else_branch=inner)
    model.graph.node[1].CopyFrom(wrapper)
    model.graph.output[0].name = "z"
    module = import_model(model)
    (if_op,) = opaque_ops(module, "If")
    assert [v.name_hint for v in if_op.operands[1:]] == ["c", "xx", "w"]
    feeds = {"x": np.ones(3, np.float32), "c": np.array(True)}
    np.testing.assert_allclose(
        run(export_module(module), feeds)[0], run(model, feeds)[0]
    )


def test_sequence_and_optional_types():
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, [2])
    opt = helper.make_value_info(
        "o",
        helper.make_optional_type_proto(
            helper.make_tensor_type_proto(TensorProto.INT64, [1])
        ),
    )
    n = helper.make_tensor_value_info("n", TensorProto.INT64, [])
    has = helper.make_tensor_value_info("has", TensorProto.BOOL, [])
    out = helper.make_tensor_sequence_value_info("t", TensorProto.FLOAT, [2])
    nodes = [
        helper.make_node("SequenceLength", ["s"], ["n"]),
        helper.make_node("OptionalHasElement", ["o"], ["has"]),
        helper.make_node("Identity", ["s"], ["t"]),
    ]
    model = make_model(
        helper.make_graph(nodes, "g", [seq, opt], [n, has, out]),
        opset_imports=[helper.make_opsetid("", 18)],
    )
    module = import_model(model)
    arg_types = module.body.block.first_op.function_type.inputs.data
    assert isinstance(arg_types[0], SequenceType)
    assert isinstance(arg_types[1], OptionalType)
    exported = export_module(module)
    assert [i.type for i in exported.graph.input] == [i.type for i in model.graph.input]
    feeds = {"s": [np.ones(2, np.float32)] * 3, "o": np.array([4], np.int64)}
    n_out, has_out, seq_out = run(exported, feeds)
    assert n_out == 3 and has_out and len(seq_out) == 3


def test_string_initializer_and_input():
    words = numpy_helper.from_array(np.array(["a", "bb"], dtype=object), "words")
    x = helper.make_tensor_value_info("x", TensorProto.STRING, [2])
    y = helper.make_tensor_value_info("y", TensorProto.STRING, [4])
    node = helper.make_node("Concat", ["x", "words"], ["y"], axis=0)
    model = make_model(
        helper.make_graph([node], "g", [x], [y], [words]),
        opset_imports=[helper.make_opsetid("", 18)],
    )
    module = import_model(model)
    (const,) = opaque_ops(module, "Constant")
    assert isinstance(const.results[0].type.element_type, StringType)
    feeds = {"x": np.array(["p", "q"], dtype=object)}
    assert list(run(export_module(module), feeds)[0]) == ["p", "q", "a", "bb"]


@pytest.mark.parametrize(
    "dtype",
    [
        TensorProto.FLOAT8E4M3FN,
        TensorProto.FLOAT8E5M2,
        TensorProto.INT4,
        TensorProto.UINT4,
        TensorProto.INT2,
        TensorProto.FLOAT4E2M1,
        TensorProto.BFLOAT16,
        TensorProto.COMPLEX64,
    ],
)
def test_narrow_constants_keep_their_values(dtype):
    values = np.array([-1, 0, 1, 1.5, -0.5, 1, 0], np.float32)
    np_dtype = helper.tensor_dtype_to_np_dtype(dtype)
    array = values.astype(np_dtype)
    tensor = numpy_helper.from_array(array, "t")
    back = numpy_helper.to_array(tensor_from_dense("t", dense_from_tensor(tensor)))
    assert back.dtype == array.dtype
    np.testing.assert_array_equal(back.astype(np.complex64), array.astype(np.complex64))


def test_empty_optional_inputs_and_outputs_stay_empty():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    nodes = [
        helper.make_node("Foo", ["x", "", "x"], ["a", "", "b"], domain="com.example"),
        helper.make_node("Add", ["a", "b"], ["y"]),
    ]
    model = make_model(
        helper.make_graph(nodes, "g", [x], [y]),
        opset_imports=[
            helper.make_opsetid("", 18),
            helper.make_opsetid("com.example", 1),
        ],
    )
    exported = export_module(import_model(model))
    (foo,) = [n for n in exported.graph.node if n.op_type == "Foo"]
    assert list(foo.input) == ["x", "", "x"] and list(foo.output) == ["a", "", "b"]


def test_trailing_empty_outputs_of_a_first_class_op():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    nodes = [
        helper.make_node("Dropout", ["x", "", ""], ["d", ""]),
        helper.make_node("Relu", ["d"], ["y"]),
    ]
    model = make_model(
        helper.make_graph(nodes, "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 18)],
    )
    feeds = {"x": RNG.standard_normal((2, 3)).astype(np.float32)}
    np.testing.assert_array_equal(
        run(export_module(import_model(model)), feeds)[0], run(model, feeds)[0]
    )


def test_ir_version_opsets_and_functions_are_kept():
    fn = helper.make_function(
        "local",
        "Twice",
        ["a"],
        ["b"],
        [helper.make_node("Add", ["a", "a"], ["b"])],
        [helper.make_opsetid("", 18)],
    )
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    model = make_model(
        helper.make_graph(
            [helper.make_node("Twice", ["x"], ["y"], domain="local")], "g", [x], [y]
        ),
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("local", 1)],
        functions=[fn],
    )
    model.ir_version = 9
    exported = export_module(import_model(model))
    assert exported.ir_version == 9
    assert {(o.domain, o.version) for o in exported.opset_import} == {
        ("", 18),
        ("local", 1),
    }
    assert [f.name for f in exported.functions] == ["Twice"]
    feeds = {"x": np.array([1, 2], np.float32)}
    np.testing.assert_array_equal(run(exported, feeds)[0], [2, 4])


def test_ir_version_3_lists_initializers_as_inputs():
    w = numpy_helper.from_array(np.ones(2, np.float32), "w")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    w_input = helper.make_tensor_value_info("w", TensorProto.FLOAT, [2])
    model = make_model(
        helper.make_graph(
            [helper.make_node("Add", ["x", "w"], ["y"])], "g", [x, w_input], [y], [w]
        ),
        opset_imports=[helper.make_opsetid("", 8)],
    )
    model.ir_version = 3
    exported = export_module(import_model(model))
    assert exported.ir_version == 3
    assert "w" in {i.name for i in exported.graph.input}
    np.testing.assert_array_equal(
        run(exported, {"x": np.zeros(2, np.float32)})[0], [1, 1]
    )


def test_undefined_outer_value_is_an_error():
    model = if_model()
    model.graph.node[0].output[0] = "other"
    with pytest.raises(FrontendError, match="undefined value 'xx'"):
        import_model(model, validate=False)
    with pytest.raises(FrontendError, match="node 'y' \\(If\\): .*input 'xx'"):
        import_model(model)  # validation names the If and the value


def test_unsupported_value_type_is_an_error():
    x = helper.make_value_info(
        "m",
        helper.make_map_type_proto(
            TensorProto.INT64, helper.make_tensor_type_proto(TensorProto.FLOAT, [])
        ),
    )
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    model = make_model(
        helper.make_graph(
            [helper.make_node("Foo", ["m"], ["y"], domain="x")], "g", [x], [y]
        ),
        opset_imports=[helper.make_opsetid("", 18), helper.make_opsetid("x", 1)],
    )
    with pytest.raises(FrontendError, match="unsupported ONNX type map"):
        import_model(model)


def test_outer_values_survive_dead_code_elimination_and_interpret():
    from xdsl.context import Context
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    from graph_opt.interpreter import run_function

    model = if_model()
    module = import_model(model)
    DeadCodeElimination().apply(Context(), module)
    (if_op,) = opaque_ops(module, "If")
    assert [v.name_hint for v in if_op.operands[1:]] == ["xx", "w"]
    x = RNG.standard_normal(3).astype(np.float32)
    for cond in (True, False):
        feeds = {"x": x, "c": np.array(cond)}
        expected = run(model, feeds)[0]
        np.testing.assert_allclose(run(export_module(module), feeds)[0], expected)
        np.testing.assert_allclose(run_function(module, feeds)[0], expected)


def test_nodes_out_of_order_are_sorted_and_cycles_rejected():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    nodes = [
        helper.make_node("Relu", ["a"], ["y"]),
        helper.make_node("Neg", ["x"], ["a"]),
    ]
    model = make_model(
        helper.make_graph(nodes, "g", [x], [y]),
        opset_imports=[helper.make_opsetid("", 18)],
    )
    exported = export_module(import_model(model))
    assert [n.op_type for n in exported.graph.node] == ["Neg", "Relu"]
    model.graph.node[1].input[0] = "y"
    with pytest.raises(FrontendError, match="cycle"):
        import_model(model)


@pytest.mark.parametrize(
    "attr, expected",
    [
        (
            {
                "value": numpy_helper.from_array(
                    np.arange(6, dtype=np.float32).reshape(2, 3)
                )
            },
            np.arange(6, dtype=np.float32).reshape(2, 3),
        ),
        ({"value_float": 2.5}, np.array(2.5, np.float32)),
        ({"value_floats": [1.0, -2.0]}, np.array([1.0, -2.0], np.float32)),
        ({"value_int": 7}, np.array(7, np.int64)),
        ({"value_ints": [3, 4, 5]}, np.array([3, 4, 5], np.int64)),
    ],
)
def test_constant_nodes_import_as_nn_constants(attr, expected):
    node = helper.make_node("Constant", [], ["c"], **attr)
    out = helper.make_tensor_value_info("c", TensorProto.UNDEFINED, None)
    module = import_model(
        make_model(helper.make_graph([node], "g", [], [out]), opset_imports=OPSET_18)
    )
    constants = [op for op in module.walk() if op.name == "nn.constant"]
    assert len(constants) == 1 and not opaque_ops(module, "Constant")
    np.testing.assert_array_equal(constants[0].to_array(), expected)
    (result,) = run(export_module(module), {})
    np.testing.assert_array_equal(result, expected)


def test_string_constant_node_stays_opaque():
    strings = numpy_helper.from_array(np.array(["a", "b"], dtype=object))
    node = helper.make_node("Constant", [], ["c"], value=strings)
    out = helper.make_tensor_value_info("c", TensorProto.STRING, [2])
    module = import_model(
        make_model(helper.make_graph([node], "g", [], [out]), opset_imports=OPSET_18)
    )
    assert len(opaque_ops(module, "Constant")) == 1
    (result,) = run(export_module(module), {})
    assert list(result) == ["a", "b"]


def test_reshape_of_unknown_length_keeps_inferred_dims_dynamic():
    """Reshape to [-1, 1] (or a 0-copied dim) of a tensor of unknown size: the
    inferred dims are dynamic, not the literal -1 or 0 of the target."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    shape = numpy_helper.from_array(np.array([-1, 1], np.int64), "shape")
    node = helper.make_node("Reshape", ["x", "shape"], ["y"])
    graph = helper.make_graph([node], "g", [x], [y], initializer=[shape])
    module = import_model(
        make_model(graph, opset_imports=[helper.make_opsetid("", 18)])
    )
    (reshape,) = [op for op in module.walk() if op.name == "nn.reshape"]
    assert reshape.results[0].type.get_shape() == (-9223372036854775808, 1)
    feed = np.arange(5, dtype=np.float32)
    (result,) = run(export_module(module), {"x": feed})
    np.testing.assert_array_equal(result, feed.reshape(-1, 1))


def test_numbered_value_names_print_as_distinct_ssa_names():
    """`y`, `y_1` and `y_1_1` would all print as `%y_1` (xDSL numbers repeated
    hints and strips one `_N`); the printed module must parse back."""
    from graph_opt.api import parse, to_mlir

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    names = ["y", "y_1", "y_1_1", "y_2", "y_2_1"]
    nodes = [
        helper.make_node("Relu", [src], [dst]) for src, dst in zip(["x", *names], names)
    ]
    out = helper.make_tensor_value_info(names[-1], TensorProto.FLOAT, [2])
    graph = helper.make_graph(nodes, "g", [x], [out])
    module = import_model(make_model(graph, opset_imports=OPSET_18))
    reparsed = parse(to_mlir(module))
    assert len([op for op in reparsed.walk() if op.name == "nn.relu"]) == len(names)


def _relu_chain(names: list[str]) -> onnx.ModelProto:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    nodes = [
        helper.make_node("Relu", [src], [dst], name=dst)
        for src, dst in zip(["x", *names], names)
    ]
    out = helper.make_tensor_value_info(names[-1], TensorProto.FLOAT, [2])
    graph = helper.make_graph(nodes, "g", [x], [out])
    return make_model(graph, opset_imports=OPSET_18)


def _exported_names(module: ModuleOp) -> list[str]:
    exported = export_module(module)
    assert exported.graph.output[0].name == exported.graph.node[-1].output[0]
    return [n.output[0] for n in exported.graph.node]


ODD_NAMES = ["conv/1:0", "1abc", "a__1", "_2", "x.y-z", "Relu_07", "7"]


@pytest.mark.parametrize("extra", [[], ["é1", "ü"]])
def test_any_value_name_survives_import_and_export(extra):
    """Names that are not MLIR identifiers (punctuation, leading digits, numbered,
    non-ASCII) come back exactly."""
    names = ODD_NAMES + extra
    assert _exported_names(import_model(_relu_chain(names))) == names


def test_value_names_survive_mlir_text_with_locations():
    """Through MLIR text, names are kept when locations are printed (as with
    `--print-debuginfo`), and the SSA names parse back."""
    from xdsl.printer import Printer

    from graph_opt.api import parse, to_mlir

    module = import_model(_relu_chain(ODD_NAMES))
    text = io.StringIO()
    Printer(stream=text, print_debuginfo=True).print_op(module)
    assert _exported_names(parse(text.getvalue())) == ODD_NAMES
    parse(to_mlir(module))
