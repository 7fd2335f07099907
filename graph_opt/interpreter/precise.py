"""Evaluating a float32 graph in float64: a precise reference for quantized graphs.

A fake-quantized float32 graph is a poor reference for its integer graph near
rounding ties: TF's FakeQuant arithmetic rounds (x - nudged_min) / scale in
float32, and float32 convs and adds move values by an ulp, so a value a few
1e-6 steps from a tie can take either level, while the integer graph rounds
exact integer sums. `run_float64` runs the same module with every float32
constant and input widened to float64, so each float op computes in float64
and each fake quantization of a computed value picks the level exact
arithmetic gives on the same grid (`fake_quant_exact`: TF's nudged range and
scale, kept in float32). A fake quantization of a constant (a weight) keeps the
levels TF's float32 kernel gives it, which are what convert-to-int stores as
int8, and only its values become exact (level x scale).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls
from xdsl.ir import Operation
from xdsl.utils.exceptions import InterpretationError

from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.quant import FakeQuantOp
from graph_opt.dialects.nn.quant_training import FakeQuantVarsOp
from graph_opt.entry import entry_function
from graph_opt.interpreter.runner import function_arguments, make_function_interpreter
from graph_opt.quantization.fake_quant_math import fake_quant, fake_quant_exact


def widened(value):
    """A float32 array as float64; anything else as it is."""
    if isinstance(value, np.ndarray) and value.dtype == np.float32:
        return value.astype(np.float64)
    return value


@register_impls
class WideningFunctions(InterpreterFunctions):
    """Float32 constants read as float64, fake quantizations with exact levels."""

    @impl(ConstantOp)
    def run_constant(self, interpreter: Interpreter, op: ConstantOp, args):
        return (widened(op.to_array()),)

    @impl(FakeQuantOp)
    def run_fake_quant(self, interpreter: Interpreter, op: FakeQuantOp, args):
        (x,) = args
        if x.dtype != np.float64:
            raise InterpretationError(f"{op.name} on {x.dtype} in a float64 evaluation")
        axis = None if op.axis is None else op.axis.value.data % x.ndim
        range_ = (op.mins, op.maxs, op.bits, op.is_narrow, axis)
        if isinstance(op.input.owner, ConstantOp):  # the weight's levels, as stored
            x = fake_quant(x, *range_).astype(np.float64)
        return (fake_quant_exact(x, *range_),)

    @impl(FakeQuantVarsOp)
    def run_fake_quant_vars(self, interpreter: Interpreter, op: FakeQuantVarsOp, args):
        x, low, high = (np.asarray(a) for a in args)
        range_ = (low.astype(np.float32).reshape(1), high.astype(np.float32).reshape(1))
        return (fake_quant_exact(x, *range_, op.bits, op.is_narrow),)


class Float32Guard(Interpreter.Listener):
    """Refuses a float32 result, which would make the evaluation less precise
    than it claims (an op whose kernel narrows, e.g. a cast to f32)."""

    def did_interpret_op(self, op: Operation, results) -> None:
        for result in results:
            if isinstance(result, np.ndarray) and result.dtype == np.float32:
                raise InterpretationError(
                    f"{op.name} computed in float32 in a float64 evaluation"
                )


def run_float64(
    module: ModuleOp,
    inputs: Sequence[np.ndarray] | Mapping[str, np.ndarray],
    function: str | None = None,
) -> list[np.ndarray]:
    """`run_function` with float32 widened to float64 throughout (see above):
    float results come back as float64."""
    target = entry_function(module, function)
    args = [widened(a) for a in function_arguments(target, inputs)]
    interpreter = make_function_interpreter(module)
    interpreter.register_implementations(WideningFunctions(), override=True)
    interpreter.listeners = (*interpreter.listeners, Float32Guard())
    return [np.asarray(r) for r in interpreter.call_op(target, tuple(args))]
