"""The non-default attribute values of make_attr_fixtures.py survive the
GraphDef export: the exported graph, imported again, still gives TensorFlow's
outputs, and TensorFlow itself (when installed) runs it to the same outputs.
test_tf_op_fixtures.py runs the same fixtures through the interpreter, the
passes and the ONNX export."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from test_tf_op_fixtures import assert_matches_tensorflow, load_case

from graph_opt.formats.tensorflow import import_graph_def
from graph_opt.formats.tensorflow.export.exporter import export_graph_def
from graph_opt.interpreter import run_function

FIXTURES = Path(__file__).parent / "fixtures"
CASES = ["tf_attr_values.pb", "tf_attr_layouts.pb"]


def exported(name: str):
    """The fixture imported then exported, its output names, inputs and
    TensorFlow's outputs."""
    path = FIXTURES / name
    module, inputs, expected = load_case(path)
    outputs = [str(n) for n in np.load(path.with_suffix(".npz"))["outputs"]]
    return export_graph_def(module), outputs, inputs, expected


@pytest.mark.parametrize("name", CASES)
def test_export_keeps_tensorflow_results(name: str):
    graph, outputs, inputs, expected = exported(name)
    again = import_graph_def(graph, outputs=outputs)
    assert_matches_tensorflow(run_function(again, inputs), expected)


def test_tensorflow_runs_the_export():
    """Channels-first kernels are GPU-only in TensorFlow: the layouts fixture
    is left out."""
    tf = pytest.importorskip("tensorflow")
    graph, outputs, inputs, expected = exported("tf_attr_values.pb")
    with tf.Graph().as_default() as tf_graph:
        tf.compat.v1.import_graph_def(
            tf.compat.v1.GraphDef.FromString(graph.SerializeToString()), name=""
        )
        with tf.compat.v1.Session(graph=tf_graph) as session:
            actual = session.run(
                [o if ":" in o else f"{o}:0" for o in outputs],
                {f"{k}:0": v for k, v in inputs.items()},
            )
    assert_matches_tensorflow(actual, expected)
