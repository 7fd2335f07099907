"""MLIR's hexadecimal float literals in dense arrays: `array<f32: 0x7FC00000>`.

xDSL 0.74 prints a NaN or infinite element of an `array<f32>` as its bit
pattern in hexadecimal, as MLIR does, but parses only decimal floats there.
This module gives xDSL's dense-array parser (`AttrParser.
_parse_builtin_densearray_attr`, an internal method) the hexadecimal form too,
so that a fake quantization with NaN or infinite bounds round-trips through
MLIR text. tests/dialects/test_hex_float_arrays.py checks it against xDSL's
printer and parser.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import AnyFloat, DenseArrayBase, IntegerType
from xdsl.ir import Attribute
from xdsl.parser.attribute_parser import AttrParser
from xdsl.utils.hints import isa
from xdsl.utils.mlir_lexer import MLIRTokenKind

from graph_opt.dialects.nn.dtypes import numpy_dtype


def _parse_float_element(parser: AttrParser, element_type: Attribute) -> float:
    token = parser._current_token
    if token.kind == MLIRTokenKind.INTEGER_LIT and token.text[:2] in ("0x", "0X"):
        parser._consume_token()
        dtype = numpy_dtype(element_type)
        bits = np.array(int(token.text, 16), dtype=f"u{dtype.itemsize}")
        return float(bits.view(dtype))
    return parser.parse_float()


def _parse_builtin_densearray_attr(self: AttrParser) -> DenseArrayBase | None:
    self.parse_characters("<", " in dense array")
    pos = self.pos
    element_type = self.parse_attribute()
    if not isa(element_type, IntegerType | AnyFloat):
        self.raise_error(
            "dense array element type must be an integer or floating point type",
            pos,
            self.pos,
        )
    if self.parse_optional_punctuation(">"):
        return DenseArrayBase.from_list(element_type, [])
    self.parse_characters(":", " in dense array")
    if isinstance(element_type, IntegerType):
        values = self.parse_comma_separated_list(
            self.Delimiter.NONE,
            lambda: self._parse_typed_integer(element_type, allow_boolean=True),
        )
    else:
        values = self.parse_comma_separated_list(
            self.Delimiter.NONE, lambda: _parse_float_element(self, element_type)
        )
    result = DenseArrayBase.from_list(element_type, values)
    self.parse_characters(">", " in dense array")
    return result


AttrParser._parse_builtin_densearray_attr = _parse_builtin_densearray_attr
