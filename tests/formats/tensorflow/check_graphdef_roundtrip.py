"""TF -> graph-opt -> TF for every TensorFlow fixture with stored outputs (dev
time, not run by CI): graph-opt exports each fixture as a GraphDef (`-t
graphdef`), TensorFlow runs the export on the stored inputs, and the outputs
are compared with the ones TensorFlow gave on the original; the exported
training graphs (training/) train in TensorFlow to the stored variable values.
Writes
graphdef_roundtrip.json, which test_tf_graphdef_roundtrip.py reads.

    /work/tfenv/bin/python tests/formats/tensorflow/check_graphdef_roundtrip.py

graph-opt runs in a child process of the system Python (its own
environment); TensorFlow here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import tensorflow as tf

HERE = Path(__file__).parent
REPO = HERE.parents[2]
GRAPH_OPT_PYTHON = os.environ.get("GRAPH_OPT_PYTHON", "python3")
TOLERANCE = 1e-5


def cases() -> list[Path]:
    found = []
    for directory in ("fixtures", "corpus"):
        for path in sorted((HERE / directory).glob("*.pb*")):
            npz = path.with_suffix(".npz")
            if npz.exists() and "outputs" in np.load(npz).files:
                found.append(path)
    return found


def export(
    path: Path, outputs: list[str], target: Path, passes: str = ""
) -> str | None:
    """graph-opt's export of the fixture (after `passes`); its one-line error
    if it fails."""
    run = subprocess.run(
        [GRAPH_OPT_PYTHON, "-m", "graph_opt", str(path), "--outputs", ",".join(outputs),
         "-o", str(target), *(["-p", passes] if passes else [])],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)},
    )  # fmt: skip
    if run.returncode == 0:
        return None
    return run.stderr.strip().splitlines()[-1].split(" error: ", 1)[-1]


def converts_to_tflite(graph_path: Path, inputs: dict, outputs: list[str]) -> str:
    """ "ok" if TensorFlow's TFLite converter takes the graph, else its error."""
    graph = load_graph(graph_path)
    with tf.compat.v1.Session(graph=graph) as session:
        fetch = [graph.get_tensor_by_name(n if ":" in n else f"{n}:0") for n in outputs]
        feed = [graph.get_tensor_by_name(f"{k}:0") for k in inputs]
        try:
            converter = tf.compat.v1.lite.TFLiteConverter.from_session(
                session, feed, fetch
            )
            converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS]
            converter.convert()
        except Exception as e:  # the converter raises many types
            return " ".join(str(e).split())[:200]
    return "ok"


def run_in_tensorflow(graph_path: Path, inputs: dict, outputs: list[str]) -> list:
    graph = load_graph(graph_path)
    fetches = [name if ":" in name else f"{name}:0" for name in outputs]
    with tf.compat.v1.Session(graph=graph) as session:
        feeds = {f"{k}:0": v for k, v in inputs.items()}
        return session.run(fetches, feeds)


def samples(data, count: int) -> list[tuple[dict, list]]:
    """(inputs, expected outputs) of each stored run: `in:NAME`/`out:K`, or
    `in<S>_NAME`/`out<S>_K` for several."""
    if "out:0" in data.files:
        inputs = {k[3:]: data[k] for k in data.files if k.startswith("in:")}
        return [(inputs, [data[f"out:{i}"] for i in range(count)])]
    found, index = [], 0
    while f"out{index}_0" in data.files:
        prefix = f"in{index}_"
        inputs = {k[len(prefix) :]: data[k] for k in data.files if k.startswith(prefix)}
        found.append((inputs, [data[f"out{index}_{i}"] for i in range(count)]))
        index += 1
    return found


def check(path: Path, scratch: Path) -> dict:
    data = np.load(path.with_suffix(".npz"))
    outputs = [str(name) for name in data["outputs"]]
    target = scratch / f"{path.stem}.pb"
    error = export(path, outputs, target)
    if error is not None:
        return {"status": "no-export", "error": error}
    pairs, pairs_inputs = [], {}
    for inputs, expected in samples(data, len(outputs)):
        pairs_inputs = inputs
        try:
            actual = run_in_tensorflow(target, inputs, outputs)
        except Exception as e:  # TensorFlow raises many types
            return {
                "status": "tensorflow-error",
                "error": " ".join(str(e).split())[:300],
            }
        pairs += [(np.asarray(a), e) for a, e in zip(actual, expected)]
    difference = max(
        float(np.max(np.abs(a.astype(np.float64) - e))) if e.size else 0.0
        for a, e in pairs
    )
    same = all(a.shape == e.shape and a.dtype == e.dtype for a, e in pairs)
    status = "identical" if same and difference == 0 else (
        "within-tolerance" if same and difference <= TOLERANCE else "different"
    )  # fmt: skip
    result = {"status": status, "max_abs_difference": difference}
    result["tflite"] = converts_to_tflite(target, pairs_inputs, outputs)
    if result["tflite"] != "ok":  # whether the original converts either
        original = scratch / f"{path.stem}.original.pb"
        original.write_bytes(read_graph_def(path).SerializeToString())
        result["tflite_original"] = converts_to_tflite(original, pairs_inputs, outputs)
    return result


def read_graph_def(path: Path) -> tf.compat.v1.GraphDef:
    graph_def = tf.compat.v1.GraphDef()
    if path.suffix == ".pbtxt":
        from google.protobuf import text_format

        text_format.Parse(path.read_text(), graph_def)
    else:
        graph_def.ParseFromString(path.read_bytes())
    return graph_def


TRAINING_FETCHES = {
    "auto_parallel": ["enqueue", "apply_gradient"],
    "conv_bn_relu": ["train"],
    "dense_adam": ["train"],
}


def variable_reads(graph: tf.Graph) -> dict:
    """A read of each variable of the graph, by name."""
    reads = {}
    for op in graph.get_operations():
        if op.type == "VariableV2":
            reads[op.name] = op.outputs[0]
        elif op.type == "VarHandleOp":
            reads[op.name] = tf.raw_ops.ReadVariableOp(
                resource=op.outputs[0], dtype=op.get_attr("dtype")
            )
    return reads


def check_training(name: str, scratch: Path) -> dict:
    """The exported training graph, trained by TensorFlow on the stored batches,
    reaches the stored variable values."""
    target = scratch / f"{name}.pb"
    error = export(HERE / "training" / f"{name}.pbtxt", TRAINING_FETCHES[name], target)
    if error is not None:
        return {"status": "no-export", "error": error}
    return train_exported(name, target)


def train_exported(name: str, target: Path) -> dict:
    """Train graph-opt's GraphDef `target` of training fixture `name` on its
    stored batches; the largest difference from the stored variable values."""
    data = np.load(HERE / "training" / f"{name}.npz")
    fetches = TRAINING_FETCHES[name]
    graph_def = tf.compat.v1.GraphDef()
    graph_def.ParseFromString(target.read_bytes())
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
        reads = variable_reads(graph)
    difference = 0.0
    with tf.compat.v1.Session(graph=graph) as session:
        session.run("init")
        if "enqueued/batch" in data.files:
            session.run("enqueue", {"batch:0": data["enqueued/batch"]})
        step = 0
        while any(k.startswith(f"after{step}/") for k in data.files):
            feeds = {
                f"{k.split('/', 1)[1]}:0": data[k]
                for k in data.files
                if k.startswith(f"step{step}/")
            }
            session.run(fetches[-1], feeds)
            values = session.run(reads)
            for key in data.files:
                if key.startswith(f"after{step}/"):
                    actual = values[key.split("/", 1)[1]]
                    difference = max(
                        difference, float(np.max(np.abs(actual - data[key])))
                    )
            step += 1
    return {
        "status": _status(difference),
        "max_abs_difference": difference,
        "steps": step,
    }


def load_graph(path: Path) -> tf.Graph:
    graph_def = read_graph_def(path)
    graph = tf.Graph()
    with graph.as_default():
        tf.compat.v1.import_graph_def(graph_def, name="")
    return graph


def check_auto_parallel_seed(scratch: Path) -> dict:
    """graph-opt's auto-parallel{replicas=2} of Grappler's example, trained by
    TensorFlow, reaches the variable values of Grappler's own AutoParallel."""
    training = HERE / "training"
    expected = np.load(training / "auto_parallel_grappler.npz")
    target = scratch / "auto_parallel.pb"
    error = export(training / "auto_parallel.pbtxt", ["enqueue", "apply_gradient"],
                   target, "auto-parallel{replicas=2}")  # fmt: skip
    if error is not None:
        return {"status": "no-export", "error": error}
    graph = load_graph(target)
    difference, step = 0.0, 0
    with tf.compat.v1.Session(graph=graph) as session:
        session.run("init")
        session.run("enqueue", {"batch:0": expected["enqueued/batch"]})
        while f"after{step}/var" in expected.files:
            session.run("apply_gradient")
            actual = session.run("var:0")
            difference = max(
                difference, float(np.max(np.abs(actual - expected[f"after{step}/var"])))
            )
            step += 1
    return {
        "status": _status(difference),
        "max_abs_difference": difference,
        "steps": step,
    }


def train_auto_parallel_conv_bn_relu(scratch: Path) -> dict:
    """graph-opt's auto-parallel{replicas=2} of the conv+BN+ReLU step, trained
    by TensorFlow (replica r of step k fed batch (k + r) mod steps): writes the
    variables after each step to training/conv_bn_relu_auto_parallel.npz."""
    training = HERE / "training"
    data = np.load(training / "conv_bn_relu.npz")
    target = scratch / "conv_bn_relu.pb"
    error = export(training / "conv_bn_relu.pbtxt", ["train"], target,
                   "auto-parallel{replicas=2}")  # fmt: skip
    if error is not None:
        return {"status": "no-export", "error": error}
    graph = load_graph(target)
    with graph.as_default():
        reads = variable_reads(graph)
    steps = len({k.split("/")[0] for k in data.files if k.startswith("step")})
    record = {}
    with tf.compat.v1.Session(graph=graph) as session:
        session.run("init")
        for step in range(steps):
            feeds = {}
            for replica in range(2):
                source = (step + replica) % steps
                for key in ("x", "y"):
                    name = f"AutoParallel-Replica-{replica}/{key}"
                    feeds[f"{name}:0"] = record[f"step{step}/{name}"] = data[
                        f"step{source}/{key}"
                    ]
            session.run("train", feeds)
            for name, value in session.run(reads).items():
                record[f"after{step}/{name}"] = value
    np.savez(training / "conv_bn_relu_auto_parallel.npz", **record)
    return {"status": "trained", "steps": steps}


def _status(difference: float) -> str:
    if difference == 0:
        return "identical"
    return "within-tolerance" if difference <= TOLERANCE else "different"


def check_in_child(name: str) -> dict:
    """One case in a child process: TensorFlow aborts on some graphs."""
    run = subprocess.run(
        [sys.executable, __file__, name], capture_output=True, text=True
    )
    if run.returncode != 0:
        lines = [line for line in run.stderr.splitlines() if "Check failed" in line]
        reason = lines[0] if lines else run.stderr.strip().splitlines()[-1]
        return {"status": "tensorflow-crash", "error": reason[-300:]}
    return json.loads(run.stdout.strip().splitlines()[-1])


def check_one(name: str) -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        if name == "auto_parallel/seed":
            return check_auto_parallel_seed(Path(scratch))
        if name == "auto_parallel/conv_bn_relu":
            return train_auto_parallel_conv_bn_relu(Path(scratch))
        if name.startswith("training/"):
            return check_training(name.removeprefix("training/"), Path(scratch))
        return check(HERE / name, Path(scratch))


def main() -> None:
    """All cases; `--update NAME...` re-checks those and keeps the other results;
    a single NAME prints its result (the child process of each case)."""
    results_path = HERE / "graphdef_roundtrip.json"
    if len(sys.argv) == 2:
        print(json.dumps(check_one(sys.argv[1])))
        return
    if sys.argv[1:2] == ["--update"]:
        names = sys.argv[2:]
        results = json.loads(results_path.read_text())
    else:
        names = [p.relative_to(HERE).as_posix() for p in cases()]
        names += [f"training/{name}" for name in TRAINING_FETCHES]
        names += ["auto_parallel/seed", "auto_parallel/conv_bn_relu"]
        results = {}
    for name in names:
        results[name] = check_in_child(name)
        print(f"{name}: {results[name]}", flush=True)
    results_path.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    main()
