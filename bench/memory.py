"""Peak memory of graph-opt's ONNX round trip and `optimize` against `onnx.load` + `onnx.save`.

Each command runs in its own process and its peak RSS (its own `VmHWM`, see
peak_rss.py) is the median over --runs: the floor (`python -c` loading and
saving the model with onnx), `graph-opt m.onnx -t onnx -o out.onnx` (import
and export) and `graph-opt m.onnx -p optimize -t onnx -o out.onnx`. Ratios are
to the floor of the same run.

Models (seeded random weights, graph_opt.testing.model_zoo): ResNet-50,
a BERT-base-sized encoder (12 layers, hidden 768, sequence 128) and ViT-B/16.

Usage: python bench/memory.py [--runs 3] [--models resnet50,bert_base,vit_b16]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.peak_rss import graph_opt, python_code, run_measured  # noqa: E402

FLOOR_SCRIPT = "import onnx, sys; onnx.save(onnx.load(sys.argv[1]), sys.argv[2])"


def make_model(name: str) -> onnx.ModelProto:
    from graph_opt.testing import model_zoo

    return {
        "resnet50": model_zoo.resnet,
        "bert_base": lambda: model_zoo.bert_encoder(
            layers=12, hidden=768, heads=12, seq=128
        ),
        "vit_b16": model_zoo.vit,
    }[name]()


def commands(src: Path, dst: Path) -> dict[str, list[str]]:
    return {
        "onnx load+save": python_code(FLOOR_SCRIPT, str(src), str(dst)),
        "round trip": graph_opt(str(src), "-t", "onnx", "-o", str(dst)),
        "optimize": graph_opt(str(src), "-p", "optimize", "-t", "onnx", "-o", str(dst)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--models", default="resnet50,bert_base,vit_b16")
    args = parser.parse_args()
    print(
        f"{'model':<10} {'file MB':>8} {'onnx load+save MB':>18} {'round trip MB':>14}"
        f" {'ratio':>6} {'optimize MB':>12} {'ratio':>6} {'optimize s':>11}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models.split(","):
            src, dst = Path(tmp) / f"{name}.onnx", Path(tmp) / "out.onnx"
            onnx.save(make_model(name), src)
            peaks: dict[str, float] = {}
            optimize_seconds = 0.0
            for label, command in commands(src, dst).items():
                runs = [run_measured(command) for _ in range(args.runs)]
                peaks[label] = statistics.median(peak for _, peak, _ in runs)
                if label == "optimize":
                    optimize_seconds = statistics.median(s for s, _, _ in runs)
            floor = peaks["onnx load+save"]
            print(
                f"{name:<10} {src.stat().st_size / 2**20:>8.0f} {floor:>18.0f}"
                f" {peaks['round trip']:>14.0f} {peaks['round trip'] / floor:>6.2f}"
                f" {peaks['optimize']:>12.0f} {peaks['optimize'] / floor:>6.2f}"
                f" {optimize_seconds:>11.2f}"
            )


if __name__ == "__main__":
    main()
