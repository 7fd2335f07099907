"""swap and recompute on TensorFlow's own graphs: the planner's peak comes down
to the budget, the interpreter computes the same, and TensorFlow, running the
exported GraphDef (stored by check_memory_rewrites.py, not run by CI), trains
to the stored variable values or gives the stored outputs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from test_tf_training import train_in_interpreter

from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.interpreter import run_function
from graph_opt.memory import plan_function
from graph_opt.memory.plan import op_floor

HERE = Path(__file__).parent
RESULTS = json.loads((HERE / "memory_rewrites.json").read_text())
ROUND_TRIPS = json.loads((HERE / "graphdef_roundtrip.json").read_text())


def peak(module) -> int:
    return plan_function(entry_function(module)).devices[""].peak_bytes


@pytest.mark.parametrize("case", sorted(RESULTS))
def test_rewrite_meets_the_budget_and_computes_the_same(case: str):
    rewrites, name = case.split("/", 1)
    stored = RESULTS[case]
    data = np.load((HERE / name).with_suffix(".npz"))
    output = "train" if name.startswith("training/") else str(data["outputs"][0])
    module = import_graph_def(load_graph_def(str(HERE / name)), outputs=[output])
    budget = op_floor(plan_function(entry_function(module)).liveness, "")[0]
    assert (peak(module), budget) == (stored["peak_before"], stored["budget"])
    assert budget < stored["peak_before"]
    pipeline = ",".join(f"{r}{{budget={budget}}}" for r in rewrites.split(","))
    if name.startswith("training/"):
        api.run(module, pipeline)
        assert peak(module) == stored["peak_after"] <= budget
        train_in_interpreter(module, data)
        return
    (feed,) = [data[k] for k in data.files if k.startswith("in:")]
    (expected,) = run_function(module, [feed])
    api.run(module, pipeline)
    assert peak(module) == stored["peak_after"] <= budget
    (actual,) = run_function(module, [feed])
    np.testing.assert_array_equal(actual, expected)


@pytest.mark.parametrize("case", sorted(RESULTS))
def test_tensorflow_runs_the_rewritten_export_as_the_original(case: str):
    """Training: the stored variables after each step (1e-5); inference: no
    further from TensorFlow's outputs than the plain export is."""
    name = case.split("/", 1)[1]
    stored = RESULTS[case]
    assert stored["status"] in ("identical", "within-tolerance"), stored
    if name.startswith("training/"):
        assert stored["steps"] >= 3
    else:
        assert stored["max_abs_difference"] <= ROUND_TRIPS[name]["max_abs_difference"]
