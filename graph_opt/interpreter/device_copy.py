"""nn.swap_out / nn.swap_in: one memory is the interpreter's only device, so a
copy returns its input (swap_in's control operand carries no data)."""

from __future__ import annotations

from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.device_copy import SwapInOp, SwapOutOp


def _copy(self, interpreter: Interpreter, op, args):
    return (args[0],)


@register_impls
class DeviceCopyFunctions(InterpreterFunctions):
    run_swap_out = impl(SwapOutOp)(_copy)
    run_swap_in = impl(SwapInOp)(_copy)
