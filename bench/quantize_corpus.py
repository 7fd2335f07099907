"""Full-integer quantization of every CNN in the real corpora, against
onnxruntime's quantize_static and TFLite's full-integer converter.

The models: the TensorFlow corpus (tests/formats/tensorflow/corpus, SavedModels
written by TensorFlow) and the zoo's models with convolutions (bench/make_zoo.py's
folder, `--zoo`, when present: MobileNetV3, ResNet, UNet, SegFormer and the two
detectors), with the batch fixed to 1. graph-opt runs `optimize`,
`calibrate` on --samples seeded normal inputs, `quantize{per-channel=true}`
(symmetric per-channel weights, asymmetric activations: onnxruntime's
settings below) and `convert-to-int`; the
float module after `optimize` is the reference (it matches TensorFlow and
onnxruntime on these models, see the corpus tests). Columns:

- `int8 MACs`: the share of conv and matrix-product MACs in nn.qconv,
  nn.qconv_transpose or nn.qmatmul;
  `float`: how many convs and matmuls stay float.
- `steps`: the largest difference between the int8 graph and its fake-quant
  graph evaluated in float64 (`graph_opt.interpreter.precise.run_float64`:
  the same grids, each level rounded as exact arithmetic does), in steps of
  the output's quantization (the dequantize feeding the result; "-" when the
  output is float). What can still part them, at values within about 1e-6
  steps of a tie: the integer graph's input quantize (x / scale in float32,
  as ONNX's QuantizeLinear), its 31-bit rescale multipliers (relative error
  below 2^-31), and the fake-quant graph's biases, on the accumulator's int32
  grid only to float32 precision.
- `steps int io`: the int8 graph converted with
  `convert-to-int{integer-io=true}` (int8 input and output), fed the int8
  codes of each input (the levels of the fake-quant graph's input fake
  quant, so both see identical input levels), against the float64 fake-quant
  graph fed the dequantized codes, in output steps (its output read through
  the recorded scale and zero point); "-" when the input or output stays float.
- `steps f32`: the same as `steps` against the fake-quant graph evaluated in float32
  (TensorFlow's FakeQuant arithmetic), which is no stable reference: it moves
  `fq ulp` steps when its input moves by one ulp, so no integer graph, however
  exactly it rounds, can be guaranteed within one step of it.
- `f32~f64`: how far apart the two evaluations of the fake-quant graph are,
  in output steps: a level one of them rounds the other way at a near-tie
  moves later layers, by more steps the more the network amplifies a change
  of its input (see `f spread`).
- `fq ulp`: how far the float32 fake-quant graph moves, in output steps, when
  every input moves by one float32 ulp (up, then down; the largest over the
  --eval inputs): a value rounded at a tie in float32 flips one level, and the
  flip travels to the output.
- `go err`, `ort err`, `tflite err`: max |output - float| / max |float| over
  --eval other seeded inputs; `go rms`, `ort rms`: the root mean square of
  output - float over all of them, / max |float| (less sensitive to the one
  worst logit than the max); `go l2`, `ort l2`: the relative error of each
  input's output, ||output - float||_2 / ||float||_2, averaged over the
  inputs (the usual relative error, one number per input rather than one
  element); for graph-opt's int8 graph (reference
  interpreter), onnxruntime's quantize_static (QDQ, int8, per-channel
  symmetric weights, asymmetric activations, MinMax on the same samples; run
  with onnxruntime's int8 kernels) of the model (TF models: graph-opt's ONNX
  export of the float graph), and TFLite's converter (TF2's, on the frozen
  graph wrapped as a concrete function: TF1's `from_frozen_graph` with these
  post-training settings gives the QAT model's filter a zero point that
  TFLite's int8 conv refuses) with the same samples as representative data (TF
  models, when `--tf-python` names a Python with TensorFlow; its `int8 ops`
  column counts convs and fully-connected ops with int8 inputs).
- `f spread`: how much the float output depends on the input: its standard
  deviation over the --eval inputs, / mean |float| (averaged over the
  outputs). Near 0 (about 1e-7 on randomly initialized deep networks whose
  batch norm statistics do not match their activations, which fade out
  before the classifier, leaving its bias; the makers of both corpora measure
  those statistics on data for that reason), the float output is one
  constant, and the errors measure how quantization noise moves it, with the
  max one draw.
- `flips`, `max tie`: `bench/quantize_trace.py`'s tensor-by-tensor view.
  Each fake-quantized tensor of the float64 fake-quant graph is computed from
  the int8 graph's levels of its inputs, and compared with the int8 graph's
  levels of it; `flips` counts the elements where they differ (over all
  tensors and inputs, float outputs included, e.g. before a softmax), `max
  tie` the largest distance, in steps, of a flipped element's exact value
  from the rounding tie between the two levels ("-": no flip).
- `check`: "ok", or what misses the goal: `float` (a conv or matmul stayed
  float), `flip` (a level flips farther than NEAR_TIE = 1e-3 steps from a
  tie: the integer graph computes something other than its fake-quant
  graph), `l2` (mean relative error above onnxruntime's, as printed, three
  digits). A last line counts the models that miss it.
- `notes`: what the check does not count, printed so that it is seen:
  `steps` (more than one output step from the float64 fake-quant graph, every
  flip a near-tie: float32 or fixed-point rounding of a value within 1e-3
  steps of a tie, carried to the output by the network's gain; `fq ulp`
  shows the fake-quant graph moving as far for one ulp of its input), `err`
  and `rms` (above onnxruntime's: the max is one element of the
  --eval x outputs, the rms dominated by the few inputs with the largest
  errors; bench/quantize_vs_ort.py traces them).

--eval defaults to 32 inputs: the max error is one output of one input, and
with 8 inputs which models it flags changed with the input count (the zoo's
MobileNetV3 missed at 8 inputs and not at 32, EfficientNet the other way
round); `l2` adds the standard per-input relative error, which the max and
rms (dominated by the inputs with the largest outputs) leave out.

The detectors (boxes, scores and labels after a top-k or NMS selection) get a
table of their own: a quantized model may keep a slightly different set of
boxes, so their outputs are compared as detections. `recall`: the share of
the float model's detections (score > 0) that the quantized model also
reports (same label, IoU >= 0.5; greedy, best score first); `score`: the
largest score difference of a matched pair, `mean` their mean. Their
`check` flags `float`, `recall` (below onnxruntime's) and `mean` (above
onnxruntime's); `notes` shows `score` above onnxruntime's (one pair decides
it, often of neighbouring anchors).

Usage: python bench/quantize_corpus.py [--zoo /work/zoo] [--samples 16] [--eval 32]
       [--tf-python /work/tfenv/bin/python] [--models a,b]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

TF_CORPUS = Path(__file__).parents[1] / "tests/formats/tensorflow/corpus"
TF_CNNS = ("mobilenet_v2", "mobilenet_v3", "resnet50", "efficientnet_b0", "densenet",
           "dilated_conv_bn", "qat_conv_bn")  # fmt: skip
ZOO_CNNS = ("mobilenet_v3", "resnet_tiny", "unet", "segformer")
ZOO_DETECTORS = ("box_detector", "nms_detector")
QUANTIZE = "quantize{per-channel=true}"
DETECTOR_COLUMNS = ["model", "int8 MACs", "float", "go recall", "ort recall",
                    "go score", "ort score", "go mean", "ort mean", "check", "notes"]  # fmt: skip
LINEAR_OPS = (
    "nn.conv",
    "nn.fused_conv",
    "nn.conv_transpose",
    "nn.matmul",
    "nn.fused_matmul",
    "nn.gemm",
)


@dataclass
class Model:
    name: str
    load: Callable[[], object]
    """() -> a fresh import of the model (a module)."""
    input_name: str
    shape: tuple[int, ...]
    onnx_path: Path | None = None
    frozen_graph: Path | None = None
    """The TensorFlow frozen graph TFLite converts."""


def tf_models() -> list[Model]:
    from graph_opt.formats.tensorflow.saved_model import import_saved_model

    models = []
    for name in TF_CNNS:
        data = np.load(TF_CORPUS / f"{name}.npz")
        shape = data["in:input"].shape
        directory = TF_CORPUS / f"{name}_saved_model"

        def load(directory=directory, shape=shape):
            return import_saved_model(directory, input_shapes={"input": shape})

        frozen_graph = TF_CORPUS / f"{name}.pb"
        models.append(
            Model(f"tf/{name}", load, "input", shape, frozen_graph=frozen_graph)
        )
    return models


def zoo_models(zoo: Path, work: Path, sources=ZOO_CNNS) -> list[Model]:
    import onnx

    from graph_opt.formats.onnx.importer import import_model
    from graph_opt.formats.onnx.input_shapes import fix_input_shapes

    models = []
    for source in sources:
        for exporter in ("ts", "dynamo"):
            path = zoo / f"{source}_{exporter}.onnx"
            if not path.exists():
                continue
            model = onnx.load(path)
            graph_input = model.graph.input[0]
            shape = (
                1,
                *np.load(zoo / f"{path.stem}.inputs.npz")[graph_input.name].shape[1:],
            )
            fix_input_shapes(model, {graph_input.name: list(shape)})
            static = work / path.name
            onnx.save(model, static)

            def load(static=static):
                return import_model(onnx.load(static))

            models.append(
                Model(
                    f"zoo/{path.stem}", load, graph_input.name, shape, onnx_path=static
                )
            )
    return models


def relative_error(outputs: list[np.ndarray], reference: list[np.ndarray]) -> float:
    scale = max(float(np.abs(r).max()) for r in reference)
    return max(float(np.abs(o - r).max()) for o, r in zip(outputs, reference)) / scale


def relative_rms(outputs: list[np.ndarray], reference: list[np.ndarray]) -> float:
    scale = max(float(np.abs(r).max()) for r in reference)
    squares = [np.square(o.astype(np.float64) - r) for o, r in zip(outputs, reference)]
    return float(np.sqrt(np.mean(np.concatenate([q.ravel() for q in squares])))) / scale


def spread(reference: list[np.ndarray]) -> float:
    """The float output's standard deviation over the inputs / its mean magnitude."""
    stacked = np.stack(reference).astype(np.float64)
    return float(stacked.std(axis=0).mean() / np.abs(stacked).mean())


def relative_l2(outputs: list[np.ndarray], reference: list[np.ndarray]) -> float:
    """||output - float||_2 / ||float||_2 of each input, averaged."""
    return float(
        np.mean(
            [
                np.linalg.norm(o.astype(np.float64) - r) / np.linalg.norm(r)
                for o, r in zip(outputs, reference)
            ]
        )
    )


def as_printed(error: float) -> float:
    """An error to the three significant digits the table shows."""
    return float(f"{error:.2e}")


NEAR_TIE = 1e-3
"""A level flip whose exact value is this close to a rounding tie (in steps)
is float32 or fixed-point rounding; a farther one, a conversion that computes
something else."""


def shortfalls(row: dict) -> str:
    """What keeps a model from the goal: all layers int8, every int8 level
    that of the exact fake-quant graph but at near-ties, a mean relative
    error (l2) no worse than onnxruntime's."""
    missed = []
    if row["float"] != "0":
        missed.append("float")
    if row["max tie"] is not None and row["max tie"] > NEAR_TIE:
        missed.append("flip")
    if as_printed(row["go l2"]) > as_printed(row["ort l2"]):
        missed.append("l2")
    return ",".join(missed) or "ok"


def notes(row: dict) -> str:
    """What the check reads otherwise, printed beside it: more than one
    output step only through near-tie flips, a max or rms error above
    onnxruntime's."""
    noted = []
    if row["steps"] != "-" and float(row["steps"]) > 1:
        noted.append("steps")
    if as_printed(row["go err"]) > as_printed(row["ort err"]):
        noted.append("err")
    if as_printed(row["go rms"]) > as_printed(row["ort rms"]):
        noted.append("rms")
    return ",".join(noted) or "-"


def output_step(module) -> float | None:
    """The scale of the dequantize that gives the (first) result, if any."""
    from graph_opt.dialects.nn.qint import DequantizeOp
    from graph_opt.entry import entry_function

    returned = entry_function(module).body.block.last_op.operands[0].owner
    return float(returned.scales[0]) if isinstance(returned, DequantizeOp) else None


def fake_quantized(model: Model, samples, evals, work: Path):
    """(graph-opt's fake-quant module, the float module's outputs on `evals`,
    the float ONNX model onnxruntime quantizes): `optimize`, then calibrate on
    `samples` and QUANTIZE."""
    import onnx

    from graph_opt import api
    from graph_opt.interpreter import run_function

    module = model.load()
    api.run(module, "optimize")
    reference = [run_function(module, [x])[0] for x in evals]
    float_onnx = model.onnx_path
    if float_onnx is None:
        from graph_opt.formats.onnx.exporter import export_module

        float_onnx = work / "float.onnx"
        onnx.save(export_module(module), float_onnx)
    calibrate_and_quantize(module, model, samples, work)
    return module, reference, float_onnx


def calibrate_and_quantize(module, model: Model, samples, work: Path) -> None:
    """`calibrate` on `samples` (written to work/samples.npz), then QUANTIZE."""
    from graph_opt import api

    np.savez(work / "samples.npz", **{model.input_name: samples})
    api.run(module, f'calibrate{{inputs="{work / "samples.npz"}"}},{QUANTIZE}')


def graph_opt_row(model: Model, samples, evals, work: Path) -> dict:
    from quantize import nn_int8_share
    from quantize_trace import trace

    from graph_opt import api
    from graph_opt.interpreter import run_function
    from graph_opt.interpreter.precise import run_float64

    module, reference, float_onnx = fake_quantized(model, samples, evals, work)
    input_name = model.input_name
    fake_quant = [run_function(module, [x])[0] for x in evals]
    precise = [run_float64(module, [x])[0] for x in evals]
    perturbed = [
        run_function(module, [np.nextafter(x, np.float32(toward))])[0]
        for toward in (np.inf, -np.inf)
        for x in evals
    ]
    moved = max(
        float(np.abs(a - b).max()) for a, b in zip(perturbed, fake_quant + fake_quant)
    )
    fake_quant_module = module.clone()
    flipped, _ = trace(fake_quant_module.clone(), evals, summary=False)
    api.run(module, "convert-to-int")
    int8 = [run_function(module, [x])[0] for x in evals]
    step = output_step(module)

    def steps(reference, outputs=int8) -> str:
        if step is None:
            return "-"
        apart = max(float(np.abs(a - b).max()) for a, b in zip(outputs, reference))
        return f"{apart / step:.2f}"

    return {
        "reference": reference,
        "float_onnx": float_onnx,
        "input": input_name,
        "int8 MACs": f"{nn_int8_share(module):.0%}",
        "float": str(sum(op.name in LINEAR_OPS for op in module.walk())),
        "steps": steps(precise),
        "steps int io": integer_io_steps(fake_quant_module, evals),
        "flips": str(sum(t.flips for t in flipped)),
        "max tie": max((t.tie for t in flipped), default=None),
        "steps f32": steps(fake_quant),
        "f32~f64": steps(precise, fake_quant),
        "fq ulp": "-" if step is None else f"{moved / step:.2f}",
        "go err": relative_error(int8, reference),
        "go rms": relative_rms(int8, reference),
        "go l2": relative_l2(int8, reference),
    }


def integer_io_steps(fake_quant_module, evals) -> str:
    """The int8 graph with integer-io fed the codes of each input (its input
    fake quant's levels), against the float64 fake-quant graph fed the
    dequantized codes, in output steps; "-" when the input or the output
    stays float."""
    import warnings

    from graph_opt import api
    from graph_opt.dialects.nn.dtypes import numpy_dtype
    from graph_opt.dialects.nn.quant import FakeQuantOp
    from graph_opt.entry import entry_function
    from graph_opt.interpreter import run_function
    from graph_opt.interpreter.precise import run_float64
    from graph_opt.quantization.boundary import (
        boundary_quantization,
        dequantize_codes,
        quantize_codes,
    )
    from graph_opt.quantization.fake_quant_math import fake_quant
    from graph_opt.remarks import GraphOptWarning

    readers = [u.operation for u in entry_function(fake_quant_module).args[0].uses]
    integer = fake_quant_module.clone()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", GraphOptWarning)
        api.run(integer, "convert-to-int{integer-io=true}")
    function = entry_function(integer)
    in_q = boundary_quantization(function.arg_attrs, 0)
    out_q = boundary_quantization(function.res_attrs, 0)
    if in_q is None or out_q is None or not isinstance(readers[0], FakeQuantOp):
        return "-"
    fq = readers[0]
    dtype = np.dtype(numpy_dtype(function.function_type.inputs.data[0].element_type))
    apart = 0.0
    for x in evals:
        levels = fake_quant(x, fq.mins, fq.maxs, fq.bits, fq.is_narrow)
        codes = quantize_codes(levels, *in_q, dtype)
        (out,) = run_function(integer, [codes])
        (reference,) = run_float64(fake_quant_module, [dequantize_codes(codes, *in_q)])
        apart = max(
            apart, float(np.abs(dequantize_codes(out, *out_q) - reference).max())
        )
    return f"{apart / out_q[0]:.2f}"


def ort_quantized(float_onnx: Path, input_name: str, samples, work: Path) -> Path:
    """onnxruntime's quantize_static of the float model: the settings above."""
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Samples(CalibrationDataReader):
        def __init__(self):
            self.rest = iter(samples)

        def get_next(self):
            sample = next(self.rest, None)
            return None if sample is None else {input_name: sample}

    prepared, quantized = work / "prepared.onnx", work / "ort_qdq.onnx"
    quant_pre_process(str(float_onnx), str(prepared), skip_symbolic_shape=True)
    quantize_static(
        str(prepared), str(quantized), Samples(), quant_format=QuantFormat.QDQ,
        per_channel=True, activation_type=QuantType.QInt8,
        weight_type=QuantType.QInt8, calibrate_method=CalibrationMethod.MinMax,
        extra_options={"WeightSymmetric": True, "ActivationSymmetric": False},
    )  # fmt: skip
    return quantized


def ort_outputs(quantized: Path, input_name: str, evals) -> list[list[np.ndarray]]:
    import onnxruntime as ort

    session = ort.InferenceSession(str(quantized), providers=["CPUExecutionProvider"])
    return [session.run(None, {input_name: x}) for x in evals]


def ort_error(float_onnx: Path, input_name: str, samples, evals, reference, work):
    from quantize import qdq_int8_share

    quantized = ort_quantized(float_onnx, input_name, samples, work)
    outputs = [out[0] for out in ort_outputs(quantized, input_name, evals)]
    return (
        relative_error(outputs, reference),
        relative_rms(outputs, reference),
        relative_l2(outputs, reference),
        qdq_int8_share(quantized),
    )


def box_iou(box: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """IoU of one corner box (x1, y1, x2, y2) with each of `boxes`."""
    corners = np.clip(
        np.minimum(box[2:], boxes[:, 2:]) - np.maximum(box[:2], boxes[:, :2]), 0, None
    )
    inter = corners.prod(-1)
    area = lambda b: np.clip(b[..., 2:] - b[..., :2], 0, None).prod(-1)  # noqa: E731
    return inter / (area(box) + area(boxes) - inter + 1e-12)


def matched_detections(reference, outputs) -> tuple[int, list[float]]:
    """(kept, score differences of the matches): each kept float detection
    (score > 0), best score first, takes the unused detection of the same
    label overlapping it most, if their IoU is at least 0.5."""
    boxes, scores, labels = (a.reshape(-1, 4) if i == 0 else a.ravel()
                             for i, a in enumerate(reference))  # fmt: skip
    q_boxes, q_scores, q_labels = (a.reshape(-1, 4) if i == 0 else a.ravel()
                                   for i, a in enumerate(outputs))  # fmt: skip
    free = q_scores > 0
    kept, differences = 0, []
    for i in np.argsort(-scores, kind="stable"):
        if scores[i] <= 0:
            continue
        kept += 1
        overlap = np.where(
            free & (q_labels == labels[i]), box_iou(boxes[i], q_boxes), -1
        )
        j = int(overlap.argmax())
        if overlap[j] >= 0.5:
            free[j] = False
            differences.append(abs(float(q_scores[j]) - float(scores[i])))
    return kept, differences


def detection_cells(references, outputs) -> tuple[float, float, float]:
    """Recall of the float detections, the largest and the mean score
    difference of the matches."""
    kept, differences = 0, []
    for reference, output in zip(references, outputs):
        count, found = matched_detections(reference, output)
        kept += count
        differences += found
    recall = len(differences) / max(kept, 1)
    return (
        recall,
        max(differences, default=0.0),
        float(np.mean(differences or [0.0])),
    )


def detector_row(model: Model, samples, evals, work: Path) -> dict:
    """A detector (boxes, scores, labels after a top-k or NMS selection): its
    outputs are compared as detections, not element by element."""
    from quantize import nn_int8_share

    from graph_opt import api
    from graph_opt.interpreter import run_function

    module, input_name = model.load(), model.input_name
    api.run(module, "optimize")
    reference = [run_function(module, [x]) for x in evals]
    calibrate_and_quantize(module, model, samples, work)
    api.run(module, "convert-to-int")
    row = {
        "int8 MACs": f"{nn_int8_share(module):.0%}",
        "float": str(sum(op.name in LINEAR_OPS for op in module.walk())),
    }
    int8 = [run_function(module, [x]) for x in evals]
    row["go recall"], row["go score"], row["go mean"] = detection_cells(reference, int8)
    quantized = ort_quantized(model.onnx_path, input_name, samples, work)
    ort_int8 = ort_outputs(quantized, input_name, evals)
    row["ort recall"], row["ort score"], row["ort mean"] = detection_cells(
        reference, ort_int8
    )
    row["check"], row["notes"] = detector_shortfalls(row), detector_notes(row)
    return row


def detector_shortfalls(row: dict) -> str:
    """What keeps a detector from the goal: all layers int8, recall and mean
    score difference no worse than onnxruntime's, as printed."""
    missed = ["float"] if row["float"] != "0" else []
    if round(row["go recall"], 3) < round(row["ort recall"], 3):
        missed.append("recall")
    if as_printed(row["go mean"]) > as_printed(row["ort mean"]):
        missed.append("mean")
    return ",".join(missed) or "ok"


def detector_notes(row: dict) -> str:
    """The largest score difference above onnxruntime's (printed, not checked:
    one match of neighbouring anchors decides it)."""
    return (
        "score" if as_printed(row["go score"]) > as_printed(row["ort score"]) else "-"
    )


def tflite_worker(frozen_graph: str, arrays: str, out: str) -> None:
    """Runs under a Python with TensorFlow: convert, run, write outputs and op counts."""
    import tensorflow as tf

    data = np.load(arrays)
    outputs = [str(n) for n in np.load(frozen_graph.replace(".pb", ".npz"))["outputs"]]
    graph_def = tf.compat.v1.GraphDef.FromString(Path(frozen_graph).read_bytes())
    wrapped = tf.compat.v1.wrap_function(
        lambda: tf.compat.v1.import_graph_def(graph_def, name=""), []
    )
    function = wrapped.prune(
        wrapped.graph.get_tensor_by_name("input:0"),
        [wrapped.graph.get_tensor_by_name(f"{name}:0") for name in outputs],
    )
    converter = tf.lite.TFLiteConverter.from_concrete_functions([function], wrapped)
    converter.optimizations = [tf.lite.Optimize.DEFAULT]
    converter.representative_dataset = lambda: ([s] for s in data["samples"])
    converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    interpreter = tf.lite.Interpreter(model_content=converter.convert())
    interpreter.allocate_tensors()
    (inp,), (outp,) = interpreter.get_input_details(), interpreter.get_output_details()
    outputs = []
    for x in data["evals"]:
        interpreter.resize_tensor_input(inp["index"], x.shape)
        interpreter.allocate_tensors()
        interpreter.set_tensor(inp["index"], x)
        interpreter.invoke()
        outputs.append(interpreter.get_tensor(outp["index"]))
    tensors = {t["index"]: t["dtype"] for t in interpreter.get_tensor_details()}
    linear = [op for op in interpreter._get_ops_details()  # noqa: SLF001 - op list
              if op["op_name"] in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED")]  # fmt: skip
    int8 = sum(tensors[op["inputs"][0]] == np.int8 for op in linear)
    np.save(out, np.stack(outputs))
    Path(out).with_suffix(".json").write_text(json.dumps([int(int8), len(linear)]))


def tflite_error(tf_python: str, model: Model, samples, evals, reference, work):
    arrays, out = work / "tflite_in.npz", work / "tflite_out.npy"
    np.savez(arrays, samples=samples, evals=np.stack(evals))
    command = [tf_python, __file__, "--tflite-worker", str(model.frozen_graph),
               str(arrays), str(out)]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        return "FAIL", done.stderr.strip().splitlines()[-1][:60]
    int8, total = json.loads(out.with_suffix(".json").read_text())
    return relative_error(list(np.load(out)), reference), f"{int8}/{total}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", type=Path, default=Path("/work/zoo"))
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--eval", type=int, default=32)
    parser.add_argument("--tf-python", help="a Python with TensorFlow, for TFLite")
    parser.add_argument("--models", default="", help="comma-separated names")
    parser.add_argument("--tflite-worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.tflite_worker:
        tflite_worker(*args.tflite_worker)
        return
    columns = ["model", "int8 MACs", "float", "steps", "steps int io", "steps f32", "f32~f64", "fq ulp",
               "flips", "max tie",
               "f spread",
               "go err", "ort err", "go rms", "ort rms", "go l2", "ort l2", "ort int8",
               "tflite err", "tflite int8",
               "check", "notes"]  # fmt: skip
    print(
        f"samples={args.samples} eval={args.eval}; err = max |out - float| / max |float|"
    )
    print_cells(columns)
    wanted = set(filter(None, args.models.split(",")))
    checked = missed = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        models = tf_models() + (zoo_models(args.zoo, work) if args.zoo.exists() else [])
        for model in models:
            if wanted and model.name not in wanted:
                continue
            samples, evals = draws(model, args)
            row = graph_opt_row(model, samples, evals, work)
            reference = row.pop("reference")
            row["f spread"] = spread(reference)
            row["ort err"], row["ort rms"], row["ort l2"], share = ort_error(
                row.pop("float_onnx"), row.pop("input"), samples, evals, reference, work
            )
            row["ort int8"] = f"{share:.0%}"
            row["check"], row["notes"] = shortfalls(row), notes(row)
            if row["max tie"] is None:
                row["max tie"] = "-"
            missed += row["check"] != "ok"
            checked += 1
            row["tflite err"] = row["tflite int8"] = "-"
            if args.tf_python and model.frozen_graph is not None:
                row["tflite err"], row["tflite int8"] = tflite_error(
                    args.tf_python, model, samples, evals, reference, work
                )
            print_cells([model.name] + [row[c] for c in columns[1:]])
        detectors = (
            zoo_models(args.zoo, work, ZOO_DETECTORS) if args.zoo.exists() else []
        )
        detectors = [m for m in detectors if not wanted or m.name in wanted]
        if detectors:
            print("\ndetectors: recall = share of the float detections matched (same "
                  "label, IoU >= 0.5); score, mean = largest, mean score difference of a match")  # fmt: skip
            print_cells(DETECTOR_COLUMNS)
        for model in detectors:
            row = detector_row(model, *draws(model, args), work)
            missed += row["check"] != "ok"
            checked += 1
            for recall in ("go recall", "ort recall"):
                row[recall] = f"{row[recall]:.1%}"
            print_cells([model.name] + [row[c] for c in DETECTOR_COLUMNS[1:]])
    print(f"check: {missed} of {checked} models miss the goal (column check)")


def draws(model: Model, args) -> tuple[np.ndarray, list[np.ndarray]]:
    """The seeded calibration samples and evaluation inputs of a model."""
    rng = np.random.default_rng(0)
    shape = model.shape
    samples = rng.standard_normal((args.samples, *shape)).astype(np.float32)
    return samples, list(rng.standard_normal((args.eval, *shape)).astype(np.float32))


def print_cells(cells: list) -> None:
    texts = [f"{c:.2e}" if isinstance(c, float) else c for c in cells]
    print("  ".join(f"{c:>22}" if i == 0 else f"{c:>10}" for i, c in enumerate(texts)),
          flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
