"""Fixed activation ranges (quantize{fixed-ranges=relu6}, TF contrib.quantize's
FixedQuantize) against calibrated ones, on a MobileNetV2-style model whose
activations are relu6.

For each number of calibration samples: calibrate on that many seeded
samples, then `quantize{per-channel=true}` with calibrated ranges only, or
with relu6's tensors at [0, 6]; both through `convert-to-int`. The error is
the int8 model's output against the float model's on --eval held-out
samples (max and mean |difference|), median over --seeds seeds; `fixed`
counts the fixed ranges used. Few samples see too narrow a relu6 range and
clip the held-out inputs; [0, 6] never clips but has a coarser step.

Usage: python bench/fixed_ranges.py [--samples 1,4,16] [--eval 16] [--seeds 3]
       [--width 8] [--size 32]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from pathlib import Path

import numpy as np

from graph_opt import api
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function
from graph_opt.testing import model_zoo


def inputs(count: int, size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return rng.standard_normal((count, 1, 3, size, size)).astype(np.float32)


def int8_errors(float_module, pipeline: str, held_out, expected):
    """(max |difference|, mean |difference|, fixed ranges used) of the int8 model."""
    module = float_module.clone()
    stats: list = []
    api.run(module, pipeline, statistics=stats)
    fixed = next(
        (s.counters.get("fixed ranges used", 0) for s in stats if s.name == "quantize"),
        0,
    )
    diffs = np.concatenate(
        [
            np.abs(run_function(module, [x])[0] - want).ravel()
            for x, want in zip(held_out, expected)
        ]
    )
    return float(diffs.max()), float(diffs.mean()), fixed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", default="1,4,16")
    parser.add_argument("--eval", type=int, default=16)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--width", type=int, default=8)
    parser.add_argument("--size", type=int, default=32)
    args = parser.parse_args()
    model = model_zoo.mobilenet_v2(args.width, args.size, classes=10, expansions=3)
    float_module = import_model(model)
    api.run(float_module, "fold-bn")
    print("| samples | ranges | max error | mean error | fixed |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for count in (int(c) for c in args.samples.split(",")):
            rows: dict[str, list[tuple[float, float, int]]] = {}
            for seed in range(args.seeds):
                held_out = inputs(args.eval, args.size, 1000 + seed)
                expected = [run_function(float_module, [x])[0] for x in held_out]
                path = Path(tmp) / f"samples_{count}_{seed}.npz"
                np.savez(path, input=inputs(count, args.size, seed))
                calibrate = f'calibrate{{inputs="{path}"}}'
                for label, quantize in (
                    ("calibrated", "quantize{per-channel=true}"),
                    (
                        "relu6 fixed",
                        "quantize{per-channel=true fixed-ranges=relu6}",
                    ),
                ):
                    pipeline = f"{calibrate},{quantize},convert-to-int"
                    rows.setdefault(label, []).append(
                        int8_errors(float_module, pipeline, held_out, expected)
                    )
            for label, runs in rows.items():
                worst = statistics.median(r[0] for r in runs)
                mean = statistics.median(r[1] for r in runs)
                print(
                    f"| {count} | {label} | {worst:.4f} | {mean:.5f} | {runs[0][2]} |"
                )


if __name__ == "__main__":
    main()
