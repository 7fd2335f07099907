"""MLIR string literals lexed in linear time.

xDSL 0.74's lexer matches a string literal with `"(?:[^"\\...]+|\\...)*"`, a
nested quantifier that backtracks exponentially when the closing quote is
missing: a truncated file ending inside a long hex constant (`dense<"0x...`)
kept `graph-opt` busy for minutes. The same language, matched without nested
quantifiers (possessively where Python has it), fails in linear time.
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


def lex_strings_in_linear_time() -> None:
    MLIRLexer._unescaped_characters_regex = STRING_LITERAL
