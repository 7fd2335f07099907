"""Changes to xDSL 0.74's attribute parser (internal methods of `AttrParser`),
each checked against xDSL's own printer and parser by
tests/dialects/test_parser_extensions.py and tests/mlir_text/test_float_bits.py:

- `FloatBitsParser` (a subclass: graph-opt's parsers build it) reads a
  hexadecimal integer in a float `dense<...>` literal as the element's bits, as
  upstream MLIR does and as xDSL and graph-opt print NaN, infinities and some
  whole numbers (`dense<0xFF800000> : tensor<f32>` is -inf); xDSL 0.74 reads
  its integer value (4.2865787e+09).

- MLIR's hexadecimal float literals in dense arrays (`array<f32: 0x7FC00000>`):
  xDSL prints a NaN or infinite element that way, as MLIR does, but parses
  only decimal floats there; a fake quantization with NaN or infinite bounds
  now round-trips through MLIR text.
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
    BytesAttr,
    ComplexType,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    IndexType,
    IntegerType,
    RankedStructure,
)
from xdsl.ir import Attribute
from xdsl.irdl import base
from xdsl.parser import Parser
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
    return literal_type


AttrParser._parse_builtin_densearray_attr = _parse_builtin_densearray_attr
AttrParser._parse_dense_literal_type = _parse_dense_literal_type


class _HexElement(AttrParser._TensorLiteralElement):
    """A hexadecimal integer of a dense literal: the bits of a float element (zero
    until `FloatBitsParser` writes them), the value of an integer one."""

    def to_type(self, parser, type):
        if isinstance(type, AnyFloat):
            return 0.0
        return super().to_type(parser, type)


class FloatBitsParser(Parser):
    """xDSL's parser reading hexadecimal integers in float `dense<...>` literals as
    the elements' bits (upstream MLIR's reading) rather than as their values."""

    _elements: list[AttrParser._TensorLiteralElement] | None = None
    """The elements of the dense literal being parsed, in order."""

    def parse_dense_int_or_fp_elements_attr(self, type):
        outer, self._elements = self._elements, []
        try:
            attr = super().parse_dense_int_or_fp_elements_attr(type)
            elements = self._elements
        finally:
            self._elements = outer
        hex_elements = [
            (index, e) for index, e in enumerate(elements) if isinstance(e, _HexElement)
        ]
        if not hex_elements or not isinstance(attr.get_element_type(), AnyFloat):
            return attr
        return self._with_bits(attr, hex_elements, splat=len(elements) == 1)

    def _parse_tensor_literal_element(self):
        element = super()._parse_tensor_literal_element()
        if self._elements is None:
            return element
        if element.span.text.lstrip("-")[:2] in ("0x", "0X"):
            element = _HexElement(element.is_negative, element.value, element.span)
        self._elements.append(element)
        return element

    def _with_bits(
        self,
        attr: DenseIntOrFPElementsAttr,
        hex_elements: list[tuple[int, _HexElement]],
        splat: bool,
    ) -> DenseIntOrFPElementsAttr:
        element_type = attr.get_element_type()
        size = element_type.compile_time_size
        data = bytearray(attr.data.data)
        for index, element in hex_elements:
            if element.is_negative:
                self.raise_error(
                    "hexadecimal float literal should not have a leading minus",
                    at_position=element.span,
                )
            bits = int(element.value)
            if bits >> element_type.bitwidth:
                self.raise_error(
                    "hexadecimal float constant out of range for type",
                    at_position=element.span,
                )
            raw = bits.to_bytes(size, "little")
            if splat:
                data = raw * (len(data) // size)
            else:
                data[index * size : (index + 1) * size] = raw
        return DenseIntOrFPElementsAttr(attr.type, BytesAttr(bytes(data)))
