"""FastParser against graph-opt's xDSL parser (`FloatBitsParser`, xDSL's `Parser`
with the workarounds of graph_opt.xdsl_compat): the same modules, the same errors."""

from __future__ import annotations

import pytest
from filecheck_inputs import CHUNKS
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser

from graph_opt import api
from graph_opt.formats.mlir.parser import FastParser
from graph_opt.testing.model_zoo import conv_chain
from graph_opt.xdsl_compat.parser import FloatBitsParser

CTX = api.context()


def parse_both(text: str, name: str = "in.mlir"):
    """Each parser's module, or its error message."""
    results = []
    for parser_class in (FloatBitsParser, FastParser):
        try:
            results.append(parser_class(CTX, text, name).parse_module())
        except Exception as error:  # compared below, whatever its kind
            results.append(f"{type(error).__name__}: {error}")
    return results


def assert_same(text: str, name: str = "in.mlir") -> None:
    expected, got = parse_both(text, name)
    empty = isinstance(got, ModuleOp) and got.ops.first is None
    if empty and isinstance(expected, str):
        # xDSL refuses a text without ops, graph-opt reads an empty module as mlir-opt
        assert "Could not parse entire input!" in expected
        return
    if isinstance(expected, str) or isinstance(got, str):
        assert got == expected
        return
    assert api.to_mlir(got, generic=True) == api.to_mlir(expected, generic=True)
    assert got.is_structurally_equivalent(expected)


def test_every_filecheck_input_has_been_split():
    assert len(CHUNKS) > 300


@pytest.mark.parametrize("name, text", CHUNKS, ids=[name for name, _ in CHUNKS])
def test_filecheck_input(name, text):
    assert_same(text, name)


def count_slow_ops(text: str, monkeypatch) -> int:
    """How many ops xDSL's own `parse_operation` reads in `text`."""
    calls = []
    original = Parser.parse_operation

    def counting(parser):
        calls.append(parser._current_token.text)
        return original(parser)

    monkeypatch.setattr(Parser, "parse_operation", counting)
    FastParser(CTX, text).parse_module()
    return len(calls)


@pytest.mark.parametrize("generic", [False, True])
def test_graph_ops_take_the_fast_path(generic, monkeypatch):
    module = api.load(conv_chain(40))
    text = api.to_mlir(module, generic=generic)
    assert_same(text)
    assert count_slow_ops(text, monkeypatch) == 2  # builtin.module and func.func


def test_zoo_models_read_the_same():
    from graph_opt.testing.model_zoo import small_models

    for make in small_models(30).values():
        module = api.load(make())
        for generic in (False, True):
            assert_same(api.to_mlir(module, generic=generic))


FUNCTION = """func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {{
  {body}
  func.return %y : tensor<2xf32>
}}
"""

REJECTED = {
    "undefined_operand": "%y = nn.relu %z : (tensor<2xf32>) -> tensor<2xf32>",
    "operand_type_mismatch": "%y = nn.relu %x : (tensor<3xf32>) -> tensor<2xf32>",
    "operand_count": "%y = nn.relu %x, %x : (tensor<2xf32>) -> tensor<2xf32>",
    "result_count": "%y, %z = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>",
    "redefinition": "%x = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>",
    "unknown_op": "%y = nn.nothing %x : (tensor<2xf32>) -> tensor<2xf32>",
    "bad_attribute": "%y = nn.relu %x {a = [1, } : (tensor<2xf32>) -> tensor<2xf32>",
    "bad_type": "%y = nn.relu %x : (tensor<2xf32>) -> tensor<2xq32>",
    "dense_shape": "%y = nn.constant dense<[1.0, 2.0, 3.0]> : tensor<2xf32>",
    "dense_nesting": "%y = nn.constant dense<[[1.0], 2.0]> : tensor<2xf32>",
    "dense_overflow": "%y = nn.constant dense<[1.0e+39, 2.0]> : tensor<2xf32>",
    "dense_hex_length": '%y = nn.constant dense<"0x0000803F"> : tensor<3xf32>',
    "generic_type_mismatch": '%y = "nn.relu"(%x) : (tensor<3xf32>) -> tensor<2xf32>',
    "trailing_text": "%y = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32> junk",
}
"""Lines xDSL rejects: the fast path must leave them to it, for its diagnostic."""

ACCEPTED = {
    "splat": "%y = nn.constant dense<2.5> : tensor<2xf32>",
    "hex": '%y = nn.constant dense<"0x0000803F00000040"> : tensor<2xf32>',
    "hex_splat": '%y = nn.constant dense<"0x0000803F"> : tensor<2xf32>',
    "dense_integer_literal": "%y = nn.constant dense<[1, 2]> : tensor<2xf32>",
    "f16": "%c = nn.constant dense<[1.5, -0.0]> : tensor<2xf16>\n"
    "  %y = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>",
    "integers": "%c = nn.constant dense<[1, -2]> : tensor<2xi64>\n"
    "  %y = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>",
    "attributes_and_properties": "%y = nn.leaky_relu %x {alpha = 0.5 : f32, note = "
    '"a}b"} : (tensor<2xf32>) -> tensor<2xf32>',
    "generic_properties_as_attributes": '%y = "nn.leaky_relu"(%x) {alpha = 0.5 : f32} '
    ": (tensor<2xf32>) -> tensor<2xf32>",
    "generic_constant_with_attributes": '%y = "nn.constant"() <{value = dense<[1.0, '
    "2.0]> : tensor<2xf32>}> {note = 1 : i64} : () -> tensor<2xf32>",
    "trailing_blanks": "%y = nn.constant dense<[1.0, 2.0]> : tensor<2xf32>   ",
    "location": '%y = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32> loc("here")',
    "comment": "%y = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32> // note",
}


@pytest.mark.parametrize(
    "body, rejected",
    [(body, True) for body in REJECTED.values()]
    + [(body, False) for body in ACCEPTED.values()],
    ids=[*REJECTED, *ACCEPTED],
)
def test_single_lines_read_as_xdsl_reads_them(body, rejected):
    text = FUNCTION.format(body=body)
    expected, _ = parse_both(text)
    assert isinstance(expected, str) == rejected
    assert_same(text)


def test_files_with_aliases_are_read_by_xdsl(monkeypatch):
    line = "%y = nn.leaky_relu %x {alpha = #a} : (tensor<2xf32>) -> tensor<2xf32>"
    text = "#a = 0.5 : f32\n" + FUNCTION.format(body=line)
    assert_same(text)
    assert count_slow_ops(text, monkeypatch) == 3  # every op


def test_a_declined_line_leaves_no_uses_behind():
    """%y is used before its definition, which the fast path then leaves to xDSL."""
    text = """func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %z = "test.op"(%y) : (tensor<2xf32>) -> tensor<2xf32>
  %y = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  func.return %z : tensor<2xf32>
}"""
    expected, module = parse_both(text)
    # (xDSL's is_structurally_equivalent fails on forward references, even
    # between two of its own parses)
    assert api.to_mlir(module, generic=True) == api.to_mlir(expected, generic=True)
    argument = module.body.block.first_op.body.block.args[0]
    assert len(list(argument.uses)) == 1
