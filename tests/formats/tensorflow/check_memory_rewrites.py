"""Grappler's memory rewrites, run by TensorFlow (dev time, not run by CI):
graph-opt applies `swap` (and `recompute,swap`) at the lowest budget the
planner can reach to training fixtures and to corpus models with long skip
connections, exports the result as a GraphDef, and TensorFlow runs it: the
training graphs train to the stored variable values, the inference graphs give
the stored outputs. Writes memory_rewrites.json, which
test_tf_memory_rewrites.py reads.

    /work/tfenv/bin/python tests/formats/tensorflow/check_memory_rewrites.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from check_graphdef_roundtrip import (  # noqa: E402
    GRAPH_OPT_PYTHON,
    HERE,
    REPO,
    TRAINING_FETCHES,
    _status,
    run_in_tensorflow,
    samples,
    train_exported,
)

CASES = {
    "training/conv_bn_relu.pbtxt": "train",
    "training/dense_adam.pbtxt": "train",
    "corpus/densenet.pb": "Identity",
    "corpus/mobilenet_v3.pb": "Identity",
}
"""Graph -> output; the corpus ones are those whose peak is not a single op."""
REWRITES = ("swap", "recompute,swap")

REWRITE = r"""
import json, sys
from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.memory import plan_function
from graph_opt.memory.plan import op_floor

path, output, rewrites, target = sys.argv[1:]
module = import_graph_def(load_graph_def(path), outputs=[output])
plan = lambda: plan_function(entry_function(module))
before = plan().devices[""].peak_bytes
budget = op_floor(plan().liveness, "")[0]
api.run(module, ",".join(f"{r}{{budget={budget}}}" for r in rewrites.split(",")))
api.save(module, target)
print(json.dumps({"peak_before": before, "budget": budget,
                  "peak_after": plan().devices[""].peak_bytes}))
"""
"""graph-opt's side, in its own environment: the rewrite at the planner's
lowest budget (the most one op reads and makes) and the export."""


def rewrite(path: Path, output: str, rewrites: str, target: Path) -> dict:
    run = subprocess.run(
        [GRAPH_OPT_PYTHON, "-c", REWRITE, str(path), output, rewrites, str(target)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    if run.returncode != 0:
        return {"status": "no-export", "error": run.stderr.strip()[-300:]}
    return json.loads(run.stdout.strip().splitlines()[-1])


def check(name: str, rewrites: str) -> dict:
    path, output = HERE / name, CASES[name]
    with tempfile.TemporaryDirectory() as scratch:
        target = Path(scratch) / "rewritten.pb"
        result = rewrite(path, output, rewrites, target)
        if "error" in result:
            return result
        if name.startswith("training/"):
            trained = train_exported(path.stem, target)
            return {**result, **trained}
        data = np.load(path.with_suffix(".npz"))
        difference = 0.0
        for inputs, expected in samples(data, 1):
            (actual,) = run_in_tensorflow(target, inputs, [output])
            difference = max(difference, float(np.max(np.abs(actual - expected[0]))))
        return {
            **result,
            "status": _status(difference),
            "max_abs_difference": difference,
        }


def main() -> None:
    results = {}
    for name in CASES:
        for rewrites in REWRITES:
            results[f"{rewrites}/{name}"] = check(name, rewrites)
            print(f"{rewrites}/{name}: {results[f'{rewrites}/{name}']}", flush=True)
    path = HERE / "memory_rewrites.json"
    path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    assert set(TRAINING_FETCHES) >= {Path(n).stem for n in CASES if "training" in n}
    main()
