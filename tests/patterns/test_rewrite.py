"""DFPatternRewrite on xDSL's greedy driver: batch-norm folding, escapes, caps, PDL twin."""

import numpy as np
import pytest
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType, f32
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.transforms.apply_pdl import ApplyPDLPass

from graph_opt.dialects.nn.base import f32_attr
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.elementwise import AddOp, DivOp, MulOp, ReluOp, SqrtOp, SubOp
from graph_opt.dialects.nn.norm import BatchNormOp
from graph_opt.interpreter import run_function
from graph_opt.patterns import (
    DFPatternRewrite,
    RewriteLimitError,
    apply_rewrites,
    is_op,
    wildcard,
)
from graph_opt.patterns.library import FoldDecomposedBatchNorm, RemoveDoubleRelu

C = 3
X_TYPE = TensorType(f32, [2, C, 4, 4])
RNG = np.random.default_rng(0)
PARAMS = {
    name: RNG.uniform(0.5, 1.5, (C, 1, 1)).astype(np.float32)
    for name in ("mean", "var", "gamma", "beta")
}
EPS = np.array(1e-3, np.float32)


def decomposed_batch_norm(extra_use_of_sqrt: bool = False, params=PARAMS) -> ModuleOp:
    """`(x - mean) / sqrt(var + eps) * gamma + beta`, optionally also returning the sqrt."""
    outputs = [X_TYPE] + ([TensorType(f32, [C, 1, 1])] if extra_use_of_sqrt else [])
    function = func.FuncOp("main", ([X_TYPE], outputs))
    x = function.body.block.args[0]
    consts = {n: ConstantOp.from_array(a) for n, a in params.items()}
    eps = ConstantOp.from_array(EPS)
    ops = [*consts.values(), eps]
    centered = SubOp.create_inferred([x, consts["mean"]])
    shifted = AddOp.create_inferred([consts["var"], eps])
    std = SqrtOp.create_inferred([shifted])
    normed = DivOp.create_inferred([centered, std])
    scaled = MulOp.create_inferred([normed, consts["gamma"]])
    out = AddOp.create_inferred([scaled, consts["beta"]])
    ops += [centered, shifted, std, normed, scaled, out]
    results = [out.results[0]] + ([std.results[0]] if extra_use_of_sqrt else [])
    function.body.block.add_ops([*ops, func.ReturnOp(*results)])
    return ModuleOp([function])


def expected_batch_norm() -> ModuleOp:
    function = func.FuncOp("main", ([X_TYPE], [X_TYPE]))
    x = function.body.block.args[0]
    vectors = [
        ConstantOp.from_array(PARAMS[n].reshape(-1))
        for n in ("gamma", "beta", "mean", "var")
    ]
    norm = BatchNormOp.create_inferred([x, *vectors], {"epsilon": f32_attr(float(EPS))})
    function.body.block.add_ops([*vectors, norm, func.ReturnOp(norm)])
    return ModuleOp([function])


def test_fold_decomposed_batch_norm_structurally_and_numerically():
    module = decomposed_batch_norm()
    inputs = [RNG.standard_normal((2, C, 4, 4)).astype(np.float32)]
    before = run_function(module, inputs)[0]
    PatternRewriteWalker(
        GreedyRewritePatternApplier([FoldDecomposedBatchNorm()])
    ).rewrite_module(module)
    module.verify()
    assert module.is_structurally_equivalent(expected_batch_norm()), str(module)
    after = run_function(module, inputs)[0]
    np.testing.assert_allclose(after, before, rtol=1e-5, atol=1e-5)


def test_no_fold_when_interior_value_escapes():
    module = decomposed_batch_norm(extra_use_of_sqrt=True)
    text = str(module)
    stats = apply_rewrites(module, [FoldDecomposedBatchNorm()])
    assert stats.total == 0
    assert str(module) == text


def test_no_fold_when_parameters_are_not_per_channel():
    module = decomposed_batch_norm(
        params={**PARAMS, "gamma": np.ones((1, 1, 1), np.float32)}
    )
    stats = apply_rewrites(module, [FoldDecomposedBatchNorm()])
    assert stats.total == 0


RELUS = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %b = nn.relu %a : (tensor<4xf32>) -> tensor<4xf32>
  %c = nn.relu %b : (tensor<4xf32>) -> tensor<4xf32>
  func.return %c : tensor<4xf32>
}"""
SINGLE_RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  func.return %a : tensor<4xf32>
}"""


def test_stats_count_rewrites_per_pattern(parse):
    module = parse(RELUS)
    stats = apply_rewrites(module, [RemoveDoubleRelu(), FoldDecomposedBatchNorm()])
    assert stats.counts == {"RemoveDoubleRelu": 2}
    assert module.is_structurally_equivalent(parse(SINGLE_RELU))


class ReluToIdentity(DFPatternRewrite):
    def __init__(self):
        self.x = wildcard()
        self.pattern = is_op("relu")(self.x)

    def rewrite(self, match, rewriter):
        return rewriter.insert(is_identity_op(match[self.x])).results[0]


class IdentityToRelu(DFPatternRewrite):
    def __init__(self):
        self.x = wildcard()
        self.pattern = is_op("identity")(self.x)

    def rewrite(self, match, rewriter):
        return rewriter.insert(ReluOp.create_inferred([match[self.x]])).results[0]


def is_identity_op(value):
    from graph_opt.dialects.nn.elementwise import IdentityOp

    return IdentityOp.create_inferred([value])


def test_rewrite_cap_names_patterns_that_keep_firing(parse):
    module = parse(SINGLE_RELU)
    with pytest.raises(
        RewriteLimitError,
        match="ReluToIdentity.*IdentityToRelu|IdentityToRelu.*ReluToIdentity",
    ):
        apply_rewrites(module, [ReluToIdentity(), IdentityToRelu()], max_rewrites=50)


def test_default_cap_catches_a_rewrite_loop(parse):
    module = parse(SINGLE_RELU)
    with pytest.raises(RewriteLimitError, match="after 1000 rewrites"):
        apply_rewrites(module, [ReluToIdentity(), IdentityToRelu()])


def relu_chain(length: int) -> ModuleOp:
    data = TensorType(f32, [4])
    function = func.FuncOp("f", ([data], [data]))
    ops = [ReluOp.create_inferred([function.body.block.args[0]])]
    for _ in range(length - 1):
        ops.append(ReluOp.create_inferred([ops[-1]]))
    function.body.block.add_ops([*ops, func.ReturnOp(ops[-1])])
    return ModuleOp([function])


def test_default_cap_scales_with_the_graph():
    """12,000 relus need 11,999 rewrites: more than any fixed cap of 10,000."""
    module = relu_chain(12_000)
    stats = apply_rewrites(module, [RemoveDoubleRelu()])
    assert stats.total == 11_999
    assert stats.max_rewrites == 10 * (12_000 + 3), "10 per op: module, func, return"
    assert [op.name for op in module.walk()].count("nn.relu") == 1


def test_no_cap_error_at_fixed_point(parse):
    module = parse(RELUS)
    assert apply_rewrites(module, [RemoveDoubleRelu()], max_rewrites=2).total == 2


PDL_DOUBLE_RELU = """
pdl.pattern : benefit(1) {
  %type = pdl.type
  %x = pdl.operand
  %inner = pdl.operation "nn.relu"(%x : !pdl.value) -> (%type : !pdl.type)
  %inner_result = pdl.result 0 of %inner
  %outer = pdl.operation "nn.relu"(%inner_result : !pdl.value) -> (%type : !pdl.type)
  pdl.rewrite %outer {
    pdl.replace %outer with (%inner_result : !pdl.value)
  }
}
"""


def test_double_relu_as_dataflow_pattern_and_as_pdl(parse, context, tmp_path):
    pdl_file = tmp_path / "double_relu.mlir"
    pdl_file.write_text(PDL_DOUBLE_RELU)
    with_pattern, with_pdl = parse(RELUS), parse(RELUS)
    apply_rewrites(with_pattern, [RemoveDoubleRelu()])
    from xdsl.dialects.pdl import PDL

    context.load_dialect(PDL)
    ApplyPDLPass(str(pdl_file)).apply(context, with_pdl)
    expected = parse(SINGLE_RELU)
    assert with_pattern.is_structurally_equivalent(expected)
    assert with_pdl.is_structurally_equivalent(expected), str(with_pdl)


RELU_IDENTITY_RELU = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = nn.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %i = nn.identity %a : (tensor<4xf32>) -> tensor<4xf32>
  %b = nn.relu %i : (tensor<4xf32>) -> tensor<4xf32>
  func.return %b : tensor<4xf32>
}"""


class RemoveDoubleReluThroughIdentities(RemoveDoubleRelu):
    skip_identity = True


def test_rewrite_skips_identity_between_pattern_nodes(parse):
    module = parse(RELU_IDENTITY_RELU)
    assert apply_rewrites(module, [RemoveDoubleReluThroughIdentities()]).total == 1
    assert module.is_structurally_equivalent(parse(SINGLE_RELU)), str(module)


def test_no_rewrite_through_identity_by_default(parse):
    module = parse(RELU_IDENTITY_RELU)
    assert apply_rewrites(module, [RemoveDoubleRelu()]).total == 0
