"""FastWalker's worklist steps and block_ops against xDSL's own."""

from __future__ import annotations

import pytest
from xdsl.pattern_rewriter import GreedyRewritePatternApplier, PatternRewriteWalker
from xdsl.utils.worklist import Worklist

from graph_opt import api
from graph_opt.entry import entry_function
from graph_opt.xdsl_compat.rewriter import FastWalker, block_ops, block_ops_reversed

GRAPH = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = nn.constant dense<1.0> : tensor<3xf32>
  %shared = nn.constant dense<2.0> : tensor<3xf32>
  %0 = nn.add %x, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = nn.mul %0, %shared : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %2 = nn.sub %1, %shared : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  func.return %2 : tensor<3xf32>
}
"""

NOTHING = GreedyRewritePatternApplier([])


class Every(FastWalker):
    def region_ops(self, region):
        return region.walk(reverse=True)


def stacked(worklist: Worklist) -> list:
    return [op for op in worklist._stack if op in worklist._map]


def test_a_sweep_fills_the_worklist_as_pushing_each_op_does():
    body = entry_function(api.parse(GRAPH)).body
    walker = Every(NOTHING)
    walker._populate_worklist(body)
    expected = Worklist()
    for op in body.walk(reverse=True):
        expected.push(op)
    assert stacked(walker._worklist) == stacked(expected)
    assert walker._worklist._map == expected._map


@pytest.mark.parametrize("erased", ["nn.add", "nn.mul", "nn.sub"])
def test_an_erased_ops_operands_are_queued_as_xdsl_queues_them(erased):
    body = entry_function(api.parse(GRAPH)).body
    op = next(o for o in body.walk() if o.name == erased)
    ours, xdsls = Every(NOTHING), PatternRewriteWalker(NOTHING)
    for walker in (ours, xdsls):
        walker._worklist.push(op)
        walker._handle_operation_removal(op)
    assert stacked(ours._worklist) == stacked(xdsls._worklist)
    assert op not in ours._worklist._map


def test_block_ops_follow_block_ops_and_survive_erasing_the_op_given():
    block = entry_function(api.parse(GRAPH)).body.block
    assert list(block_ops(block)) == list(block.ops)
    assert list(block_ops_reversed(block)) == list(reversed(block.ops))
    seen = []
    for op in block_ops(block):
        seen.append(op.name)
        if op.name == "nn.sub":
            op.results[0].replace_all_uses_with(op.operands[0])
            op.detach()
            op.erase()
    assert seen == ["nn.constant"] * 2 + ["nn.add", "nn.mul", "nn.sub", "func.return"]
