"""Where graph-opt's int8 graph and onnxruntime's quantize_static part, and
whether the gap between their errors is a quantization choice or noise.

For each CNN of bench/quantize_corpus.py (same names, settings, calibration
samples and evaluation inputs), graph-opt's fake-quant graph (after
`quantize`) is set against onnxruntime's QDQ model:

- `grids`: of onnxruntime's QuantizeLinear ops on activations, how many have
  the (scale, zero point) of one of graph-opt's per-tensor fake quantizations
  (matched by value: the two name their tensors differently);
  `ort only`: the producers of those that have none (tensors onnxruntime
  rounds and graph-opt does not); `go only`: graph-opt grids onnxruntime
  lacks.
- `weights`, `biases`: integer levels (int8 weights, int32 biases) that differ
  between the two, each layer matched to the other tool's layer of the same
  shape and nearest values. The two round `w / scale` differently only near a
  tie (graph-opt as TensorFlow's FakeQuant computes it in float32, offset by
  the nudged minimum; onnxruntime divides in float32 and rounds half to even).
- errors, as quantize_corpus computes them (`err`: max |out - float| /
  max |float|; `rms`; `l2`: mean per-input relative error), of graph-opt's
  int8 graph, onnxruntime's, and onnxruntime's with its `ort only` Q/DQ pairs
  removed (the same quantization as graph-opt's but for the differing levels).
- per input: on how many inputs graph-opt's l2 and max errors are lower than
  onnxruntime's, the mean l2 difference and its standard error, and each
  tool's worst input and output element.
- with `--flips N`, the noise band: the range of onnxruntime's errors over N
  copies of its model, each with one weight level flipped whose exact value
  `w / scale` lies within 0.01 of a tie (its rounding error changes by less
  than 0.02 levels), in a layer drawn uniformly. A gap between the tools
  inside that band is no quantization choice.

Usage: python bench/quantize_vs_ort.py --models tf/mobilenet_v2,tf/resnet50
       [--zoo /work/zoo] [--samples 16] [--eval 32] [--eval-seed S] [--flips 0]
"""

from __future__ import annotations

import argparse
import copy
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

GRID_TOLERANCE = 1e-5
"""Relative scale difference below which two grids with one zero point are one."""
NEAR_TIE = 0.01
"""Distance of `w / scale` from a tie (k + 1/2) that --flips may flip."""
MAX_DIFFERING = 0.01
"""Share of differing weight levels above which two layers are not one."""


@dataclass
class Layer:
    """graph-opt's conv or matmul: float and fake-quantized weights, bias."""

    weights: np.ndarray
    fake: np.ndarray
    bias: np.ndarray | None


@dataclass
class OrtLayer:
    """onnxruntime's conv or gemm: int8 weight levels with their per-channel
    scales (shaped to broadcast), int32 bias levels with theirs."""

    initializer: str
    levels: np.ndarray
    scales: np.ndarray
    bias_levels: np.ndarray | None
    bias_scales: np.ndarray | None


def graph_opt_grids(module) -> list[tuple[float, int]]:
    """(scale, int8 zero point) of each per-tensor fake quantization of an
    activation (a non-constant tensor)."""
    from graph_opt.dialects.nn.constant import constant_value
    from graph_opt.dialects.nn.quant import FakeQuantOp
    from graph_opt.passes.convert_to_int.params import activation_params

    grids = []
    for op in module.walk():
        if isinstance(op, FakeQuantOp) and constant_value(op.input) is None:
            params = activation_params(op)
            if params is not None:
                grids.append((params.scale, params.zero_point))
    return grids


def initializers(model) -> dict[str, np.ndarray]:
    from onnx import numpy_helper

    return {i.name: numpy_helper.to_array(i) for i in model.graph.initializer}


def activation_quantizations(model) -> list[tuple[object, str, float, int]]:
    """(QuantizeLinear node, producer op type, scale, zero point) of each
    quantization of a tensor that is no initializer."""
    constants = initializers(model)
    producers = {out: n.op_type for n in model.graph.node for out in n.output}
    found = []
    for node in model.graph.node:
        if node.op_type == "QuantizeLinear" and node.input[0] not in constants:
            scale, zero_point = constants[node.input[1]], constants[node.input[2]]
            producer = producers.get(node.input[0], "input")
            found.append((node, producer, float(scale), int(zero_point)))
    return found


def same_grid(a: tuple[float, int], b: tuple[float, int]) -> bool:
    return a[1] == b[1] and abs(a[0] - b[0]) <= GRID_TOLERANCE * max(a[0], b[0])


def grid_comparison(model, grids: list[tuple[float, int]]):
    """(matched count, onnxruntime's quantizations with no graph-opt grid,
    graph-opt grids with no onnxruntime quantization)."""
    quantizations = activation_quantizations(model)
    ort_only = [q for q in quantizations
                if not any(same_grid(q[2:], g) for g in grids)]  # fmt: skip
    go_only = [g for g in grids
               if not any(same_grid(q[2:], g) for q in quantizations)]  # fmt: skip
    return len(quantizations) - len(ort_only), ort_only, go_only


def without_quantizations(model, nodes):
    """A copy of `model` with each QuantizeLinear of `nodes` and the
    DequantizeLinear ops reading it removed: their readers read its input."""
    model = copy.deepcopy(model)
    graph = model.graph
    names = {n.output[0] for n in nodes}
    outputs = {o.name for o in graph.output}
    for quantize in [n for n in graph.node if n.output and n.output[0] in names]:
        source = quantize.input[0]
        for dequantize in [n for n in graph.node if quantize.output[0] in n.input]:
            target = dequantize.output[0]
            if target in outputs:  # the graph output keeps its name
                for node in graph.node:
                    node.output[:] = [target if o == source else o for o in node.output]
                    if node is not quantize:
                        node.input[:] = [
                            target if i == source else i for i in node.input
                        ]
            else:
                for node in graph.node:
                    node.input[:] = [source if i == target else i for i in node.input]
            graph.node.remove(dequantize)
        graph.node.remove(quantize)
    return model


def graph_opt_layers(module) -> list[Layer]:
    from graph_opt.dialects.nn.constant import constant_value
    from graph_opt.dialects.nn.quant import FakeQuantOp
    from graph_opt.quantization.fake_quant_math import fake_quant

    layers = []
    for op in module.walk():
        if len(op.operands) < 2 or not isinstance(op.operands[1].owner, FakeQuantOp):
            continue
        quant = op.operands[1].owner
        weights = constant_value(quant.input)
        if weights is None or constant_value(op.operands[0]) is not None:
            continue
        weights = np.asarray(weights, np.float32)
        fake = fake_quant(weights, quant.mins, quant.maxs, quant.bits,
                          quant.is_narrow, quant.axis_value)  # fmt: skip
        bias = constant_value(op.operands[2]) if len(op.operands) > 2 else None
        layers.append(Layer(weights, fake, None if bias is None else np.asarray(bias)))
    return layers


def ort_layers(model) -> list[OrtLayer]:
    constants = initializers(model)
    dequantizers = {n.output[0]: n for n in model.graph.node
                    if n.op_type == "DequantizeLinear"}  # fmt: skip

    def levels_of(name: str):
        node = dequantizers.get(name)
        if node is None or node.input[0] not in constants:
            return None, None, None
        levels, scales = constants[node.input[0]], constants[node.input[1]]
        axis = next((a.i for a in node.attribute if a.name == "axis"), 1)
        shape = [1] * levels.ndim
        if np.ndim(scales):
            shape[axis] = -1
        return node.input[0], levels, np.reshape(scales, shape).astype(np.float64)

    layers = []
    for node in model.graph.node:
        if node.op_type not in ("Conv", "Gemm", "MatMul"):
            continue
        name, levels, scales = levels_of(node.input[1])
        if levels is None:
            continue
        bias = levels_of(node.input[2]) if len(node.input) > 2 else (None,) * 3
        layers.append(OrtLayer(name, levels, scales, bias[1], bias[2]))
    return layers


def layouts(array: np.ndarray) -> list[tuple[int, ...]]:
    """Axis orders taking graph-opt's weight layouts (HWIO, depthwise HWCM,
    OIHW, [in, out]) to onnxruntime's."""
    if array.ndim == 4:
        return [(3, 2, 0, 1), (2, 3, 0, 1), (0, 1, 2, 3)]
    return [tuple(range(array.ndim)), tuple(reversed(range(array.ndim)))]


def match_layers(go: list[Layer], ort: list[OrtLayer]):
    """Each onnxruntime layer with graph-opt's layer (and axis order) of the
    same shape whose fake-quantized weights are nearest its own, when at most
    MAX_DIFFERING of their levels differ (graph-opt fuses some layers, such as
    attention's key and value projections, which then have no counterpart)."""
    pairs = []
    for layer in ort:
        dequantized = layer.levels * layer.scales
        best = None
        for candidate in go:
            for order in layouts(candidate.fake):
                fake = candidate.fake.transpose(order)
                if fake.shape == dequantized.shape:
                    distance = float(np.abs(fake - dequantized).sum())
                    if best is None or distance < best[0]:
                        best = (distance, candidate, order)
        if best is not None:
            pair = (layer, best[1], best[2])
            if weight_differences(pair) <= MAX_DIFFERING * layer.levels.size:
                pairs.append(pair)
    return pairs


def weight_differences(pair) -> int:
    ort, go, order = pair
    return int((np.rint(go.fake.transpose(order) / ort.scales) != ort.levels).sum())


def level_differences(pairs) -> tuple[int, int, int, int]:
    """(weight levels that differ, weights, bias levels that differ, biases)."""
    weights = weight_total = biases = bias_total = 0
    for pair in pairs:
        ort, go, _ = pair
        weights += weight_differences(pair)
        weight_total += ort.levels.size
        if ort.bias_levels is not None and go.bias is not None:
            bias = np.rint(go.bias.astype(np.float64).ravel() / ort.bias_scales.ravel())
            biases += int((bias != ort.bias_levels.ravel()).sum())
            bias_total += ort.bias_levels.size
    return weights, weight_total, biases, bias_total


def per_input(outputs, reference) -> tuple[np.ndarray, np.ndarray]:
    """Each input's max error / max |float| over all inputs, and its l2 error."""
    scale = max(float(np.abs(r).max()) for r in reference)
    errors = [
        o.astype(np.float64).ravel() - r.ravel() for o, r in zip(outputs, reference)
    ]
    maxima = np.array([np.abs(e).max() for e in errors]) / scale
    l2 = np.array(
        [np.linalg.norm(e) / np.linalg.norm(r) for e, r in zip(errors, reference)]
    )
    return maxima, l2


def error_cells(outputs, reference) -> str:
    from quantize_corpus import relative_error, relative_l2, relative_rms

    return (f"err {relative_error(outputs, reference):.3e}  "
            f"rms {relative_rms(outputs, reference):.3e}  "
            f"l2 {relative_l2(outputs, reference):.3e}")  # fmt: skip


def worst(outputs, reference) -> str:
    maxima, _ = per_input(outputs, reference)
    index = int(maxima.argmax())
    element = int(np.abs(outputs[index].ravel() - reference[index].ravel()).argmax())
    return f"input {index} element {element}"


def producers(quantizations) -> str:
    """'Conv 20, HardSigmoid 12': the producers of `quantizations`, counted."""
    counts = Counter(q[1] for q in quantizations)
    return ", ".join(f"{op} {n}" for op, n in counts.most_common()) or "-"


def ort_run(model, input_name: str, evals, work: Path) -> list[np.ndarray]:
    import onnx
    from quantize_corpus import ort_outputs

    path = work / "variant.onnx"
    onnx.save(model, path)
    return [out[0] for out in ort_outputs(path, input_name, evals)]


def near_ties(pairs) -> list[tuple[str, tuple, int]]:
    """(initializer, index, the other level) of the weights whose exact
    w / scale lies within NEAR_TIE of a tie, away from the clamp."""
    found = []
    for ort, go, order in pairs:
        exact = go.weights.transpose(order).astype(np.float64) / ort.scales
        gap = np.abs(exact - np.floor(exact) - 0.5)
        for index in map(tuple, np.argwhere((gap < NEAR_TIE) & (np.abs(exact) < 126))):
            low = int(np.floor(exact[index]))
            other = low if ort.levels[index] == low + 1 else low + 1
            found.append((ort.initializer, index, other))
    return found


def noise_band(model, pairs, flips, input_name, evals, reference, work) -> str:
    from onnx import numpy_helper
    from quantize_corpus import relative_error, relative_l2, relative_rms

    candidates = near_ties(pairs)
    by_layer: dict[str, list] = {}
    for candidate in candidates:
        by_layer.setdefault(candidate[0], []).append(candidate)
    rng = np.random.default_rng(0)
    names = sorted(by_layer)
    rows = []
    for _ in range(flips):
        layer = by_layer[names[rng.integers(len(names))]]
        name, index, other = layer[rng.integers(len(layer))]
        flipped = copy.deepcopy(model)
        tensor = next(i for i in flipped.graph.initializer if i.name == name)
        levels = numpy_helper.to_array(tensor).copy()
        levels[index] = other
        tensor.CopyFrom(numpy_helper.from_array(levels, name))
        outputs = ort_run(flipped, input_name, evals, work)
        rows.append((relative_error(outputs, reference),
                     relative_rms(outputs, reference),
                     relative_l2(outputs, reference)))  # fmt: skip
    low, high = np.min(rows, axis=0), np.max(rows, axis=0)
    return (f"{len(candidates)} weights near a tie; one flipped, {flips} times: "
            + "  ".join(f"{name} {a:.3e}..{b:.3e}"
                        for name, a, b in zip(("err", "rms", "l2"), low, high)))  # fmt: skip


def compare(model, args, work: Path) -> None:
    import onnx
    from quantize_corpus import draws, fake_quantized, ort_quantized

    from graph_opt import api
    from graph_opt.interpreter import run_function

    samples, evals = draws(model, args)
    if args.eval_seed is not None:
        rng = np.random.default_rng(args.eval_seed)
        evals = list(rng.standard_normal((args.eval, *model.shape)).astype(np.float32))
    module, reference, float_onnx = fake_quantized(model, samples, evals, work)
    grids, layers = graph_opt_grids(module), graph_opt_layers(module)
    api.run(module, "convert-to-int")
    go = [run_function(module, [x])[0] for x in evals]
    qdq = onnx.load(ort_quantized(float_onnx, model.input_name, samples, work))
    ort = ort_run(qdq, model.input_name, evals, work)
    matched, ort_only, go_only = grid_comparison(qdq, grids)
    ort_weights = ort_layers(qdq)
    pairs = match_layers(layers, ort_weights)
    weights, weight_total, biases, bias_total = level_differences(pairs)
    alike = ort_run(without_quantizations(qdq, [q[0] for q in ort_only]),
                    model.input_name, evals, work)  # fmt: skip
    go_max, go_l2 = per_input(go, reference)
    ort_max, ort_l2 = per_input(ort, reference)
    difference = go_l2 - ort_l2
    count = len(evals)
    print(f"\n{model.name} ({count} inputs)")
    print(f"  grids: {matched} of {matched + len(ort_only)} onnxruntime quantizations on "
          f"a graph-opt grid; ort only: {producers(ort_only)}; "
          f"go only: {len(go_only)}")  # fmt: skip
    print(f"  levels that differ: weights {weights} of {weight_total}, "
          f"biases {biases} of {bias_total}, in the {len(pairs)} of {len(ort_weights)} "
          "onnxruntime layers with a graph-opt counterpart")  # fmt: skip
    print(f"  graph-opt                      {error_cells(go, reference)}  worst "
          f"{worst(go, reference)}")  # fmt: skip
    print(f"  onnxruntime                    {error_cells(ort, reference)}  worst "
          f"{worst(ort, reference)}")  # fmt: skip
    print(f"  onnxruntime without ort only   {error_cells(alike, reference)}")
    print(f"  per input: graph-opt's l2 lower on {int((go_l2 < ort_l2).sum())} of "
          f"{count}, max lower on {int((go_max < ort_max).sum())}; mean l2 "
          f"difference {difference.mean():.2e} +- "
          f"{difference.std(ddof=1) / np.sqrt(count):.1e}")  # fmt: skip
    if args.flips:
        band = noise_band(qdq, pairs, args.flips, model.input_name, evals,
                          reference, work)  # fmt: skip
        print(f"  noise: {band}")


def main() -> None:
    from quantize_corpus import tf_models, zoo_models

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", required=True, help="comma-separated names")
    parser.add_argument("--zoo", type=Path, default=Path("/work/zoo"))
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--eval", type=int, default=32)
    parser.add_argument("--eval-seed", type=int, help="draw the evaluation inputs "
                        "from this seed instead of quantize_corpus's stream")  # fmt: skip
    parser.add_argument("--flips", type=int, default=0)
    args = parser.parse_args()
    wanted = [name for name in args.models.split(",") if name]
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        models = tf_models() + (zoo_models(args.zoo, work) if args.zoo.exists() else [])
        known = {m.name: m for m in models}
        for name in wanted:
            if name not in known:
                sys.exit(f"unknown model {name} (known: {', '.join(known)})")
            compare(known[name], args, work)


if __name__ == "__main__":
    main()
