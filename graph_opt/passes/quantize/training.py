"""quantize{training=true}: TensorFlow's create_training_graph on an imported
training graph (tensorflow/contrib/quantize: quantize.py, quant_ops.py).

The layers and the tensors to quantize are those of the inference `quantize`
(quantize_patterns.match_layer), with variable reads counting as parameters.
Each layer weight gets a LastValueQuantize: `<layer>/weights_quant/min|max`
variables assigned the weight's min and max (widened to contain 0) every step,
and a narrow-range nn.fake_quant_vars reading the assigned values. Each
activation gets a MovingAvgQuantize: `<producer>/act_quant/min|max` variables
(initially 0 and 6 on a layer's activated output, TF's act_quant, and -6 and 6
on a bypass add's inputs and output) moved toward the batch's min and max by
`var -= (var - value) * (1 - ema_decay)` (assign_moving_average without zero
debiasing), and a full-range fake quantization. With `quant_delay` N, a step
counter `fake_quantization_step` is incremented once per run, and each fake
quantization is used only from the step where the counter reaches N (the
ranges update from the first step on), as create_training_graph's tf.cond.

On a forward graph (gradients not derived yet, as create_training_graph
wants it) training-mode batch norms are first folded into their layer with
TF's correction factors and `freeze_bn_delay`, inference-mode ones (an eval
graph's) as create_eval_graph folds them (fold_batch_norms_training.py);
the folded layer's weights (`mul_fold`) and its activation after the folded
bias are then quantized, the original layer, left computing the batch
statistics, is not.

The graph's gradients, which TensorFlow derived from the float graph, are
rewritten as TensorFlow derives them through FakeQuantWithMinMaxVars (straight
through inside the nudged range): a quantized weight's optimizer update
receives its gradient masked by nn.fake_quant_vars_grad; the gradient ops of an
activation's producer (`gradients/<producer>_grad/...`) keep reading its float
value, and the gradients flowing into them are masked; every other reader
(forward consumers and their gradient ops) reads the quantized value.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from xdsl.dialects.builtin import StringAttr, UnitAttr, f32, i64
from xdsl.ir import Block, Operation, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from graph_opt.dialects.nn.attr_builders import name_loc
from graph_opt.dialects.nn.base import i64_attr
from graph_opt.dialects.nn.compare import GreaterEqualOp, SelectOp
from graph_opt.dialects.nn.constant import ConstantOp, constant_value
from graph_opt.dialects.nn.conv import ConvTransposeOp
from graph_opt.dialects.nn.dense import from_numpy
from graph_opt.dialects.nn.elementwise import IdentityOp, MaxOp, MinOp, MulOp, SubOp
from graph_opt.dialects.nn.names import location_names, set_name_hint
from graph_opt.dialects.nn.quant_training import FakeQuantVarsGradOp, FakeQuantVarsOp
from graph_opt.dialects.nn.reduce import ReduceMaxOp, ReduceMinOp
from graph_opt.dialects.nn.shapes import tensor_type
from graph_opt.dialects.tf_state import (
    ApplyAdamOp,
    ApplyGradientDescentOp,
    ApplyMomentumOp,
    AssignAddOp,
    AssignOp,
    AssignSubOp,
    ReadOp,
    VariableOp,
    VariableType,
)
from graph_opt.passes.common.quantize_patterns import (
    LayerMatch,
    match_after_bias,
    match_layer,
)
from graph_opt.passes.quantize.fold_batch_norms import fold_batch_norms
from graph_opt.remarks import warn
from graph_opt.statistics import Statistics, record

TRAINING_STATISTICS: Statistics = {
    "layers quantized": "Convs and matrix products given fake quantizations",
    "activations quantized": "Activations given a fake quantization",
    "quantizations without gradient": "Fake quantizations whose range no gradient trains",
}
STEP_NAME = "fake_quantization_step"
INITIAL_RANGE = (-6.0, 6.0)
"""Where _InsertQuantOp starts a range (weights, conv_quant, add_quant)."""
OUTPUT_RANGE = (0.0, 6.0)
"""Where act_quant, on a layer's activated output, starts (init_min=0.0)."""
GRADIENT_OPERAND = {ApplyGradientDescentOp: 2, ApplyMomentumOp: 3, ApplyAdamOp: 9}
"""The gradient operand of each optimizer update."""


@dataclass(frozen=True)
class TrainingQuantization:
    weight_bits: int
    activation_bits: int
    quant_delay: int
    ema_decay: float
    freeze_bn_delay: int | None = None


def variable_read(value: SSAValue) -> ReadOp | None:
    """The read of a variable that gives `value` (through a ref variable's
    `<name>/read` identity), or None."""
    while isinstance(value.owner, IdentityOp):
        value = value.owner.input
    return value.owner if isinstance(value.owner, ReadOp) else None


def is_parameter(value: SSAValue) -> bool:
    """A constant or a variable's value: what a training graph's layers learn."""
    return variable_read(value) is not None or constant_value(value) is not None


class _Inserter:
    """Inserts ops one after another from a point, each named."""

    def __init__(self, point: InsertPoint, created: set[Operation]):
        self.point = point
        self.created = created

    def add(self, op: Operation, name: str) -> SSAValue:
        self.created.add(op)
        Rewriter.insert_op(op, self.point)
        self.point = InsertPoint.after(op)
        op.location = name_loc(name)
        set_name_hint(op.results[0], name)
        return op.results[0]

    def constant(self, value, name: str, dtype=np.float32) -> SSAValue:
        return self.add(ConstantOp.from_array(np.asarray(value, dtype)), name)


def _variable(at: _Inserter, name: str, initial: float) -> SSAValue:
    props = {
        "var_name": StringAttr(name),
        "initial_value": from_numpy(np.asarray(initial, np.float32)),
        "resource": UnitAttr(),
    }
    op = VariableOp.create(
        properties=props, result_types=[VariableType(tensor_type(f32, ()))]
    )
    return at.add(op, name)


class _Rewrite:
    """The state of one rewrite: the block, the step's activation flag, what
    the new ops are (so that replacing a value's uses spares them)."""

    def __init__(self, block: Block, options: TrainingQuantization):
        self.block = block
        self.options = options
        self.created: set[Operation] = set()
        self._step: SSAValue | None = None
        self._active: SSAValue | None = None

    def inserter(self, point: InsertPoint) -> _Inserter:
        return _Inserter(point, self.created)

    def step_flag(self, delay: int, delay_name: str, flag_name: str) -> SSAValue:
        """Whether `fake_quantization_step`, incremented once per run (the
        first run sees 1), has reached `delay`."""
        if self._step is None:
            at = self.inserter(InsertPoint.at_start(self.block))
            props = {
                "var_name": StringAttr(STEP_NAME),
                "initial_value": from_numpy(np.asarray(0, np.int64)),
                "resource": UnitAttr(),
            }
            step = at.add(
                VariableOp.create(
                    properties=props, result_types=[VariableType(tensor_type(i64, ()))]
                ),
                STEP_NAME,
            )
            one = at.constant(1, f"{STEP_NAME}/one", np.int64)
            self._step = at.add(
                AssignAddOp.create_inferred([step, one]), f"{STEP_NAME}/AssignAdd"
            )
        at = self.inserter(InsertPoint.after(self._step.owner))  # type: ignore[arg-type]
        bound = at.constant(delay, delay_name, np.int64)
        return at.add(GreaterEqualOp.create_inferred([self._step, bound]), flag_name)

    def delayed(self, at: _Inserter, quantized: SSAValue, plain: SSAValue, name: str):
        if self.options.quant_delay <= 0:
            return quantized
        if self._active is None:
            delay = self.options.quant_delay
            self._active = self.step_flag(delay, "quant_delay", "activate_quant")
        return at.add(
            SelectOp.create_inferred([self._active, quantized, plain]),
            f"{name}/delayed_quant",
        )

    def batch_range(self, at: _Inserter, value: SSAValue, scope: str):
        """The value's min and max, widened to contain 0."""
        zero = at.constant(0.0, f"{scope}/zero")
        low = at.add(
            ReduceMinOp.create_inferred([value], {"keepdims": i64_attr(0)}),
            f"{scope}/BatchMin",
        )
        high = at.add(
            ReduceMaxOp.create_inferred([value], {"keepdims": i64_attr(0)}),
            f"{scope}/BatchMax",
        )
        low = at.add(MinOp.create_inferred([low, zero]), f"{scope}/Minimum")
        high = at.add(MaxOp.create_inferred([high, zero]), f"{scope}/Maximum")
        return low, high

    def quantize_weight(self, match: LayerMatch, name: str) -> bool:
        weight = match.layer.operands[match.weight_index]
        scope = f"{name}/weights_quant"
        at = self.inserter(InsertPoint.before(match.layer))
        low, high = self.batch_range(at, weight, scope)
        bounds = []
        for bound, value, initial in zip(("min", "max"), (low, high), INITIAL_RANGE):
            variable = _variable(at, f"{scope}/{bound}", initial)
            op = AssignOp.create_inferred([variable, value])
            bounds.append(at.add(op, f"{scope}/Assign{bound.title()}Last"))
        props = {
            "num_bits": i64_attr(self.options.weight_bits),
            "narrow_range": i64_attr(1),
        }
        quant = at.add(FakeQuantVarsOp.create_inferred([weight, *bounds], props), scope)
        out = self.delayed(at, quant, weight, scope)
        self._replace_uses(weight, out, spare=())
        return self._mask_updates(weight, bounds, props, scope)

    def _mask_updates(self, weight: SSAValue, bounds, props, scope: str) -> bool:
        """Mask the gradient of the weight's variable in its optimizer updates."""
        read = variable_read(weight)
        if read is None:
            return False
        name = read.variable.owner.var_name.data  # type: ignore[union-attr]
        masked = False
        for op in list(self.block.ops):
            index = GRADIENT_OPERAND.get(type(op))
            handle = op.operands[0].owner if index is not None else None
            if isinstance(handle, VariableOp) and handle.var_name.data == name:
                at = self.inserter(InsertPoint.before(op))
                gradient = op.operands[index]
                op.operands[index] = self._masked(
                    at, gradient, weight, bounds, props, scope
                )
                masked = True
        return masked

    def _masked(self, at, gradient, value, bounds, props, scope: str) -> SSAValue:
        grad = FakeQuantVarsGradOp.create_inferred([gradient, value, *bounds], props)
        out = at.add(grad, f"{scope}/gradient")
        return self.delayed(at, out, gradient, f"{scope}/gradient")

    def quantize_activation(
        self, value: SSAValue, initial_range: tuple[float, float]
    ) -> bool:
        producer = value.owner
        name = (location_names(producer) or [value.name_hint or "activation"])[0]  # type: ignore[arg-type]
        scope = f"{name}/act_quant"
        at = self.inserter(InsertPoint.after(producer))  # type: ignore[arg-type]
        low, high = self.batch_range(at, value, scope)
        decay = at.constant(np.float32(1.0 - self.options.ema_decay), f"{scope}/decay")
        bounds = []
        for bound, batch, initial in zip(("min", "max"), (low, high), initial_range):
            ema = f"{scope}/Assign{bound.title()}Ema"
            variable = _variable(at, f"{scope}/{bound}", initial)
            current = at.add(ReadOp.create_inferred([variable]), f"{ema}/read")
            delta = at.add(SubOp.create_inferred([current, batch]), f"{ema}/sub")
            delta = at.add(MulOp.create_inferred([delta, decay]), f"{ema}/mul")
            bounds.append(at.add(AssignSubOp.create_inferred([variable, delta]), ema))
        props = {"num_bits": i64_attr(self.options.activation_bits)}
        quant = at.add(FakeQuantVarsOp.create_inferred([value, *bounds], props), scope)
        out = self.delayed(at, quant, value, scope)
        prefix = f"gradients/{name}_grad/"
        gradient_ops = [o for o in self.block.ops if _named_under(o, prefix)]
        self._replace_uses(value, out, spare=gradient_ops)
        masks: dict[SSAValue, SSAValue] = {}
        for op in gradient_ops:
            for index, operand in enumerate(op.operands):
                if not _is_incoming_gradient(operand, prefix):
                    continue
                if operand not in masks:
                    at = self.inserter(InsertPoint.before(op))
                    masks[operand] = self._masked(
                        at, operand, value, bounds, props, scope
                    )
                op.operands[index] = masks[operand]
        return bool(masks)

    def _replace_uses(self, value: SSAValue, new: SSAValue, spare: Iterable[Operation]):
        kept = self.created | set(spare)
        value.replace_uses_with_if(new, lambda use: use.operation not in kept)


def _named_under(op: Operation, prefix: str) -> bool:
    return any(n.startswith(prefix) for n in location_names(op))


def _is_incoming_gradient(value: SSAValue, prefix: str) -> bool:
    """A gradient from outside a producer's gradient scope."""
    owner = value.owner
    if not isinstance(owner, Operation):
        return False
    names = location_names(owner)
    return any(n.startswith("gradients/") and not n.startswith(prefix) for n in names)


def quantize_training_graph(block: Block, options: TrainingQuantization) -> None:
    rewrite = _Rewrite(block, options)
    delay = options.freeze_bn_delay
    freeze = None
    if delay is not None:

        def freeze(name: str) -> SSAValue:
            return rewrite.step_flag(delay, f"{name}/y", name)

    folded = {
        f.layer: f
        for f in fold_batch_norms(
            block, lambda point: _Inserter(point, set()), freeze, is_parameter
        )
    }
    originals = {f.original for f in folded.values()}
    matches = []
    for op in list(block.ops):
        if op in folded:
            rank = len(op.operands[1].type.get_shape())  # type: ignore[attr-defined]
            start = LayerMatch(op, 1, rank - 1)
            matches.append(match_after_bias(start, folded[op].output, is_parameter))
        elif (
            op not in originals
            # create_training_graph quantizes Conv2D, MatMul and DepthwiseConv2dNative:
            # not Conv2DBackpropInput (nn.conv_transpose), a conv's input gradient here
            and not isinstance(op, ConvTransposeOp)
            and (match := match_layer(op, is_parameter))
        ):
            matches.append(match)
    record("layers quantized", len(matches))
    if not matches:
        warn(
            "quantize: found no conv, matmul or gemm layer with variable or constant weights"
        )
        return
    unmasked = []
    for match in matches:
        layer_name = (location_names(match.layer) or ["layer"])[0]
        if match.weight_index is not None and not rewrite.quantize_weight(
            match, layer_name
        ):
            unmasked.append(f"{layer_name} weights")
    activations = list(dict.fromkeys(v for m in matches for v in m.activations))
    record("activations quantized", len(activations))
    outputs = {m.output for m in matches}
    for value in activations:
        initial = OUTPUT_RANGE if value in outputs else INITIAL_RANGE
        if not rewrite.quantize_activation(value, initial):
            unmasked.append(f"{value.name_hint} activations")
    record("quantizations without gradient", len(unmasked))
    trains = any(type(op) in GRADIENT_OPERAND for op in block.ops)
    if unmasked and trains:
        warn(
            f"quantize: {len(unmasked)} fake quantization(s) have no gradient in the "
            f"graph to mask (first: {unmasked[0]}): not a training graph there"
        )
