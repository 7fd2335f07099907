"""Reference implementations of shape ops."""

from __future__ import annotations

from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn.base import int_value
from graph_opt.dialects.nn.shape_ops import ReshapeOp, reshaped


@register_impls
class ShapeFunctions(InterpreterFunctions):
    @impl(ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: ReshapeOp, args):
        x, shape = args
        target = reshaped(
            x.shape,
            [int(v) for v in shape],
            bool(int_value(op.properties, "allowzero", 0)),
        )
        return (x.reshape(target),)
