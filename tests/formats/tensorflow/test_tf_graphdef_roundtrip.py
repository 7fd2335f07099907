"""TF -> graph-opt -> TF: every TensorFlow fixture with stored outputs survived
the round trip in check_graphdef_roundtrip.py (its stored results,
graphdef_roundtrip.json); each still exports to nodes (and library functions)
TensorFlow's op registry accepts, re-imports, and gives TensorFlow's stored
outputs in the interpreter."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.formats.tensorflow.schema import GraphDef
from graph_opt.formats.tensorflow.validation import (
    validate_graph_def,
)
from graph_opt.interpreter import run_function

TOLERANCE = 1e-5
HERE = Path(__file__).parent
RESULTS = json.loads((HERE / "graphdef_roundtrip.json").read_text())
SURVIVING = ("identical", "within-tolerance")
FIXTURES = sorted(k for k in RESULTS if k.startswith(("fixtures/", "corpus/")))


def load_case(name: str):
    data = np.load((HERE / name).with_suffix(".npz"))
    outputs = [str(o) for o in data["outputs"]]
    module = import_graph_def(load_graph_def(str(HERE / name)), outputs=outputs)
    return module, data, outputs


def stored_runs(data, count: int):
    if "out:0" in data.files:
        inputs = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
        yield inputs, [data[f"out:{i}"] for i in range(count)]
        return
    index = 0
    while f"out{index}_0" in data.files:
        prefix = f"in{index}_"
        inputs = {k[len(prefix) :]: data[k] for k in data.files if k.startswith(prefix)}
        yield inputs, [data[f"out{index}_{i}"] for i in range(count)]
        index += 1


def test_every_fixture_survives_tensorflow_round_trips():
    assert len(FIXTURES) == 50
    assert all(RESULTS[k]["status"] in SURVIVING for k in FIXTURES)
    assert all(
        RESULTS[k]["status"] in SURVIVING for k in RESULTS if k.startswith("training/")
    )


@pytest.mark.parametrize("name", FIXTURES)
def test_export_reimports_with_tensorflow_outputs(name: str):
    module, data, outputs = load_case(name)
    graph = export_graph_def(module)
    validate_graph_def(graph)  # the library's functions too
    again = GraphDef()
    again.ParseFromString(graph.SerializeToString())
    reimported = import_graph_def(again, outputs=outputs)
    for inputs, expected in stored_runs(data, len(outputs)):
        actual = run_function(reimported, inputs)
        for a, e in zip(actual, expected, strict=True):
            assert a.shape == e.shape and a.dtype == e.dtype
            np.testing.assert_allclose(a, e, rtol=TOLERANCE, atol=TOLERANCE)
