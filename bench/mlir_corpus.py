"""Every model of the corpora sent through MLIR text and back, custom and generic form:
are its weights bit for bit the same, and its outputs?

Corpora: the real-exporter ONNX zoo of bench/make_zoo.py (dev-time, torch's two
exporters; `name.onnx`, `name.inputs.npz`, `manifest.json`), skipped with a note
when absent, then the TensorFlow corpora that ship with the tests
(tests/formats/tensorflow/corpus, tests/formats/mlir/corpus). For each model the
table gives its dense constants, how many of them print an element in hex (a
NaN, an infinity, a whole number past 2^24: what xDSL 0.74 reads back wrong),
then for each form whether every constant came back bit for bit and whether
onnxruntime's outputs on the ONNX export are the same bits as before the round
trip (on the model's stored inputs). The last line counts the models that
differ; the exit status is 1 if any does.

Usage: python bench/mlir_corpus.py [--zoo /work/zoo] [--models a,b]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from graph_opt import api  # noqa: E402
from graph_opt.testing.text_round_trip import (  # noqa: E402
    dense_values,
    hex_elements,
    onnx_outputs,
    through_mlir,
)

TF_CORPORA = [
    ROOT / "tests" / "formats" / "tensorflow" / "corpus",
    ROOT / "tests" / "formats" / "mlir" / "corpus",
]


def zoo_models(zoo: Path) -> list[tuple[str, Path, dict[str, np.ndarray]]]:
    manifest = json.loads((zoo / "manifest.json").read_text())
    models = []
    for entry in manifest:
        name = entry["name"]
        with np.load(zoo / f"{name}.inputs.npz") as data:
            inputs = {k: data[k] for k in data.files}
        models.append((name, zoo / f"{name}.onnx", inputs))
    return models


def tf_models() -> list[tuple[str, Path, dict[str, np.ndarray]]]:
    models = []
    for corpus in TF_CORPORA:
        for npz in sorted(corpus.glob("*.npz")):
            with np.load(npz) as data:
                inputs = {
                    k.removeprefix("in:"): data[k]
                    for k in data.files
                    if k.startswith("in:")
                }
            models.append((npz.stem, npz.with_suffix(".pb"), inputs))
    return models


def row(name: str, path: Path, inputs: dict[str, np.ndarray]) -> list[str]:
    started = time.perf_counter()
    module = api.load(path)
    weights = dense_values(module)
    outputs = onnx_outputs(module, inputs)
    cells, hex_count = [], 0
    for generic in (False, True):
        back, text = through_mlir(module, generic)
        hex_count = hex_elements(text)
        cells.append("same" if dense_values(back) == weights else "DIFFER")
        cells.append("same" if onnx_outputs(back, inputs) == outputs else "DIFFER")
    seconds = f"{time.perf_counter() - started:.1f}"
    return [name, str(len(weights)), str(hex_count), *cells, seconds]


HEADER = [
    "model",
    "constants",
    "hex",
    "custom: weights",
    "outputs",
    "generic: weights",
    "outputs",
    "s",
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", type=Path, default=Path("/work/zoo"))
    parser.add_argument("--models", help="comma-separated names (default: all)")
    args = parser.parse_args()
    models = tf_models()
    if (args.zoo / "manifest.json").is_file():
        models = zoo_models(args.zoo) + models
    else:
        print(f"no ONNX zoo at {args.zoo} (bench/make_zoo.py writes it)")
    if args.models:
        wanted = set(args.models.split(","))
        models = [m for m in models if m[0] in wanted]
    rows = []
    for name, path, inputs in models:
        print(f"... {name}", file=sys.stderr, flush=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # import remarks: not what is measured
            try:
                rows.append(row(name, path, inputs))
            except Exception as error:  # noqa: BLE001 - one broken model must not stop the table
                reason = f"FAIL({type(error).__name__}: {error})"[:60]
                rows.append([name, reason] + ["-"] * (len(HEADER) - 2))
    widths = [max(len(r[i]) for r in [HEADER, *rows]) for i in range(len(HEADER))]
    for cells in [HEADER, *rows]:
        print(" | ".join(c.ljust(w) for c, w in zip(cells, widths)))
    differing = [r[0] for r in rows if "DIFFER" in r or r[1].startswith("FAIL")]
    print(
        f"\n{len(rows)} models, {len(differing)} differ after the round trip"
        + (f": {', '.join(differing)}" if differing else "")
    )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
