"""quantize: insert fake quantization the way TensorFlow's contrib.quantize does."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import ClassVar

from xdsl.context import Context
from xdsl.dialects.builtin import AnyFloat, ModuleOp, TensorType
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.transforms.dead_code_elimination import is_trivially_dead
from xdsl.utils.exceptions import PassFailedException

from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.elementwise import AddOp
from graph_opt.dialects.nn.names import op_result_names
from graph_opt.dialects.nn.norm import SoftmaxOp
from graph_opt.dialects.nn.pool import AvgPoolOp
from graph_opt.dialects.nn.quant import (
    MAX_BITS,
    MIN_BITS,
    FakeQuantOp,
    fake_quant_props,
)
from graph_opt.dialects.nn.tensor_ops import ConcatOp
from graph_opt.passes.calibrate.calibration import clear_ranges, stored_range
from graph_opt.passes.common.constant_eval import computed_constant
from graph_opt.passes.common.quantize_patterns import (
    LayerMatch,
    activation_range,
    is_quantized,
    layers_of_pattern_match,
    match_layer,
    weight_operand,
    weight_range,
)
from graph_opt.passes.convert_to_int.bias_rounding import round_biases
from graph_opt.passes.convert_to_int.convert_to_int import FLOAT_LINEAR_OPS
from graph_opt.passes.convert_to_int.patterns import SCALE_PRESERVING
from graph_opt.passes.quantize.fixed_ranges import (
    FIXED_RANGE_ATTR,
    fixed_range_kinds,
    fixed_ranges,
)
from graph_opt.passes.quantize.fold_batch_norms import FOLD_STATISTICS
from graph_opt.passes.quantize.training import (
    TRAINING_STATISTICS,
    TrainingQuantization,
    quantize_training_graph,
)
from graph_opt.remarks import warn
from graph_opt.rewriting.placement import carry_placement, place_like
from graph_opt.statistics import Statistics, record


@dataclass(frozen=True)
class QuantizePass(ModulePass):
    """Insert nn.fake_quant on layer weights and activations (TF contrib.quantize).

    Run on a float graph after fold-bn and `calibrate`. Each conv (plain or
    transposed), matmul or gemm (plain or fused) with a constant weight gets a
    narrow-range fake quantization of that weight, with the weight's range (per
    output channel with `per-channel`; a transposed conv's filter, IOHW or
    HWOI, per output channel of a group). The tensor after the layer, past its bias add and
    activation (relu, clip, identity), gets one with the range `calibrate`
    recorded there (past an activation with no int8 form, such as a
    hard_swish, too when it alone reads the layer: convert-to-int runs it on
    the dequantized accumulator, as a fused one); a bypass add (residual)
    gets them on its inputs and output, an add after the activation on its
    output. A layer that only a softmax reads (a classifier) gets none after
    it: the logits reach the float softmax unrounded. A tensor that only a
    quantized concat reads takes the concat's range (rounded once, to the
    concat's grid, as TFLite gives concat inputs its output's scale). A layer
    input that no other fake quantization covers (the graph input, an average pool's
    result) gets one too, so that convert-to-int makes every layer int8, first
    conv and classifier included, with float I/O quantized at the boundary.
    Weight ranges are symmetric (`symmetric`, default true: one zero point,
    as TOSA needs, and as TFLite and onnxruntime quantize weights);
    activation ranges contain 0, asymmetric unless `symmetric-activations`. Tensors a fake_quant already produces or
    consumes (a TF quantization-aware-training graph) keep theirs. A layer's
    constant bias is rounded to the int32 grid convert-to-int adds it on (input
    scale x weight scale), so the fake-quantized graph computes what the integer
    one will. `include` / `exclude` are regular expressions searched in layer
    names. With `patterns`, the layers are instead the convs, matmuls and gemms
    inside the matches of those registered patterns (graph-opt's,
    `--load-patterns`, entry points), and each match's result is the tensor
    quantized after them.

    With `fixed-ranges` (TF contrib.quantize's FixedQuantize), an activation
    tensor whose range is known takes that range exactly, calibrated or not:
    relu6 [0, 6], clip its bounds, sigmoid and hard_sigmoid [0, 1], tanh
    [-1, 1] (as ops or fused), for the activations named (`all`, or e.g.
    `relu6,sigmoid`). A range stated on an op or function argument as
    `nn.fixed_range = array<f32: min, max>` is used the same way, with or
    without the option. A fixed range is widened only to contain 0, never
    made symmetric; a concat still gives its inputs its own range.

    With `training`, a TF training graph is rewritten as create_training_graph
    does instead (quantize_training.py): range variables updated each step,
    `quant-delay`, and the gradients through the fake quantizations; on a
    forward graph (gradients not derived yet) training-mode batch norms are
    folded into their conv or matmul with correction factors, using their
    moving statistics from `freeze-bn-delay` on, and an eval graph's
    inference-mode ones as create_eval_graph folds them
    (fold_batch_norms_training.py).
    """

    name = "quantize"

    statistics: ClassVar[Statistics] = {
        "parameters materialized": "Computed weights and biases evaluated to constants first",
        "classifier logits left unrounded": "Final classifier layers whose output stays float",
        "inputs at their concat's range": "Concat inputs given the concat's range",
        "fixed ranges used": "Activations given a range fixed by their op (fixed-ranges)",
        "layers quantized": "Convs and matrix products given fake quantizations",
        "activations quantized": "Activations given a fake quantization",
        "biases rounded to the int32 grid": "Biases rounded to multiples of input scale x weight scale",
        "pattern matches without a layer": "Pattern matches holding no conv or matrix product",
        "layer inputs left float": "Layer inputs with no calibrated or fixed range",
        "layers left float": "Convs and matrix products left float (each reason warned)",
        **TRAINING_STATISTICS,
        **FOLD_STATISTICS,
    }

    weight_bits: int = field(
        default=8, metadata={"help": "bits of weight fake quantization"}
    )
    activation_bits: int = field(
        default=8, metadata={"help": "bits of activation fake quantization"}
    )
    per_channel: bool = field(
        default=False, metadata={"help": "weight ranges per output channel"}
    )
    symmetric: bool = field(
        default=True,
        metadata={
            "help": "weight ranges symmetric around 0 (one zero point, as TOSA needs)"
        },
    )
    symmetric_activations: bool = field(
        default=False, metadata={"help": "activation ranges symmetric around 0"}
    )
    include: str = field(
        default="", metadata={"help": "quantize only layers whose name matches"}
    )
    exclude: str = field(
        default="", metadata={"help": "skip layers whose name matches"}
    )
    patterns: str = field(
        default="",
        metadata={
            "help": "registered patterns (comma-separated names) whose matches are the "
            "layers to quantize, instead of the built-in rules"
        },
    )
    training: bool = field(
        default=False,
        metadata={
            "help": "rewrite a training graph as TF's create_training_graph: range "
            "variables updated each step, gradients through the fake quantizations"
        },
    )
    quant_delay: int = field(
        default=0,
        metadata={
            "help": "with training: fake-quantize from this step on (0: at once)"
        },
    )
    ema_decay: float = field(
        default=0.999,
        metadata={
            "help": "with training: decay of the activation ranges' moving averages"
        },
    )

    freeze_bn_delay: int | None = field(
        default=None,
        metadata={
            "help": "with training: batch norms folded use their moving statistics, "
            "frozen, from this step on (default: never)"
        },
    )
    fixed_ranges: str = field(
        default="",
        metadata={
            "help": "activations quantized with their known range, uncalibrated: "
            "all, or some of relu6, clip, sigmoid, hard_sigmoid, tanh"
        },
    )

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for bits in (self.weight_bits, self.activation_bits):
            if not MIN_BITS <= bits <= MAX_BITS:
                raise PassFailedException(
                    f"bits must be in [{MIN_BITS}, {MAX_BITS}], got {bits}"
                )
        kinds = fixed_range_kinds(self.fixed_ranges)
        if self.training:
            if kinds:
                raise PassFailedException(
                    "quantize: fixed-ranges is for post-training quantization; "
                    "training=true learns every range"
                )
            self._quantize_training_graph(op)
            return
        if self.freeze_bn_delay is not None:
            raise PassFailedException("freeze-bn-delay needs training=true")
        include, exclude = _regex(self.include), _regex(self.exclude)
        record("parameters materialized", materialize_computed_parameters(op))
        if self.patterns:
            matches = [
                m
                for m in _pattern_layers(op, self.patterns)
                if _selected(m.layer, include, exclude)
            ]
        else:
            matches = [
                match
                for layer in list(op.walk())
                if _selected(layer, include, exclude)
                and (match := match_layer(layer)) is not None
            ]
        record("classifier logits left unrounded", _keep_logits_unrounded(matches))
        outputs = [v for m in matches for v in m.activations]
        inputs = _unquantized_inputs(matches, set(outputs))
        fixed = fixed_ranges(_unique([*inputs, *outputs]), kinds)
        inputs = _calibrated_inputs(inputs, fixed)
        activations = _unique([*inputs, *outputs])
        ranges = _calibrated_ranges(activations, fixed)
        record("inputs at their concat's range", _concat_inputs_take_ranges(ranges))
        _pools_keep_input_ranges(ranges)
        exact = {v for v, r in fixed.items() if ranges.get(v) == r}
        record("fixed ranges used", len(exact))
        record("layers quantized", len(matches))
        record("activations quantized", len(activations))
        _report_float_layers(op, {m.layer for m in matches}, include, exclude)
        for match in matches:
            self._quantize_weight(match)
        for value in activations:
            symmetric = self.symmetric_activations and value not in exact
            low, high = activation_range(
                *ranges[value], self.activation_bits, symmetric
            )
            _insert_after(value, fake_quant_props([low], [high], self.activation_bits))
        record("biases rounded to the int32 grid", round_biases(op))
        clear_ranges(op)
        clear_ranges(op, FIXED_RANGE_ATTR)

    def _quantize_training_graph(self, module: ModuleOp) -> None:
        if (
            self.per_channel
            or self.symmetric_activations
            or self.include
            or self.exclude
        ):
            raise PassFailedException(
                "quantize{training=true} takes weight-bits, activation-bits, "
                "quant-delay and ema-decay only (ranges per tensor, asymmetric, "
                "as create_training_graph makes them)"
            )
        if self.quant_delay < 0 or not 0 <= self.ema_decay < 1:
            raise PassFailedException(
                f"quant-delay must be >= 0 and ema-decay in [0, 1), got "
                f"{self.quant_delay} and {self.ema_decay}"
            )
        if self.freeze_bn_delay is not None and self.freeze_bn_delay < 0:
            raise PassFailedException(
                f"freeze-bn-delay must be >= 0, got {self.freeze_bn_delay}"
            )
        options = TrainingQuantization(
            self.weight_bits,
            self.activation_bits,
            self.quant_delay,
            self.ema_decay,
            self.freeze_bn_delay,
        )
        for function in module.ops:
            if function.regions and function.regions[0].blocks:
                quantize_training_graph(function.regions[0].block, options)

    def _quantize_weight(self, match: LayerMatch) -> None:
        if match.weight_index is None:
            return
        weight = match.layer.operands[match.weight_index]
        axis = match.weight_axis if self.per_channel else None
        low, high = weight_range(
            constant_value(weight), axis, self.symmetric, self.weight_bits
        )
        props = fake_quant_props(
            low, high, self.weight_bits, narrow_range=True, axis=axis
        )
        quant = FakeQuantOp.create_inferred([weight], props)
        if weight.name_hint:
            quant.output.name_hint = f"{weight.name_hint}_quant"
        Rewriter.insert_op(quant, InsertPoint.before(match.layer))
        place_like(quant, match.layer)
        match.layer.operands[match.weight_index] = quant.output


def materialize_computed_parameters(module: ModuleOp) -> int:
    """Layer weights and add operands the graph computes from constants (a
    frozen Keras bias, reshaped and squeezed) become nn.constants, so that the
    layer rules take them as parameters (a bias is not an activation to
    quantize); the ops that computed them, now unread, are erased. How many."""
    count = 0
    for op in list(module.walk()):
        found = weight_operand(op)
        if found is not None:
            indices: range | list[int] = [found[0]]
        elif isinstance(op, AddOp):
            indices = range(len(op.operands))
        else:
            continue
        for index in indices:
            value = op.operands[index]
            if (
                constant_value(value) is not None
                or not isinstance(value.type, TensorType)
                or not value.type.has_static_shape()
            ):
                continue
            # computed_constant is bounded and refuses activations at once; only
            # then walk the (small) subgraph for a fake quantization.
            array = computed_constant(value)
            if array is None or _reads_fake_quantization(value):
                continue
            constant = ConstantOp.from_array(
                array.reshape(value.type.get_shape()), value.type.element_type
            )
            constant.output.name_hint = value.name_hint
            Rewriter.insert_op(constant, InsertPoint.before(op))
            op.operands[index] = constant.output
            carry_placement(constant, [op, *_erase_dead_producers(value)])
            count += 1
    return count


def _reads_fake_quantization(value: SSAValue) -> bool:
    """Whether `value` is computed through an nn.fake_quant (a quantization-aware
    graph's weight, whose range stays its own)."""
    pending, seen = [value], set()
    while pending:
        owner = pending.pop().owner
        if not isinstance(owner, Operation) or owner in seen:
            continue
        if isinstance(owner, FakeQuantOp):
            return True
        seen.add(owner)
        pending.extend(owner.operands)
    return False


def _erase_dead_producers(value: SSAValue) -> list[Operation]:
    """Erase the ops computing `value` that nothing reads any more; which."""
    pending, erased = [value], []
    while pending:
        owner = pending.pop().owner
        if isinstance(owner, Operation) and owner.parent and is_trivially_dead(owner):
            pending.extend(owner.operands)
            Rewriter.erase_op(owner)
            erased.append(owner)
    return erased


def _pattern_layers(module: ModuleOp, names: str) -> list[LayerMatch]:
    """The layers of the matches of registered patterns, each op in one match
    at most (the first pattern named claims it), as partition-pattern takes them."""
    from graph_opt.patterns.partition import disjoint_matches
    from graph_opt.patterns.registry import get_pattern

    try:
        patterns = [get_pattern(n.strip()) for n in names.split(",") if n.strip()]
    except ValueError as error:
        raise PassFailedException(f"quantize: {error}") from error
    layers, claimed, empty = [], set(), 0
    for block in _blocks(module):
        positions = {op: i for i, op in enumerate(block.ops)}
        for pattern in patterns:
            for match in disjoint_matches(block, pattern):
                if claimed.intersection(match.region):
                    continue
                claimed.update(match.region)
                found = layers_of_pattern_match(match, positions)
                empty += not found
                layers += found
    record("pattern matches without a layer", empty)
    if empty:
        warn(
            f"quantize: {empty} pattern match(es) hold no conv, matmul or gemm with a "
            "constant weight; they get no fake quantization"
        )
    return layers


def _blocks(module: ModuleOp):
    """The blocks of the module's functions (and of the ops inside them)."""
    for op in module.walk():
        for region in op.regions:
            if op is not module:
                yield from region.blocks


def _regex(pattern: str) -> re.Pattern | None:
    if not pattern:
        return None
    try:
        return re.compile(pattern)
    except re.error as e:
        raise PassFailedException(f"bad regular expression {pattern!r}: {e}") from e


def _selected(
    op: Operation, include: re.Pattern | None, exclude: re.Pattern | None
) -> bool:
    names = [n for n in op_result_names(op) if n]
    name = names[0] if names else ""
    if include is not None and not include.search(name):
        return False
    return exclude is None or not exclude.search(name)


RANGE_KEEPING_OPS = SCALE_PRESERVING
"""Ops whose int8 form reuses their input's quantization (convert-to-int)."""


def _unquantized_inputs(
    matches: list[LayerMatch], outputs: set[SSAValue]
) -> list[SSAValue]:
    """The layers' float inputs that no fake quantization will cover: graph
    inputs, and results of ops such as average pooling (full-integer PTQ),
    taken before the range-keeping ops between them and the layer (a global
    pool's result rather than its flattening, so that the pool is int8 too)."""
    inputs = []
    for match in matches:
        source = match.layer.operands[0]
        while isinstance(source.owner, RANGE_KEEPING_OPS):
            source = source.owner.operands[0]
        if source not in outputs and not is_quantized(source):
            inputs.append(source)
    return inputs


def _calibrated_inputs(
    inputs: list[SSAValue], fixed: dict[SSAValue, tuple[float, float]]
) -> list[SSAValue]:
    """The inputs with a calibrated or fixed range; a warning names those
    without (a quantization-aware graph whose input TensorFlow left float)."""
    missing = [v for v in _unique(inputs) if v not in fixed and stored_range(v) is None]
    record("layer inputs left float", len(missing))
    if missing:
        warn(
            f"quantize: {len(missing)} layer input(s) have no calibrated range and "
            f"stay float, so their layers cannot become int8 (first: {_label(missing[0])}); "
            "run calibrate before quantize"
        )
    return [v for v in inputs if v not in missing]


def _unique(values) -> list[SSAValue]:
    """Float values not yet fake-quantized, each once."""
    seen: dict[SSAValue, None] = {}
    for value in values:
        element = getattr(value.type, "element_type", None)
        if isinstance(element, AnyFloat) and not is_quantized(value):
            seen.setdefault(value)
    return list(seen)


def _keep_logits_unrounded(matches: list[LayerMatch]) -> int:
    """A layer that only a softmax reads (a classifier's logits) gets no
    fake quantization after it: convert-to-int runs it in int8 and the softmax
    on its dequantized accumulator, as for an activation with no int8 form, so
    the logits are not rounded to int8 only to feed a float op. The softmax's
    result is quantized only where a layer reads it. Returns how many."""
    kept = 0
    for match in matches:
        result = match.layer.results[0]
        if result in match.activations and isinstance(
            result.get_user_of_unique_use(), SoftmaxOp
        ):
            match.activations.remove(result)
            kept += 1
    return kept


def _concat_inputs_take_ranges(ranges: dict[SSAValue, tuple[float, float]]) -> int:
    """A tensor read only by a concat whose result is quantized takes the
    concat's range, as TFLite gives CONCATENATION's inputs its output's scale:
    it is then rounded once, to the grid of the concat's result, rather than to
    its own grid and again to the concat's (a rounding twice is never nearer,
    and nearly always farther). convert-to-int's concat then needs no rescale
    for it. The concat's range holds its inputs' (or clips them anyway).
    Through nested concats, the first quantized one counts. Returns how many."""
    moved = 0
    for value in list(ranges):
        target = value
        while isinstance(user := target.get_user_of_unique_use(), ConcatOp):
            target = user.output
            if target in ranges:
                ranges[value] = ranges[target]
                moved += 1
                break
    return moved


def _pools_keep_input_ranges(ranges: dict[SSAValue, tuple[float, float]]) -> None:
    """An average pool's result takes its input's range, as TFLite gives
    AVERAGE_POOL_2D its input's scale: its int8 form (TOSA's AVG_POOL2D, one
    scale) then needs no rescale after it, which would round a second time.
    An average lies within its inputs' range, so nothing is clipped."""
    for value in ranges:
        pool = value.owner
        if isinstance(pool, AvgPoolOp) and pool.operands[0] in ranges:
            ranges[value] = ranges[pool.operands[0]]


def _calibrated_ranges(
    values: list[SSAValue], fixed: dict[SSAValue, tuple[float, float]]
) -> dict[SSAValue, tuple[float, float]]:
    """Each value's fixed range, else its calibrated one."""
    ranges, missing = {}, []
    for value in values:
        found = fixed.get(value) or stored_range(value)
        if found is not None:
            ranges[value] = found
        else:
            missing.append(_label(value))
    if missing:
        raise PassFailedException(
            f"no calibrated range for {', '.join(missing)}: run calibrate before quantize"
        )
    return ranges


def _label(value: SSAValue) -> str:
    if isinstance(value, BlockArgument):
        return f"argument {value.name_hint or value.index}"
    names = [n for n in op_result_names(value.owner) if n]  # type: ignore[arg-type]
    return f"{value.owner.name} {names[0] if names else ''}".rstrip()  # type: ignore[union-attr]


def _insert_after(value: SSAValue, props) -> None:
    """A fake_quant of `value` that all its users read instead."""
    quant = FakeQuantOp.create_inferred([value], props)
    where = (
        InsertPoint.at_start(value.block)
        if isinstance(value, BlockArgument)
        else InsertPoint.after(value.owner)  # type: ignore[arg-type]
    )
    Rewriter.insert_op(quant, where)
    place_like(quant, value.owner if isinstance(value.owner, Operation) else None)
    if value.name_hint:
        quant.output.name_hint = f"{value.name_hint}_quant"
    value.replace_uses_with_if(quant.output, lambda use: use.operation is not quant)


def _report_float_layers(module: ModuleOp, quantized: set, include, exclude) -> None:
    """Warn about the convs and matrix products quantize leaves float, and why."""
    layers = [o for o in module.walk() if isinstance(o, FLOAT_LINEAR_OPS)]
    if not layers:
        warn("quantize: found no conv, matmul or gemm layer to quantize")
        return
    left = [o for o in layers if o not in quantized]
    record("layers left float", len(left))
    if not left:
        return
    first = left[0]
    why = (
        "excluded by include/exclude"
        if not _selected(first, include, exclude)
        else "its weights are not constants, or its result feeds no quantizable activation"
    )
    names = op_result_names(first)
    label = f"{first.name} {names[0] or first.results[0].name_hint or ''}".strip()
    warn(
        f"quantize: {len(left)} of {len(layers)} convolutions and matrix products get "
        f"no fake quantization (first: {label}: {why})"
    )
