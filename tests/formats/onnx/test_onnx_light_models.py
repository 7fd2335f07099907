"""The "light" model topologies shipped with onnx (ResNet-50, Inception, DenseNet, ...):
weights are ConstantOfShape fills, so the files are small. Each is imported and
exported, and the export must compute what the original computes in onnxruntime
and what onnx stored as the expected output."""

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx.backend.test.runner import Runner

from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model

LIGHT_DIR = Path(onnx.__file__).parent / "backend" / "test" / "data" / "light"
MODELS = sorted(p.stem for p in LIGHT_DIR.glob("light_*.onnx"))


def test_all_light_models_are_found():
    assert len(MODELS) == 9, MODELS


def _run(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def _dummy_inputs(model: onnx.ModelProto) -> dict[str, np.ndarray]:
    """The inputs onnx's backend runner made the stored outputs from (`arange / n`)."""
    initializers = {t.name for t in model.graph.initializer}
    return {
        x.name: Runner.generate_dummy_data(x, seed=0, random=False)
        for x in model.graph.input
        if x.name not in initializers
    }


@pytest.mark.parametrize("name", MODELS)
def test_light_model_round_trip(name):
    original = onnx.load(LIGHT_DIR / f"{name}.onnx")
    exported = export_module(import_model(original))
    feeds = _dummy_inputs(original)
    expected = _run(original, feeds)
    actual = _run(exported, feeds)
    assert [o.name for o in exported.graph.output] == [
        o.name for o in original.graph.output
    ]
    for want, got in zip(expected, actual):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-6)
    stored = onnx.numpy_helper.to_array(
        onnx.load_tensor(str(LIGHT_DIR / f"{name}_output_0.pb"))
    )
    np.testing.assert_allclose(actual[0], stored, rtol=1e-3, atol=1e-7)
