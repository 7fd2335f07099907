"""Cost of checking every attribute value of a TensorFlow graph before import
(`attr_support.refused_values`) against the whole import, on the committed
TensorFlow corpus; medians of several runs, the ratio from the same runs.

Usage: python bench/tf_attr_check.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from graph_opt.formats.tensorflow import import_graph_def, load_graph_def
from graph_opt.formats.tensorflow.attr_support import refused_values

CORPUS = Path(__file__).resolve().parent.parent / "tests/formats/tensorflow/corpus"
GRAPHS = ["mobilenet_v2.pb", "resnet50.pb", "efficientnet_b0.pb", "densenet.pb"]


def median_seconds(run, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    runs = parser.parse_args().runs
    print("| graph | nodes | attr check ms | import ms | check / import |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name in GRAPHS:
        graph = load_graph_def(str(CORPUS / name))
        check = median_seconds(lambda g=graph: refused_values(g.node), runs)
        whole = median_seconds(lambda g=graph: import_graph_def(g), runs)
        print(
            f"| {name} | {len(graph.node)} | {check * 1e3:.1f} | {whole * 1e3:.0f} "
            f"| {check / whole:.1%} |"
        )


if __name__ == "__main__":
    main()
