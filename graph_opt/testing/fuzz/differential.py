"""Differential checks of random valid graphs: every pipeline against a
reference, with a tolerance of RTOL of the output's scale.

ONNX: import, run the pipeline, export, run in onnxruntime, against
onnxruntime on the original model (and graph-opt's interpreter on the import).
TensorFlow: graph-opt's interpreter after each pipeline against the
interpreter on the fresh import, and onnxruntime on the export.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import onnx

RTOL = 1e-4
PIPELINES = (
    "",
    "prune",
    "fold-constants",
    "fold-bn",
    "fuse-ops",
    "convert-layout",
    "convert-layout{target=NHWC}",
    "refine-shapes",
    "optimize",
    "cse,dce,canonicalize",
    "fold-bn,fuse-ops,convert-layout,fold-constants,refine-shapes",
)
"""Every graph-opt pass that needs no side input (calibrate, quantize and
convert-to-int need sample data, lower-to-tosa leaves ONNX, partition-pattern a
pattern), alone and in pipelines; "" is the plain round trip."""


@dataclass(frozen=True)
class Failure:
    kind: str
    """"mismatch" (a wrong number) or "crash" (an exception on a valid graph)."""
    pipeline: str
    detail: str


def compare(expected: Sequence[np.ndarray], actual: Sequence[np.ndarray]) -> str | None:
    """Why `actual` differs from `expected` beyond RTOL of each output's scale, or None."""
    if len(expected) != len(actual):
        return f"{len(actual)} outputs, expected {len(expected)}"
    for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
        e, a = np.asarray(e), np.asarray(a)
        if e.shape != a.shape:
            return f"output {i}: shape {a.shape}, expected {e.shape}"
        scale = float(np.max(np.abs(e))) if e.size else 0.0
        error = float(np.max(np.abs(e.astype(np.float64) - a))) if e.size else 0.0
        if not error <= RTOL * max(scale, 1e-3):
            return f"output {i}: max error {error:.3g} for scale {scale:.3g}"
    return None


def run_onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 4
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def check_onnx(
    model: onnx.ModelProto,
    feeds: dict[str, np.ndarray],
    pipelines: Sequence[str] = PIPELINES,
) -> list[Failure]:
    from graph_opt import api
    from graph_opt.formats.onnx.exporter import export_module
    from graph_opt.interpreter import run_function

    expected = run_onnxruntime(model, feeds)
    failures = []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        for pipeline in pipelines:
            stage = "import"
            try:
                module = api.load(model)
                if not pipeline:
                    stage = "interpreter"
                    why = compare(expected, run_function(module, list(feeds.values())))
                    if why:
                        failures.append(Failure("mismatch", "interpreter", why))
                    module = api.load(model)
                stage = "passes"
                if pipeline:
                    api.run(module, pipeline)
                stage = "export"
                exported = export_module(module)
                stage = "onnxruntime on the export"
                why = compare(expected, run_onnxruntime(exported, feeds))
            except Exception as e:  # any exception on a valid graph is a finding
                failures.append(Failure("crash", pipeline, f"{stage}: {_line(e)}"))
                continue
            if why:
                failures.append(Failure("mismatch", pipeline, why))
    return failures


def check_graph_def(
    graph, outputs: Sequence[str], x: np.ndarray, pipelines: Sequence[str] = PIPELINES
) -> list[Failure]:
    from graph_opt import api
    from graph_opt.formats.onnx.exporter import export_module
    from graph_opt.formats.tensorflow import import_graph_def
    from graph_opt.interpreter import run_function

    failures = []
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            expected = run_function(import_graph_def(graph, outputs=outputs), [x])
        except Exception as e:  # the generator makes valid graphs only
            return [Failure("crash", "import", _line(e))]
        for pipeline in pipelines:
            stage = "import"
            try:
                module = import_graph_def(graph, outputs=outputs)
                stage = "passes"
                if pipeline:
                    api.run(module, pipeline)
                stage = "interpreter"
                why = compare(expected, run_function(module, [x]))
                if why:
                    failures.append(Failure("mismatch", pipeline, why))
                stage = "export"
                exported = export_module(module)
                stage = "onnxruntime on the export"
                feeds = {exported.graph.input[0].name: x}
                why = compare(expected, run_onnxruntime(exported, feeds))
            except Exception as e:  # any exception on a valid graph is a finding
                failures.append(Failure("crash", pipeline, f"{stage}: {_line(e)}"))
                continue
            if why:
                failures.append(Failure("mismatch", f"{pipeline} (export)", why))
    return failures


def _line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return f"{type(error).__name__}: {lines[0] if lines else ''}"[:300]
