"""The lexer workaround, against xDSL's own lexer."""

from __future__ import annotations

import time

import pytest
from xdsl.context import Context
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.lexer import Input
from xdsl.utils.mlir_lexer import MLIRLexer, MLIRTokenKind

from graph_opt.xdsl_compat.lexer import (
    STRING_LITERAL,
    LinearStringLexer,
    xdsl_string_literal_regex,
)
from graph_opt.xdsl_compat.parser import CompatParser


def unclosed(n: int) -> str:
    return '"' + "0" * n


def seconds(call) -> float:
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def xdsl_fails_on(text: str) -> None:
    with pytest.raises(ParseError, match="End of file reached"):
        Parser(Context(), text)


def test_xdsl_lexer_backtracks_exponentially():
    """Upstream-ready reproducer (xDSL 0.74): an unclosed string literal costs
    time exponential in its length; each 2 more characters cost 4 times more:

        from xdsl.context import Context
        from xdsl.parser import Parser
        Parser(Context(), '"' + "0" * 30)  # minutes before "End of file reached"

    After an upgrade that fixes it this test fails: LinearStringLexer may go."""
    short, long = (
        seconds(lambda: xdsl_fails_on(unclosed(14))),
        seconds(lambda: xdsl_fails_on(unclosed(22))),
    )
    assert long > 16 * short  # 2**8 = 256 if exponential, 8/14 if linear


def test_the_lexer_field_is_the_regex_xdsl_lexes_strings_with():
    regex = xdsl_string_literal_regex()
    assert MLIRLexer.__dict__["_unescaped_characters_regex"] is regex
    assert regex.match('"a\\"b" rest').group() == '"a\\"b"'
    lexer = LinearStringLexer(Input('"x" "y"', "<t>"))
    assert lexer.lex().kind is MLIRTokenKind.STRING_LIT
    assert LinearStringLexer._unescaped_characters_regex is STRING_LITERAL


@pytest.mark.parametrize(
    "text",
    ['""', '"abc"', '"a\\"b"', '"\\n\\t\\\\"', '"\\0A\\ff"', '"é"', '"a\nb"', '"\\q"'],
)
def test_linear_string_literal_matches_what_xdsl_matches(text):
    expected = xdsl_string_literal_regex().match(text + " tail")
    found = STRING_LITERAL.match(text + " tail")
    assert (found and found.group()) == (expected and expected.group())


def test_graph_opt_parsers_fail_on_an_unclosed_string_in_linear_time():
    text = "dense<" + unclosed(200_000)
    with pytest.raises(ParseError, match="End of file reached"):
        CompatParser(Context(), text).parse_attribute()
    assert seconds(lambda: STRING_LITERAL.match(unclosed(200_000))) < 0.5
