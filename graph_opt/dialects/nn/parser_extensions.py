"""Two changes to xDSL 0.74's attribute parser (internal methods of `AttrParser`),
each checked against xDSL's own printer and parser by
tests/dialects/test_parser_extensions.py:

- MLIR's hexadecimal float literals in dense arrays (`array<f32: 0x7FC00000>`):
  xDSL prints a NaN or infinite element that way, as MLIR does, but parses
  only decimal floats there; a fake quantization with NaN or infinite bounds
  now round-trips through MLIR text.
- A dense literal above the tensor limit (`--max-tensor-size`) is refused:
  xDSL would expand a splat (`dense<1.0> : tensor<100000x100000xf32>`).
- The type check of every `dense<...>` literal rebuilt its IRDL constraint
  (`base(RankedStructure[...])`, about 0.5 ms) each time: built once here, the
  same check costs microseconds, which speeds up parsing graphs with many
  constants several times over.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    ComplexType,
    DenseArrayBase,
    IndexType,
    IntegerType,
    RankedStructure,
)
from xdsl.ir import Attribute
from xdsl.irdl import base
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


DENSE_LITERAL_TYPE = base(
    RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType]
)


def _parse_dense_literal_type(self: AttrParser):
    literal_type = self.expect(
        self.parse_optional_type, "Dense attribute must be typed!"
    )
    if not DENSE_LITERAL_TYPE.verifies(literal_type):
        self.raise_error(
            "Expected memref, vector or tensor type of "
            "integer, index, float, or complex type"
        )
    if any(dim == DYNAMIC_INDEX for dim in list(literal_type.get_shape())):
        self.raise_error("Dense literal attribute should have a static shape.")
    _check_literal_size(self, literal_type)
    return literal_type


def _check_literal_size(parser: AttrParser, literal_type) -> None:
    """Refuse a dense literal (a splat, which xDSL expands) above the tensor limit."""
    from graph_opt.interpreter.limits import TensorTooLarge, check_size

    size = getattr(literal_type.element_type, "compile_time_size", 8)
    try:
        check_size(
            f"dense literal of {literal_type}", literal_type.get_shape(), f"V{size}"
        )
    except TensorTooLarge as e:
        parser.raise_error(str(e))


AttrParser._parse_builtin_densearray_attr = _parse_builtin_densearray_attr
AttrParser._parse_dense_literal_type = _parse_dense_literal_type
