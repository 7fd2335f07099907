"""The parser workarounds and hooks, against xDSL's own parser."""

from __future__ import annotations

import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, DenseArrayBase, f32
from xdsl.dialects.test import Test
from xdsl.ir import Block
from xdsl.parser import Parser
from xdsl.parser.attribute_parser import AttrParser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from graph_opt.xdsl_compat.lexer import LinearStringLexer
from graph_opt.xdsl_compat.parser import (
    CompatParser,
    FloatBitsParser,
    TensorLiteralElement,
)


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    ctx.load_dialect(Test)
    return ctx


def test_xdsl_reads_no_hexadecimal_float_in_a_dense_array():
    """Upstream-ready reproducer (xDSL 0.74): xDSL prints a NaN element of a
    dense array in hexadecimal, as MLIR does, and cannot read it back:

        from xdsl.context import Context
        from xdsl.parser import Parser
        Parser(Context(), "array<f32: 0x7FC00000>").parse_attribute()  # ParseError

    After an upgrade that fixes it this test fails: the override may go."""
    with pytest.raises(ParseError):
        Parser(Context(), "array<f32: 0x7FC00000>").parse_attribute()
    attr = CompatParser(Context(), "array<f32: 0x7FC00000, 1.5>").parse_attribute()
    assert isinstance(attr, DenseArrayBase) and attr.elt_type == f32
    assert [str(v) for v in attr.get_values()] == ["nan", "1.5"]


def test_the_overridden_methods_are_xdsls_hooks():
    """Each method CompatParser overrides exists on xDSL's parser (so xDSL calls
    it), and xDSL still dispatches `array<...>` through `self`."""
    for name in (
        "_parse_builtin_densearray_attr",
        "_parse_dense_literal_type",
        "_parse_tensor_literal_element",
        "_parse_tensor_literal",
        "_parse_typed_integer",
        "_resume_from",
        "_consume_token",
        "_current_token",
    ):
        assert hasattr(AttrParser, name), name
    assert hasattr(Parser, "_parse_block_body")
    assert "parse_dense_int_or_fp_elements_attr" in AttrParser.__dict__

    calls = []

    class Spy(CompatParser):
        def _parse_builtin_densearray_attr(self):
            calls.append("array")
            return super()._parse_builtin_densearray_attr()

        def parse_tensor_literal_element(self):
            calls.append("element")
            return super().parse_tensor_literal_element()

        def parse_block_body(self, block: Block) -> None:
            calls.append("block")
            super().parse_block_body(block)

    Spy(context(), "array<i32: 1>").parse_attribute()
    Spy(context(), "dense<1> : tensor<2xi32>").parse_attribute()
    Spy(
        context(), '"test.op"() ({\n  "test.op"() : () -> ()\n}) : () -> ()'
    ).parse_module()
    assert calls[:2] == ["array", "element"] and "block" in calls


def test_tensor_literal_elements_carry_sign_value_and_span():
    seen = []

    class Spy(CompatParser):
        def parse_tensor_literal_element(self):
            element = super().parse_tensor_literal_element()
            seen.append(element)
            return element

    Spy(context(), "dense<[-0x10, 2.5]> : tensor<2xf32>").parse_attribute()
    assert all(isinstance(e, TensorLiteralElement) for e in seen)
    assert [(e.is_negative, e.span.text) for e in seen] == [
        (True, "-0x10"),
        (False, "2.5"),
    ]


def test_parser_state_hooks():
    parser = CompatParser(context(), "  abc  def")
    assert isinstance(parser.lexer, LinearStringLexer)
    assert parser.current_token.kind is MLIRTokenKind.BARE_IDENT
    assert parser.current_token.span.start == 2
    parser.consume_token()
    assert parser.current_token.text == "def"
    parser.resume_from(2)
    assert parser.current_token.text == "abc"


def test_bytes_input_and_name_reach_the_lexer():
    parser = CompatParser(context(), b"x", "in.mlir")
    assert parser.lexer.input.name == "in.mlir"
    assert parser.lexer.input.content == "x"


def test_float_bits_parser_reads_hex_as_bits():
    attr = FloatBitsParser(
        context(), "dense<0xFF800000> : tensor<f32>"
    ).parse_attribute()
    assert attr.get_values() == (float("-inf"),)
