"""Where convert-to-int's int8 graph leaves its fake-quant graph, tensor by tensor.

For the models of bench/quantize_corpus.py (same loading, calibration samples
and --eval inputs), this runs `optimize`, `calibrate`, `quantize{per-channel=true}`
(the fake-quant graph) and `convert-to-int` (the int8 graph), then, per eval
input, the int8 graph (reference interpreter) and the fake-quant graph in
float64 (`run_float64`) with every activation fake quant's output replaced by
the int8 graph's value of that tensor. So a tensor's difference is its own:
the levels its int8 computation picks other than exact arithmetic on the same
(int8) inputs, a "flip", not a difference inherited from earlier tensors.
A fake quant is paired with the last int8 value convert-to-int gives its name
(tensors convert-to-int keeps in int8 without a value of their own, such as a
pad's or max pool's output, are not listed).

First table, one row per tensor with a flip: `flips` (elements over all
inputs), `levels` (the largest |level difference|), `tie` (the largest, over
its flips, distance of the exact level from the rounding tie between the two
levels, in steps: a value within about 1e-5 steps of a tie is rounded by
float32 or 31-bit fixed-point precision, a larger distance is a conversion
that computes something else), the first input it flips on, `#` (its fake
quant's place among the activation fake quants), the op producing the tensor
in the fake-quant graph (with its fused activation) and the tensor's name.
Activations are taken as 8-bit per-tensor fake quants (quantize's), whose
level L is int8 code L - 128.

Second table, one row per model: `steps` (as quantize_corpus.py's: the largest
|int8 output - float64 fake-quant output| in output steps, unforced), `flips`
(all tensors), `max tie`, and `steps q-in`: `steps` when each eval input is
first replaced by its dequantized int8 codes, (q - zero point) x scale with
q the int8 graph's input quantize, so that the input's quantize and fake
quant agree.

Usage: python bench/quantize_trace.py --models zoo/resnet_tiny_ts,tf/mobilenet_v3
       [--zoo /work/zoo] [--samples 16] [--eval 32]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation

sys.path.insert(0, str(Path(__file__).parent))


@dataclass
class TensorFlips:
    """The flips of one fake-quantized tensor over the inputs traced."""

    name: str
    position: int
    """Its fake quant's place among the activation fake quants."""
    producer: str
    flips: int = 0
    levels: int = 0
    tie: float = 0.0
    first_input: int | None = None


@dataclass
class Traced:
    """A fake-quant graph, its int8 graph and the int8 value of each of its
    activation fake quants."""

    fake_quant_module: object
    int8_module: object
    int8_values: dict
    tensors: dict
    """fake quant op -> TensorFlips"""


class Recorder(Interpreter.Listener):
    """Keeps every op result of a run, by SSA value."""

    def __init__(self):
        self.values = {}

    def did_interpret_op(self, op, results) -> None:
        self.values.update(zip(op.results, results))


class Forcing(Interpreter.Listener):
    """After each fake quant in `forced_levels`: calls `on_fake_quant(op, its
    input, its output)`, then overwrites the output with those levels."""

    def __init__(self, forced_levels: dict, on_fake_quant):
        self.forced_levels, self.on_fake_quant = forced_levels, on_fake_quant
        self.input = None

    def will_interpret_op(self, op, args) -> None:
        self.input = args[0] if args else None

    def did_interpret_op(self, op, results) -> None:
        if op not in self.forced_levels:
            return
        (output,) = results
        self.on_fake_quant(op, self.input, output)
        scale, zero = grid(op)
        output[...] = (self.forced_levels[op].reshape(output.shape) - zero) * scale


def activation_fake_quants(module) -> list:
    from graph_opt.dialects.nn.constant import ConstantOp
    from graph_opt.dialects.nn.quant import FakeQuantOp
    from graph_opt.entry import entry_function

    return [
        op
        for op in entry_function(module).walk()
        if isinstance(op, FakeQuantOp) and not isinstance(op.input.owner, ConstantOp)
    ]


def producer(fake_quant) -> str:
    """The name of the op a fake quant reads, with its fused activation if
    any ("nn.fused_conv+hard_swish"); "input" for an argument."""
    owner = fake_quant.input.owner
    if not isinstance(owner, Operation):
        return "input"
    activation = getattr(owner, "activation_name", "none")
    return owner.name + ("" if activation == "none" else f"+{activation}")


def grid(op) -> tuple[float, int]:
    """A per-tensor fake quant's nudged scale and zero level: level L is
    (L - zero level) x scale, as `fake_quant_exact` computes it."""
    from graph_opt.quantization.fake_quant_math import nudge

    nudged = nudge(op.mins, op.maxs, op.bits, op.is_narrow)
    return float(nudged.scale[0]), int(nudged.zero_point[0])


def prepare(fake_quant_module) -> Traced:
    """convert-to-int of a copy, paired with the fake quants through a unique
    name given to each first (convert-to-int's values keep it)."""
    from graph_opt import api
    from graph_opt.entry import entry_function

    fake_quants = activation_fake_quants(fake_quant_module)
    tensors = {
        op: TensorFlips(op.output.name_hint or "", n, producer(op))
        for n, op in enumerate(fake_quants)
    }
    for n, op in enumerate(fake_quants):
        op.output.name_hint = f"traced{n}_"
    int8_module = fake_quant_module.clone()
    api.run(int8_module, "convert-to-int")
    last_int8 = {
        r.name_hint: r
        for op in entry_function(int8_module).walk()
        for r in op.results
        if str(getattr(r.type, "element_type", None)) == "i8"
    }
    paired = {op: last_int8.get(op.output.name_hint) for op in fake_quants}
    int8_values = {op: v for op, v in paired.items() if v is not None}
    tensors = {op: t for op, t in tensors.items() if op in int8_values}
    return Traced(fake_quant_module, int8_module, int8_values, tensors)


def run_int8(module, x) -> tuple[np.ndarray, dict]:
    """The int8 graph's output on x, and every value it computed."""
    from graph_opt.entry import entry_function
    from graph_opt.interpreter.runner import (
        function_arguments,
        make_function_interpreter,
    )

    target = entry_function(module)
    interpreter = make_function_interpreter(module)
    recorder = Recorder()
    interpreter.listeners = (*interpreter.listeners, recorder)
    outputs = interpreter.call_op(target, tuple(function_arguments(target, [x])))
    return np.asarray(outputs[0]), recorder.values


def run_forced(module, x, forcing: Forcing) -> np.ndarray:
    """run_float64 with the fake quant outputs `forcing` replaces."""
    from graph_opt.entry import entry_function
    from graph_opt.interpreter.precise import WideningFunctions, widened
    from graph_opt.interpreter.runner import (
        function_arguments,
        make_function_interpreter,
    )

    target = entry_function(module)
    interpreter = make_function_interpreter(module)
    interpreter.register_implementations(WideningFunctions(), override=True)
    interpreter.listeners = (*interpreter.listeners, forcing)
    args = [widened(a) for a in function_arguments(target, [x])]
    return np.asarray(interpreter.call_op(target, tuple(args))[0])


def record_flips(traced: Traced, index: int, x: np.ndarray) -> np.ndarray:
    """Adds the flips of input number `index` to traced.tensors; returns the
    int8 graph's output on it."""
    int8_output, values = run_int8(traced.int8_module, x)
    # level 0 of a fake quant's grid is int8 -128
    forced = {
        op: values[v].astype(np.int64) + 128 for op, v in traced.int8_values.items()
    }

    def compare(op, exact_input, exact_output) -> None:
        scale, zero = grid(op)
        exact = np.rint(exact_output / scale) + zero
        int8_levels = forced[op].reshape(exact.shape)
        flipped = int8_levels != exact
        if not flipped.any():
            return
        entry = traced.tensors[op]
        entry.flips += int(flipped.sum())
        entry.levels = max(entry.levels, int(np.abs(int8_levels - exact).max()))
        position = exact_input[flipped] / scale
        entry.tie = max(
            entry.tie, float(np.abs(position - np.floor(position) - 0.5).max())
        )
        if entry.first_input is None:
            entry.first_input = index

    run_forced(traced.fake_quant_module, x, Forcing(forced, compare))
    return int8_output


def quantized_input(int8_module, x: np.ndarray) -> np.ndarray | None:
    """x as the dequantized codes of the int8 graph's input quantize (None
    when the input is not quantized)."""
    from graph_opt.dialects.nn.qint import QuantizeOp
    from graph_opt.entry import entry_function

    argument = entry_function(int8_module).args[0]
    quantizes = [
        u.operation for u in argument.uses if isinstance(u.operation, QuantizeOp)
    ]
    if not quantizes:
        return None
    op = quantizes[0]
    scale, zero_point = np.float32(op.scales[0]), int(op.zero_points[0])
    codes = np.clip(np.rint(x / scale) + zero_point, -128, 127)
    return ((codes - zero_point) * scale).astype(np.float32)


def trace(
    fake_quant_module, evals: list[np.ndarray], summary: bool = True
) -> tuple[list[TensorFlips], dict]:
    """The tensors that flip on `evals`, and the model's summary row (empty
    without `summary`). Names the module's fake quants for the pairing."""
    from quantize_corpus import output_step

    from graph_opt.interpreter.precise import run_float64

    traced = prepare(fake_quant_module)
    step = output_step(traced.int8_module)
    apart, quantized_apart = [], []
    for i, x in enumerate(evals):
        int8_output = record_flips(traced, i, x)
        if not summary:
            continue
        apart.append(np.abs(int8_output - run_float64(fake_quant_module, [x])[0]).max())
        xq = quantized_input(traced.int8_module, x)
        if xq is not None:
            int8_output, _ = run_int8(traced.int8_module, xq)
            reference = run_float64(fake_quant_module, [xq])[0]
            quantized_apart.append(np.abs(int8_output - reference).max())

    def in_steps(values: list) -> str:
        return "-" if step is None or not values else f"{max(values) / step:.2f}"

    flipped = [t for t in traced.tensors.values() if t.flips]
    if not summary:
        return flipped, {}
    row = {
        "steps": in_steps(apart),
        "flips": str(sum(t.flips for t in flipped)),
        "max tie": f"{max((t.tie for t in flipped), default=0.0):.1e}",
        "steps q-in": in_steps(quantized_apart),
    }
    return flipped, row


def fake_quant_graph(model, args, work: Path):
    """quantize_corpus's fake-quant graph of a model, and its eval inputs."""
    from quantize_corpus import calibrate_and_quantize, draws

    from graph_opt import api

    samples, evals = draws(model, args)
    module = model.load()
    api.run(module, "optimize")
    calibrate_and_quantize(module, model, samples, work)
    return module, evals


def main() -> None:
    from quantize_corpus import print_cells, tf_models, zoo_models

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", type=Path, default=Path("/work/zoo"))
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--eval", type=int, default=32)
    parser.add_argument("--models", required=True, help="comma-separated names")
    args = parser.parse_args()
    wanted = args.models.split(",")
    summaries = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        models = tf_models() + (zoo_models(args.zoo, work) if args.zoo.exists() else [])
        print(
            f"samples={args.samples} eval={args.eval}; tie: distance of the exact level from a tie, in steps"
        )
        print_cells(["model", "flips", "levels", "tie", "first input", "#",
                     "producer", "tensor"])  # fmt: skip
        for model in (m for m in models if m.name in wanted):
            flipped, summary = trace(*fake_quant_graph(model, args, work))
            for t in flipped:
                print_cells([model.name, str(t.flips), str(t.levels), f"{t.tie:.1e}",
                             str(t.first_input), str(t.position), t.producer, t.name])  # fmt: skip
            summaries.append([model.name, *summary.values()])
    print()
    print_cells(["model", "steps", "flips", "max tie", "steps q-in"])
    for row in summaries:
        print_cells(row)


if __name__ == "__main__":
    main()
