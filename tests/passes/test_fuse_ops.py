"""fuse-ops: every fusion computes what the unfused chain did; fused ops export to ONNX that onnxruntime runs."""

from __future__ import annotations

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import VerifyException

from graph_opt import api
from graph_opt.interpreter import run_function
from graph_opt.passes.fuse_ops.fuse_ops import FuseOpsPass
from graph_opt.patterns import rewrite
from graph_opt.patterns.matcher import match_value

RNG_SEED = 0


def dense(array: np.ndarray) -> str:
    """An nn.constant of a float32 array, written as its bytes."""
    array = np.asarray(array, dtype="<f4")
    dims = "x".join(map(str, array.shape))
    tensor = f"tensor<{dims}xf32>" if dims else "tensor<f32>"
    return f'nn.constant dense<"0x{array.tobytes().hex().upper()}"> : {tensor}'


def op_names(module: ModuleOp) -> list[str]:
    return [op.name for op in module.walk() if op.name.startswith("nn.")]


def check_fusion(
    text: str,
    input_shapes: list[tuple[int, ...]],
    fused: str,
    gone: tuple[str, ...],
) -> ModuleOp:
    """Run the function before and after fuse-ops on random inputs; the results agree."""
    module = api.parse(text)
    rng = np.random.default_rng(RNG_SEED)
    inputs = [rng.standard_normal(s).astype(np.float32) for s in input_shapes]
    expected = run_function(module, inputs)
    FuseOpsPass().apply(api.context(), module)
    module.verify()
    names = op_names(module)
    assert fused in names, names
    assert not set(gone) & set(names), names
    for got, want in zip(run_function(module, inputs), expected):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    return module


CONV_ACTIVATIONS = {
    "relu": "nn.relu %1",
    "relu6": "nn.clip %1 {min = 0.0 : f32, max = 6.0 : f32}",
    "clip": "nn.clip %1 {min = -0.5 : f32, max = 0.5 : f32}",
    "leaky_relu": "nn.leaky_relu %1 {alpha = 0.2 : f32}",
    "sigmoid": "nn.sigmoid %1",
    "tanh": "nn.tanh %1",
}


@pytest.mark.parametrize("activation", sorted(CONV_ACTIVATIONS))
def test_conv_bias_activation_nchw(activation):
    bias = np.random.default_rng(1).standard_normal((4, 1, 1)) * 3
    module = check_fusion(
        f"""
        func.func @f(%x: tensor<1x3x7x7xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32> {{
          %c = {dense(bias)}
          %0 = nn.conv %x, %w {{strides = array<i64: 2, 2>, pads = array<i64: 1, 1, 1, 1>}} : (tensor<1x3x7x7xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
          %1 = nn.add %c, %0 : (tensor<4x1x1xf32>, tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
          %2 = {CONV_ACTIVATIONS[activation]} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
          func.return %2 : tensor<1x4x4x4xf32>
        }}""",
        [(1, 3, 7, 7), (4, 3, 3, 3)],
        "nn.fused_conv",
        ("nn.conv", "nn.add", "nn.relu", "nn.clip"),
    )
    (conv,) = [op for op in module.walk() if op.name == "nn.fused_conv"]
    assert conv.activation_name == activation


def test_conv_nhwc_grouped_existing_bias_relu6():
    rng = np.random.default_rng(2)
    check_fusion(
        f"""
        func.func @f(%x: tensor<1x6x6x4xf32>, %w: tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32> {{
          %b = {dense(rng.standard_normal(4))}
          %c = {dense(rng.standard_normal((1, 1, 1, 4)))}
          %0 = nn.conv %x, %w, %b {{data_layout = "NHWC", group = 2 : i64}} : (tensor<1x6x6x4xf32>, tensor<3x3x2x4xf32>, tensor<4xf32>) -> tensor<1x4x4x4xf32>
          %1 = nn.add %0, %c : (tensor<1x4x4x4xf32>, tensor<1x1x1x4xf32>) -> tensor<1x4x4x4xf32>
          %2 = nn.clip %1 {{min = 0.0 : f32, max = 6.0 : f32}} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
          func.return %2 : tensor<1x4x4x4xf32>
        }}""",
        [(1, 6, 6, 4), (3, 3, 2, 4)],
        "nn.fused_conv",
        ("nn.conv", "nn.add", "nn.clip"),
    )


def test_conv_scalar_bias_without_activation_stays_conv():
    check_fusion(
        f"""
        func.func @f(%x: tensor<1x2x5x5xf32>, %w: tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32> {{
          %c = {dense(np.array(0.75))}
          %0 = nn.conv %x, %w : (tensor<1x2x5x5xf32>, tensor<3x2x3x3xf32>) -> tensor<1x3x3x3xf32>
          %1 = nn.add %0, %c : (tensor<1x3x3x3xf32>, tensor<f32>) -> tensor<1x3x3x3xf32>
          func.return %1 : tensor<1x3x3x3xf32>
        }}""",
        [(1, 2, 5, 5), (3, 2, 3, 3)],
        "nn.conv",
        ("nn.add",),
    )


@pytest.mark.parametrize(
    "activation", ["nn.relu %1", "nn.tanh %1", "nn.leaky_relu %1 {alpha = 0.3 : f32}"]
)
def test_batched_matmul_bias_activation(activation):
    bias = np.random.default_rng(3).standard_normal(3)
    check_fusion(
        f"""
        func.func @f(%x: tensor<2x4x5xf32>, %w: tensor<5x3xf32>) -> tensor<2x4x3xf32> {{
          %c = {dense(bias)}
          %0 = nn.matmul %x, %w : (tensor<2x4x5xf32>, tensor<5x3xf32>) -> tensor<2x4x3xf32>
          %1 = nn.add %0, %c : (tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<2x4x3xf32>
          %2 = {activation} : (tensor<2x4x3xf32>) -> tensor<2x4x3xf32>
          func.return %2 : tensor<2x4x3xf32>
        }}""",
        [(2, 4, 5), (5, 3)],
        "nn.fused_matmul",
        ("nn.matmul", "nn.add", "nn.relu", "nn.tanh", "nn.leaky_relu"),
    )


def test_matmul_bias_only():
    bias = np.random.default_rng(4).standard_normal((1, 3))
    check_fusion(
        f"""
        func.func @f(%x: tensor<4x5xf32>, %w: tensor<5x3xf32>) -> tensor<4x3xf32> {{
          %c = {dense(bias)}
          %0 = nn.matmul %x, %w : (tensor<4x5xf32>, tensor<5x3xf32>) -> tensor<4x3xf32>
          %1 = nn.add %c, %0 : (tensor<1x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
          func.return %1 : tensor<4x3xf32>
        }}""",
        [(4, 5), (5, 3)],
        "nn.fused_matmul",
        ("nn.matmul", "nn.add"),
    )


GELU_BODIES = {
    "torch": """
          %0 = nn.div %x, %s : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>
          %1 = nn.erf %0 : (tensor<3x8xf32>) -> tensor<3x8xf32>
          %2 = nn.add %1, %one : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>
          %3 = nn.mul %x, %2 : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>
          %4 = nn.mul %3, %half : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>""",
    "half_first": """
          %0 = nn.mul %x, %rs : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>
          %1 = nn.erf %0 : (tensor<3x8xf32>) -> tensor<3x8xf32>
          %2 = nn.add %one, %1 : (tensor<f32>, tensor<3x8xf32>) -> tensor<3x8xf32>
          %3 = nn.mul %half, %x : (tensor<f32>, tensor<3x8xf32>) -> tensor<3x8xf32>
          %4 = nn.mul %3, %2 : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>""",
    "half_inside": """
          %0 = nn.div %x, %s : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>
          %1 = nn.erf %0 : (tensor<3x8xf32>) -> tensor<3x8xf32>
          %2 = nn.add %1, %one : (tensor<3x8xf32>, tensor<f32>) -> tensor<3x8xf32>
          %3 = nn.mul %half, %2 : (tensor<f32>, tensor<3x8xf32>) -> tensor<3x8xf32>
          %4 = nn.mul %3, %x : (tensor<3x8xf32>, tensor<3x8xf32>) -> tensor<3x8xf32>""",
}


@pytest.mark.parametrize("order", sorted(GELU_BODIES))
def test_decomposed_gelu(order):
    check_fusion(
        f"""
        func.func @f(%x: tensor<3x8xf32>) -> tensor<3x8xf32> {{
          %s = {dense(np.sqrt(2.0))}
          %rs = {dense(1 / np.sqrt(2.0))}
          %one = {dense(np.array(1.0))}
          %half = {dense(np.array(0.5))}{GELU_BODIES[order]}
          func.return %4 : tensor<3x8xf32>
        }}""",
        [(3, 8)],
        "nn.gelu",
        ("nn.erf", "nn.mul", "nn.div"),
    )


def layer_norm_text(square: str, affine: str, result: str) -> str:
    rng = np.random.default_rng(5)
    return f"""
        func.func @f(%x: tensor<2x3x6xf32>) -> tensor<2x3x6xf32> {{
          %two = {dense(np.array(2.0))}
          %eps = {dense(np.array(1e-5))}
          %g = {dense(rng.standard_normal(6))}
          %b = {dense(rng.standard_normal((1, 6)))}
          %m = nn.reduce_mean %x {{axes = array<i64: -1>}} : (tensor<2x3x6xf32>) -> tensor<2x3x1xf32>
          %d = nn.sub %x, %m : (tensor<2x3x6xf32>, tensor<2x3x1xf32>) -> tensor<2x3x6xf32>
          %p = {square} : (tensor<2x3x6xf32>, tensor<{"f32" if "pow" in square else "2x3x6xf32"}>) -> tensor<2x3x6xf32>
          %v = nn.reduce_mean %p {{axes = array<i64: -1>}} : (tensor<2x3x6xf32>) -> tensor<2x3x1xf32>
          %ve = nn.add %v, %eps : (tensor<2x3x1xf32>, tensor<f32>) -> tensor<2x3x1xf32>
          %s = nn.sqrt %ve : (tensor<2x3x1xf32>) -> tensor<2x3x1xf32>
          %n = nn.div %d, %s : (tensor<2x3x6xf32>, tensor<2x3x1xf32>) -> tensor<2x3x6xf32>{affine}
          func.return {result} : tensor<2x3x6xf32>
        }}"""


def test_decomposed_layer_norm_with_gamma_beta():
    affine = """
          %y = nn.mul %n, %g : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
          %z = nn.add %b, %y : (tensor<1x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>"""
    check_fusion(
        layer_norm_text("nn.pow %d, %two", affine, "%z"),
        [(2, 3, 6)],
        "nn.layer_norm",
        ("nn.reduce_mean", "nn.sub", "nn.pow", "nn.sqrt", "nn.div", "nn.mul", "nn.add"),
    )


def test_decomposed_layer_norm_mul_self_without_affine():
    check_fusion(
        layer_norm_text("nn.mul %d, %d", "", "%n"),
        [(2, 3, 6)],
        "nn.layer_norm",
        ("nn.reduce_mean", "nn.sub", "nn.mul", "nn.sqrt", "nn.div"),
    )


def test_layer_norm_is_matched_once(monkeypatch):
    """The walk meets the div, then gamma's mul, then beta's add: the match
    found when the div defers to the add is kept for the add's visit, not
    found again at each op (it was found three times)."""
    found = []

    def counting_match_value(pattern, value, **options):
        match = match_value(pattern, value, **options)
        if match is not None and any(op.name == "nn.sqrt" for op in match.region):
            found.append(value.owner.name)
        return match

    monkeypatch.setattr(rewrite, "match_value", counting_match_value)
    affine = """
          %y = nn.mul %n, %g : (tensor<2x3x6xf32>, tensor<6xf32>) -> tensor<2x3x6xf32>
          %z = nn.add %b, %y : (tensor<1x6xf32>, tensor<2x3x6xf32>) -> tensor<2x3x6xf32>"""
    check_fusion(
        layer_norm_text("nn.pow %d, %two", affine, "%z"),
        [(2, 3, 6)],
        "nn.layer_norm",
        ("nn.reduce_mean", "nn.div", "nn.mul", "nn.add"),
    )
    assert found == ["nn.add"]


def test_fusion_declined_when_interior_value_is_returned():
    text = layer_norm_text("nn.pow %d, %two", "", "%n").replace(
        "func.return %n : tensor<2x3x6xf32>",
        "func.return %n, %d : tensor<2x3x6xf32>, tensor<2x3x6xf32>",
    )
    text = text.replace(
        "-> tensor<2x3x6xf32> {", "-> (tensor<2x3x6xf32>, tensor<2x3x6xf32>) {", 1
    )
    module = api.parse(text)
    before = op_names(module)
    FuseOpsPass().apply(api.context(), module)
    assert [n for n in op_names(module) if n != "nn.constant"] == [
        n for n in before if n != "nn.constant"
    ]


@pytest.mark.parametrize(
    "props, message",
    [
        ('{activation = "softsign"}', "activation must be one of"),
        ('{activation = "clip"}', "takes 2 activation_params, got 0"),
        ('{activation = "relu", activation_params = array<f32: 1.0>}', "takes 0"),
    ],
)
def test_fused_conv_rejects_bad_activation(props, message):
    text = f"""
        func.func @f(%x: tensor<1x3x5x5xf32>, %w: tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32> {{
          %0 = nn.fused_conv %x, %w {props} : (tensor<1x3x5x5xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x3x3xf32>
          func.return %0 : tensor<1x4x3x3xf32>
        }}"""
    with pytest.raises(VerifyException, match=message):
        api.parse(text).verify()


def test_fused_matmul_rejects_bias_off_the_last_dim():
    text = """
        func.func @f(%x: tensor<4x5xf32>, %w: tensor<5x3xf32>, %b: tensor<4xf32>) -> tensor<4x3xf32> {
          %0 = nn.fused_matmul %x, %w, %b : (tensor<4x5xf32>, tensor<5x3xf32>, tensor<4xf32>) -> tensor<4x3xf32>
          func.return %0 : tensor<4x3xf32>
        }"""
    with pytest.raises(
        VerifyException, match="bias must be 1-D over the result's last dim"
    ):
        api.parse(text).verify()


def test_fused_ops_export_to_onnx_that_onnxruntime_runs():
    ort = pytest.importorskip("onnxruntime")
    from graph_opt.formats.onnx.exporter import export_module

    rng = np.random.default_rng(6)
    module = check_fusion(
        f"""
        func.func @f(%x: tensor<1x3x6x6xf32>, %y: tensor<2x5xf32>) -> (tensor<1x4x4x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {{
          %w = {dense(rng.standard_normal((4, 3, 3, 3)))}
          %c = {dense(rng.standard_normal((4, 1, 1)))}
          %m = {dense(rng.standard_normal((5, 3)))}
          %mb = {dense(rng.standard_normal(3))}
          %0 = nn.conv %x, %w : (tensor<1x3x6x6xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x4x4xf32>
          %1 = nn.add %0, %c : (tensor<1x4x4x4xf32>, tensor<4x1x1xf32>) -> tensor<1x4x4x4xf32>
          %2 = nn.clip %1 {{min = 0.0 : f32, max = 6.0 : f32}} : (tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
          %3 = nn.matmul %y, %m : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
          %4 = nn.add %3, %mb : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
          %5 = nn.leaky_relu %4 {{alpha = 0.1 : f32}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
          %6 = nn.matmul %y, %m : (tensor<2x5xf32>, tensor<5x3xf32>) -> tensor<2x3xf32>
          %7 = nn.sigmoid %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
          func.return %2, %5, %7 : tensor<1x4x4x4xf32>, tensor<2x3xf32>, tensor<2x3xf32>
        }}""",
        [(1, 3, 6, 6), (2, 5)],
        "nn.fused_conv",
        ("nn.conv", "nn.matmul", "nn.clip", "nn.leaky_relu", "nn.sigmoid"),
    )
    assert op_names(module).count("nn.fused_matmul") == 2
    model = export_module(module)
    # the 2-D matmul with a bias is one Gemm; the one without stays MatMul
    assert {"Conv", "Clip", "Gemm", "MatMul", "LeakyRelu", "Sigmoid"} <= {
        n.op_type for n in model.graph.node
    }
    inputs = [rng.standard_normal(s).astype(np.float32) for s in [(1, 3, 6, 6), (2, 5)]]
    session = ort.InferenceSession(model.SerializeToString())
    feeds = {i.name: v for i, v in zip(session.get_inputs(), inputs)}
    for got, want in zip(session.run(None, feeds), run_function(module, inputs)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
