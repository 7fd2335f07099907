"""A SavedModel's weights through graph-opt: import + optimize + export to
ONNX (external data) and to a GraphDef, each in a fresh process; peak RSS and
the mapped weight pages left in the process, against the weights' size.

    python bench/saved_model_weights.py [--mib 256] [--runs 3]

The model (y = x @ w, w square float32 of about --mib MiB, plus an unused
variable of half that) is written without TensorFlow
(`graph_opt.testing.saved_models`)."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from graph_opt.testing.saved_models import variable_key, write_linear_saved_model

CHILD = """
import json, sys, time
from graph_opt import api
from graph_opt.weights import resident_bytes
def peak_mib():  # (VmHWM: this process's own, not the forking parent's)
    with open("/proc/self/status") as status:
        line = next(l for l in status if l.startswith("VmHWM:"))
    return int(line.split()[1]) / 1024
model, out, external = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
start = time.perf_counter()
module = api.load(model)
loaded = time.perf_counter() - start
api.run(module, "optimize")
api.save(module, out, external_data=True) if external else api.save(module, out)
print(json.dumps({
    "seconds": time.perf_counter() - start, "import_seconds": loaded,
    "peak_mib": peak_mib(),
    "mapped_resident_mib": resident_bytes() / 2**20,
}))
"""


def run(model: Path, out: Path, external: bool) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(model), str(out), "1" if external else "0"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return json.loads(done.stdout)


def baseline() -> float:
    """Peak RSS (MiB) of a process that imports graph-opt and does nothing."""
    code = CHILD.split("model, out")[0] + "import graph_opt.api; print(peak_mib())"
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True,
                                text=True, check=True).stdout)  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    side = int((args.mib * 2**20 / 4) ** 0.5)
    rng = np.random.default_rng(0)
    variables = {
        "w": rng.standard_normal((side, side), np.float32),
        "unused": rng.standard_normal((side // 2, side), np.float32),
    }
    weight_mib = variables["w"].nbytes / 2**20
    with tempfile.TemporaryDirectory() as folder:
        model = Path(folder) / "model"
        write_linear_saved_model(model, variables, {variable_key("unused"): 1})
        del variables
        idle = baseline()
        print(f"kernel {weight_mib:.0f} MiB (+{weight_mib / 2:.0f} MiB unused); "
              f"graph-opt imported, idle: {idle:.0f} MiB peak; medians of {args.runs}")  # fmt: skip
        print(
            "| export | seconds | import s | peak MiB | peak - idle | / kernel | mapped left MiB |"
        )
        print("|---|---|---|---|---|---|---|")
        for label, name, external in (
            ("ONNX, external data", "m.onnx", True),
            ("GraphDef (.pb)", "m.pb", False),
        ):
            runs = [run(model, Path(folder) / name, external) for _ in range(args.runs)]
            med = {k: statistics.median(r[k] for r in runs) for k in runs[0]}
            extra = med["peak_mib"] - idle
            print(f"| {label} | {med['seconds']:.2f} | {med['import_seconds']:.2f} "
                  f"| {med['peak_mib']:.0f} | {extra:.0f} | {extra / weight_mib:.2f} "
                  f"| {med['mapped_resident_mib']:.1f} |")  # fmt: skip


if __name__ == "__main__":
    main()
