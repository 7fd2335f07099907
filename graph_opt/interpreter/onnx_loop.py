"""ONNX's Loop in onnx's reference evaluator, stopped at the loop limits."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graph_opt.interpreter.loop_limits import LoopBudget

if TYPE_CHECKING:
    from onnx.reference.ops.op_loop import Loop as ReferenceLoop


def bounded_loop(what: str) -> type[ReferenceLoop]:
    """onnx's Loop (for `ReferenceEvaluator(new_ops=...)`, nested loops too), each
    run counted by a `LoopBudget` naming `what`."""
    # imported when first needed: onnx.reference is ~200 modules and ~10 MB
    from onnx.reference.ops.op_loop import Loop as ReferenceLoop

    class Loop(ReferenceLoop):
        op_domain = ""

        def __init__(self, onnx_node, run_params):
            super().__init__(onnx_node, run_params)
            run_body = self._run_body  # set per instance from the body attribute

            def counted_body(*args, **kwargs):
                self.budget.step()
                return run_body(*args, **kwargs)

            self._run_body = counted_body

        def _run(self, *args, **kwargs):
            self.budget = LoopBudget(what)
            return super()._run(*args, **kwargs)

    return Loop
