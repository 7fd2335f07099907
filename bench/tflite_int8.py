"""int8 graphs as .tflite in TFLite's interpreter, and as QDQ ONNX in
onnxruntime, against graph-opt's interpreter, bit for bit.

The models: the corpus's tfmot QAT model (tf/qat_conv_bn, QAT path:
`optimize,quantize,convert-to-int`, float and integer io), and the PTQ corpus
of bench/quantize_corpus.py (the TensorFlow CNNs; the zoo's ONNX CNNs when
--zoo names bench/make_zoo.py's folder, made NHWC by
`convert-layout{target=NHWC}` first, as TFLite takes them; the TensorFlow ones
from their frozen graphs, as bench/int8_iree.py), each `optimize`,
cut at their logits (a final softmax dropped, as bench/int8_iree.py does:
TFLite has no int8 layer with a float result for it), calibrated on
--samples seeded normal inputs, `quantize{per-channel=true}` and
`convert-to-int`. The int8 graph is exported (`graph_opt.formats.
tflite.exporter`) and run by TF's tf.lite.Interpreter (or ai-edge-litert's) on
--inputs other seeded inputs, each output compared with graph-opt's
interpreter on the int8 graph (what `graph-opt-run` prints).

Columns: `ops` TFLite operators; `values` compared; then values that differ,
and the largest difference in output steps (below 1: the float output of a
DEQUANTIZE differs in its last bits), for the graph converted with each
`convert-to-int{recipe=...}` in the runtime it follows: `tosa xnnpack` /
`tosa builtin`, the default recipe in the default interpreter (XNNPACK
delegate) and in TFLite's builtin kernels (no delegate); `xnnpack`
(recipe=xnnpack, default interpreter); `builtin` (recipe=tflite-builtin,
OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES); `reference`
(recipe=tflite-reference, BUILTIN_REF); `onnxruntime`: the default recipe's
ONNX export (QDQ) in onnxruntime's CPU provider. A model that cannot be
exported shows why.

Usage: python bench/tflite_int8.py [--zoo /work/zoo] [--inputs 16] [--samples 8]
       [--models qat_conv_bn,mobilenet_v2]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

COLUMNS = ["model", "ops", "values", "tosa xnnpack", "tosa builtin", "xnnpack",
           "builtin", "reference", "onnxruntime", "notes"]  # fmt: skip
RECIPE_COLUMNS = [("tosa xnnpack", "tosa", "xnnpack"),
                  ("tosa builtin", "tosa", "tflite-builtin"),
                  ("xnnpack", "xnnpack", "xnnpack"),
                  ("builtin", "tflite-builtin", "tflite-builtin"),
                  ("reference", "tflite-reference", "tflite-reference")]  # fmt: skip
"""(column, convert-to-int recipe, runtime running it)."""


def compare(module, data: bytes, inputs, runtime: str) -> tuple[int, int, float]:
    """(values, differing, max steps) of TFLite's outputs in `runtime` against
    graph-opt's."""
    from quantize_corpus import output_step

    from graph_opt.interpreter import run_function
    from graph_opt.testing.tflite_runtime import tflite_outputs

    step = output_step(module) or 1.0
    values = differing = 0
    largest = 0.0
    for x, got in zip(inputs, tflite_outputs(data, runtime, inputs), strict=True):
        got = got.astype(np.float64)
        want = run_function(module, [x])[0].astype(np.float64)
        values += got.size
        differing += int((got != want).sum())
        largest = max(largest, float(np.abs(got - want).max()) / step)
    return values, differing, largest


def onnxruntime_cell(module, inputs) -> str:
    """The int8 graph's ONNX export (QDQ) in onnxruntime, against graph-opt's."""
    import onnxruntime as ort
    from quantize_corpus import output_step

    from graph_opt.formats.errors import FrontendError
    from graph_opt.formats.onnx.exporter import export_module
    from graph_opt.interpreter import run_function

    try:
        model = export_module(module)
    except FrontendError as error:
        return f"refused: {error}"
    options = ort.SessionOptions()
    options.log_severity_level = 3
    runner = ort.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"]
    )
    name = runner.get_inputs()[0].name
    step = output_step(module) or 1.0
    differing, largest = 0, 0.0
    for x in inputs:
        got = runner.run(None, {name: x})[0].astype(np.float64)
        want = run_function(module, [x])[0].astype(np.float64)
        differing += int((got != want).sum())
        largest = max(largest, float(np.abs(got - want).max()) / step)
    return cell((0, differing, largest))


def cell(result: tuple[int, int, float]) -> str:
    _, differing, largest = result
    return f"{differing} ({largest:.2g} steps)" if differing else "0"


def row(name: str, build, inputs) -> dict:
    """Export the int8 graph `build(options)` gives with each recipe and
    compare it in the runtime that recipe follows."""
    from graph_opt.formats.errors import FrontendError
    from graph_opt.formats.tflite.exporter import tflite_bytes
    from graph_opt.formats.tflite.flatbuffer import operator_names

    module = build("")
    try:
        data = tflite_bytes(module)
    except FrontendError as error:
        ort_cell = onnxruntime_cell(module, inputs)
        return {"model": name, "onnxruntime": ort_cell, "notes": f"refused: {error}"}
    result = {"model": name, "ops": len(operator_names(data)), "notes": ""}
    for column, recipe, runtime in RECIPE_COLUMNS:
        converted = module if recipe == "tosa" else build(f"{{recipe={recipe}}}")
        values = compare(converted, tflite_bytes(converted), inputs, runtime)
        result["values"] = str(values[0])
        result[column] = cell(values)
    result["onnxruntime"] = onnxruntime_cell(module, inputs)
    return result


def qat_rows(count: int) -> list[dict]:
    from quantize_corpus import TF_CORPUS

    from graph_opt import api
    from graph_opt.formats.tensorflow.saved_model import import_saved_model

    saved = TF_CORPUS / "qat_conv_bn_saved_model"
    rng = np.random.default_rng(1)
    shape = (1, 16, 16, 3)
    rows = []
    for io, options in (("float io", ""), ("int8 io", "integer-io=true")):

        def build(extra, options=options):
            joined = " ".join(o for o in (options, extra.strip("{}")) if o)
            pipeline = f"optimize,quantize,convert-to-int{{{joined}}}"
            return api.run(import_saved_model(saved), pipeline)

        if options:
            inputs = [
                rng.integers(-128, 128, shape).astype(np.int8) for _ in range(count)
            ]
        else:
            inputs = [
                (rng.standard_normal(shape) * 2).astype(np.float32)
                for _ in range(count)
            ]
        rows.append(row(f"qat/qat_conv_bn ({io})", build, inputs))
    return rows


def ptq_rows(models, samples: int, count: int) -> list[dict]:
    from int8_iree import drop_final_softmax
    from lowering_coverage import load_tensorflow
    from quantize_corpus import calibrate_and_quantize

    from graph_opt import api

    rows = []
    for model in models:
        rng = np.random.default_rng(0)
        calibration = rng.standard_normal((samples, *model.shape)).astype(np.float32)
        inputs = [
            rng.standard_normal(model.shape).astype(np.float32) for _ in range(count)
        ]
        nchw = model.name.startswith("zoo/")

        quantized = []

        def build(
            options,
            model=model,
            calibration=calibration,
            nchw=nchw,
            quantized=quantized,
        ):
            if not quantized:  # calibrated once, converted once per recipe
                name = model.name.split("/")[1]
                module = model.load() if nchw else load_tensorflow(name)[0]
                layout = ",convert-layout{target=NHWC}" if nchw else ""
                api.run(module, f"refine-shapes,optimize{layout}")
                drop_final_softmax(module)
                with tempfile.TemporaryDirectory() as work:
                    calibrate_and_quantize(module, model, calibration, Path(work))
                quantized.append(module)
            return api.run(quantized[0].clone(), f"convert-to-int{options}")

        try:
            rows.append(row(model.name, build, inputs))
        except Exception as error:  # noqa: BLE001 - a row says why the model failed
            rows.append({"model": model.name, "notes": f"failed: {str(error)[:120]}"})
        print(rows[-1], file=sys.stderr, flush=True)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", type=Path)
    parser.add_argument("--inputs", type=int, default=16)
    parser.add_argument("--samples", type=int, default=8)
    parser.add_argument("--models", default="", help="comma-separated names")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    from quantize_corpus import tf_models, zoo_models

    wanted = set(filter(None, args.models.split(",")))
    models = [m for m in tf_models() if m.name != "tf/qat_conv_bn"]
    if args.zoo is not None:
        models += zoo_models(args.zoo, Path(tempfile.mkdtemp()))
    models = [m for m in models if not wanted or m.name.split("/")[1] in wanted]
    rows = qat_rows(args.inputs) if not wanted or "qat_conv_bn" in wanted else []
    rows += ptq_rows(models, args.samples, args.inputs)
    print("| " + " | ".join(COLUMNS) + " |")
    print("|" + "---|" * len(COLUMNS))
    for r in rows:
        print("| " + " | ".join(str(r.get(c, "-")) for c in COLUMNS) + " |")


if __name__ == "__main__":
    main()
