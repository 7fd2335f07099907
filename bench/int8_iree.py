"""int8 graphs on IREE against graph-opt's interpreter, bit for bit.

The CNNs of the TensorFlow corpus (Keras applications built by TensorFlow,
frozen: MobileNetV2 alpha 0.35, MobileNetV3Small, a small ResNet50,
EfficientNet-B0 and DenseNet) are imported, optimized, cut at their logits (a
final softmax dropped, so that the output is int8 and counted in steps),
calibrated on --samples seeded normal inputs, quantized (--quantize) and
converted with convert-to-int. The int8 graph is lowered to TOSA, printed in
each form (`inline`: generic text; `resources`: `--weights-as-resources` at
its default size), compiled by `iree-compile` for the CPU with no flag but
`--iree-llvmcpu-target-cpu=generic` (no stack allocation limit), and run on
--inputs other seeded inputs, each output compared with the interpreter's on
the int8 graph. Columns: values compared, mismatches (not bit-identical),
max steps (the largest difference in output quantization steps). Each model
and form runs in a process of its own: IREE reads stale memory where a
lowering goes wrong, and an earlier module's could hide it.

Usage: python bench/int8_iree.py [--models a,b] [--inputs 16] [--samples 16]
       [--quantize 'quantize{per-channel=true}'] [--timeout 900]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

MODELS = ("mobilenet_v2", "mobilenet_v3", "resnet50", "efficientnet_b0", "densenet")
FORMS = ("inline", "resources")


def drop_final_softmax(module) -> None:
    """Results that are a softmax become the softmax's input (the logits)."""
    from graph_opt.dialects.nn.norm import SoftmaxOp
    from graph_opt.entry import entry_function

    ret = entry_function(module).body.block.last_op
    for index, value in enumerate(ret.operands):
        softmax = value.owner
        if isinstance(softmax, SoftmaxOp):
            ret.operands[index] = softmax.operands[0]
            if not softmax.results[0].uses:
                softmax.detach()
                softmax.erase()


def int8_graph(name: str, samples: int, quantize: str):
    """The corpus model `name` as an int8 graph, and its input shape."""
    from lowering_coverage import load_tensorflow

    from graph_opt import api

    module, feeds = load_tensorflow(name)
    api.run(module, "refine-shapes,optimize")
    drop_final_softmax(module)
    (shape,) = [x.shape for x in feeds.values()]
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "samples.npz"
        calibration = rng.standard_normal((samples, *shape)).astype(np.float32)
        np.savez(path, **{next(iter(feeds)): calibration})
        api.run(module, f'calibrate{{inputs="{path}"}},{quantize},convert-to-int')
    return module, shape


def worker(name: str, form: str, inputs: int, samples: int, quantize: str) -> dict:
    import iree.compiler as iree_compiler
    import iree.runtime as iree_runtime
    from quantize_corpus import output_step

    from graph_opt import api
    from graph_opt.formats.mlir.resources import DEFAULT_MIN_BYTES
    from graph_opt.interpreter import run_function
    from graph_opt.lowering.to_tosa import LowerToTosaPass

    module, shape = int8_graph(name, samples, quantize)
    lowered = module.clone()
    LowerToTosaPass().apply(api.context(), lowered)
    resources = DEFAULT_MIN_BYTES if form == "resources" else None
    text = api.to_mlir(lowered, generic=True, weights_as_resources=resources)
    start = time.perf_counter()
    try:
        vmfb = iree_compiler.compile_str(
            text,
            target_backends=["llvm-cpu"],
            input_type="tosa",
            extra_args=["--iree-llvmcpu-target-cpu=generic"],
        )
    except iree_compiler.CompilerToolError as error:
        lines = [line for line in str(error).splitlines() if "error:" in line]
        return {"error": (lines or ["compile failed"])[0][:160]}
    compile_s = time.perf_counter() - start
    runtime = iree_runtime.SystemContext(config=iree_runtime.Config("local-task"))
    runtime.add_vm_module(iree_runtime.VmModule.copy_buffer(runtime.instance, vmfb))
    function = next(iter(module.ops))
    entry = runtime.modules.module[function.sym_name.data]
    step = output_step(module)
    rng = np.random.default_rng(1)
    values = mismatches = 0
    largest = 0.0
    for _ in range(inputs):
        x = rng.standard_normal(shape).astype(np.float32)
        got = np.asarray(entry(x).to_host())
        (want,) = run_function(module, [x])
        values += want.size
        mismatches += int((got.view(np.uint32) != want.view(np.uint32)).sum())
        largest = max(largest, float(np.abs(got.astype(np.float64) - want).max()))
    return {
        "values": values,
        "mismatches": mismatches,
        "steps": "-" if step is None else f"{largest / step:.0f}",
        "max_abs": largest,
        "compile_s": compile_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--inputs", type=int, default=16)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--quantize", default="quantize{per-channel=true}")
    parser.add_argument("--timeout", type=float, default=900)
    parser.add_argument("--worker", nargs=2)
    args = parser.parse_args()
    if args.worker:
        row = worker(*args.worker, args.inputs, args.samples, args.quantize)
        print(json.dumps(row))
        return
    print(f"{args.quantize}; {args.samples} calibration inputs")
    print("| model | form | inputs | values | mismatches | max steps | compile s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        for form in FORMS:
            command = [sys.executable, __file__, "--worker", name, form]
            command += ["--inputs", str(args.inputs), "--samples", str(args.samples)]
            command += ["--quantize", args.quantize]
            try:
                done = subprocess.run(
                    command, capture_output=True, text=True, timeout=args.timeout
                )
                lines = done.stdout.strip().splitlines()
                row = json.loads(lines[-1]) if done.returncode == 0 and lines else None
                if row is None:
                    row = {"error": (done.stderr.strip().splitlines() or ["?"])[-1]}
            except subprocess.TimeoutExpired:
                row = {"error": f"over {args.timeout:.0f} s"}
            if "error" in row:
                cells = f"{args.inputs} | - | - | - | {row['error']}"
            else:
                cells = (
                    f"{args.inputs} | {row['values']} | {row['mismatches']} | "
                    f"{row['steps']} | {row['compile_s']:.0f}"
                )
            print(f"| {name} | {form} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
