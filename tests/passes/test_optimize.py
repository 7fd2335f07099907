"""The optimize pipeline on generated models: ONNX in, ONNX out, same numbers in onnxruntime."""

from collections import Counter

import numpy as np
import onnxruntime as ort
import pytest

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.testing import model_zoo

MODELS = model_zoo.small_models(chain_nodes=60)


def run_ort(model, x):
    return ort.InferenceSession(model.SerializeToString()).run(None, {"input": x})[0]


@pytest.mark.parametrize("name", MODELS)
def test_optimize_keeps_outputs_and_removes_bn_and_identity(name):
    original = MODELS[name]()
    optimized = export_module(api.run(api.load(original), "optimize"))
    shape = [d.dim_value for d in original.graph.input[0].type.tensor_type.shape.dim]
    x = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    expected = run_ort(original, x)
    np.testing.assert_allclose(
        run_ort(optimized, x), expected, rtol=1e-4, atol=1e-4 * np.abs(expected).max()
    )
    before, after = (
        Counter(n.op_type for n in original.graph.node),
        Counter(n.op_type for n in optimized.graph.node),
    )
    assert after["BatchNormalization"] == 0 and after["Identity"] == 0
    assert sum(after.values()) < sum(before.values())
    assert after["Shape"] == 0 and after["Gather"] == 0
