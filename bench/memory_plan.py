"""Peak activation memory of models before and after the memory passes.

For each model: the planner's peak (default device, unknown dims at
--dynamic-dim), the greedy arena's size, the lowest peak any swap can reach
(the largest bytes one op reads and makes), then the peak after
`schedule-memory`, after `swap{budget=FLOOR}` and after
`recompute{budget=FLOOR},swap{budget=FLOOR}`, each with the host's peak
and the interpreter's max |difference| on the stored inputs (must be 0; n/a
where the interpreter cannot run the model). Each pass runs on a fresh import.

Usage: python bench/memory_plan.py [--zoo /work/zoo] [--models unet_ts,resnet_tiny_ts]
"""

from __future__ import annotations

import argparse
import warnings
from pathlib import Path

import numpy as np
from xdsl.utils.exceptions import InterpretationError

from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.interpreter import run_function
from graph_opt.memory import plan_function
from graph_opt.memory.plan import op_floor
from graph_opt.remarks import GraphOptWarning

DEFAULT_MODELS = (
    "unet_ts,unet_dynamo,resnet_tiny_ts,resnet_tiny_dynamo,mobilenet_v3_ts,segformer_ts"
)


def device_peaks(module, dynamic_dim: int) -> tuple[int, int]:
    plan = plan_function(entry_function(module), dynamic_dim)
    host = plan.devices.get("/device:CPU:0")
    return plan.devices[""].peak_bytes, host.peak_bytes if host else 0


def after(path: Path, pipeline: str, inputs, expected, dynamic_dim: int):
    """(device peak, host peak, max |difference| or None where the interpreter
    cannot run the model)."""
    module = api.load(str(path))
    api.run(module, pipeline)
    error = None
    if expected is not None:
        got = run_function(module, inputs)
        error = max(float(np.max(np.abs(g - e))) for g, e in zip(got, expected))
    return (*device_peaks(module, dynamic_dim), error)


def reference(module, inputs):
    try:
        return run_function(module, inputs)
    except InterpretationError:
        return None


def kib(n: int) -> str:
    return f"{n / 1024:.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", default="/work/zoo")
    parser.add_argument("--models", default=DEFAULT_MODELS)
    parser.add_argument("--dynamic-dim", type=int, default=1)
    args = parser.parse_args()
    warnings.simplefilter("ignore", GraphOptWarning)
    d = args.dynamic_dim
    print(
        "| model | ops | peak KiB | arena KiB | one-op floor KiB | schedule-memory "
        "| swap | host KiB | recompute+swap | host KiB | max diff |"
    )
    print("| --- " * 11 + "|")
    for name in args.models.split(","):
        path = Path(args.zoo) / f"{name}.onnx"
        module = api.load(str(path))
        function = entry_function(module)
        stored = np.load(Path(args.zoo) / f"{name}.inputs.npz")
        inputs = {k: stored[k] for k in stored.files}
        expected = reference(module, inputs)
        plan = plan_function(function, d)
        base = plan.devices[""]
        floor = op_floor(plan.liveness, "")[0]
        scheduled, _, e1 = after(
            path, f"schedule-memory{{dynamic-dim={d}}}", inputs, expected, d
        )
        swap = f"swap{{budget={floor} dynamic-dim={d}}}"
        swapped, host, e2 = after(path, swap, inputs, expected, d)
        both, both_host, e3 = after(
            path,
            f"recompute{{budget={floor} dynamic-dim={d}}},{swap}",
            inputs,
            expected,
            d,
        )
        print(
            f"| {name} | {len(plan.liveness.steps)} | {kib(base.peak_bytes)} "
            f"| {kib(base.arena.size)} | {kib(floor)} | {kib(scheduled)} "
            f"| {kib(swapped)} | {kib(host)} | {kib(both)} | {kib(both_host)} "
            f"| {'n/a' if expected is None else f'{max(e1, e2, e3):.1e}'} |"
        )


if __name__ == "__main__":
    main()
