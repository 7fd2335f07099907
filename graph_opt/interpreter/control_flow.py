"""Reference implementations of the control flow the frontends build: scf.if
comes from xDSL's scf interpreter; scf.while and scf.for are xDSL's with a loop
budget (registered over xDSL's); tensor.extract and tensor.cast on numpy arrays
are here."""

from __future__ import annotations

import numpy as np
from xdsl.dialects import scf, tensor
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.interpreter.loop_limits import LoopBudget, loop_name


@register_impls
class ControlFlowFunctions(InterpreterFunctions):
    @impl(scf.WhileOp)
    def run_while(self, interpreter: Interpreter, op: scf.WhileOp, args):
        budget = LoopBudget(loop_name(op))
        while True:
            condition, *forwarded = interpreter.run_ssacfg_region(
                op.before_region, args, "while.before_region"
            )
            if not condition:
                return tuple(forwarded)
            budget.step()
            args = interpreter.run_ssacfg_region(
                op.after_region, tuple(forwarded), "while.after_region"
            )

    @impl(scf.ForOp)
    def run_for(self, interpreter: Interpreter, op: scf.ForOp, args):
        lower, upper, step, *loop_args = args
        budget = LoopBudget(loop_name(op))
        for i in range(lower, upper, step):
            budget.step()
            loop_args = interpreter.run_ssacfg_region(
                op.body, (i, *loop_args), "for_loop"
            )
        return tuple(loop_args)

    @impl(tensor.ExtractOp)
    def run_extract(self, interpreter: Interpreter, op: tensor.ExtractOp, args):
        array, *indices = args
        return (np.asarray(array)[tuple(indices)].item(),)

    @impl(tensor.CastOp)
    def run_cast(self, interpreter: Interpreter, op: tensor.CastOp, args):
        return (args[0],)
