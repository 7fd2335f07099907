"""MLIR text read as xDSL's `Parser` reads it, many times faster on graph-opt's ops.

`FastParser` is a `Parser` that reads an op written on one line in one of the
forms graph-opt prints (and people write) with a few regular expressions:

    %r = nn.op %a, %b {attrs} : (types) -> types       (nn ops' custom form)
    %w = nn.constant dense<...> : tensor<...>           (and its generic form)
    func.return %a : type
    %r = "dialect.op"(%a) <{props}> {attrs} : (types) -> types   (any op without
                                                                  regions or successors)

Types, function types and attribute dictionaries are parsed by xDSL's parser
once per distinct text and then shared (attributes are immutable); `dense<...>`
literals of floats are read by numpy, hex ones by `bytes.fromhex`, or straight
from the file's bytes when `parse_module` cut their digits out of the text
(see `hex_literals`); a hex element of a float literal (`dense<[0xFF800000]>`)
is its bits, in the fast path and in xDSL's (`FloatBitsParser`). The op is
built as xDSL builds it (`new_op` is `Operation.create`). Consecutive fast lines
are read without the lexer; it resumes where the fast path declines. Anything
else, and any line the fast path cannot take whole (a forward reference, a type
mismatch, a location, an alias, a resource, an error), goes to
`Parser.parse_optional_operation`, which reads it and reports errors exactly as
xDSL does. Modules, functions and other ops with regions are xDSL's; their
bodies come back here.

Relies on xDSL 0.74's parser (`ssa_values`, `forward_ssa_references`,
`attribute_aliases`, and the internals `graph_opt.xdsl_compat.parser` exposes:
`parse_block_body`, `current_token`, `resume_from`);
tests/formats/mlir/test_fast_parser.py builds every FileCheck input both ways and
compares the modules and the errors.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import (
    UNKNOWN_LOC,
    Float16Type,
    Float32Type,
    Float64Type,
    FunctionType,
    IntegerType,
    ModuleOp,
    NoneAttr,
    TensorType,
    i1,
)
from xdsl.dialects.func import ReturnOp
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError
from xdsl.utils.mlir_lexer import MLIRTokenKind

from graph_opt.dialects.nn.attr_builders import dense_elements
from graph_opt.dialects.nn.base import _fits_flat
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.dialects.nn.shapes import tensor_type
from graph_opt.formats.mlir.forms import has_nn_custom_form
from graph_opt.formats.mlir.hex_literals import (
    PLACEHOLDER,
    HexLiterals,
    cut_hex_literals,
)
from graph_opt.gc_pause import collector_paused
from graph_opt.weights import HexWeight
from graph_opt.xdsl_compat.ir import new_op, resource_blobs
from graph_opt.xdsl_compat.parser import (
    COMPACT_SPLAT_BYTES,
    FloatBitsParser,
    canonical_i1,
)

_NAME = r"%[A-Za-z0-9_$.-]+"
_NAMES = rf"{_NAME}(?:, {_NAME})*"
_DICT = r"\{[^\n]*?\}"
_RESULTS = rf"(?:(?P<results>{_NAMES}) = )?"
# Line ends are matched greedily (`[^\n]*`, trailing blanks stripped after): a lazy
# match tries the rest of the pattern at every character of a long literal.

CUSTOM_OP = re.compile(
    rf"{_RESULTS}(?P<name>[A-Za-z_][\w$]*\.[\w$.]+)(?: (?P<operands>{_NAMES}))?"
    rf"(?: (?P<attrs>{_DICT}))? : (?P<signature>\([^\n]*)"
)
GENERIC_OP = re.compile(
    rf'{_RESULTS}"(?P<name>[A-Za-z_][\w$]*\.[\w$.]+)"\((?P<operands>{_NAMES})?\)'
    rf"(?: <(?P<props>{_DICT})>)?(?: (?P<attrs>{_DICT}))? : (?P<signature>\([^\n]*)"
)
CONSTANT_OP = re.compile(
    rf"(?P<results>{_NAME}) = nn\.constant (?:(?P<attrs>{_DICT}) )?(?=dense<)"
)
GENERIC_CONSTANT_OP = re.compile(
    rf'(?P<results>{_NAME}) = "nn\.constant"\(\) <\{{value = (?=dense<)'
)
"""nn.constant's forms up to the literal, whose end is found by `find` and `rfind`
(a literal can be a 100 MB line: a regular expression would scan it again)."""
GENERIC_CONSTANT_TAIL = "}> : () -> "
RETURN_OP = re.compile(
    rf"func\.return(?: (?P<operands>{_NAMES}) : (?P<types>[^\n]*))?[ \t]*(?=\n|\Z)"
)
BLANKS = re.compile(r"(?:\s+|//[^\n]*)*")
"""What the lexer skips between tokens: whitespace and comments."""
INTEGER = re.compile(r"-?[0-9]+")
FLOAT_LIST = re.compile(r"(?:[\[\], ]|-?[0-9]+\.[0-9]*(?:[eE][-+]?[0-9]+)?)+")
"""The characters of a nested list of MLIR float literals."""

FLOAT_DTYPES = {Float16Type: "<f2", Float32Type: "<f4", Float64Type: "<f8"}
CACHED_TEXT_LIMIT = 512
"""Longer texts (large literals) are parsed every time rather than remembered."""


class FastParser(FloatBitsParser):
    """xDSL's parser with a fast path for one-line ops (see the module docstring),
    reading hexadecimal float elements as their bits (`FloatBitsParser`)."""

    def __init__(
        self, ctx, input, name: str = "<unknown>", cut: HexLiterals | None = None
    ) -> None:
        super().__init__(ctx, input, name)
        self._text = self.lexer.input.content
        self._cut = cut
        """The literals cut out of `input` (its text is `cut.text`)."""
        self._cuts_read: set[int] = set()
        """Where the placeholders of the ops built so far are."""
        self._cuts_of_line: list[int] = []
        """Where the placeholders read for the line being parsed are."""
        self._parsed: dict[tuple[str, str], object] = {}
        self._op_classes: dict[str, type[Operation] | None] = {}

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """xDSL's `parse_module`; an input without ops (empty, blanks or comments
        only) is an empty module, as mlir-opt reads it."""
        if allow_implicit_module and self.current_token.kind == MLIRTokenKind.EOF:
            return ModuleOp([])
        with collector_paused():  # the graph being built is all alive
            return super().parse_module(allow_implicit_module)

    def parse_optional_operation(self) -> Operation | None:
        parsed = self._parse_line(self.current_token.span.start)
        if parsed is None:
            return super().parse_optional_operation()
        op, end = parsed
        self.resume_from(end)
        return op

    def parse_block_body(self, block: Block) -> None:
        """`Parser._parse_block_body`, going from one fast line to the next without
        the lexer, which resumes where the fast path declines."""
        start = self.current_token.span.start
        lexed = True  # whether the lexer's current token starts at `start`
        while True:
            parsed = self._parse_line(start)
            if parsed is not None:
                op, end = parsed
                block.add_op(op)
                start = BLANKS.match(self._text, end).end()
                lexed = False
                continue
            if not lexed:
                self.resume_from(start)
            op = Parser.parse_optional_operation(self)
            if op is None:
                return
            block.add_op(op)
            start = self.current_token.span.start
            lexed = True

    def _parse_line(self, start: int) -> tuple[Operation, int] | None:
        """The op written at `start` and where its line ends, or None for xDSL to read
        it (and report its own error)."""
        if self.attribute_aliases:
            return None
        self._cuts_of_line.clear()
        try:
            parsed = self._parse_fast_line(start)
        except (ParseError, ValueError, TypeError, KeyError):
            return None
        if parsed is not None:
            self._cuts_read.update(self._cuts_of_line)
        return parsed

    def read_every_cut(self) -> bool:
        """Whether each placeholder of a cut text was read by the fast path into an
        op it built (then the module is the one the whole text gives)."""
        return self._cut is None or len(self._cuts_read) == len(self._cut.spans)

    def _parse_fast_line(self, start: int) -> tuple[Operation, int] | None:
        text = self._text
        head = text[start : start + 1]
        if head == "%":
            match = CONSTANT_OP.match(text, start)
            if match is not None:
                return self._constant(match)
            match = GENERIC_CONSTANT_OP.match(text, start)
            if match is not None:
                return self._generic_constant(match)
            match = CUSTOM_OP.match(text, start)
            if match is not None:
                return self._custom(match)
            match = GENERIC_OP.match(text, start)
            return None if match is None else self._generic(match)
        if head == '"':
            match = GENERIC_OP.match(text, start)
            return None if match is None else self._generic(match)
        if text.startswith("func.return", start):
            match = RETURN_OP.match(text, start)
            return None if match is None else self._return(match)
        return None

    def _custom(self, match: re.Match) -> tuple[Operation, int] | None:
        op_class = self._op_class(match["name"])
        if op_class is None or not has_nn_custom_form(op_class):
            return None
        attrs = self._dict(match["attrs"])
        inputs, outputs = self._signature(match["signature"])
        operands = self._ssa_operands(match["operands"], inputs)
        if operands is None or not _fits_flat(op_class, len(operands), len(outputs)):
            return None
        props = {}
        if attrs:
            names = op_class.get_irdl_definition().properties
            props = {k: v for k, v in attrs.items() if k in names}
            attrs = {k: v for k, v in attrs.items() if k not in names}
        op = new_op(op_class, operands, outputs, props, UNKNOWN_LOC)
        return self._finish(op, attrs, match["results"], match.end())

    def _generic(self, match: re.Match) -> tuple[Operation, int] | None:
        op_class = self._op_class(match["name"])
        if op_class is None:
            return None
        op_def = op_class.get_irdl_definition()
        if op_def.regions or op_def.successors:
            return None
        props = self._dict(match["props"])
        attrs = self._dict(match["attrs"])
        inputs, outputs = self._signature(match["signature"])
        operands = self._ssa_operands(match["operands"], inputs)
        if operands is None or not _fits_flat(op_class, len(operands), len(outputs)):
            return None
        if attrs:  # properties given as attributes, as xDSL's generic parser allows
            for name in op_def.properties:
                if name in attrs and name not in props:
                    props[name] = attrs.pop(name)
        op = new_op(op_class, operands, outputs, props, UNKNOWN_LOC)
        return self._finish(op, attrs, match["results"], match.end())

    def _constant(self, match: re.Match) -> tuple[Operation, int] | None:
        if self._op_class("nn.constant") is not ConstantOp:
            return None
        end = self._line_end(match.end())
        value = self._dense(match.end(), end)
        if value is None:
            return None
        op = ConstantOp.holding(value)
        return self._finish(op, self._dict(match["attrs"]), match["results"], end)

    def _generic_constant(self, match: re.Match) -> tuple[Operation, int] | None:
        if self._op_class("nn.constant") is not ConstantOp:
            return None
        end = self._line_end(match.end())
        split = self._text.rfind(GENERIC_CONSTANT_TAIL, match.end(), end)
        if split < 0:
            return None
        value = self._dense(match.end(), split)
        type_text = self._text[split + len(GENERIC_CONSTANT_TAIL) : end]
        result_type = self._remembered("type", type_text, _parse_type)
        if value is None:
            return None
        op = new_op(ConstantOp, (), (result_type,), {"value": value}, UNKNOWN_LOC)
        return self._finish(op, {}, match["results"], end)

    def _line_end(self, start: int) -> int:
        """Where the line of `start` ends, trailing blanks excluded."""
        text = self._text
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        while end > start and text[end - 1] in " \t\r":
            end -= 1
        return end

    def _return(self, match: re.Match) -> tuple[Operation, int] | None:
        if self._op_class("func.return") is not ReturnOp:
            return None
        types_text = match["types"]
        inputs = (
            () if types_text is None else self._signature(f"({types_text}) -> ()")[0]
        )
        operands = self._ssa_operands(match["operands"], inputs)
        if operands is None:
            return None
        return self._finish(ReturnOp(*operands), {}, None, match.end())

    def _finish(
        self, op: Operation, attrs: dict[str, Attribute], results: str | None, end: int
    ) -> tuple[Operation, int] | None:
        """Name the results and attach the attributes, or decline, leaving no trace
        (the op no longer uses its operands)."""
        names = [] if results is None else results.split(", ")
        if len(names) != len(op.results) or any(
            name[1:] in self.ssa_values or name[1:] in self.forward_ssa_references
            for name in names
        ):
            op.drop_all_references()
            return None
        for name, result in zip(names, op.results):
            name = name[1:]
            self.ssa_values[name] = (result,)
            if SSAValue.is_valid_name(name):
                result.name_hint = name
        if attrs:
            op.attributes.update(attrs)
        return op, end

    def _ssa_operands(self, names: str | None, types) -> list[SSAValue] | None:
        """The values named, if each is defined with its given type."""
        if names is None:
            return [] if not types else None
        values = []
        names = names.split(", ")
        if len(names) != len(types):
            return None
        for name, expected in zip(names, types):
            defined = self.ssa_values.get(name[1:])
            if defined is None or len(defined) != 1:
                return None
            value = defined[0]
            if value.type is not expected and value.type != expected:
                return None
            values.append(value)
        return values

    def _op_class(self, name: str) -> type[Operation] | None:
        if name not in self._op_classes:
            op_class = self.ctx.get_optional_op(name)
            usable = op_class is not None and issubclass(op_class, IRDLOperation)
            self._op_classes[name] = op_class if usable else None
        return self._op_classes[name]

    def _dict(self, text: str | None) -> dict[str, Attribute]:
        if text is None:
            return {}
        return dict(self._remembered("dict", text, _parse_dict))

    def _signature(
        self, text: str
    ) -> tuple[tuple[Attribute, ...], tuple[Attribute, ...]]:
        return self._remembered("signature", text, _parse_signature)

    def _remembered(self, kind: str, text: str, parse):
        """`parse(sub_parser)` over exactly `text`, remembered for short texts."""
        key = (kind, text)
        known = self._parsed.get(key)
        if known is not None:
            return known
        if "dense_resource" in text:
            raise ValueError("resources are xDSL's")
        sub = FloatBitsParser(self.ctx, text, self.lexer.input.name)
        value = parse(sub)
        if sub.current_token.kind is not MLIRTokenKind.EOF:
            raise ValueError("trailing text")
        if len(text) <= CACHED_TEXT_LIMIT:
            self._parsed[key] = value
        return value

    def _hex_bytes(self, start: int, end: int) -> bytes:
        """The bytes of the hex digits at text[start:end], or of the literal cut
        there."""
        if self._cut is not None:
            data = self._cut.digits_at(start, end)
            if data is not None:
                return data
        return bytes.fromhex(self._text[start:end])

    def _dense(self, start: int, end: int):
        """The `dense<...> : tensor<...>` literal at text[start:end]: hex read by
        `bytes.fromhex`, float lists by numpy, anything else by xDSL; i1 elements
        as bytes 0 and 1."""
        text = self._text
        split = text.rfind("> : ", start, end)
        if split < 0:
            return None
        value_type = self._remembered("type", text[split + 4 : end], _parse_type)
        body = start + len("dense<")
        if isinstance(value_type, TensorType) and all(
            d >= 0 for d in value_type.get_shape()
        ):
            element_type = value_type.element_type
            dtype = FLOAT_DTYPES.get(type(element_type))
            data = None
            if text.startswith('"0x', body) and (
                isinstance(element_type, IntegerType) or dtype is not None
            ):
                if text[split - 1] == '"':
                    data = _elements_data(
                        self._hex_bytes(body + 3, split - 1), value_type
                    )
            elif dtype is not None:
                floats = text[body:split]
                if FLOAT_LIST.fullmatch(floats):
                    data = _float_data(floats, value_type.get_shape(), dtype)
            elif isinstance(element_type, IntegerType) and INTEGER.fullmatch(
                text, body, split
            ):
                data = _large_integer_splat(int(text[body:split]), value_type)
            if data is not None:
                if element_type == i1:  # as `FloatBitsParser` reads it
                    data = canonical_i1(data)
                if self._cut is not None and body + 3 in self._cut.spans:
                    self._cuts_of_line.append(body + 3)
                return dense_elements(value_type, data)
        return self._remembered("attr", text[start:end], Parser.parse_attribute)


def _parse_dict(parser: Parser) -> dict[str, Attribute]:
    return parser.parse_optional_attr_dict()


def _parse_signature(parser: Parser):
    signature = parser.parse_function_type()
    assert isinstance(signature, FunctionType)
    return (
        tuple(map(_interned, signature.inputs.data)),
        tuple(map(_interned, signature.outputs.data)),
    )


def _parse_type(parser: Parser) -> Attribute:
    return _interned(parser.parse_type())


def _interned(value_type: Attribute) -> Attribute:
    """The instance graph-opt shares for an equal tensor type (see `tensor_type`), so
    that types compare by identity."""
    if type(value_type) is TensorType and isinstance(value_type.encoding, NoneAttr):
        return tensor_type(value_type.element_type, value_type.get_shape())
    return value_type


def _elements_data(data: bytes, value_type: TensorType) -> bytes | None:
    """The elements of `value_type` from a hex literal's bytes (a splat when they
    hold one element)."""
    size = value_type.element_type.compile_time_size
    count = math.prod(value_type.get_shape())
    if len(data) == size:
        return data if size * count > COMPACT_SPLAT_BYTES else data * count
    return data if len(data) == size * count else None


def _large_integer_splat(value: int, value_type: TensorType) -> bytes | None:
    """The one element of an integer splat above COMPACT_SPLAT_BYTES, as xDSL
    packs it (two's complement, little endian); None for smaller splats and
    values the type cannot hold (xDSL reads those)."""
    element_type = value_type.element_type
    size = element_type.compile_time_size
    if size * math.prod(value_type.get_shape()) <= COMPACT_SPLAT_BYTES:
        return None
    try:
        element_type.verify_value(value)
    except Exception:  # xDSL's parse gives the error
        return None
    return (value % (1 << (8 * size))).to_bytes(size, "little")


def _float_data(body: str, shape: tuple[int, ...], dtype: str) -> bytes | None:
    """The bytes of a float literal (nested lists or one splat value) of `shape`, as
    xDSL packs them; None where xDSL's reading could differ (it reads it then)."""
    values = np.array(json.loads(body), dtype=np.float64)
    if values.ndim == 0:
        count = math.prod(shape)
        compact = count * np.dtype(dtype).itemsize > COMPACT_SPLAT_BYTES
        values = np.full(1 if compact else count, values)
    elif values.shape != tuple(shape):
        return None
    with np.errstate(over="ignore"):
        data = values.astype(dtype)
    if not np.isfinite(data).all():
        return None  # out of range: struct.pack refuses where numpy rounds to inf
    return data.tobytes()


def _blob_store(ctx) -> dict:
    """The builtin dialect's `dense_resource` blobs, by key (the store itself;
    an empty dict if it has none)."""
    interface = ctx.get_dialect("builtin").get_interface(OpAsmDialectInterface)
    return resource_blobs(interface) if interface is not None else {}


def _hold_cut_blobs(blobs: dict, cut: HexLiterals) -> bool:
    """Put a `HexWeight` of each resource blob cut in place of its placeholder
    in the builtin dialect's store `blobs`; False if one is not there (it was
    cut from another dialect's section, a comment or a string)."""
    if not cut.resources:
        return True
    placeholder = "0x" + PLACEHOLDER
    if any(blobs.get(key) != placeholder for key in cut.resources):
        return False
    for key, (start, end) in cut.resources.items():
        blobs[key] = HexWeight(cut.source, start, end)
    return True


def parse_module(
    ctx, source: str | bytes, name: str = "<unknown>", implicit: bool = True
) -> ModuleOp:
    """`Parser(ctx, source, name).parse_module(implicit)`, through the fast path.

    Bytes (or an mmap) are first read with the digits of their long hex literals
    cut out (`cut_hex_literals`). If that parse fails, or xDSL rather than the fast
    path met a placeholder, the whole text is parsed again: a module or an error
    comes from the text as written, and so do the diagnostics' positions.
    The builtin resource blobs cut out stay in `source` (kept mapped): the
    context's blob store holds a `HexWeight` of each one's digits."""
    if not isinstance(source, str):
        cut = cut_hex_literals(source)
        if cut is not None:
            blobs = _blob_store(ctx)
            kept = dict(blobs)
            parser = FastParser(ctx, cut.text, name, cut)
            try:
                module = parser.parse_module(implicit)
            except Exception:  # reported by the parse of the whole text below
                module = None
            if (
                module is not None
                and parser.read_every_cut()
                and _hold_cut_blobs(blobs, cut)
            ):
                return module
            blobs.clear()  # (the keys that parse declared: declared again,
            blobs.update(kept)  # they would be renamed)
        source = str(source, "utf-8")
    return FastParser(ctx, source, name).parse_module(implicit)
