"""fuse-ops on activations as real exporters write them (ONNX models built here):
each producer's decomposed form becomes one op, or a fused conv/matmul
activation; the result, exported at the model's opset and with onnxruntime's
contrib ops, computes what the original model does in onnxruntime."""

from __future__ import annotations

import numpy as np
import pytest
from onnx import NodeProto, TensorProto, helper, numpy_helper

from graph_opt import api
from graph_opt.formats.onnx.exporter import export_module
from graph_opt.formats.onnx.importer import import_model
from graph_opt.statistics import PassStatistics

ort = pytest.importorskip("onnxruntime")

X_SHAPE = (2, 4, 5, 5)
RNG = np.random.default_rng(0)
WEIGHTS = {
    "w": RNG.standard_normal((4, 4, 3, 3)).astype(np.float32) * 0.5,
    "bias": RNG.standard_normal(4).astype(np.float32),
    "m": RNG.standard_normal((5, 6)).astype(np.float32),
    "mb": RNG.standard_normal(6).astype(np.float32),
}


def node(op_type: str, inputs: list[str], output: str, **attrs):
    return helper.make_node(op_type, inputs, [output], **attrs)


def model(nodes, constants: dict[str, float], opset: int = 13, x_shape=X_SHAPE):
    """A model of `nodes` from input x to output y; scalar constants and WEIGHTS as initializers."""
    inits = [
        numpy_helper.from_array(np.array(v, np.float32), k)
        for k, v in constants.items()
    ]
    inits += [numpy_helper.from_array(v, k) for k, v in WEIGHTS.items()]
    graph = helper.make_graph(
        nodes,
        "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        inits,
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def run_ort(onnx_model, x: np.ndarray) -> np.ndarray:
    session = ort.InferenceSession(
        onnx_model.SerializeToString(), providers=["CPUExecutionProvider"]
    )
    return session.run(None, {session.get_inputs()[0].name: x})[0]


def fused(onnx_model, x_shape=X_SHAPE):
    """fuse-ops on the imported model; its nn op names, statistics, and the
    exports (standard and contrib) checked against onnxruntime on the original."""
    x = (np.random.default_rng(1).standard_normal(x_shape) * 4).astype(np.float32)
    expected = run_ort(onnx_model, x)
    stats: list[PassStatistics] = []
    module = api.run(import_model(onnx_model), "fuse-ops", statistics=stats)
    for contrib in (False, True):
        exported = export_module(module, contrib_ops=contrib)
        got = run_ort(exported, x)
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    names = [op.name for op in module.walk() if op.name.startswith("nn.")]
    return [n for n in names if n != "nn.constant"], stats[0], module


SILU = [node("Sigmoid", ["x"], "s"), node("Mul", ["x", "s"], "y")]
SILU_SWAPPED = [node("Sigmoid", ["x"], "s"), node("Mul", ["s", "x"], "y")]
RELU6_CLIP = [node("Add", ["x", "three"], "a"), node("Clip", ["a", "zero", "six"], "r")]
RELU6_RELU_MIN = [
    node("Add", ["three", "x"], "a"),
    node("Relu", ["a"], "p"),
    node("Min", ["p", "six"], "r"),
]
RELU6_MAX_MIN = [
    node("Add", ["x", "three"], "a"),
    node("Max", ["a", "zero"], "p"),
    node("Min", ["p", "six"], "r"),
]
GELU_TANH_TORCH = [  # torch.onnx, approximate="tanh" below opset 20
    node("Mul", ["x", "x"], "x2"),
    node("Mul", ["x", "x2"], "x3"),
    node("Mul", ["kappa", "x3"], "k3"),
    node("Add", ["x", "k3"], "sum"),
    node("Mul", ["beta", "sum"], "inner"),
    node("Tanh", ["inner"], "t"),
    node("Add", ["one", "t"], "g"),
    node("Mul", ["x", "g"], "xg"),
    node("Mul", ["half", "xg"], "y"),
]
GELU_TANH_HF = [  # 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * pow(x, 3))))
    node("Mul", ["half", "x"], "hx"),
    node("Pow", ["x", "three"], "x3"),
    node("Mul", ["x3", "kappa"], "k3"),
    node("Add", ["x", "k3"], "sum"),
    node("Mul", ["sum", "beta"], "inner"),
    node("Tanh", ["inner"], "t"),
    node("Add", ["t", "one"], "g"),
    node("Mul", ["hx", "g"], "y"),
]
GELU_TANH_MEGATRON = [  # x * 0.5 * (1 + tanh(0.79788456 * x * (1 + 0.044715 * x * x)))
    node("Mul", ["x", "half"], "hx"),
    node("Mul", ["beta", "x"], "bx"),
    node("Mul", ["kappa", "x"], "kx"),
    node("Mul", ["kx", "x"], "kxx"),
    node("Add", ["one", "kxx"], "p"),
    node("Mul", ["bx", "p"], "inner"),
    node("Tanh", ["inner"], "t"),
    node("Add", ["one", "t"], "g"),
    node("Mul", ["hx", "g"], "y"),
]
CONSTANTS = {
    "zero": 0.0, "one": 1.0, "half": 0.5, "three": 3.0, "six": 6.0,
    "sixth": 1 / 6, "kappa": 0.044715, "beta": 0.79788456,
}  # fmt: skip

DECOMPOSED = {
    "silu": (SILU, "nn.silu"),
    "silu_swapped": (SILU_SWAPPED, "nn.silu"),
    "hard_sigmoid_clip_div": (
        [*RELU6_CLIP, node("Div", ["r", "six"], "y")],
        "nn.hard_sigmoid",
    ),
    "hard_sigmoid_relu_min_times_sixth": (
        [*RELU6_RELU_MIN, node("Mul", ["r", "sixth"], "y")],
        "nn.hard_sigmoid",
    ),
    "hard_sigmoid_max_min_div": (
        [*RELU6_MAX_MIN, node("Div", ["r", "six"], "y")],
        "nn.hard_sigmoid",
    ),
    "hard_sigmoid_keras_v1": (  # clip(0.2 * x + 0.5, 0, 1)
        [
            node("Mul", ["x", "fifth"], "a"),
            node("Add", ["a", "half"], "b"),
            node("Clip", ["b", "zero", "one"], "y"),
        ],
        "nn.hard_sigmoid",
    ),
    "hard_swish_torch_opset13": (  # torch.onnx below opset 14
        [
            node("HardSigmoid", ["x"], "h", alpha=1 / 6, beta=0.5),
            node("Mul", ["x", "h"], "y"),
        ],
        "nn.hard_swish",
    ),
    "hard_swish_x_relu6_div": (
        [*RELU6_CLIP, node("Mul", ["x", "r"], "p"), node("Div", ["p", "six"], "y")],
        "nn.hard_swish",
    ),
    "hard_swish_keras": (  # x * (relu6(x + 3) * (1/6))
        [
            *RELU6_RELU_MIN,
            node("Mul", ["r", "sixth"], "h"),
            node("Mul", ["x", "h"], "y"),
        ],
        "nn.hard_swish",
    ),
    "hard_swish_max_min_times_sixth": (
        [
            *RELU6_MAX_MIN,
            node("Mul", ["r", "x"], "q"),
            node("Mul", ["sixth", "q"], "y"),
        ],
        "nn.hard_swish",
    ),
    "mish_softplus": (
        [
            node("Softplus", ["x"], "sp"),
            node("Tanh", ["sp"], "t"),
            node("Mul", ["x", "t"], "y"),
        ],
        "nn.mish",
    ),
    "mish_log_exp": (
        [
            node("Exp", ["x"], "e"),
            node("Add", ["e", "one"], "e1"),
            node("Log", ["e1"], "sp"),
            node("Tanh", ["sp"], "t"),
            node("Mul", ["t", "x"], "y"),
        ],
        "nn.mish",
    ),
    "gelu_tanh_torch": (GELU_TANH_TORCH, "nn.gelu"),
    "gelu_tanh_hf": (GELU_TANH_HF, "nn.gelu"),
    "gelu_tanh_megatron": (GELU_TANH_MEGATRON, "nn.gelu"),
}


@pytest.mark.parametrize("case", sorted(DECOMPOSED))
def test_decomposed_activation_becomes_one_op(case):
    nodes, expected = DECOMPOSED[case]
    names, stats, module = fused(model(nodes, {**CONSTANTS, "fifth": 0.2}))
    assert names == [expected], names
    kind = "".join(w.title() for w in expected[3:].split("_"))
    kind = {"Silu": "Silu", "Gelu": "Gelu"}.get(kind, kind)
    assert stats.rewrites[f"Fuse{kind}"] == 1, stats.rewrites
    if case.startswith("gelu_tanh"):
        assert 'approximate = "tanh"' in api.to_mlir(module)


def test_hard_sigmoid_params():
    nodes, _ = DECOMPOSED["hard_sigmoid_keras_v1"]
    _, _, module = fused(model(nodes, {**CONSTANTS, "fifth": 0.2}))
    (op,) = [op for op in module.walk() if op.name == "nn.hard_sigmoid"]
    assert np.isclose(op.alpha.value.data, 0.2) and np.isclose(op.beta.value.data, 0.5)


NEGATIVE = {
    "silu_of_another_value": [
        node("Sigmoid", ["x"], "s"),
        node("Mul", ["s", "s"], "y"),
    ],
    "hard_sigmoid_wrong_scale": [  # tops out at 6 / 6.5
        node("Add", ["x", "three"], "a"),
        node("Clip", ["a", "zero", "six"], "r"),
        node("Div", ["r", "six_ish"], "y"),
    ],
    "hard_swish_wrong_scale": [
        *RELU6_CLIP,
        node("Mul", ["x", "r"], "p"),
        node("Div", ["p", "six_ish"], "y"),
    ],
    "gelu_tanh_wrong_cubic": [
        n if n.output[0] != "k3" else node("Mul", ["kappa_ish", "x3"], "k3")
        for n in GELU_TANH_TORCH
    ],
    "gelu_wrong_half": [
        n if n.output[0] != "y" else node("Mul", ["sixth", "xg"], "y")
        for n in GELU_TANH_TORCH
    ],
    "mish_without_softplus": [
        node("Tanh", ["x"], "t"),
        node("Mul", ["x", "t"], "y"),
    ],
}


@pytest.mark.parametrize("case", sorted(NEGATIVE))
def test_wrong_constant_or_structure_is_not_fused(case):
    constants = {**CONSTANTS, "three_ish": 3.01, "six_ish": 6.5, "kappa_ish": 0.04}
    names, _, _ = fused(model(NEGATIVE[case], constants))
    fused_names = {"nn.silu", "nn.hard_sigmoid", "nn.hard_swish", "nn.gelu", "nn.mish"}
    assert not fused_names & set(names), names


def test_interior_value_with_another_user_is_not_fused():
    """The sigmoid is also a model output: the chain stays."""
    nodes = [*SILU, node("Identity", ["s"], "z")]
    onnx_model = model(nodes, {})
    onnx_model.graph.output.append(
        helper.make_tensor_value_info("z", TensorProto.FLOAT, None)
    )
    module = api.run(import_model(onnx_model), "fuse-ops")
    assert "nn.silu" not in api.to_mlir(module)


def test_constant_that_broadcasts_x_is_not_fused():
    """0.5 of shape [3, 1, 1, 1, 1] makes the result larger than x: no gelu."""
    onnx_model = model(
        GELU_TANH_TORCH, {k: v for k, v in CONSTANTS.items() if k != "half"}
    )
    onnx_model.graph.initializer.append(
        numpy_helper.from_array(np.full((3, 1, 1, 1, 1), 0.5, np.float32), "half")
    )
    module = api.run(import_model(onnx_model), "fuse-ops")
    assert "nn.gelu" not in api.to_mlir(module)


CONV = [node("Conv", ["x", "w", "bias"], "c", pads=[1, 1, 1, 1])]
MATMUL = [node("MatMul", ["x", "m"], "mm"), node("Add", ["mm", "mb"], "c")]


def on(producer: list, nodes: list) -> list:
    """`nodes` (an activation of x) applied to the producer's output c."""
    renamed = []
    for n in nodes:
        copy = NodeProto()
        copy.CopyFrom(n)
        copy.input[:] = ["c" if i == "x" else i for i in n.input]
        renamed.append(copy)
    return [*producer, *renamed]


FUSED = {
    "conv_silu": (CONV, SILU, "nn.fused_conv", "silu", "QuickGelu", True),
    "conv_hard_sigmoid_se_gate": (  # MobileNetV3's squeeze-excite gate
        CONV,
        [*RELU6_CLIP, node("Div", ["r", "six"], "y")],
        "nn.fused_conv",
        "hard_sigmoid",
        "FusedConv",
        True,
    ),
    "conv_hard_swish": (
        CONV,
        DECOMPOSED["hard_swish_keras"][0],
        "nn.fused_conv",
        "hard_swish",
        "Conv",
        False,
    ),
    "matmul_gelu_tanh": (
        MATMUL,
        GELU_TANH_HF,
        "nn.fused_matmul",
        "gelu_tanh",
        "FastGelu",
        True,
    ),
    "matmul_silu": (MATMUL, SILU, "nn.fused_matmul", "silu", "QuickGelu", True),
    "matmul_hard_sigmoid_2d": (
        MATMUL,
        DECOMPOSED["hard_sigmoid_clip_div"][0],
        "nn.fused_matmul",
        "hard_sigmoid",
        "FusedGemm",
        True,
    ),
}


@pytest.mark.parametrize("case", sorted(FUSED))
def test_activation_fuses_into_conv_or_matmul(case):
    producer, activation, op_name, expected, contrib_op, contrib = FUSED[case]
    x_shape = (3, 5) if "2d" in case else (2, 4, 5) if producer is MATMUL else X_SHAPE
    nodes = on(producer, activation)
    names, stats, module = fused(model(nodes, CONSTANTS, x_shape=x_shape), x_shape)
    assert names == [op_name], names
    (op,) = [op for op in module.walk() if op.name == op_name]
    assert op.activation_name == expected
    assert stats.counters[f"{expected} fused into {op_name}"] == 1
    contrib_model = export_module(module, contrib_ops=True)
    op_types = {n.op_type for n in contrib_model.graph.node}
    assert contrib_op in op_types, op_types
    domains = {o.domain for o in contrib_model.opset_import}
    assert ("com.microsoft" in domains) == contrib
    standard = export_module(module)
    assert "com.microsoft" not in {o.domain for o in standard.opset_import}


@pytest.mark.parametrize("case", ["silu", "hard_swish_keras", "mish_softplus"])
def test_native_op_at_new_opsets(case):
    """At opset 24 SiLU is Swish, HardSwish and Mish are themselves."""
    nodes, expected = DECOMPOSED[case]
    names, _, module = fused(model(nodes, CONSTANTS, opset=24))
    assert names == [expected]
    exported = export_module(module)
    native = {"nn.silu": "Swish", "nn.hard_swish": "HardSwish", "nn.mish": "Mish"}
    assert [n.op_type for n in exported.graph.node] == [native[expected]]


def test_gelu_tanh_exports_its_cube_as_pow():
    """Below opset 20 without contrib ops, gelu_tanh is written out with one
    Pow for x^3 (onnxruntime computes it as x * x * x): the nodes of
    HuggingFace's form, and its numbers exactly."""
    original = model(GELU_TANH_HF, CONSTANTS)
    module = api.run(import_model(original), "fuse-ops")
    exported = export_module(module)
    ops = [n.op_type for n in exported.graph.node]
    assert sorted(ops) == sorted(n.op_type for n in GELU_TANH_HF), ops
    x = (np.random.default_rng(3).standard_normal(X_SHAPE) * 4).astype(np.float32)
    np.testing.assert_array_equal(run_ort(exported, x), run_ort(original, x))
