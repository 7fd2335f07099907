"""Relax's graph patterns (PatternContext, ^ / used_by, >> / only_used_by,
fork_to, dup, rewrite_bindings): Relax's tests on nn ops, match and no match."""

import numpy as np
import pytest
from function_text import function_text

from graph_opt.interpreter import run_function
from graph_opt.patterns import (
    PatternContext,
    is_op,
    is_var,
    rewrite_bindings,
    wildcard,
)
from graph_opt.patterns.builder import nn

T = "tensor<4x4xf32>"


def graph(body: str, args: str = "%x, %w") -> str:
    return function_text(body, args, T)


MAIN = graph(
    f"""  %lv0 = nn.matmul %x, %w : ({T}, {T}) -> {T}
  %lv1 = nn.relu %lv0 : ({T}) -> {T}
  func.return %lv1 : {T}"""
)
DIAMOND = graph(
    f"""  %lv0 = nn.matmul %x, %w : ({T}, {T}) -> {T}
  %lv1 = nn.relu %lv0 : ({T}) -> {T}
  %lv2 = nn.sigmoid %lv0 : ({T}) -> {T}
  %lv3 = nn.add %lv1, %lv2 : ({T}, {T}) -> {T}
  func.return %lv3 : {T}"""
)
SMALL_DIAMOND = graph(
    f"""  %lv0 = nn.relu %x : ({T}) -> {T}
  %lv1 = nn.add %lv0, %lv0 : ({T}, {T}) -> {T}
  func.return %lv1 : {T}""",
    "%x",
)
SMALL_PARALLEL = graph(
    f"""  %lv0 = nn.relu %x : ({T}) -> {T}
  %lv1 = nn.relu %x : ({T}) -> {T}
  %lv2 = nn.add %lv0, %lv1 : ({T}, {T}) -> {T}
  func.return %lv2 : {T}""",
    "%x",
)
CBR_X2 = graph(
    f"""  %lv0 = nn.matmul %x, %w0 : ({T}, {T}) -> {T}
  %lv1 = nn.add %lv0, %b0 : ({T}, {T}) -> {T}
  %lv2 = nn.relu %lv1 : ({T}) -> {T}
  %lv3 = nn.matmul %x, %w1 : ({T}, {T}) -> {T}
  %lv4 = nn.add %lv3, %b1 : ({T}, {T}) -> {T}
  %lv5 = nn.relu %lv4 : ({T}) -> {T}
  %lv6 = nn.concat %lv2, %lv5 {{axis = 1 : i64}} : ({T}, {T}) -> tensor<4x8xf32>
  %out = nn.reduce_sum %lv6 {{axes = array<i64: 1>, keepdims = 1 : i64}} : (tensor<4x8xf32>) -> tensor<4x1xf32>
  %r = nn.add %out, %x : (tensor<4x1xf32>, {T}) -> {T}
  func.return %r : {T}""",
    "%x, %w0, %b0, %w1, %b1",
)


@pytest.fixture
def block(parse):
    return lambda text: parse(text).body.block.ops.first.body.block


def op(name):
    return is_op(name)


def cbr():
    return op("matmul") >> op("add") >> op("relu")


def test_match_used_by(block):
    main = block(MAIN)
    with PatternContext() as ctx:
        n0, n1 = is_var("x"), wildcard()
        n0 ^ n1
        matched = ctx.match_dfb(main)
        assert matched is not None
        assert matched[n0] is main.args[0]
        assert matched[n1].name_hint == "lv0"


def test_match_only_used_by(block):
    main = block(MAIN)
    with PatternContext() as ctx:
        n0, n1 = op("matmul"), op("relu")
        n0 >> n1
        matched = ctx.match_dfb(main)
        assert matched[n0].name_hint == "lv0" and matched[n1].name_hint == "lv1"
    with PatternContext() as ctx:
        n0, n1 = op("matmul"), op("relu")
        n0.used_by(n1)
        assert ctx.match_dfb(main)


def test_no_match_used_by(block):
    main = block(MAIN)
    for link in (lambda a, b: a >> b, lambda a, b: a ^ b):
        with PatternContext() as ctx:
            link(op("matmul"), op("sigmoid"))
            assert ctx.match_dfb(main) is None
    with PatternContext() as ctx:
        op("relu") ^ op("matmul")  # the wrong direction
        assert ctx.match_dfb(main) is None


def test_match_diamond(block):
    diamond = block(DIAMOND)
    with PatternContext() as ctx:
        n0, n1, n2, n3 = op("matmul"), op("relu"), op("sigmoid"), op("add")
        n0 ^ n1
        n0 ^ n2
        n1 >> n3
        n2 >> n3
        assert ctx.match_dfb(diamond)
    with PatternContext() as ctx:
        n1, n2, n3 = op("relu"), op("sigmoid"), op("add")
        op("matmul").fork_to(n1, n2)
        n1 >> n3
        n2 >> n3
        assert ctx.match_dfb(diamond)


def test_no_match_diamond_only_used_by(block):
    with PatternContext() as ctx:
        n0, n1, n2, n3 = op("matmul"), op("relu"), op("sigmoid"), op("add")
        n0 >> n1  # the matmul is used by the sigmoid too
        n0 >> n2
        n1 >> n3
        n2 >> n3
        assert ctx.match_dfb(block(DIAMOND)) is None


def test_distinguish_diamond_and_parallel(block):
    diamond, parallel = block(SMALL_DIAMOND), block(SMALL_PARALLEL)
    with PatternContext() as ctx:
        fork, join = op("relu"), op("add")
        fork.only_used_by(join, index=0)
        fork.only_used_by(join, index=1)
        assert ctx.match_dfb(diamond)
        assert ctx.match_dfb(parallel) is None
    with PatternContext() as ctx:
        join = op("add")
        op("relu") >> join  # two distinct relu patterns bind two relus
        op("relu") >> join
        assert ctx.match_dfb(parallel)
        assert ctx.match_dfb(diamond) is None


def test_match_chain_with_start_hint(block):
    cbr_x2 = block(CBR_X2)
    first, second = cbr_x2.ops.first, list(cbr_x2.ops)[3]
    with PatternContext() as ctx:
        chain = cbr()
        assert ctx.match_dfb(cbr_x2)
        assert (
            ctx.match_dfb(cbr_x2, start_hint=first.results[0])[chain[0]]
            is first.results[0]
        )
        assert (
            ctx.match_dfb(cbr_x2, start_hint=second.results[0])[chain[0]]
            is second.results[0]
        )


def test_no_match_chain_with_start_hint(block):
    cbr_x2 = block(CBR_X2)
    with PatternContext() as ctx:
        op("matmul") >> op("relu") >> op("add")
        assert ctx.match_dfb(cbr_x2) is None
        hint = cbr_x2.ops.first.results[0]
        assert ctx.match_dfb(cbr_x2, start_hint=hint, must_include_hint=True) is None
    with PatternContext() as ctx:
        cbr()
        relu = list(cbr_x2.ops)[2].results[0]
        # the hint matches only as the chain's last node: matched from there
        assert ctx.match_dfb(cbr_x2, start_hint=relu, must_include_hint=True)
        sum_ = list(cbr_x2.ops)[7].results[0]
        assert ctx.match_dfb(cbr_x2, start_hint=sum_, must_include_hint=True) is None


def test_nested_contexts(block):
    cbr_x2 = block(CBR_X2)
    with PatternContext() as ctx0:
        cbr()
        with PatternContext() as ctx1:
            op("matmul") >> op("relu")  # to miss
            with PatternContext() as ctx2:
                op("add") >> op("relu")
                assert ctx2.match_dfb(cbr_x2)
                assert PatternContext.current() is ctx2
            assert ctx1.match_dfb(cbr_x2) is None
            assert PatternContext.current() is ctx1
        assert ctx0.match_dfb(cbr_x2)


def test_match_dup_and_fork(block):
    with PatternContext() as ctx:
        cbr0 = cbr()
        cbr1 = cbr0.dup()
        assert all(a is not b for a, b in zip(cbr0.patterns, cbr1.patterns))
        is_var("x").fork_to(cbr0, cbr1)
        match = ctx.match_dfb(block(CBR_X2))
        assert {match[cbr0[0]].name_hint, match[cbr1[0]].name_hint} == {"lv0", "lv3"}


def test_no_match_dup_and_fork(block):
    with PatternContext() as ctx:
        cbr0 = cbr()
        is_var("w0").fork_to(cbr0, cbr0.dup())  # w0 feeds one chain only
        assert ctx.match_dfb(block(CBR_X2)) is None


def test_two_and_three_matmuls(block):
    two = graph(
        f"""  %lv0 = nn.matmul %x, %w : ({T}, {T}) -> {T}
  %lv1 = nn.matmul %lv0, %w : ({T}, {T}) -> {T}
  func.return %lv1 : {T}"""
    )
    with PatternContext() as ctx:
        op("matmul") >> op("matmul")
        assert ctx.match_dfb(block(two))
    with PatternContext() as ctx:
        op("matmul") >> op("matmul") >> op("matmul")
        assert ctx.match_dfb(block(two)) is None


def test_incremental_context(block):
    chain = graph(
        f"""  %lv0 = nn.relu %x : ({T}) -> {T}
  %lv1 = nn.sigmoid %lv0 : ({T}) -> {T}
  %lv2 = nn.neg %lv1 : ({T}) -> {T}
  func.return %lv2 : {T}""",
        "%x",
    )
    short = graph(
        f"""  %lv0 = nn.sigmoid %x : ({T}) -> {T}
  %lv1 = nn.neg %lv0 : ({T}) -> {T}
  func.return %lv1 : {T}""",
        "%x",
    )
    relu, sigmoid, neg = op("relu"), op("sigmoid"), op("neg")
    with PatternContext() as ctx0:
        relu >> sigmoid
        with PatternContext(incremental=True) as ctx1:
            sigmoid >> neg  # relu >> sigmoid still holds here
            assert ctx1.match_dfb(block(chain))
            assert ctx1.match_dfb(block(short)) is None
        assert ctx0.match_dfb(block(chain))


def test_edges_need_a_context():
    with pytest.raises(RuntimeError, match="need a `with PatternContext"):
        op("relu") >> op("add")


QKV = graph(
    f"""  %q = nn.matmul %x, %wq : ({T}, {T}) -> {T}
  %k = nn.matmul %x, %wk : ({T}, {T}) -> {T}
  %qk = nn.mul %q, %k : ({T}, {T}) -> {T}
  %v = nn.matmul %x, %wv : ({T}, {T}) -> {T}
  %out = nn.add %qk, %v : ({T}, {T}) -> {T}
  func.return %out : {T}""",
    "%x, %wq, %wk, %wv",
)


def combine_matmuls():
    """Relax's combine-parallel-matmul rewrite: x @ wq, x @ wk, x @ wv -> one
    matmul of x by the weights side by side, split."""
    with PatternContext() as ctx:
        x = wildcard()
        weights = [wildcard().named(n) for n in ("wq", "wk", "wv")]
        matmuls = [is_op("matmul")(x, w) for w in weights]
        x.fork_to(*matmuls)

    def rewriter(match):
        joined = nn.concat(*[match[w] for w in weights], axis=1)
        product = nn.matmul(match[x], joined)
        parts = nn.split(product, axis=1, split=[4, 4, 4])
        return {match[m]: part for m, part in zip(matmuls, parts)}

    return ctx, rewriter


def test_rewrite_bindings_combines_parallel_matmuls(parse):
    module = parse(QKV)
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal((4, 4)).astype(np.float32) for _ in range(4)]
    before = run_function(module, inputs)[0]
    ctx, rewriter = combine_matmuls()
    block = module.body.block.ops.first.body.block
    assert rewrite_bindings(ctx, rewriter, block) == 1
    module.verify()
    names = [o.name for o in block.ops]
    assert names.count("nn.matmul") == 1 and "nn.split" in names
    np.testing.assert_allclose(run_function(module, inputs)[0], before, rtol=1e-5)


def test_no_rewrite_bindings_without_a_third_matmul(parse):
    text = QKV.replace("%v = nn.matmul %x, %wv", "%v = nn.matmul %wv, %x")
    module = parse(text)
    ctx, rewriter = combine_matmuls()
    block = module.body.block.ops.first.body.block
    assert rewrite_bindings(ctx, rewriter, block) == 0
    assert [o.name for o in block.ops].count("nn.matmul") == 3
