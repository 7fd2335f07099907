"""Reference implementations of shape ops."""

from __future__ import annotations

import numpy as np
from xdsl.interpreter import Interpreter, InterpreterFunctions, impl, register_impls

from graph_opt.dialects.nn import shape_ops as s
from graph_opt.dialects.nn.base import int_list, int_value
from graph_opt.interpreter.limits import check_size


@register_impls
class ShapeFunctions(InterpreterFunctions):
    @impl(s.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: s.ReshapeOp, args):
        x, shape = args
        target = s.reshaped(
            x.shape,
            [int(v) for v in shape],
            bool(int_value(op.properties, "allowzero", 0)),
        )
        return (x.reshape(target),)

    @impl(s.FlattenOp)
    def run_flatten(self, interpreter: Interpreter, op: s.FlattenOp, args):
        (x,) = args
        axis = s.flatten_axis(int_value(op.properties, "axis", 1), x.ndim)
        return (x.reshape(int(np.prod(x.shape[:axis])), -1),)

    @impl(s.SqueezeOp)
    def run_squeeze(self, interpreter: Interpreter, op: s.SqueezeOp, args):
        (x,) = args
        return (np.squeeze(x, int_list(op.properties, "axes")),)

    @impl(s.UnsqueezeOp)
    def run_unsqueeze(self, interpreter: Interpreter, op: s.UnsqueezeOp, args):
        (x,) = args
        return (np.expand_dims(x, int_list(op.properties, "axes")),)

    @impl(s.ShapeOp)
    def run_shape(self, interpreter: Interpreter, op: s.ShapeOp, args):
        (x,) = args
        return (np.array([x.shape[i] for i in op.dims(x.ndim)], np.int64),)

    @impl(s.SizeOp)
    def run_size(self, interpreter: Interpreter, op: s.SizeOp, args):
        return (np.array(args[0].size, np.int64),)

    @impl(s.RankOp)
    def run_rank(self, interpreter: Interpreter, op: s.RankOp, args):
        return (np.array(args[0].ndim, np.int64),)

    @impl(s.ConstantOfShapeOp)
    def run_constant_of_shape(
        self, interpreter: Interpreter, op: s.ConstantOfShapeOp, args
    ):
        (shape,) = args
        fill = op.fill_value()
        dims = [int(d) for d in shape]
        check_size(op, dims, fill.dtype)
        return (np.full(dims, fill, fill.dtype),)
