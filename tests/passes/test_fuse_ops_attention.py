"""fuse-ops on attention: each case of the FileCheck file computes the same
before and after (the interpreter, random inputs); nn.attention's causal flag
is the lower-triangular mask, in the interpreter and in its ONNX export."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.func import FuncOp

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.interpreter import run_function
from graph_opt.passes.fuse_ops.fuse_ops import FuseOpsPass
from graph_opt.remarks import GraphOptWarning

CASES = (
    Path(__file__).parent.parent / "filecheck/passes/fuse-ops-attention.mlir"
).read_text()


def random_inputs(module, seed: int = 0) -> list[np.ndarray]:
    func = next(op for op in module.walk() if isinstance(op, FuncOp))
    rng = np.random.default_rng(seed)
    return [
        rng.standard_normal(t.get_shape()).astype(np.float32)
        for t in func.function_type.inputs.data
    ]


@pytest.mark.parametrize(
    "case",
    [c for c in CASES.split("// -----") if "func.func" in c],
    ids=lambda c: re.search(r"func\.func @(\w+)", c).group(1),
)
def test_fusion_computes_the_same(case):
    module = api.parse(case)
    inputs = random_inputs(module)
    expected = run_function(module, inputs)
    negative = "func.func @negative_" in case
    with contextlib.ExitStack() as stack:
        if negative:
            stack.enter_context(pytest.warns(GraphOptWarning, match="nothing to fuse"))
        FuseOpsPass().apply(api.context(), module)
    module.verify()
    assert ("nn.attention" in api.to_mlir(module)) != negative
    for got, want in zip(run_function(module, inputs), expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


CAUSAL = """
func.func @f(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x6x8xf32>, %v: tensor<1x2x6x8xf32>, %m: tensor<4x6xf32>) -> (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) {
  %0 = nn.attention %q, %k, %v {is_causal = 1 : i64, scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>) -> tensor<1x2x4x8xf32>
  %1 = nn.attention %q, %k, %v, %m {scale = 0.5 : f32} : (tensor<1x2x4x8xf32>, tensor<1x2x6x8xf32>, tensor<1x2x6x8xf32>, tensor<4x6xf32>) -> tensor<1x2x4x8xf32>
  func.return %0, %1 : tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>
}
"""


def causal_inputs(module) -> list[np.ndarray]:
    q, k, v, _ = random_inputs(module)
    mask = np.where(np.tril(np.ones((4, 6), bool)), 0, -np.inf).astype(np.float32)
    return [q, k, v, mask]


def test_causal_flag_is_the_lower_triangle():
    module = api.parse(CAUSAL)
    causal, masked = run_function(module, causal_inputs(module))
    np.testing.assert_allclose(causal, masked, rtol=1e-6)


@pytest.mark.parametrize("opset", [17, 23])
def test_causal_export_runs_in_onnxruntime(opset):
    ort = pytest.importorskip("onnxruntime")
    module = api.parse(CAUSAL)
    inputs = causal_inputs(module)
    expected = run_function(module, inputs)
    module.attributes["nn.onnx_opset_import"] = api.parse(
        f'builtin.module attributes {{nn.onnx_opset_import = {{"" = {opset} : i64}}}} {{}}'
    ).attributes["nn.onnx_opset_import"]
    model = export_module(module)
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    feeds = {i.name: x for i, x in zip(session.get_inputs(), inputs)}
    for got, want in zip(session.run(None, feeds), expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
