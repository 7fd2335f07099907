"""The interpreter function tables: nn op families, and the xDSL control flow around them."""

from __future__ import annotations

from xdsl.interpreter import InterpreterFunctions


def nn_functions() -> list[InterpreterFunctions]:
    """The tables of every nn op family (enough to evaluate single ops)."""
    from graph_opt.formats.onnx.opaque_eval import OpaqueFunctions
    from graph_opt.interpreter.attention import AttentionFunctions
    from graph_opt.interpreter.compare import CompareFunctions
    from graph_opt.interpreter.conv import ConvFunctions
    from graph_opt.interpreter.detection import DetectionFunctions
    from graph_opt.interpreter.device_copy import DeviceCopyFunctions
    from graph_opt.interpreter.elementwise import ElementwiseFunctions
    from graph_opt.interpreter.fused import FusedFunctions
    from graph_opt.interpreter.index_ops import IndexFunctions
    from graph_opt.interpreter.linalg import LinalgFunctions
    from graph_opt.interpreter.norm import NormFunctions
    from graph_opt.interpreter.pool import PoolFunctions
    from graph_opt.interpreter.pool_grad import PoolGradFunctions
    from graph_opt.interpreter.qint import QIntFunctions
    from graph_opt.interpreter.qpool import QPoolFunctions
    from graph_opt.interpreter.quant import QuantFunctions, QuantTrainingFunctions
    from graph_opt.interpreter.reduce import ReduceFunctions
    from graph_opt.interpreter.resize import ResizeFunctions
    from graph_opt.interpreter.shape_ops import ShapeFunctions
    from graph_opt.interpreter.tensor_ops import TensorFunctions
    from graph_opt.interpreter.training import TrainingFunctions

    return [
        ElementwiseFunctions(),
        CompareFunctions(),
        ConvFunctions(),
        FusedFunctions(),
        NormFunctions(),
        AttentionFunctions(),
        LinalgFunctions(),
        PoolFunctions(),
        PoolGradFunctions(),
        ReduceFunctions(),
        ShapeFunctions(),
        TensorFunctions(),
        OpaqueFunctions(),
        QIntFunctions(),
        QPoolFunctions(),
        QuantFunctions(),
        QuantTrainingFunctions(),
        IndexFunctions(),
        DetectionFunctions(),
        ResizeFunctions(),
        DeviceCopyFunctions(),
        TrainingFunctions(),
    ]


def control_flow_functions() -> list[InterpreterFunctions]:
    """The tables of func, scf and tensor, to run whole functions.

    Imported only here: importing any `xdsl.interpreters` module loads all of
    xDSL's interpreters (~0.3 s), which evaluating single ops does not need.
    """
    from xdsl.interpreters.func import FuncFunctions
    from xdsl.interpreters.scf import ScfFunctions

    from graph_opt.interpreter.control_flow import ControlFlowFunctions

    return [FuncFunctions(), ScfFunctions(), ControlFlowFunctions()]
