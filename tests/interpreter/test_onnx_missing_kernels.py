"""The opaque operators graph-opt's interpreter raised on: graph-opt's kernels
for those onnx's reference evaluator lacks (`MISSING` in
graph_opt/interpreter/onnx_overrides.py, each dropped once onnx implements
the operator), and GroupNormalization of opset 21, whose function body needs
its inputs' types (formats/onnx/opaque_eval.py gives them), against
onnxruntime."""

import numpy as np
import pytest

from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.interpreter.onnx_overrides import MISSING
from graph_opt.testing.opaque_variants import one_node

pytest.importorskip("onnxruntime")
from graph_opt.formats.onnx.conformance import run_onnxruntime  # noqa: E402

RNG = np.random.default_rng(11)
X = RNG.standard_normal((2, 6, 3, 4)).astype(np.float32)


def random_rois(count: int) -> np.ndarray:
    """Regions (batch index, x1, y1, x2, y2) partly outside X, corners on halves."""
    corners = np.sort(RNG.uniform(-3, 8, (count, 2, 2)), axis=1).round(1)
    batch = RNG.integers(0, X.shape[0], (count, 1))
    return np.hstack([batch, corners[:, 0], corners[:, 1]]).astype(np.float32)


CASES = {
    "GlobalLpPool": [
        ([X], {}, 18),
        ([X], {"p": 1}, 18),
        ([X[..., 0]], {"p": 3}, 18),
    ],
    "GroupNormalization": [
        ([X, *RNG.standard_normal((2, 6)).astype(np.float32)], {"num_groups": 3}, 21),
        ([X, *RNG.standard_normal((2, 6)).astype(np.float32)], {"num_groups": 6}, 21),
        (
            [X, *RNG.standard_normal((2, 6)).astype(np.float32)],
            {"num_groups": 2, "epsilon": 0.5},
            21,
        ),
    ],
    "MaxRoiPool": [
        (
            [X, np.array([[0, 0, 0, 3, 2], [1, 0.6, 0.4, 2.5, 2.4]], np.float32)],
            {"pooled_shape": [2, 2]},
            18,
        ),
        (
            [X, np.array([[1, 1, 1, 7, 5], [0, -2, -2, 9, 9]], np.float32)],
            {"pooled_shape": [3, 2], "spatial_scale": 0.5},
            18,
        ),
        (
            [X, random_rois(20)],
            {"pooled_shape": [3, 3], "spatial_scale": 0.7},
            18,
        ),
    ],
    "Scatter": [
        (
            [
                np.zeros((3, 3), np.float32),
                np.array([[1, 0, 2], [0, 2, 1]], np.int64),
                np.arange(6, dtype=np.float32).reshape(2, 3),
            ],
            {},
            10,
        ),
        (
            [
                np.zeros((2, 5), np.int32),
                np.array([[1, -1], [4, 0]], np.int64),
                np.array([[7, 8], [9, 10]], np.int32),
            ],
            {"axis": 1},
            10,
        ),
    ],
}
"""Per operator: inputs, attributes, opset."""


@pytest.mark.parametrize(
    "op_type, inputs, attrs, opset",
    [(op, *case) for op, cases in CASES.items() for case in cases],
    ids=lambda v: v if isinstance(v, str) else "",
)
def test_kernel_equals_onnxruntime(op_type, inputs, attrs, opset):
    model = one_node(op_type, inputs, attrs, opset=opset)
    expected = run_onnxruntime(model, inputs)[0]
    (ours,) = run_function(import_model(model), inputs)
    assert ours.dtype == expected.dtype and ours.shape == expected.shape
    np.testing.assert_allclose(ours, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("missing", MISSING, ids=lambda m: m.op_type)
def test_onnx_reference_still_lacks_the_kernel(missing):
    """When this fails, onnx implements the operator: drop graph-opt's kernel."""
    from onnx.reference import ReferenceEvaluator

    inputs, attrs, opset = CASES[missing.op_type][0]
    model = one_node(missing.op_type, inputs, attrs, opset=opset)
    with pytest.raises(Exception, match="(?i)no (registered )?implementation"):
        feeds = {i.name: a for i, a in zip(model.graph.input, inputs)}
        ReferenceEvaluator(model).run(None, feeds)
