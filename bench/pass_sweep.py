"""First contact: every pass alone on fresh imports of real models, through the CLI.

For each pass `graph-opt --list-passes` lists and each model (the ONNX zoo of
bench/make_zoo.py, the TensorFlow corpus' frozen `.pb` files and SavedModel
directories, the shipped examples), runs `python -m graph_opt -p PIPELINE
MODEL -o out.onnx` in a child process with a timeout and records: the exit
code, whether stderr holds a traceback, whether the pass warned, and for a
pass that keeps the numbers, whether onnxruntime gives the output model the
outputs of the input model (ONNX inputs: the model itself; TensorFlow inputs
and MLIR: their export with no pass) within --tolerance of each output's
largest magnitude. A run that fails with `-o out.onnx` is run again with `-o
out.mlir` to tell a failing export from a failing pass. Inputs are the model's
stored ones (`NAME.inputs.npz` in the zoo, `in:NAME` in the corpus' .npz),
else seeded random values.

Passes that need options run in the pipeline a user would type (PIPELINES):
calibrate on the model's inputs, quantize after it, convert-to-int after both,
swap and recompute with a budget of 1 byte (as low as they can get),
lower-to-tosa with `--input-shape` of each input (the stored or random
input's shape), partition-pattern with `matmul-bias`,
auto-parallel with 2 replicas, freeze-variables with an empty values file.
quantize changes the numbers (its export must still run in onnxruntime);
lower-to-tosa and convert-to-int write MLIR text (TOSA, and int8 arithmetic
that ONNX has no form for).

Outcomes: `ok` (exit 0, numbers kept where checked), `diagnostic` (non-zero
exit with a one-line error), `failure` (traceback, timeout, wrong numbers, an
export onnxruntime cannot run, an export failing after a successful pass, or
a silent no-op: output equal to the plain export with no warning).

Each run's record goes to WORK/results.jsonl as it ends (WORK/results.json at
the end); the table counts outcomes per pass.

Usage: python bench/pass_sweep.py [--zoo /work/zoo] [--passes a,b]
       [--models substr,...] [--jobs 1] [--timeout 300] [--tolerance 1e-4]
       [--work DIR]
The whole sweep (21 passes x 55 models) takes about 40 minutes on 2 shared
cores: `nohup python bench/pass_sweep.py --work /tmp/sweep > sweep.log &`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import onnx

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO / "tests" / "formats" / "tensorflow" / "corpus"
EXAMPLES = REPO / "examples"
SAMPLES = "SAMPLES.npz"
NO_VALUES = "NO_VALUES.npz"
PIPELINES = {
    "calibrate": f'calibrate{{inputs="{SAMPLES}"}}',
    "quantize": f'calibrate{{inputs="{SAMPLES}"}},quantize',
    "convert-to-int": f'calibrate{{inputs="{SAMPLES}"}},quantize,convert-to-int',
    "swap": "swap{budget=1}",
    "recompute": "recompute{budget=1}",
    "partition-pattern": "partition-pattern{pattern=matmul-bias}",
    "auto-parallel": "auto-parallel{replicas=2}",
    "freeze-variables": f'freeze-variables{{values="{NO_VALUES}"}}',
}
CHANGES_NUMBERS = {"quantize"}
MLIR_ONLY = {"lower-to-tosa", "convert-to-int"}
"""Passes whose output has no ONNX form: TOSA, and int8 arithmetic (`nn.qconv`, `nn.rescale`)."""
STATIC_SHAPES = {"lower-to-tosa"}
"""Passes given the inputs' shapes (`--input-shape`): exporters leave the batch
dim symbolic, and TOSA needs static shapes."""
ANALYSIS_ONLY = {"memory-plan"}
"""Passes that report and leave the graph as it is: no warning expected."""


@dataclass
class Model:
    name: str
    path: Path
    inputs: dict[str, np.ndarray]


@dataclass
class Result:
    pass_name: str
    model: str
    exit_code: int | None
    traceback: bool
    warned: bool
    numbers: str  # same, differ (max error), n/a, not run
    outcome: str
    note: str
    warning: str = ""


def list_passes() -> list[str]:
    text = _graph_opt(["--list-passes"], timeout=120).stdout
    names = []
    for line in text.splitlines():
        if line.startswith("patterns"):
            break
        if line and not line[0].isspace():
            names.append(line.split(":", 1)[0])
    return names


def _graph_opt(args: list[str], timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("GRAPH_OPT_TRACEBACK", None)
    return subprocess.run(
        [sys.executable, "-m", "graph_opt", "--quiet", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def find_models(zoo: Path | None) -> list[Model]:
    models = []
    if zoo and zoo.is_dir():
        for path in sorted(zoo.glob("*.onnx")):
            stored = zoo / f"{path.stem}.inputs.npz"
            inputs = dict(np.load(stored)) if stored.exists() else {}
            models.append(Model(f"zoo/{path.stem}", path, inputs))
    for path in sorted(CORPUS.iterdir()):
        if path.suffix == ".pb" or path.name.endswith(("_saved_model", "_export")):
            stem = re.sub(r"(_functional|_saved_model|_export)$", "", path.stem)
            inputs = _corpus_inputs(CORPUS / f"{stem}.npz")
            models.append(Model(f"tf/{path.name}", path, inputs))
    for path in sorted(EXAMPLES.iterdir()):
        if path.suffix in (".onnx", ".mlir"):
            models.append(Model(f"examples/{path.name}", path, {}))
    return models


def _corpus_inputs(npz: Path) -> dict[str, np.ndarray]:
    if not npz.exists():
        return {}
    return {k[3:]: v for k, v in np.load(npz).items() if k.startswith("in:")}


def feeds_for(model_path: Path, stored: dict[str, np.ndarray]) -> dict:
    """The stored input of each graph input, else seeded random values (unknown dims 1)."""
    rng = np.random.default_rng(0)
    graph = onnx.load(model_path, load_external_data=False).graph
    initializers = {i.name for i in graph.initializer}
    feeds = {}
    for value in graph.input:
        if value.name in initializers:
            continue
        tensor = value.type.tensor_type
        dtype = onnx.helper.tensor_dtype_to_np_dtype(tensor.elem_type)
        if value.name in stored and stored[value.name].dtype == dtype:
            feeds[value.name] = stored[value.name]
            continue
        shape = [
            d.dim_value if d.HasField("dim_value") else 1 for d in tensor.shape.dim
        ]
        if dtype == np.bool_:
            feeds[value.name] = rng.integers(0, 2, shape).astype(bool)
        elif np.issubdtype(dtype, np.integer):
            feeds[value.name] = rng.integers(0, 4, shape).astype(dtype)
        else:
            feeds[value.name] = rng.standard_normal(shape).astype(dtype)
    return feeds


def run_onnx(path: Path, feeds: dict) -> list[np.ndarray]:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(
        str(path), options, providers=["CPUExecutionProvider"]
    )
    names = {i.name for i in session.get_inputs()}
    return session.run(None, {k: v for k, v in feeds.items() if k in names})


def max_error(outputs: list[np.ndarray], reference: list[np.ndarray]) -> float:
    """The largest error relative to each output's largest magnitude (absolute below 1)."""
    if len(outputs) != len(reference):
        return float("inf")
    worst = 0.0
    for out, ref in zip(outputs, reference, strict=True):
        out, ref = np.asarray(out), np.asarray(ref)
        if out.shape != ref.shape:
            return float("inf")
        if out.dtype.kind not in "fc":
            worst = max(worst, 0.0 if np.array_equal(out, ref) else float("inf"))
            continue
        if not np.array_equal(np.isnan(out), np.isnan(ref)):
            return float("inf")
        finite = ~np.isnan(ref)
        if not finite.any():
            continue
        diff = np.abs(out[finite].astype(np.float64) - ref[finite])
        scale = max(1.0, float(np.max(np.abs(ref[finite]))))
        worst = max(worst, float(np.max(diff)) / scale)
    return worst


def first_error_line(stderr: str) -> str:
    lines = [line for line in stderr.splitlines() if "warning:" not in line]
    return lines[-1][:200] if lines else ""


class Sweep:
    def __init__(self, work: Path, timeout: float, tolerance: float):
        self.work = work
        self.timeout = timeout
        self.tolerance = tolerance

    def prepare(self, model: Model) -> dict:
        """The model's plain export (the no-op baseline), reference outputs and samples."""
        folder = self.work / model.name.replace("/", "__")
        folder.mkdir(parents=True, exist_ok=True)
        plain = folder / "plain.onnx"
        info = {"folder": folder, "plain": None, "reference": None, "feeds": None}
        try:
            done = _graph_opt([str(model.path), "-o", str(plain)], self.timeout)
        except subprocess.TimeoutExpired:
            info["error"] = "plain export timed out"
            return info
        if done.returncode != 0:
            info["error"] = f"plain export failed: {first_error_line(done.stderr)}"
            return info
        info["plain"] = plain
        plain_mlir = folder / "plain.mlir"
        done = _graph_opt([str(model.path), "-o", str(plain_mlir)], self.timeout)
        info["plain_mlir"] = plain_mlir if done.returncode == 0 else None
        source = model.path if model.path.suffix == ".onnx" else plain
        feeds = feeds_for(source, model.inputs)
        info["feeds"] = feeds
        samples = folder / "samples.npz"
        np.savez(samples, **feeds)
        info["samples"] = samples
        try:
            info["reference"] = run_onnx(source, feeds)
        except Exception as e:  # the original does not run: nothing to compare with
            info["error"] = f"reference does not run: {str(e).splitlines()[0][:120]}"
        return info

    def run(self, pass_name: str, model: Model, info: dict) -> Result:
        folder = info["folder"]
        spec = PIPELINES.get(pass_name, pass_name).replace(
            SAMPLES, str(info.get("samples", "missing.npz"))
        )
        suffix = ".mlir" if pass_name in MLIR_ONLY else ".onnx"
        out = folder / f"{pass_name}{suffix}"
        spec = spec.replace(NO_VALUES, str(self.work / "no_values.npz"))
        result = Result(pass_name, model.name, None, False, False, "not run", "", "")
        options = []
        if pass_name in STATIC_SHAPES and info["feeds"]:
            options = [
                f"--input-shape={name}={','.join(map(str, array.shape))}"
                for name, array in info["feeds"].items()
            ]
        try:
            done = _graph_opt(
                ["-p", spec, *options, str(model.path), "-o", str(out)], self.timeout
            )
        except subprocess.TimeoutExpired:
            result.outcome, result.note = (
                "failure",
                f"timeout after {self.timeout:.0f} s",
            )
            return result
        result.exit_code = done.returncode
        result.traceback = "Traceback (most recent call last)" in done.stderr
        warnings = [line for line in done.stderr.splitlines() if "warning:" in line]
        result.warned = bool(warnings)
        result.warning = warnings[0][:200] if warnings else ""
        if result.traceback:
            result.outcome, result.note = (
                "failure",
                "traceback: " + first_error_line(done.stderr),
            )
            return result
        if done.returncode != 0:
            result.outcome, result.note = "diagnostic", first_error_line(done.stderr)
            if suffix == ".onnx":
                self._blame_export(spec, model, folder, pass_name, result)
            return result
        if suffix == ".mlir":
            result.numbers, result.outcome = "n/a", "ok"
            return result
        self._check_output(pass_name, model, out, info, result)
        return result

    def _blame_export(self, spec, model, folder, pass_name, result) -> None:
        """Whether the pass alone succeeds, when the run with the export failed."""
        mlir = folder / f"{pass_name}.mlir"
        try:
            done = _graph_opt(
                ["-p", spec, str(model.path), "-o", str(mlir)], self.timeout
            )
        except subprocess.TimeoutExpired:
            return
        if done.returncode == 0:
            result.outcome = "failure"
            result.note = "export fails after the pass: " + result.note

    def _check_output(
        self, pass_name: str, model: Model, out: Path, info: dict, result: Result
    ) -> None:
        plain = info["plain"]
        if (
            plain is not None
            and pass_name not in ANALYSIS_ONLY
            and not result.warned
            and _same_graph(out, plain)
            and self._same_mlir(pass_name, model, info)
        ):
            result.outcome, result.note = "failure", "silent no-op"
            return
        if info["feeds"] is None:
            result.numbers, result.outcome = "n/a", "ok"
            result.note = info.get("error", "")
            return
        try:
            outputs = run_onnx(out, info["feeds"])
        except Exception as e:
            result.outcome = "failure"
            result.note = (
                "onnxruntime refuses the output: " + str(e).splitlines()[0][:160]
            )
            return
        if pass_name in CHANGES_NUMBERS or info["reference"] is None:
            result.numbers, result.outcome = "n/a", "ok"
            result.note = info.get("error", "")
            return
        error = max_error(outputs, info["reference"])
        if error <= self.tolerance:
            result.numbers, result.outcome = "same", "ok"
        else:
            result.numbers, result.outcome = f"differ {error:.2e}", "failure"
            result.note = f"max relative error {error:.2e}"

    def _same_mlir(self, pass_name: str, model: Model, info: dict) -> bool:
        """Whether the pass's MLIR output is the plain import's (changes the
        ONNX export does not show: ranges, layouts the export converts anyway)."""
        if info["plain_mlir"] is None:
            return False
        spec = PIPELINES.get(pass_name, pass_name).replace(
            SAMPLES, str(info["samples"])
        )
        out = info["folder"] / f"{pass_name}.mlir"
        done = _graph_opt(["-p", spec, str(model.path), "-o", str(out)], self.timeout)
        return (
            done.returncode == 0 and out.read_text() == info["plain_mlir"].read_text()
        )


def _same_graph(a: Path, b: Path) -> bool:
    ga, gb = onnx.load(a).graph, onnx.load(b).graph
    return ga.SerializeToString() == gb.SerializeToString()


def summary_table(results: list[Result], passes: list[str]) -> str:
    counts = {p: Counter() for p in passes}
    for r in results:
        counts[r.pass_name][r.outcome] += 1
    lines = [
        "| pass | ok | diagnostic | failure | warned |",
        "| --- | --- | --- | --- | --- |",
    ]
    for p in passes:
        warned = sum(r.warned for r in results if r.pass_name == p)
        c = counts[p]
        lines.append(
            f"| {p} | {c['ok']} | {c['diagnostic']} | {c['failure']} | {warned} |"
        )
    total = Counter(r.outcome for r in results)
    lines.append(
        f"| total | {total['ok']} | {total['diagnostic']} | {total['failure']} | "
        f"{sum(r.warned for r in results)} |"
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", type=Path, default=Path("/work/zoo"))
    parser.add_argument("--passes", help="comma-separated pass names (default: all)")
    parser.add_argument("--models", help="comma-separated substrings of model names")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument(
        "--work", type=Path, help="where outputs go (default: a temp dir)"
    )
    args = parser.parse_args()

    passes = list_passes()
    if args.passes:
        passes = [p for p in passes if p in args.passes.split(",")]
    models = find_models(args.zoo)
    if args.models:
        models = [m for m in models if any(s in m.name for s in args.models.split(","))]
    work = args.work or Path(tempfile.mkdtemp(prefix="pass_sweep_"))
    work.mkdir(parents=True, exist_ok=True)
    np.savez(work / "no_values.npz")
    sweep = Sweep(work, args.timeout, args.tolerance)
    print(f"{len(passes)} passes x {len(models)} models; outputs in {work}", flush=True)

    results: list[Result] = []
    with ThreadPoolExecutor(args.jobs) as pool:
        for model in models:
            info = sweep.prepare(model)
            if info["plain"] is None:
                print(f"{model.name}: {info['error']}", flush=True)
            runs = pool.map(lambda p, m=model, i=info: sweep.run(p, m, i), passes)
            for r in runs:
                results.append(r)
                with open(work / "results.jsonl", "a") as log:
                    log.write(json.dumps(asdict(r)) + "\n")
                if r.outcome != "ok":
                    print(
                        f"{r.outcome:10} {r.pass_name:18} {r.model}: {r.note}",
                        flush=True,
                    )
    (work / "results.json").write_text(
        json.dumps([asdict(r) for r in results], indent=1)
    )
    print()
    print(summary_table(results, passes))


if __name__ == "__main__":
    main()
