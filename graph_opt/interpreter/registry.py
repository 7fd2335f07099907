"""The interpreter function tables of every nn op family."""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions


def all_functions() -> list[InterpreterFunctions]:
    from xdsl.interpreters.scf import ScfFunctions

    from graph_opt.interpreter.control_flow import ControlFlowFunctions
    from graph_opt.interpreter.conv import ConvFunctions
    from graph_opt.interpreter.elementwise import ElementwiseFunctions
    from graph_opt.interpreter.fused import FusedFunctions
    from graph_opt.interpreter.linalg import LinalgFunctions
    from graph_opt.interpreter.norm import NormFunctions
    from graph_opt.interpreter.opaque import OpaqueFunctions
    from graph_opt.interpreter.pool import PoolFunctions
    from graph_opt.interpreter.qint import QIntFunctions
    from graph_opt.interpreter.quant import QuantFunctions
    from graph_opt.interpreter.reduce import ReduceFunctions
    from graph_opt.interpreter.shape_ops import ShapeFunctions
    from graph_opt.interpreter.tensor_ops import TensorFunctions

    return [
        ElementwiseFunctions(),
        ConvFunctions(),
        FusedFunctions(),
        NormFunctions(),
        LinalgFunctions(),
        PoolFunctions(),
        ReduceFunctions(),
        ShapeFunctions(),
        TensorFunctions(),
        OpaqueFunctions(),
        ScfFunctions(),
        ControlFlowFunctions(),
        QIntFunctions(),
        QuantFunctions(),
    ]
