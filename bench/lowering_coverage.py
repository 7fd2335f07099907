"""Which models lower to TOSA and run on IREE: the ONNX zoo with static input
shapes and the TensorFlow corpus.

Each ONNX model gets the shapes of its stored inputs (`name.inputs.npz`) as
static graph-input dims; each TensorFlow graph is imported with the feeds of its
`.npz`. The graph is optimized (`refine-shapes` then `optimize`) and lowered
with `lower-to-tosa`; one that fails names the op that cannot be lowered. A
lowered graph is compiled by IREE for the CPU and run on the stored inputs; the
table gives the max relative error (max |iree - ref| / max |ref|) against the
reference interpreter on the same optimized graph, or the one-line reason it
did not get that far. Each model runs in its own subprocess (--timeout).

Usage: python bench/lowering_coverage.py [--zoo /work/zoo] [--models a,b] [--timeout 600]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

TF_CORPUS = Path(__file__).parents[1] / "tests" / "formats" / "tensorflow" / "corpus"
TF_MODELS = (
    "dilated_conv_bn",
    "qat_conv_bn",
    "nested_loops",
    "text_lstm",
    "mobilenet_v2",
    "mobilenet_v3",
    "efficientnet_b0",
    "resnet50",
    "densenet",
)


def first_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1][:160] if lines else ""


def load_onnx(path: Path):
    import numpy as np
    import onnx

    from graph_opt.formats.onnx.importer import import_model

    feeds = dict(np.load(path.with_suffix("").with_suffix(".inputs.npz")))
    model = onnx.load(str(path))
    for value in model.graph.input:
        if value.name in feeds:
            dims = value.type.tensor_type.shape.dim
            for dim, size in zip(dims, feeds[value.name].shape, strict=True):
                dim.Clear()
                dim.dim_value = size
    return import_model(model), feeds


def load_tensorflow(name: str):
    import numpy as np

    from graph_opt.formats.tensorflow import import_graph_def, load_graph_def

    data = np.load(TF_CORPUS / f"{name}.npz")
    feeds = {k.removeprefix("in:"): data[k] for k in data.files if k.startswith("in:")}
    outputs = [str(n) for n in data["outputs"]]
    graph = load_graph_def(str(TF_CORPUS / f"{name}.pb"))
    return import_graph_def(graph, outputs=outputs), feeds


def generic_text(module) -> str:
    import io

    from xdsl.printer import Printer

    stream = io.StringIO()
    Printer(stream=stream, print_generic_format=True).print_op(module)
    return stream.getvalue()


def worker(kind: str, name: str) -> dict:
    """Import, optimize, lower, compile and run one model: its stage and result."""
    import warnings

    import iree.compiler as iree_compiler
    import iree.runtime as iree_runtime
    import numpy as np

    from graph_opt import api
    from graph_opt.interpreter import run_function
    from graph_opt.lowering.to_tosa import LowerToTosaPass
    from graph_opt.remarks import GraphOptWarning

    module, feeds = load_onnx(Path(name)) if kind == "onnx" else load_tensorflow(name)
    api.run(module, "refine-shapes,optimize")
    function = next(iter(module.ops))
    names = [a.data["nn.name"].data for a in function.arg_attrs.data]
    inputs = [feeds[n] for n in names]
    lowered = module.clone()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", GraphOptWarning)
        try:
            LowerToTosaPass().apply(api.context(), lowered)
        except Exception as error:  # the pass's one-line diagnostic
            return {"stage": "lower", "reason": str(error)}
    kept = [str(w.message) for w in caught]
    try:
        vmfb = iree_compiler.compile_str(
            generic_text(lowered),
            target_backends=["llvm-cpu"],
            input_type="tosa",
            extra_args=["--iree-llvmcpu-target-cpu=generic"],
        )
    except iree_compiler.CompilerToolError as error:
        text = str(error)
        crash = "ScfWhileOpConversion" if "ScfWhileOpConversion" in text else ""
        return {
            "stage": "compile",
            "reason": crash or first_line(text.split("Invoked with")[0]),
            "warnings": kept,
        }
    runtime = iree_runtime.SystemContext(config=iree_runtime.Config("local-task"))
    runtime.add_vm_module(iree_runtime.VmModule.copy_buffer(runtime.instance, vmfb))
    results = runtime.modules.module[function.sym_name.data](*inputs)
    if not isinstance(results, tuple | list):
        results = [results]
    expected = run_function(module, inputs)
    error = 0.0
    for got, want in zip(results, expected, strict=True):
        got = np.asarray(got.to_host()).astype(np.float64)
        want = np.asarray(want).astype(np.float64)
        scale = max(float(np.abs(want).max(initial=0.0)), 1e-12)
        error = max(error, float(np.abs(got - want).max(initial=0.0)) / scale)
    return {"stage": "ran", "error": error, "warnings": kept}


def run(kind: str, name: str, timeout: float) -> dict:
    try:
        done = subprocess.run(
            [sys.executable, __file__, "--worker", kind, name],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired:
        return {"stage": "timeout", "reason": f"over {timeout:.0f} s"}
    if done.returncode != 0:
        return {"stage": "error", "reason": first_line(done.stderr)}
    return json.loads(done.stdout.strip().splitlines()[-1])


def cell(result: dict) -> tuple[str, str]:
    if result["stage"] == "ran":
        return "yes", f"yes, {result['error']:.1e}"
    if result["stage"] == "compile":
        return "yes", f"no: {result['reason']}"
    return "no", f"- ({result['stage']}: {result['reason']})"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--zoo", default="/work/zoo")
    parser.add_argument("--models", default="")
    parser.add_argument("--timeout", type=float, default=600)
    parser.add_argument("--worker", nargs=2)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(*args.worker)))
        return
    models = [("onnx", str(p)) for p in sorted(Path(args.zoo).glob("*.onnx"))]
    models += [("tensorflow", name) for name in TF_MODELS]
    if args.models:
        wanted = set(args.models.split(","))
        models = [(k, n) for k, n in models if Path(n).stem in wanted]
    print("| model | lowers | runs on IREE (max rel. error vs interpreter) |")
    print("|---|---|---|")
    for kind, name in models:
        result = run(kind, name, args.timeout)
        lowers, runs = cell(result)
        print(f"| {Path(name).stem} | {lowers} | {runs} |", flush=True)
        for message in result.get("warnings", []):
            print(f"|   | | warning: {message[:140]} |", flush=True)


if __name__ == "__main__":
    main()
