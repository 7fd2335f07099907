"""What `--pass-statistics` costs: each pass of a pipeline on generated models,
run without statistics and with them (`api.run(..., statistics=[...])`:
counting ops before and after, looking up each reported count's declared
description), in the same process on fresh imports of the same model.

The table gives the median seconds of --runs runs each way and their ratio,
and how many counts the run reported (rewrites and the pass's declared counts).

Usage: python bench/pass_statistics.py [--runs 5] [--models resnet50,bert]
       [--pipeline fold-bn,fuse-ops,optimize]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from graph_opt import api  # noqa: E402 - after making the repository importable
from graph_opt.testing import model_zoo  # noqa: E402

MODELS = {"resnet50": model_zoo.resnet, "bert": model_zoo.bert_encoder}


def timed(model, spec: str, collect: bool) -> tuple[float, int]:
    """Seconds of one run of `spec` on a fresh import; the counts reported."""
    module = api.load(model)
    stats = [] if collect else None
    start = time.perf_counter()
    api.run(module, spec, statistics=stats)
    seconds = time.perf_counter() - start
    reported = sum(len(s.counters) + sum(s.rewrites.values()) for s in stats or [])
    return seconds, reported


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--pipeline", default="fold-bn,fuse-ops,optimize")
    args = parser.parse_args()
    print(
        "| model | pass | off (s) | on (s) | on / off | counts |\n"
        "| --- | --- | --- | --- | --- | --- |"
    )
    for name in args.models.split(","):
        model = MODELS[name]()
        for spec in args.pipeline.split(","):
            timed(model, spec, True)  # warm-up: imports, caches
            off, on, reported = [], [], 0
            for _ in range(args.runs):
                off.append(timed(model, spec, False)[0])
                seconds, reported = timed(model, spec, True)
                on.append(seconds)
            off_s, on_s = statistics.median(off), statistics.median(on)
            print(
                f"| {name} | {spec} | {off_s:.3f} | {on_s:.3f} | "
                f"{on_s / off_s:.2f} | {reported} |"
            )


if __name__ == "__main__":
    main()
