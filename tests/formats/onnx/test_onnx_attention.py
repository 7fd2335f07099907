"""Attention blocks as torch's exporters write them (ONNX models built here):
`optimize` fuses each into nn.attention, and its exports (standard nodes at
the model's opset, ai.onnx Attention from opset 23, onnxruntime's packed
com.microsoft Attention with contrib ops) compute what the original does in
onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model

ort = pytest.importorskip("onnxruntime")

BATCH, SEQ, HEADS, HEAD_DIM = 2, 5, 2, 8
HIDDEN = HEADS * HEAD_DIM


def attention_block(opset: int, *, scale_split: bool, mask: bool, fused_qkv: bool):
    """x [B, S, hidden] -> q, k, v projections -> head split -> attention ->
    head merge, as torch writes it: with `scale_split` q and kᵀ are each
    multiplied by sqrt(scale) (the sdpa path), else the scores are divided by
    sqrt(head_dim) (eager); with `fused_qkv` one matmul and a split make q, k, v."""
    rng = np.random.default_rng(0)
    inits = {
        "split_shape": np.array([0, 0, HEADS, HEAD_DIM], np.int64),
        "merge_shape": np.array([0, 0, HIDDEN], np.int64),
        "sqrt_scale": np.array(HEAD_DIM**-0.25, np.float32),
        "sqrt_dim": np.array(HEAD_DIM**0.5, np.float32),
    }
    nodes = []
    if fused_qkv:
        inits["w"] = rng.standard_normal((HIDDEN, 3 * HIDDEN)).astype(np.float32)
        inits["b"] = rng.standard_normal(3 * HIDDEN).astype(np.float32)
        inits["sizes"] = np.array([HIDDEN] * 3, np.int64)
        nodes += [
            helper.make_node("MatMul", ["x", "w"], ["qkv_mm"]),
            helper.make_node("Add", ["qkv_mm", "b"], ["qkv"]),
            helper.make_node("Split", ["qkv", "sizes"], ["k3", "v3", "q3"], axis=2),
        ]
    else:
        for name in "qkv":
            inits[f"w{name}"] = rng.standard_normal((HIDDEN, HIDDEN)).astype(np.float32)
            inits[f"b{name}"] = rng.standard_normal(HIDDEN).astype(np.float32)
            nodes += [
                helper.make_node("MatMul", ["x", f"w{name}"], [f"{name}_mm"]),
                helper.make_node("Add", [f"{name}_mm", f"b{name}"], [f"{name}3"]),
            ]
    for name in "qkv":
        nodes.append(
            helper.make_node("Reshape", [f"{name}3", "split_shape"], [f"{name}4"])
        )
    nodes += [
        helper.make_node("Transpose", ["q4"], ["q"], perm=[0, 2, 1, 3]),
        helper.make_node("Transpose", ["k4"], ["kt"], perm=[0, 2, 3, 1]),
        helper.make_node("Transpose", ["v4"], ["v"], perm=[0, 2, 1, 3]),
    ]
    if scale_split:
        nodes += [
            helper.make_node("Mul", ["q", "sqrt_scale"], ["qs"]),
            helper.make_node("Mul", ["kt", "sqrt_scale"], ["kts"]),
            helper.make_node("MatMul", ["qs", "kts"], ["scaled"]),
        ]
    else:
        nodes += [
            helper.make_node("MatMul", ["q", "kt"], ["scores"]),
            helper.make_node("Div", ["scores", "sqrt_dim"], ["scaled"]),
        ]
    inputs = [
        helper.make_tensor_value_info("x", TensorProto.FLOAT, [BATCH, SEQ, HIDDEN])
    ]
    probs_in = "scaled"
    if mask:
        inputs.append(
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, [BATCH, 1, 1, SEQ])
        )
        nodes.append(helper.make_node("Add", ["scaled", "mask"], ["masked"]))
        probs_in = "masked"
    nodes += [
        helper.make_node("Softmax", [probs_in], ["probs"], axis=-1),
        helper.make_node("MatMul", ["probs", "v"], ["ctx"]),
        helper.make_node("Transpose", ["ctx"], ["ctx_t"], perm=[0, 2, 1, 3]),
        helper.make_node("Reshape", ["ctx_t", "merge_shape"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes, "attention", inputs,
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [BATCH, SEQ, HIDDEN])],
        [numpy_helper.from_array(v, k) for k, v in inits.items()],
    )  # fmt: skip
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def feeds(model) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(1)
    out = {"x": rng.standard_normal((BATCH, SEQ, HIDDEN)).astype(np.float32)}
    if len(model.graph.input) > 1:
        mask = np.zeros((BATCH, 1, 1, SEQ), np.float32)
        mask[1, ..., -2:] = -1e4
        out["mask"] = mask
    return out


def run_ort(model, inputs) -> np.ndarray:
    session = ort.InferenceSession(
        model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, inputs)[0]


def op_types(model) -> list[str]:
    return [
        f"{n.domain}.{n.op_type}" if n.domain else n.op_type for n in model.graph.node
    ]


CASES = [
    pytest.param(dict(scale_split=True, mask=False, fused_qkv=True), id="sdpa-packed"),
    pytest.param(dict(scale_split=False, mask=False, fused_qkv=False), id="eager"),
    pytest.param(dict(scale_split=False, mask=True, fused_qkv=False), id="eager-mask"),
]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("opset", [17, 23])
def test_standard_export_matches_onnxruntime(case, opset):
    model = attention_block(opset, **case)
    inputs = feeds(model)
    expected = run_ort(model, inputs)
    module = api.run(import_model(model), "optimize")
    assert "nn.attention" in api.to_mlir(module)
    exported = export_module(module)
    types = op_types(exported)
    # onnxruntime's Attention refuses a [B, 1, 1, S] mask: then standard nodes
    assert ("Attention" in types) == (opset >= 23 and not case["mask"])
    np.testing.assert_allclose(
        run_ort(exported, inputs), expected, rtol=1e-5, atol=1e-5
    )


@pytest.mark.parametrize("case", CASES[:2])
def test_contrib_export_is_one_packed_attention(case):
    model = attention_block(17, **case)
    inputs = feeds(model)
    module = api.run(import_model(model), "optimize")
    standard = run_ort(export_module(module), inputs)
    exported = export_module(module, contrib_ops=True)
    assert op_types(exported) == ["com.microsoft.Attention"]
    np.testing.assert_allclose(
        run_ort(exported, inputs), standard, rtol=1e-5, atol=1e-5
    )
    np.testing.assert_allclose(standard, run_ort(model, inputs), rtol=1e-5, atol=1e-5)


def test_contrib_export_with_mask_stays_standard():
    """A mask has no exact form among the packed Attention's inputs here: standard nodes."""
    model = attention_block(17, scale_split=False, mask=True, fused_qkv=False)
    module = api.run(import_model(model), "optimize")
    exported = export_module(module, contrib_ops=True)
    assert "com.microsoft.Attention" not in op_types(exported)
    inputs = feeds(model)
    np.testing.assert_allclose(
        run_ort(exported, inputs), run_ort(model, inputs), rtol=1e-5, atol=1e-5
    )
