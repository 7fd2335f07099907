"""graph-opt's kernels for the operators onnx's reference evaluator gets wrong
(graph_opt/interpreter/onnx_overrides.py), against the operators' definitions
and onnxruntime; each override is dropped once onnx's own kernel is right."""

import math

import numpy as np
import onnx
import pytest

from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.interpreter.onnx_overrides import OVERRIDES
from graph_opt.testing.opaque_variants import one_node

pytest.importorskip("onnxruntime")
from graph_opt.formats.onnx.conformance import run_onnxruntime  # noqa: E402

RNG = np.random.default_rng(7)


def lrn_by_the_spec(x, size, alpha, beta, bias):
    """The ONNX LRN definition, element by element."""
    square_sum = np.zeros_like(x, dtype=np.float64)
    channels = x.shape[1]
    for c in range(channels):
        low = max(0, c - math.floor((size - 1) / 2))
        high = min(channels - 1, c + math.ceil((size - 1) / 2))
        square_sum[:, c] = np.sum(x[:, low : high + 1].astype(np.float64) ** 2, axis=1)
    return x / (bias + alpha / size * square_sum) ** beta


LRN_ATTRS = {"size": 3, "alpha": 0.5, "beta": 0.75, "bias": 2.0}
LRN_X = RNG.standard_normal((1, 5, 3, 3)).astype(np.float32)

WITNESSES = {
    "LRN": ([LRN_X], LRN_ATTRS),
    "LpNormalization": (
        [np.array([[1.0, -3.0, 2.0], [-1.0, -1.0, 4.0]], np.float32)],
        {"axis": 1, "p": 1},
    ),
    "Mean": (
        [np.ones(3, np.float32), RNG.standard_normal((2, 3)).astype(np.float32)],
        {},
    ),
}
"""Per overridden operator, inputs and attributes onnx 1.23's kernel gets wrong."""


def optional_get_element(x):
    """Optional(x) then OptionalGetElement: x again, by the definition."""
    nodes = [
        onnx.helper.make_node("Optional", ["x0"], ["o"]),
        onnx.helper.make_node("OptionalGetElement", ["o"], ["y0"]),
    ]
    typed = onnx.helper.make_tensor_value_info
    graph = onnx.helper.make_graph(
        nodes, "g", [typed("x0", 1, x.shape)], [typed("y0", 1, x.shape)]
    )
    return onnx.helper.make_model(
        graph, opset_imports=[onnx.helper.make_opsetid("", 18)]
    )


def empty_optional_has_element():
    """Optional() of no input then OptionalHasElement: False, by the definition."""
    empty = onnx.helper.make_tensor_type_proto(onnx.TensorProto.FLOAT, [3])
    nodes = [
        onnx.helper.make_node("Optional", [], ["o"], type=empty),
        onnx.helper.make_node("OptionalHasElement", ["o"], ["y0"]),
    ]
    graph = onnx.helper.make_graph(
        nodes, "g", [], [onnx.helper.make_tensor_value_info("y0", 9, [])]
    )
    return onnx.helper.make_model(
        graph, opset_imports=[onnx.helper.make_opsetid("", 18)]
    )


OPTIONAL_X = np.arange(3, dtype=np.float32)


def witness(op_type: str):
    """A model onnx 1.23's kernel of `op_type` gets wrong, and its inputs."""
    if op_type == "Optional":
        return optional_get_element(OPTIONAL_X), [OPTIONAL_X]
    inputs, attrs = WITNESSES[op_type]
    return one_node(op_type, inputs, attrs), inputs


def graph_opt_outputs(model, inputs):
    return run_function(import_model(model), inputs)


def test_lrn_sums_over_channels_when_batch_and_channels_differ():
    model = one_node("LRN", [LRN_X], LRN_ATTRS)
    (ours,) = graph_opt_outputs(model, [LRN_X])
    np.testing.assert_allclose(ours, lrn_by_the_spec(LRN_X, **LRN_ATTRS), rtol=1e-5)
    np.testing.assert_allclose(ours, run_onnxruntime(model, [LRN_X])[0], rtol=1e-5)


def test_lrn_even_size_window_and_batch_above_channels():
    x = RNG.standard_normal((4, 2, 2, 3)).astype(np.float32)
    attrs = {"size": 4, "alpha": 1.5, "beta": 0.3, "bias": 0.7}
    (ours,) = graph_opt_outputs(one_node("LRN", [x], attrs), [x])
    np.testing.assert_allclose(ours, lrn_by_the_spec(x, **attrs), rtol=1e-5)


def test_lp_normalization_l1_uses_absolute_values():
    inputs, attrs = WITNESSES["LpNormalization"]
    (ours,) = graph_opt_outputs(one_node("LpNormalization", inputs, attrs), inputs)
    x = inputs[0]
    np.testing.assert_allclose(ours, x / np.abs(x).sum(axis=1, keepdims=True))


def test_mean_broadcasts_a_smaller_first_input():
    inputs, _ = WITNESSES["Mean"]
    (ours,) = graph_opt_outputs(one_node("Mean", inputs, {}), inputs)
    np.testing.assert_allclose(ours, (inputs[0] + inputs[1]) / 2)


def test_optional_holds_its_input_itself():
    (ours,) = graph_opt_outputs(optional_get_element(OPTIONAL_X), [OPTIONAL_X])
    assert isinstance(ours, np.ndarray)
    np.testing.assert_array_equal(ours, OPTIONAL_X)


def test_optional_of_no_input_has_no_element():
    model = empty_optional_has_element()
    assert run_onnxruntime(model, [])[0] == np.array(False)
    (ours,) = graph_opt_outputs(model, [])
    assert ours == np.array(False)


@pytest.mark.parametrize("override", OVERRIDES, ids=lambda o: o.op_type)
def test_onnx_reference_kernel_is_still_wrong(override):
    """When this fails, onnx fixed the bug: drop the override."""
    from onnx.reference import ReferenceEvaluator

    model, inputs = witness(override.op_type)
    expected = run_onnxruntime(model, inputs)[0]
    feeds = {i.name: a for i, a in zip(model.graph.input, inputs)}
    try:
        (theirs,) = ReferenceEvaluator(model).run(None, feeds)
    except ValueError:
        return  # still raising where the operator's definition computes
    same_shape = np.shape(theirs) == np.shape(expected)
    assert not (same_shape and np.allclose(theirs, expected, rtol=1e-4)), (
        f"onnx {onnx.__version__} computes {override.op_type} right "
        f"(wrong in {override.seen_in}): drop its override"
    )
    (ours,) = graph_opt_outputs(model, inputs)
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-6)
