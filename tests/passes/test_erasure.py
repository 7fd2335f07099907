"""`erase_op`, `replace_by_values` and `replace_op` leave the IR that xDSL's
`PatternRewriter.erase` / `replace` leave, and notify the same ops."""

import gc
import weakref

import pytest
from xdsl.pattern_rewriter import PatternRewriter, PatternRewriterListener

from graph_opt import api
from graph_opt.dialects.nn.elementwise import ReluOp, TanhOp
from graph_opt.entry import entry_function
from graph_opt.rewriting.erasure import erase_op, replace_by_values, replace_op

GRAPH = """
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {
  %c = nn.constant dense<1.0> : tensor<3xf32>
  %dead = nn.add %x, %c : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %r = nn.relu %x : (tensor<3xf32>) -> tensor<3xf32>
  %i = nn.identity %r : (tensor<3xf32>) -> tensor<3xf32>
  %t = nn.tanh %i : (tensor<3xf32>) -> tensor<3xf32>
  func.return %t, %i : tensor<3xf32>, tensor<3xf32>
}
"""


def setup():
    module = api.parse(GRAPH)
    ops = {
        op.results[0].name_hint: op
        for op in entry_function(module).body.ops
        if op.results
    }
    events: list[tuple[str, str]] = []

    def record(kind):
        return [lambda op, *_: events.append((kind, op.name))]

    rewriter = PatternRewriter(ops["dead"])
    rewriter.extend_from_listener(
        PatternRewriterListener(
            operation_insertion_handler=record("insert"),
            operation_removal_handler=record("remove"),
            operation_modification_handler=record("modify"),
            operation_replacement_handler=record("replace"),
        )
    )
    return module, ops, rewriter, events


def outcome(module, rewriter, events):
    return api.to_mlir(module), rewriter.has_done_action, events


def erase_dead(rewriter, ops):
    rewriter.erase(ops["dead"])


def erase_dead_fast(rewriter, ops):
    erase_op(rewriter, ops["dead"])


def forward_identity(rewriter, ops):
    rewriter.replace(ops["i"], [], [ops["r"].results[0]])


def forward_identity_fast(rewriter, ops):
    replace_by_values(rewriter, ops["i"], [ops["r"].results[0]])


def relu_to_tanh(rewriter, ops):
    rewriter.replace(ops["r"], TanhOp.create_inferred([ops["r"].operands[0]], {}))


def relu_to_tanh_fast(rewriter, ops):
    replace_op(rewriter, ops["r"], TanhOp.create_inferred([ops["r"].operands[0]], {}))


@pytest.mark.parametrize(
    "xdsl_way, ours",
    [
        (erase_dead, erase_dead_fast),
        (forward_identity, forward_identity_fast),
        (relu_to_tanh, relu_to_tanh_fast),
    ],
)
def test_same_ir_and_notifications(xdsl_way, ours):
    module, ops, rewriter, events = setup()
    xdsl_way(rewriter, ops)
    expected = outcome(module, rewriter, events)
    module, ops, rewriter, events = setup()
    ours(rewriter, ops)
    assert outcome(module, rewriter, events) == expected
    module.verify()


def test_erasing_an_op_still_used_fails_as_xdsl_does():
    module, ops, rewriter, _ = setup()
    with pytest.raises(Exception, match="still has uses"):
        erase_op(rewriter, ops["r"])


def test_erased_op_drops_its_operand_uses():
    module, ops, rewriter, _ = setup()
    constant = ops["c"]
    erase_op(rewriter, ops["dead"])
    assert not constant.results[0].uses
    assert ops["dead"].parent is None
    assert isinstance(ops["r"], ReluOp)


@pytest.mark.parametrize("erase", [erase_dead_fast, forward_identity_fast])
def test_erased_op_is_freed_without_the_cyclic_collector(erase):
    """An erased op (and the constants only it held) must not wait for a cyclic
    collection, which graph-wide passes pause: it stayed in the peak memory."""
    module, ops, rewriter, _ = setup()
    name = "dead" if erase is erase_dead_fast else "i"
    erased = weakref.ref(ops[name])
    enabled = gc.isenabled()
    gc.disable()
    try:
        erase(rewriter, ops)
        del ops, rewriter
        assert erased() is None
    finally:
        if enabled:
            gc.enable()
    module.verify()
