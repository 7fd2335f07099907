"""graph-opt's quantization flow stage by stage, against onnxruntime's static quantization.

graph-opt runs docs/quantization.md's flow in-process on a generated float ONNX model
(graph_opt.testing.model_zoo, seeded): import, fold-bn + fuse-ops, calibrate,
quantize{per-channel=true symmetric=true}, convert-to-int, lower-to-tosa, then
IREE compiles the TOSA for the CPU. Each stage's row gives its time and the
drift of its output from the float model (onnxruntime on the original, on
--eval seeded random inputs that are not the calibration samples): max and
mean abs error, and max error / max |float output|. The module after each
stage runs in graph-opt's reference interpreter, the TOSA module on IREE
(row iree-compile).

The comparison: graph-opt's fake-quantized module exported as an ONNX QDQ
model (time: load to saved QDQ file), and onnxruntime.quantization's
quant_pre_process + quantize_static of the same float model (QDQ, int8,
per-channel, symmetric, MinMax calibration on the same --samples through a
CalibrationDataReader); both QDQ models run in onnxruntime with its default
optimizations (int8 kernels: "int8" rows) and unoptimized (QDQ as float
math, what fake quantization computes: "float" rows). `nodes` counts ONNX
nodes, or the non-constant ops of a graph-opt stage; `int8 MACs` the share of
the convolutions' and matrix products' multiply-accumulates computed in int8
(graph-opt: nn.qconv/nn.qconv_transpose/nn.qmatmul after convert-to-int; onnxruntime: Conv,
MatMul and Gemm whose data and weight inputs both come from a
DequantizeLinear, which its optimizer turns into QLinear kernels). TFLite's
converter is not compared: it needs the model in TensorFlow, and these are
ONNX models. Times are medians over --runs.

Usage: python bench/quantize.py [--runs 3] [--models resnet,mobilenet_v2]
       [--size 32] [--width 16] [--blocks 1,1,1] [--expansions 7]
       [--classes 100] [--samples 16] [--eval 16]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np
import onnx

MODELS = ("resnet", "mobilenet_v2")
QUANTIZE = "quantize{per-channel=true symmetric=true}"


def make_model(name: str, args) -> onnx.ModelProto:
    from graph_opt.testing import model_zoo

    if name == "resnet":
        blocks = tuple(int(b) for b in args.blocks.split(","))
        return model_zoo.resnet(blocks, args.width, args.size, args.classes)
    return model_zoo.mobilenet_v2(
        args.width, args.size, args.classes, expansions=args.expansions
    )


@dataclass
class Row:
    """One stage or tool: its times over the runs, last outputs and size."""

    label: str
    times: list[float] = field(default_factory=list)
    outputs: list[np.ndarray] | None = None
    nodes: int | None = None
    int8_share: float | None = None

    def text(self, model: str, reference: list[np.ndarray]) -> str:
        median = f"{statistics.median(self.times):.3f}" if self.times else "-"
        max_error = mean_error = relative = "-"
        if self.outputs is not None:
            errors = np.concatenate(
                [np.abs(a - r).ravel() for a, r in zip(self.outputs, reference)]
            )
            scale = max(float(np.abs(r).max()) for r in reference)
            max_error, mean_error = f"{errors.max():.2e}", f"{errors.mean():.2e}"
            relative = f"{errors.max() / scale:.2e}"
        nodes = "-" if self.nodes is None else str(self.nodes)
        share = "-" if self.int8_share is None else f"{self.int8_share:.1%}"
        return (
            f"{model:<13} {self.label:<26} {median:>8} {max_error:>10}"
            f" {mean_error:>10} {relative:>10} {nodes:>6} {share:>10}"
        )


HEADER = (
    f"{'model':<13} {'stage / tool':<26} {'time s':>8} {'max err':>10}"
    f" {'mean err':>10} {'max rel':>10} {'nodes':>6} {'int8 MACs':>10}"
)


def nn_int8_share(module) -> float:
    """The share of conv and matrix-product MACs in nn.qconv / nn.qconv_transpose /
    nn.qmatmul; a dynamic dimension counts as 1 (a dynamic batch cancels out)."""
    from graph_opt.dialects.nn.conv import ConvolutionBase
    from graph_opt.dialects.nn.fused import FusedMatMulOp
    from graph_opt.dialects.nn.layout import channel_axis
    from graph_opt.dialects.nn.linalg import GemmOp, MatMulOp
    from graph_opt.dialects.nn.qint import QConvOp, QConvTransposeOp, QMatMulOp
    from graph_opt.dialects.nn.shapes import ranked

    int8 = total = 0
    for op in module.walk():
        out = ranked(op.results[0]) if op.results else None
        if out is None:
            continue
        out_shape = [max(size, 1) for size in out.get_shape()]
        if isinstance(op, ConvolutionBase):
            weights = int(np.prod(ranked(op.filter).get_shape()))
            channels = out_shape[channel_axis(op.layout, len(out_shape))]
            macs = int(np.prod(out_shape)) * weights // channels
        elif isinstance(op, MatMulOp | FusedMatMulOp | QMatMulOp | GemmOp):
            lhs = ranked(op.operands[0]).get_shape()
            transposed = isinstance(op, GemmOp) and op.trans_a is not None
            depth = lhs[0] if transposed and op.trans_a.value.data else lhs[-1]
            macs = int(np.prod(out_shape)) * depth
        else:
            continue
        total += macs
        int8 += macs if isinstance(op, QConvOp | QConvTransposeOp | QMatMulOp) else 0
    return int8 / total if total else 0.0


def qdq_int8_share(path: Path) -> float:
    """The share of Conv/MatMul/Gemm MACs whose data and weights are dequantized int8."""
    model = onnx.shape_inference.infer_shapes(onnx.load(path))
    graph = model.graph
    shapes = {
        v.name: [d.dim_value for d in v.type.tensor_type.shape.dim]
        for v in [*graph.value_info, *graph.output, *graph.input]
    }
    shapes.update({t.name: list(t.dims) for t in graph.initializer})
    producers = {out: node for node in graph.node for out in node.output}
    int8 = total = 0
    for node in graph.node:
        if node.op_type not in ("Conv", "MatMul", "Gemm"):
            continue
        out = shapes.get(node.output[0])
        weight = shapes.get(node.input[1])
        if weight is None:
            dequantize = producers.get(node.input[1])
            weight = shapes.get(dequantize.input[0]) if dequantize else None
        if not out or not weight:
            continue
        if node.op_type == "Conv":
            macs = int(np.prod(out)) * int(np.prod(weight)) // weight[0]
        else:
            macs = int(np.prod(out)) * (
                weight[0] if node.op_type == "MatMul" else weight[-1]
            )
        total += macs
        quantized = all(
            getattr(producers.get(name), "op_type", "") == "DequantizeLinear"
            for name in node.input[:2]
        )
        int8 += macs if quantized else 0
    return int8 / total if total else 0.0


def timed(row: Row, action: Callable[[], object]):
    start = time.perf_counter()
    result = action()
    row.times.append(time.perf_counter() - start)
    return result


def ort_outputs(
    model: str, inputs: list[np.ndarray], optimize: bool = True
) -> list[np.ndarray]:
    """onnxruntime's outputs; unoptimized, a QDQ model runs as float math."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    if not optimize:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    return [session.run(None, {"input": x})[0] for x in inputs]


def interpreter_outputs(module, inputs: list[np.ndarray]) -> list[np.ndarray]:
    from graph_opt.interpreter import run_function

    return [run_function(module, [x])[0] for x in inputs]


def op_count(module) -> int:
    from graph_opt.dialects.nn.constant import ConstantOp
    from graph_opt.entry import entry_function

    skipped = ("tosa.const", "tosa.const_shape", "func.return")
    ops = entry_function(module).body.block.ops
    return sum(
        1 for op in ops if not isinstance(op, ConstantOp) and op.name not in skipped
    )


class GraphOptFlow:
    """The docs' pipeline (docs/quantization.md), one pass at a time, each a row."""

    def __init__(self, samples: Path):
        self.stages = [
            ("fold-bn,fuse-ops", "fold-bn,fuse-ops"),
            ("calibrate", f'calibrate{{inputs="{samples}"}}'),
            ("quantize", QUANTIZE),
            ("convert-to-int", "convert-to-int"),
            ("lower-to-tosa", "lower-to-tosa"),
        ]
        self.rows = {
            label: Row(label)
            for label in ["import", *(s for s, _ in self.stages), "iree-compile"]
        }
        self.qdq = Row("graph-opt QDQ (ort int8)")

    def run(self, src: Path, qdq: Path, inputs, measure: bool) -> None:
        from graph_opt import api
        from graph_opt.formats.onnx.exporter import export_module
        from graph_opt.formats.onnx.importer import import_model, load_model

        module = timed(self.rows["import"], lambda: import_model(load_model(str(src))))
        self.observe("import", module, inputs, measure)
        for label, spec in self.stages:
            timed(self.rows[label], partial(api.run, module, spec))
            if label == "quantize":
                export = Row("export")
                timed(export, lambda: onnx.save(export_module(module), qdq))
                before = ["import", *(s for s, _ in self.stages[:3])]
                total = sum(self.rows[r].times[-1] for r in before)
                self.qdq.times.append(total + export.times[0])
            if label != "lower-to-tosa":
                self.observe(label, module, inputs, measure)
        self.rows["convert-to-int"].int8_share = self.int8_share
        vmfb = timed(self.rows["iree-compile"], lambda: compile_tosa(module))
        self.rows["lower-to-tosa"].nodes = op_count(module)
        if measure:
            self.rows["iree-compile"].outputs = iree_outputs(vmfb, inputs)
            self.qdq.outputs = ort_outputs(str(qdq), inputs)
            self.qdq.nodes = len(onnx.load(qdq).graph.node)

    def observe(self, label: str, module, inputs, measure: bool) -> None:
        if label == "convert-to-int":
            self.int8_share = nn_int8_share(module)
        if measure:
            self.rows[label].outputs = interpreter_outputs(module, inputs)
            self.rows[label].nodes = op_count(module)


def compile_tosa(module) -> bytes:
    import iree.compiler as iree_compiler

    from graph_opt import api

    return iree_compiler.compile_str(
        api.to_mlir(module, generic=True),
        target_backends=["llvm-cpu"],
        input_type="tosa",
        extra_args=["--iree-llvmcpu-target-cpu=host"],
    )


def iree_outputs(vmfb: bytes, inputs: list[np.ndarray]) -> list[np.ndarray]:
    import iree.runtime as iree_runtime

    runtime = iree_runtime.SystemContext(config=iree_runtime.Config("local-task"))
    runtime.add_vm_module(iree_runtime.VmModule.copy_buffer(runtime.instance, vmfb))
    main = runtime.modules.module["main"]
    return [np.asarray(main(x).to_host()) for x in inputs]


def ort_quantize_static(src: Path, dst: Path, samples: np.ndarray) -> None:
    from onnxruntime.quantization import (
        CalibrationDataReader,
        CalibrationMethod,
        QuantFormat,
        QuantType,
        quantize_static,
    )
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class SampleReader(CalibrationDataReader):
        def __init__(self):
            self.samples = iter(samples)

        def get_next(self):
            sample = next(self.samples, None)
            return None if sample is None else {"input": sample}

    prepared = dst.with_suffix(".prepared.onnx")
    quant_pre_process(str(src), str(prepared))
    quantize_static(
        str(prepared),
        str(dst),
        SampleReader(),
        quant_format=QuantFormat.QDQ,
        per_channel=True,
        activation_type=QuantType.QInt8,
        weight_type=QuantType.QInt8,
        calibrate_method=CalibrationMethod.MinMax,
        extra_options={"ActivationSymmetric": True, "WeightSymmetric": True},
    )


def bench_model(name: str, args, work: Path) -> Iterator[str]:
    model = make_model(name, args)
    src = work / f"{name}.onnx"
    onnx.save(model, src)
    shape = [d.dim_value for d in model.graph.input[0].type.tensor_type.shape.dim]
    rng = np.random.default_rng(0)
    samples = rng.standard_normal((args.samples, *shape), dtype=np.float32)
    np.savez(work / "samples.npz", input=samples)
    inputs = list(rng.standard_normal((args.eval, *shape), dtype=np.float32))
    reference = ort_outputs(str(src), inputs)
    flow = GraphOptFlow(work / "samples.npz")
    ort_row = Row("ort quantize_static (int8)")
    ort_qdq = work / f"{name}.ort_qdq.onnx"
    for run in range(args.runs):
        measure = run == args.runs - 1
        flow.run(src, work / f"{name}.qdq.onnx", inputs, measure)
        timed(ort_row, lambda: ort_quantize_static(src, ort_qdq, samples))
    ort_row.outputs = ort_outputs(str(ort_qdq), inputs)
    ort_row.nodes = len(onnx.load(ort_qdq).graph.node)
    ort_row.int8_share = qdq_int8_share(ort_qdq)
    flow.qdq.int8_share = qdq_int8_share(work / f"{name}.qdq.onnx")
    as_float = [
        Row(label, outputs=ort_outputs(str(path), inputs, optimize=False))
        for label, path in [
            ("graph-opt QDQ (ort float)", work / f"{name}.qdq.onnx"),
            ("ort quantize_static (float)", ort_qdq),
        ]
    ]
    float_row = Row("float (ort)", outputs=reference, nodes=len(model.graph.node))
    rows = [float_row, *flow.rows.values(), flow.qdq, as_float[0], ort_row, as_float[1]]
    for row in rows:
        yield row.text(name, reference)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--size", type=int, default=32, help="input image size")
    parser.add_argument("--width", type=int, default=16, help="first layer channels")
    parser.add_argument(
        "--blocks", default="1,1,1", help="resnet bottleneck blocks per stage"
    )
    parser.add_argument(
        "--expansions", type=int, default=7, help="mobilenet_v2 inverted residuals"
    )
    parser.add_argument("--classes", type=int, default=100)
    parser.add_argument("--samples", type=int, default=16, help="calibration inputs")
    parser.add_argument("--eval", type=int, default=16, help="evaluation inputs")
    args = parser.parse_args()
    names = args.models.split(",")
    unknown = set(names) - set(MODELS)
    if unknown:
        parser.error(f"unknown models: {', '.join(sorted(unknown))}")
    print(
        f"runs={args.runs} size={args.size} width={args.width} blocks={args.blocks}"
        f" expansions={args.expansions} classes={args.classes}"
        f" samples={args.samples} eval={args.eval};"
        " time = median seconds; errors = |output - float| over the eval inputs"
    )
    print(HEADER)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            for line in bench_model(name, args, Path(tmp)):
                print(line, flush=True)


if __name__ == "__main__":
    main()
