"""graph-opt's xDSL parser: xDSL 0.74's `Parser` with its bug workarounds and the
internal hooks graph-opt's parsers need, as a subclass (xDSL's own `Parser` and
`AttrParser` are unchanged).

`CompatParser` (every parser graph-opt builds derives from it):

- lexes string literals in linear time (`lexer.LinearStringLexer`);
- reads MLIR's hexadecimal float literals in dense arrays
  (`array<f32: 0x7FC00000>`): xDSL prints a NaN or infinite element that way,
  as MLIR does, but parses only decimal floats there; a fake quantization with
  NaN or infinite bounds now round-trips through MLIR text;
- keeps a splat (`dense<1.0> : tensor<100000x100000xf32>`, or one hex element)
  whose elements would take more than COMPACT_SPLAT_BYTES as one element, as
  the fast parser, TensorFlow import and fold-constants keep splats; xDSL
  expands it through a Python list (5 GB for a 250 MiB tensor);
- stores an i1 element of a `dense<...>` literal as one byte 0 or 1, as numpy,
  ONNX and graph-opt's importers store it; xDSL 0.74 packs true as 0xFF (`<b`
  of -1), so a boolean weight read from text had other bytes than the one
  printed (`canonical_i1`, which the fast parser applies too);
- checks the type of a `dense<...>` literal with a constraint built once
  (xDSL rebuilds `base(RankedStructure[...])`, about 0.5 ms, every time);
- exposes the parser state graph-opt's fast path reads (`current_token`,
  `resume_from`, `parse_block_body`).

`FloatBitsParser` also reads a hexadecimal integer in a float `dense<...>`
literal as the element's bits, as upstream MLIR does and as xDSL and graph-opt
print NaN, infinities and some whole numbers (`dense<0xFF800000> :
tensor<f32>` is -inf); xDSL 0.74 reads its integer value (4.2865787e+09).
Reproducers ready for upstream: tests/formats/mlir/test_xdsl_float_text.py.
"""

from __future__ import annotations

import math

from xdsl.context import Context
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
    TensorType,
    i1,
)
from xdsl.ir import Block
from xdsl.irdl import base
from xdsl.parser import Parser
from xdsl.parser.attribute_parser import AttrParser
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.hints import isa
from xdsl.utils.lexer import Input, Position, Token
from xdsl.utils.mlir_lexer import MLIRTokenKind

from graph_opt.xdsl_compat.lexer import LinearStringLexer

COMPACT_SPLAT_BYTES = 1 << 20
"""A splat whose elements would take more stays one element (`to_numpy`
broadcasts it); smaller ones are expanded as xDSL does."""

I1_BYTES = bytes([0] + [1] * 255)
"""`bytes.translate` table of an i1 element's byte: 0 stays 0, any other is true."""


def canonical_i1(data: bytes) -> bytes:
    """The bytes of i1 elements with each true one as 1 (xDSL's parser packs 0xFF)."""
    return data.translate(I1_BYTES)


def _with_canonical_i1(attr: DenseIntOrFPElementsAttr) -> DenseIntOrFPElementsAttr:
    """`attr`, its true i1 elements stored as 1 rather than xDSL's 0xFF."""
    if attr.get_element_type() != i1:
        return attr
    data = attr.data.data
    canonical = canonical_i1(data)
    if canonical == data:
        return attr
    return DenseIntOrFPElementsAttr(attr.type, BytesAttr(canonical))


DENSE_LITERAL_TYPE = base(
    RankedStructure[IntegerType | IndexType | AnyFloat | ComplexType]
)
"""xDSL's check of a dense literal's type, built once."""

TensorLiteralElement = AttrParser._TensorLiteralElement
"""xDSL's element of a `dense<...>` literal before its type is known
(`is_negative`, `value`, `span`, `to_type(parser, type)`)."""


class CompatParser(Parser):
    """xDSL's `Parser` with graph-opt's workarounds (see the module docstring)."""

    def __init__(self, ctx: Context, input: str | bytes, name: str = "<unknown>"):
        super().__init__(ctx, "", name)
        text = input.decode("utf-8") if isinstance(input, bytes) else input
        self._parser_state = ParserState(LinearStringLexer(Input(text, name)))

    @property
    def current_token(self) -> Token[MLIRTokenKind, str]:
        """The token being parsed (not consumed)."""
        return self._parser_state.current_token

    def resume_from(self, pos: Position) -> None:
        """Go on parsing from `pos` in the input."""
        self._resume_from(pos)

    def consume_token(self) -> None:
        """Skip the current token."""
        self._consume_token()

    def parse_block_body(self, block: Block) -> None:
        """Parse the ops of `block` up to its end (xDSL's `_parse_block_body`)."""
        Parser._parse_block_body(self, block)

    def _parse_block_body(self, block: Block) -> None:
        self.parse_block_body(block)

    def parse_tensor_literal_element(self) -> TensorLiteralElement:
        """One element of a `dense<...>` literal (xDSL's
        `_parse_tensor_literal_element`)."""
        return AttrParser._parse_tensor_literal_element(self)

    def _parse_tensor_literal_element(self) -> TensorLiteralElement:
        return self.parse_tensor_literal_element()

    def _parse_builtin_densearray_attr(self) -> DenseArrayBase | None:
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
                self.Delimiter.NONE, lambda: self._parse_float_element(element_type)
            )
        result = DenseArrayBase.from_list(element_type, values)
        self.parse_characters(">", " in dense array")
        return result

    def _parse_float_element(self, element_type: AnyFloat) -> float:
        """A decimal float, or a hexadecimal integer read as the float's bits."""
        token = self._current_token
        if token.kind == MLIRTokenKind.INTEGER_LIT and token.text[:2] in ("0x", "0X"):
            self._consume_token()
            size = element_type.compile_time_size
            raw = int(token.text, 16).to_bytes(size, "little")
            return element_type.unpack(raw, 1)[0]
        return self.parse_float()

    def _parse_dense_literal_type(self):
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

    def parse_dense_int_or_fp_elements_attr(self, type=None):
        if type is None:
            start = self.pos
            splat = self._parse_optional_large_splat()
            if splat is not None:
                return _with_canonical_i1(splat)
            self._resume_from(start)
        return _with_canonical_i1(super().parse_dense_int_or_fp_elements_attr(type))

    def _parse_optional_large_splat(self) -> DenseIntOrFPElementsAttr | None:
        """`<value> : type` or `<"0x..."> : type` of a tensor above
        COMPACT_SPLAT_BYTES, as one element; None for anything else (the caller
        resumes where it started)."""
        self.parse_punctuation("<", " in dense attribute")
        token = self._current_token
        if token.kind is MLIRTokenKind.STRING_LIT:
            hex_digits = self.parse_str_literal()
            elements = None
        elif token.text in ("[", "(", ">"):
            return None
        else:
            elements, shape = self._parse_tensor_literal()
            if shape:
                return None
        if self.parse_optional_punctuation(">") is None:
            return None
        if self.parse_optional_punctuation(":") is None:
            return None
        literal_type = self._parse_dense_literal_type()
        element_type = literal_type.element_type
        size = getattr(element_type, "compile_time_size", None)
        count = math.prod(literal_type.get_shape())
        if not isinstance(literal_type, TensorType) or size is None or count < 2:
            return None
        if size * count <= COMPACT_SPLAT_BYTES:
            return None
        if elements is None:
            try:
                data = bytes.fromhex(hex_digits.removeprefix("0x"))
            except ValueError:
                return None
            if len(data) != size:
                return None
        else:
            one = TensorType(element_type, [1])
            value = elements[0].to_type(self, element_type)
            data = DenseIntOrFPElementsAttr.from_list(one, [value]).data.data
        return DenseIntOrFPElementsAttr(literal_type, BytesAttr(data))


class _HexElement(TensorLiteralElement):
    """A hexadecimal integer of a dense literal: the bits of a float element (zero
    until `FloatBitsParser` writes them), the value of an integer one."""

    def to_type(self, parser, type):
        if isinstance(type, AnyFloat):
            return 0.0
        return super().to_type(parser, type)


class FloatBitsParser(CompatParser):
    """graph-opt's parser reading hexadecimal integers in float `dense<...>`
    literals as the elements' bits (upstream MLIR's reading) rather than as their
    values."""

    _elements: dict[int, TensorLiteralElement] | None = None
    """The elements of the dense literal being parsed, by position (a literal
    read twice, as the large-splat check may, counts once)."""

    def parse_dense_int_or_fp_elements_attr(self, type=None):
        outer, self._elements = self._elements, {}
        try:
            attr = super().parse_dense_int_or_fp_elements_attr(type)
            elements = list(self._elements.values())
        finally:
            self._elements = outer
        hex_elements = [
            (index, e) for index, e in enumerate(elements) if isinstance(e, _HexElement)
        ]
        if not hex_elements or not isinstance(attr.get_element_type(), AnyFloat):
            return attr
        return self._with_bits(attr, hex_elements, splat=len(elements) == 1)

    def parse_tensor_literal_element(self) -> TensorLiteralElement:
        element = super().parse_tensor_literal_element()
        if self._elements is None:
            return element
        if element.span.text.lstrip("-")[:2] in ("0x", "0X"):
            element = _HexElement(element.is_negative, element.value, element.span)
        self._elements[element.span.start] = element
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
