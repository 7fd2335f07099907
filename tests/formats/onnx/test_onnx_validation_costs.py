"""Validation costs a graph of small nodes no copy of it: onnx's checker and
shape inference read the model itself when the weight-free copy would hold the
same, and the inferred model stays serialized until a type is read from it."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt.formats.errors import FrontendError
from graph_opt.formats.onnx import importer as onnx_import
from graph_opt.formats.onnx.importer import SHAPE_INFERENCE_LIMIT, import_model
from graph_opt.testing.model_zoo import conv_chain


@pytest.fixture
def copies(monkeypatch) -> list[int]:
    """Node counts of the weight-free copies made while importing."""
    made: list[int] = []
    copy = onnx_import._copy_without_weights

    def counting(model, light, nodes=None):
        made.append(len(model.graph.node))
        copy(model, light, nodes)

    monkeypatch.setattr(onnx_import, "_copy_without_weights", counting)
    return made


@pytest.fixture
def parses(monkeypatch) -> list[int]:
    """Sizes of the models parsed from bytes while importing."""
    parsed: list[int] = []
    load = onnx.load_from_string

    def counting(data, *args, **kwargs):
        parsed.append(len(data))
        return load(data, *args, **kwargs)

    monkeypatch.setattr(onnx, "load_from_string", counting)
    return parsed


def test_small_weights_are_validated_in_place(copies, parses):
    model = conv_chain(60)
    parses.clear()  # the builder's own
    module = import_model(model)
    assert copies == []
    assert parses == []  # every op typed itself: the inference is never parsed
    assert len(list(module.walk())) > 60


def test_a_large_weight_is_left_out_of_a_copy(copies):
    model = conv_chain(30)
    big = np.zeros(SHAPE_INFERENCE_LIMIT + 1, np.float32)
    model.graph.initializer.append(numpy_helper.from_array(big, "unused_big"))
    import_model(model)
    assert copies == [len(model.graph.node)]


def test_nodes_out_of_order_are_validated_in_order(copies):
    model = conv_chain(30)
    nodes = list(model.graph.node)
    del model.graph.node[:]
    model.graph.node.extend(reversed(nodes))
    import_model(model)
    assert copies == [len(nodes)]


def test_a_type_inference_gave_is_read_from_it(parses):
    """An operator graph-opt imports as nn.opaque has no type rule: the type of
    its result comes from the inferred model, parsed once."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    nodes = [
        helper.make_node("Hardmax", ["x"], ["h"]),
        helper.make_node("Relu", ["h"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    module = import_model(model)
    relu = [op for op in module.walk() if op.name == "nn.relu"]
    assert str(relu[0].results[0].type) == "tensor<2x3xf32>"
    assert len(parses) == 1


def test_a_refused_model_keeps_its_nameless_nodes():
    """The error names the node by its output; the caller's model, read in
    place, is not renamed."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    node = helper.make_node("Relu", ["x"], ["y"], bogus=1)
    graph = helper.make_graph([node], "g", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(FrontendError, match="node 'y' \\(Relu\\)"):
        import_model(model)
    assert model.graph.node[0].name == ""


def shape_computed_reshape() -> onnx.ModelProto:
    """x (2x3x4) reshaped to (2, 12): the target is computed from x's shape
    (Shape, Gather, Concat), which only data propagation knows."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    zero = numpy_helper.from_array(np.array([0], np.int64), "zero")
    minus_one = numpy_helper.from_array(np.array([-1], np.int64), "minus_one")
    nodes = [
        helper.make_node("Shape", ["x"], ["shape"]),
        helper.make_node("Gather", ["shape", "zero"], ["batch"]),
        helper.make_node("Concat", ["batch", "minus_one"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y], [zero, minus_one])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize(
    "make, propagates",
    [(lambda: conv_chain(30), False), (shape_computed_reshape, True)],
    ids=["conv_chain", "shape_computed_reshape"],
)
def test_data_propagation_only_where_an_op_propagates(make, propagates):
    """onnx's data propagation computes values only through ops with a
    propagation function (Shape, Gather, Concat, ...): without one it is left
    off, and inference gives the same types."""
    model = make()
    assert onnx_import._data_propagation_wanted(model) is propagates
    both = [
        onnx.shape_inference.infer_shapes(model, data_prop=flag).graph
        for flag in (False, True)
    ]
    without, with_propagation = (
        {i.name: i.type for i in [*g.value_info, *g.output]} for g in both
    )
    assert (without == with_propagation) is not propagates


def test_a_shape_computed_by_data_propagation_types_the_import():
    module = import_model(shape_computed_reshape())
    (reshape,) = [op for op in module.walk() if op.name == "nn.reshape"]
    assert str(reshape.results[0].type) == "tensor<2x12xf32>"
