"""A bounded run of graph-opt's fuzzers (bench/fuzz.py runs the long campaign),
and the fuzzers' own parts: valid generators, deterministic mutations, the judge."""

from pathlib import Path

import numpy as np
import onnx
import pytest

from graph_opt.testing.fuzz.campaign import run_campaign
from graph_opt.testing.fuzz.cli_runs import Run, problems
from graph_opt.testing.fuzz.differential import compare
from graph_opt.testing.fuzz.mutations import mutate_graph_def, mutate_onnx
from graph_opt.testing.fuzz.onnx_graphs import OPSETS, random_inputs, random_model
from graph_opt.testing.fuzz.tf_graphs import random_graph_def


def test_a_bounded_campaign_passes(tmp_path: Path):
    report = run_campaign(8, 10, seed=7, findings=tmp_path, log=lambda _: None, jobs=2)
    assert report.passed, "\n".join(report.findings)
    assert report.graphs == 8 and report.malformed == 10


def test_random_onnx_graphs_are_valid_and_cover_the_opsets():
    import onnxruntime as ort

    opsets = set()
    for seed in range(40):
        model = random_model(seed)
        onnx.checker.check_model(model, full_check=True)
        session = ort.InferenceSession(
            model.SerializeToString(), providers=["CPUExecutionProvider"]
        )
        session.run(None, random_inputs(model, seed))
        opsets.add(model.opset_import[0].version)
        assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param
    assert opsets == set(OPSETS)


def test_random_graph_defs_import_and_run():
    from graph_opt.frontend.tensorflow import import_graph_def
    from graph_opt.interpreter import run_function
    from graph_opt.testing.fuzz.campaign import tf_input

    for seed in range(10):
        graph, outputs = random_graph_def(seed)
        module = import_graph_def(graph, outputs=outputs)
        assert len(run_function(module, [tf_input(graph, seed)])) == len(outputs)


def test_mutations_are_deterministic():
    model = random_model(3)
    graph, _ = random_graph_def(3)
    for seed in range(20):
        a = mutate_onnx(model, np.random.default_rng(seed))
        assert a == mutate_onnx(model, np.random.default_rng(seed))
        b = mutate_graph_def(graph, np.random.default_rng(seed))
        assert b == mutate_graph_def(graph, np.random.default_rng(seed))


def test_compare_uses_the_output_scale():
    expected = [np.array([100.0, -50.0], np.float32)]
    assert compare(expected, [np.array([100.005, -50.0])]) is None
    assert "max error" in compare(expected, [np.array([100.02, -50.0])])
    assert "shape" in compare(expected, [np.zeros(3)])


OK = Run(0, "", 1.0, 100 << 20, True)


@pytest.mark.parametrize(
    "run, refused, problem",
    [
        (OK, False, None),
        (Run(1, "graph-opt: x: error: bad\n", 1.0, 1 << 20, False), True, None),
        (OK, True, "exit 0 on a model the runtime refuses"),
        (
            Run(
                1, "Traceback (most recent call last):\n  x\nKeyError: 1\n", 1, 1, False
            ),
            True,
            "traceback",
        ),
        (
            Run(1, "graph-opt: x: error: bad\n", 1.0, 1, True),
            True,
            "left an output file",
        ),
        (Run(-9, "", 30.5, 1, False), True, "took 30 s"),
        (Run(0, "", 1.0, 2 << 30, True), False, "peak memory 2048 MiB"),
    ],
)
def test_the_judge_of_malformed_runs(run, refused, problem):
    found = problems(run, refused)
    if problem is None:
        assert found == []
    else:
        assert any(problem in p for p in found), found
