"""GraphDefs built by real TensorFlow (make_tf_fixtures.py): the reference
interpreter reproduces TensorFlow's outputs, before and after each pass that
rewrites imported graphs, and so does onnxruntime on the exported model."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function
from graph_opt.passes import get_all_passes

FIXTURES = Path(__file__).parent / "fixtures"
GRAPHS = sorted(p for p in FIXTURES.glob("tf_*.pb*") if p.with_suffix(".npz").exists())
PASSES = [
    name
    for name in ("fold-bn", "fold-constants", "prune", "convert-layout")
    if name in get_all_passes()
]
TOLERANCE = 1e-5


def load_case(path: Path):
    data = np.load(path.with_suffix(".npz"))
    outputs = [str(name) for name in data["outputs"]]
    module = import_graph_def(load_graph_def(str(path)), outputs=outputs)
    inputs = {k.removeprefix("in:"): data[k] for k in data.files if k.startswith("in:")}
    expected = [data[f"out:{i}"] for i in range(len(outputs))]
    return module, inputs, expected


def assert_matches_tensorflow(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected):
        assert a.shape == e.shape and a.dtype == e.dtype, (a.shape, e.shape)
        if e.dtype.kind == "f":
            np.testing.assert_allclose(a, e, rtol=TOLERANCE, atol=TOLERANCE)
        else:
            np.testing.assert_array_equal(a, e)


def apply_pass(module: ModuleOp, name: str) -> ModuleOp:
    module = module.clone()
    get_all_passes()[name]()().apply(Context(), module)
    module.verify()
    return module


def test_every_fixture_is_found():
    assert len(GRAPHS) >= 11


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.name)
def test_interpreter_matches_tensorflow(path: Path):
    module, inputs, expected = load_case(path)
    module.verify()
    assert_matches_tensorflow(run_function(module, inputs), expected)


@pytest.mark.parametrize("pass_name", PASSES)
@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.name)
def test_pass_keeps_tensorflow_results(path: Path, pass_name: str):
    module, inputs, expected = load_case(path)
    rewritten = apply_pass(module, pass_name)
    assert_matches_tensorflow(run_function(rewritten, inputs), expected)


@pytest.mark.parametrize("path", GRAPHS, ids=lambda p: p.name)
def test_onnx_export_matches_tensorflow(path: Path):
    """Channels-last graphs export as they are imported (no convert-layout first),
    and the export leaves the module unchanged."""
    module, inputs, expected = load_case(path)
    before = str(module)
    model = export_module(module)
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    names = [i.name for i in session.get_inputs()]
    actual = session.run(None, {name: inputs[name] for name in names})
    assert_matches_tensorflow(actual, expected)
    assert str(module) == before
