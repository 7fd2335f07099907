"""`verify_module` accepts and rejects exactly what `module.verify()` does, with the same message."""

from pathlib import Path

import pytest
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, f32
from xdsl.parser import Parser
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.utils.exceptions import ParseError

from graph_opt import api
from graph_opt.dialects.nn.elementwise import TanhOp
from graph_opt.dialects.nn.shapes import tensor_type
from graph_opt.rewriting.op_dispatch import dispatching_walker
from graph_opt.verification import verify_module

NN_TESTS = Path(__file__).parents[1] / "filecheck" / "dialects" / "nn"


def parsed_cases() -> list[tuple[str, str]]:
    """Every `// -----` case of the nn dialect's filecheck tests that parses."""
    ctx = api.context()
    cases = []
    for path in sorted(NN_TESTS.glob("*.mlir")):
        for index, text in enumerate(path.read_text().split("// -----")):
            try:
                Parser(ctx, text).parse_module()
            except ParseError:
                continue  # rejected by the parser: nothing to verify
            cases.append((f"{path.stem}-{index}", text))
    return cases


CASES = parsed_cases()


def outcome(check, module: ModuleOp) -> str | None:
    try:
        check(module)
    except Exception as e:  # the type and message are compared
        return f"{type(e).__name__}: {e}"
    return None


def parse(text: str) -> ModuleOp:
    """The module, not verified (`api.parse` verifies)."""
    return Parser(api.context(), text).parse_module()


def test_cases_cover_valid_and_invalid_ops():
    results = [outcome(ModuleOp.verify, parse(text)) for _, text in CASES]
    assert sum(r is None for r in results) >= 5  # the ops*.mlir files
    assert sum(r is not None for r in results) >= 40


@pytest.mark.parametrize("text", [t for _, t in CASES], ids=[n for n, _ in CASES])
def test_same_outcome_as_module_verify(text):
    assert outcome(verify_module, parse(text)) == outcome(ModuleOp.verify, parse(text))


TWO_LEAKY_RELUS = """
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = nn.leaky_relu %a {alpha = 1.000000e-01 : f32} : (tensor<2xf32>) -> tensor<2xf32>
  %1 = nn.leaky_relu %0 {alpha = 2.000000e-01 : f32} : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}
"""


def with_integer_alpha_in_second_op() -> ModuleOp:
    module = parse(TWO_LEAKY_RELUS)
    second = list(module.walk())[3]
    second.properties["alpha"] = IntegerAttr(1, 64)
    return module


def test_op_of_a_verified_signature_but_another_property_class_is_rejected():
    """The signature keeps a property's class, so the second op is checked."""
    assert outcome(verify_module, parse(TWO_LEAKY_RELUS)) is None
    expected = outcome(ModuleOp.verify, with_integer_alpha_in_second_op())
    assert expected is not None and "should be of base attribute float" in expected
    assert outcome(verify_module, with_integer_alpha_in_second_op()) == expected


CHAIN = """
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = nn.relu %a : (tensor<2xf32>) -> tensor<2xf32>
  %1 = nn.tanh %0 : (tensor<2xf32>) -> tensor<2xf32>
  %2 = nn.relu %1 : (tensor<2xf32>) -> tensor<2xf32>
  func.return %2 : tensor<2xf32>
}
func.func @g(%b: tensor<2xf32>) -> tensor<2xf32> {
  func.return %b : tensor<2xf32>
}
"""


class RetypeTanh(RewritePattern):
    """Broken: the tanh's result claims a shape its type rule does not give."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TanhOp, rewriter: PatternRewriter):
        wrong = tensor_type(f32, [3])
        if op.output.type != wrong:
            rewriter.replace(op, TanhOp.create_inferred([op.input], {}, [wrong]))


class ReadOtherFunction(RewritePattern):
    """Broken: the tanh reads @g's argument, outside its own function."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TanhOp, rewriter: PatternRewriter):
        other = op.parent_op().next_op.body.block.args[0]
        if op.input is not other:
            op.operands[0] = other
            rewriter.notify_op_modified(op)


class EraseTanhLeavingUses(RewritePattern):
    """Broken: the tanh is erased while the relu after it still reads it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: TanhOp, rewriter: PatternRewriter):
        rewriter.erase(op, safe_erase=False)


@pytest.mark.parametrize(
    "broken", [RetypeTanh, ReadOtherFunction, EraseTanhLeavingUses]
)
def test_a_broken_rewrite_is_caught_as_module_verify_catches_it(broken):
    """The fast paths (signatures, plain nn ops, linear isolation check) still
    see ops a pass built, retyped, rewired or left reading an erased value."""
    module = parse(CHAIN)
    dispatching_walker([broken()]).rewrite_module(module)
    expected = outcome(ModuleOp.verify, module)
    assert expected is not None
    assert outcome(verify_module, module) == expected
