"""MLIR string literals lexed in linear time (a workaround for an xDSL 0.74 bug).

xDSL 0.74's lexer matches a string literal with `"(?:[^"\\...]+|\\...)*"`
(`MLIRLexer._unescaped_characters_regex`), a nested quantifier that backtracks
exponentially when the closing quote is missing: a truncated file ending inside
a long hex constant (`dense<"0x...`) kept `graph-opt` busy for minutes. The
same language, matched without nested quantifiers (possessively where Python
has it), fails in linear time. Reproducer ready for upstream:
tests/xdsl_compat/test_lexer.py::test_xdsl_lexer_backtracks_exponentially.

`LinearStringLexer` is a subclass: only graph-opt's parsers
(`graph_opt.xdsl_compat.parser.CompatParser`) use it; xDSL's own lexer is
unchanged.
"""

from __future__ import annotations

import re
import sys

from xdsl.utils.mlir_lexer import MLIRLexer

_CHARACTERS = r'[^"\\\n\v\f]'
_ESCAPE = r'\\(?:["nt\\]|[0-9A-Fa-f]{2})'
if sys.version_info >= (3, 11):
    STRING_LITERAL = re.compile(f'"(?:{_CHARACTERS}++|{_ESCAPE})*+"')
else:
    STRING_LITERAL = re.compile(f'"(?:{_CHARACTERS}|{_ESCAPE})*"')
"""xDSL's string literal (characters, or escapes `\\n \\t \\" \\\\ \\XX`),
matched in time linear in its length whether or not it is closed."""


def xdsl_string_literal_regex() -> re.Pattern[str]:
    """The regular expression xDSL's `MLIRLexer` matches string literals with."""
    return MLIRLexer._unescaped_characters_regex


class LinearStringLexer(MLIRLexer):
    """xDSL's MLIR lexer, matching string literals with STRING_LITERAL."""

    _unescaped_characters_regex = STRING_LITERAL
