"""Which functions are called, as value forwarding reads it during a walker run."""

from __future__ import annotations

from xdsl.dialects import func
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import InsertPoint

from graph_opt.api import parse
from graph_opt.dialects.nn.elementwise import IdentityOp
from graph_opt.passes.prune.prune import prune_patterns
from graph_opt.rewriting.op_dispatch import dispatching_walker
from graph_opt.rewriting.value_forwarding import CallIndex

MODULE = """
func.func @f(%x: tensor<4xf32>) -> tensor<?xf32> {
  %0 = nn.identity %x : (tensor<4xf32>) -> tensor<?xf32>
  func.return %0 : tensor<?xf32>
}
func.func @g(%x: tensor<4xf32>) {
  %0 = func.call @f(%x) : (tensor<4xf32>) -> tensor<?xf32>
  func.return
}
"""


def calls_of(module) -> list[Operation]:
    return [op for op in module.walk() if isinstance(op, func.CallOp)]


def test_call_index_follows_insertions_and_removals():
    """Counted once, then updated from the rewriter's events, nested calls included."""
    module = parse(MODULE)
    index = CallIndex(module)
    rewriter = PatternRewriter(calls_of(module)[0])
    rewriter.extend_from_listener(index.listener())
    assert index.is_called("f") and not index.is_called("g")
    g = module.body.block.last_op
    copy = g.clone()
    copy.sym_name = type(copy.sym_name)("g2")
    rewriter.insert(copy, InsertPoint.at_end(module.body.block))
    rewriter.erase(calls_of(g)[0])
    assert index.is_called("f"), "the copy of g calls f"
    rewriter.erase(copy)
    assert not index.is_called("f")


class EraseCalls(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: func.CallOp, rewriter: PatternRewriter):
        rewriter.erase(op, safe_erase=False)


def test_forwarding_sees_a_call_erased_earlier_in_the_run():
    """f's identity cannot return its refined input while g calls f; once a
    pattern of the same run erases the call, the identity goes."""
    module = parse(MODULE)
    dispatching_walker([*prune_patterns(), EraseCalls()]).rewrite_module(module)
    assert not calls_of(module)
    assert not any(isinstance(op, IdentityOp) for op in module.walk())


def test_negative_forwarding_refused_while_called():
    module = parse(MODULE)
    dispatching_walker(prune_patterns()).rewrite_module(module)
    assert any(isinstance(op, IdentityOp) for op in module.walk())
