"""One-node ONNX models checked three ways: our interpreter and the exported model
against onnxruntime on the original."""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import helper, numpy_helper
from xdsl.dialects.builtin import ModuleOp

from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model
from graph_opt.interpreter import run_function

RNG = np.random.default_rng(0)


def rand(*shape, dtype=np.float32) -> np.ndarray:
    return RNG.standard_normal(shape).astype(dtype)


def model_of(
    op_type: str,
    feeds: dict[str, np.ndarray],
    opset: int = 18,
    consts: dict[str, np.ndarray] | None = None,
    inputs: list[str] | None = None,
    outputs: int = 1,
    **attrs,
) -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """A one-node model and its feeds; `inputs` orders the node inputs ("" for absent)."""
    consts = consts or {}
    names = inputs if inputs is not None else [*feeds, *consts]
    node = helper.make_node(op_type, names, [f"y{i}" for i in range(outputs)], **attrs)
    graph = helper.make_graph(
        [node],
        "g",
        [
            helper.make_tensor_value_info(
                n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape
            )
            for n, a in feeds.items()
        ],
        [helper.make_empty_tensor_value_info(f"y{i}") for i in range(outputs)],
        [numpy_helper.from_array(a, n) for n, a in consts.items()],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 9
    return model, feeds


def run_ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    model.ir_version = 9
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, feeds)


def assert_outputs_close(
    ours: list[np.ndarray], theirs: list[np.ndarray], tol: float = 1e-5
) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert a.dtype == b.dtype and a.shape == b.shape, (a.shape, b.shape)
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


def op_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk()]


def check_against_ort(
    model: onnx.ModelProto,
    feeds: dict[str, np.ndarray],
    op_name: str,
    tol: float = 1e-5,
) -> ModuleOp:
    """Import (asserting `op_name` is first-class), then compare our interpreter and
    the exported model with onnxruntime on the original model."""
    module = import_model(model)
    module.verify()
    names = op_names(module)
    assert op_name in names and "nn.opaque" not in names, names
    expected = run_ort(model, feeds)
    assert_outputs_close(run_function(module, feeds), expected, tol)
    exported = export_module(module)
    onnx.checker.check_model(exported)
    assert_outputs_close(run_ort(exported, feeds), expected, tol)
    return module
