"""OpTypeDispatch: each op goes to the patterns its type can match, in their order."""

import pytest
from xdsl.ir import Operation
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from graph_opt import api
from graph_opt.dialects.nn.elementwise import IdentityOp, ReluOp, TanhOp
from graph_opt.entry import entry_function
from graph_opt.rewriting.op_dispatch import (
    ClassFilteredPattern,
    OpTypeDispatch,
    checked_rewrite,
    dispatching_walker,
    matched_op_types,
    walk_ops,
)

GRAPH = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = nn.relu %x : (tensor<3xf32>) -> tensor<3xf32>
  %1 = nn.tanh %0 : (tensor<3xf32>) -> tensor<3xf32>
  %2 = nn.identity %1 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %2 : tensor<3xf32>
}
"""


class ReluToTanh(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReluOp, rewriter: PatternRewriter):
        rewriter.replace(op, TanhOp.create_inferred([op.input], {}))


class DropIdentityOrTanh(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: IdentityOp | TanhOp, rewriter: PatternRewriter):
        rewriter.replace(op, [], [op.input])


class RecordEveryOp(RewritePattern):
    def __init__(self):
        self.seen: list[str] = []

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        self.seen.append(op.name)


def test_matched_op_types_reads_the_annotation():
    assert matched_op_types(ReluToTanh()) == (ReluOp,)
    assert matched_op_types(DropIdentityOrTanh()) == (IdentityOp, TanhOp)
    assert matched_op_types(RecordEveryOp()) is None


def test_dispatch_keeps_pattern_order_and_skips_other_types():
    recorder = RecordEveryOp()
    dispatch = OpTypeDispatch([ReluToTanh(), recorder, DropIdentityOrTanh()])
    assert dispatch.patterns_for(ReluOp) == (dispatch.patterns[0], recorder)
    assert dispatch.patterns_for(TanhOp) == (recorder, dispatch.patterns[2])


def test_dispatching_walker_rewrites_until_no_pattern_applies():
    recorder = RecordEveryOp()
    patterns = [ReluToTanh(), recorder, DropIdentityOrTanh()]
    module = api.parse(GRAPH)
    dispatching_walker(patterns).rewrite_module(module)
    # relu became tanh, then both tanh and the identity were dropped
    assert [op.name for op in entry_function(module).body.ops] == ["func.return"]
    # a pattern that declines lets the next one try; relu never reached it
    assert "nn.relu" not in recorder.seen
    assert {"nn.tanh", "nn.identity", "func.return"} <= set(recorder.seen)


class RecordTanhOnly(ClassFilteredPattern):
    """Untyped, but declares from the class that it only looks at nn.tanh."""

    def __init__(self):
        self.seen: list[str] = []

    def accepts_class(self, op_class: type[Operation]) -> bool:
        return op_class is TanhOp

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        self.seen.append(op.name)


def test_class_filtered_pattern_only_gets_the_classes_it_accepts():
    recorder = RecordTanhOnly()
    dispatch = OpTypeDispatch([recorder])
    assert dispatch.patterns_for(TanhOp) == (recorder,)
    assert dispatch.patterns_for(ReluOp) == ()


UNUSED_VALUES = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %c = nn.constant dense<1.0> : tensor<3xf32>
  %unused = nn.constant dense<2.0> : tensor<3xf32>
  %dead = nn.relu %x : (tensor<3xf32>) -> tensor<3xf32>
  %0 = nn.add %x, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %1 = nn.tanh %0 : (tensor<3xf32>) -> tensor<3xf32>
  func.return %1 : tensor<3xf32>
}
"""


def test_dispatching_walker_skips_ops_no_pattern_takes_but_erases_dead_ones():
    recorder = RecordTanhOnly()
    module = api.parse(UNUSED_VALUES)
    assert dispatching_walker([recorder]).rewrite_module(module)
    # the unused constant and relu were erased although no pattern takes them
    names = [op.name for op in entry_function(module).body.ops]
    assert names == ["nn.constant", "nn.add", "nn.tanh", "func.return"]
    # the pattern saw only tanh: once per sweep (the erasures made a second one)
    assert recorder.seen == ["nn.tanh", "nn.tanh"]


TWO_FUNCTIONS = GRAPH + GRAPH.replace("@main", "@other")


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("region_first", [False, True])
def test_walk_ops_visits_in_the_order_of_xdsl_walk(reverse, region_first):
    region = api.parse(TWO_FUNCTIONS).body
    expected = list(region.walk(reverse=reverse, region_first=region_first))
    assert list(walk_ops(region, reverse, region_first)) == expected


class DoubleEveryRelu(RewritePattern):
    """relu -> relu(relu): inserts at the rewriter's default point (before the op),
    named by the rewriter's name hint, which a previous op's match must not leave set."""

    def __init__(self):
        self.done: set[Operation] = set()

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReluOp, rewriter: PatternRewriter):
        if op in self.done:
            return
        rewriter.name_hint = "inner"
        inner = rewriter.insert(ReluOp.create_inferred([op.input], {}))
        self.done |= {op, inner}
        rewriter.replace_uses_with_if(
            op.input, inner.results[0], lambda u: u.operation is op
        )


class NameNothing(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TanhOp, rewriter: PatternRewriter):
        assert rewriter.name_hint is None
        assert rewriter.insertion_point.insert_before is op


def test_rewriter_inserts_before_the_op_and_resets_per_op():
    module = api.parse(GRAPH)
    assert dispatching_walker([DoubleEveryRelu(), NameNothing()]).rewrite_module(module)
    ops = [op.name for op in entry_function(module).body.ops]
    assert ops == ["nn.relu", "nn.relu", "nn.tanh", "nn.identity", "func.return"]
    assert "%inner = nn.relu %x" in api.to_mlir(module)


class Fails(RewritePattern):
    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TanhOp, rewriter: PatternRewriter):
        raise ValueError("no luck")


def test_pattern_errors_are_reported_on_the_op_as_xdsl_does():
    with pytest.raises(Exception, match="Error while applying pattern: no luck"):
        dispatching_walker([Fails()]).rewrite_module(api.parse(GRAPH))


class RecordRelu(RewritePattern):
    def __init__(self):
        self.seen: list[str] = []

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReluOp, rewriter: PatternRewriter):
        self.seen.append(op.name)


def test_checked_rewrite_leaves_the_type_check_to_dispatch():
    pattern = RecordRelu()
    tanh = entry_function(api.parse(GRAPH)).body.block.first_op.next_op
    assert isinstance(tanh, TanhOp)
    pattern.match_and_rewrite(tanh, None)  # the decorator declines a tanh
    assert pattern.seen == []
    checked_rewrite(pattern)(tanh, None)  # dispatch checked the class already
    assert pattern.seen == ["nn.tanh"]
    untyped = RecordEveryOp()
    assert checked_rewrite(untyped) == untyped.match_and_rewrite
