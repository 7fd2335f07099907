"""MLIR text as xDSL's `Printer` writes it, several times faster on graph-opt's ops.

`FastPrinter` is a `Printer` whose `print_op` writes the common cases as whole
strings: the generic form of ops without regions or successors, nn ops in their
`operands attr-dict : functional-type(operands, results)` form, `nn.constant`
and `func.return`. Every other op (modules, functions, other dialects' custom
forms) goes through `Printer.print_op`, which calls back into this `print_op`
for the ops of its regions, so both share one naming state. Types and
attributes are printed once each by xDSL's printer and then reused; the digits
of a long hex literal go from its bytes to the file (`hex_literals.write_hex`).

Dense elements print through `dense_text` in every graph-opt printer
(`BitExactPrinter`, which FastPrinter and resources' printer extend): xDSL's
text, except that floats keep their bits where xDSL's lose them.

It writes the SSA names and the separators that xDSL 0.74's `Printer` writes,
relying on its naming fields (`_ssa_values`, `ssa_names`,
`_get_new_valid_name_id`); tests/formats/mlir/test_fast_printer.py checks the output
byte for byte against `Printer` on every FileCheck input and on imported models.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from io import StringIO

from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FunctionType,
    UnitAttr,
    UnregisteredOp,
)
from xdsl.dialects.func import ReturnOp
from xdsl.ir import Attribute, Operation
from xdsl.irdl import IRDLOperation
from xdsl.printer import Printer

from graph_opt.dialects.nn.constant import ELISION, ConstantOp
from graph_opt.formats.mlir.dense_text import dense_literal, dense_text, hex_data
from graph_opt.formats.mlir.forms import has_nn_custom_form
from graph_opt.formats.mlir.hex_literals import LONG_HEX_DIGITS, write_hex
from graph_opt.xdsl_compat.printer import CompatPrinter


class BitExactPrinter(CompatPrinter):
    """xDSL's `Printer` writing dense elements as `dense_text` does: every float's
    bits read back (xDSL 0.74 drops NaN payloads of f16 and merges 0.0 and -0.0
    into a splat)."""

    def print_attribute(self, attribute: Attribute) -> None:
        if isinstance(attribute, DenseIntOrFPElementsAttr):
            literal = dense_literal(attribute)
            if literal is not None:
                self.print_string(f"{literal} : ")
                self.print_attribute(attribute.get_type())
                return
        super().print_attribute(attribute)


@dataclass(eq=False, repr=False)
class FastPrinter(BitExactPrinter):
    _texts: dict[int, tuple[Attribute, str]] = field(default_factory=dict, init=False)
    """Printed text of each attribute met so far, by identity (the attribute is kept
    alive beside its text, so its id is not reused)."""

    def print_op(self, op: Operation) -> None:
        write = _op_writer(type(op), self.print_generic_format)
        if (
            write is None
            or self.diagnostic.op_messages
            or self.print_debuginfo
            or self.print_properties_as_attributes
            or self.has_next_line_callback
        ):
            super().print_op(op)
            return
        text = write(self, op)
        if text is None:
            super().print_op(op)
            return
        stream = self.stream
        if type(text) is tuple:
            before, data, after = text
            stream.write(before)  # type: ignore[union-attr]
            write_hex(stream, data)  # type: ignore[arg-type]
            stream.write(after)  # type: ignore[union-attr]
            return
        stream.write(text)  # type: ignore[union-attr]

    def text_of(self, attr: Attribute) -> str:
        """`attr` as `print_attribute` prints it."""
        known = self._texts.get(id(attr))
        if known is not None:
            return known[1]
        if isinstance(attr, DenseIntOrFPElementsAttr):  # seldom shared: not kept
            text = dense_text(attr, self.text_of(attr.get_type()))
            if text is not None:
                return text
        out = StringIO()
        printer = BitExactPrinter(stream=out)
        printer.print_attribute(attr)
        self.merge_resources_of(printer)
        text = out.getvalue()
        self._texts[id(attr)] = (attr, text)
        return text

    def value_text(
        self, before: str, value: Attribute, after: str
    ) -> str | tuple[str, bytes, str]:
        """`before`, then `value` as `text_of` prints it, then `after`; around a long
        hex literal, (the text up to its digits, its bytes, the text after them) for
        `write_hex` to write the digits."""
        if (
            isinstance(value, DenseIntOrFPElementsAttr)
            and 2 * len(value.data.data) >= LONG_HEX_DIGITS
        ):
            data = hex_data(value)
            if data is not None:
                type_text = self.text_of(value.get_type())
                return f'{before}dense<"0x', data, f'"> : {type_text}{after}'
        return f"{before}{self.text_of(value)}{after}"

    def results_text(self, op: Operation) -> str:
        results = op.results
        if not results:
            return ""
        if len(results) == 1:
            return f"%{self.name_of(results[0])} = "
        return ", ".join([f"%{self.name_of(r)}" for r in results]) + " = "

    def operands_text(self, op: Operation) -> str:
        name_of = self.name_of
        return ", ".join([f"%{name_of(v)}" for v in op.operands])

    def dict_text(self, attrs: dict[str, Attribute]) -> str:
        text_of = self.text_of
        return ", ".join(
            [
                _key(name)
                if isinstance(attr, UnitAttr)
                else f"{_key(name)} = {text_of(attr)}"
                for name, attr in attrs.items()
            ]
        )

    def function_type_text(self, op: Operation) -> str:
        text_of = self.text_of
        inputs = ", ".join([text_of(v.type) for v in op.operands])
        outputs = [r.type for r in op.results]
        if len(outputs) == 1:
            only = outputs[0]
            result = text_of(only)
            if isinstance(only, FunctionType):
                result = f"({result})"
        else:
            result = f"({', '.join(map(text_of, outputs))})"
        return f"({inputs}) -> {result}"


@cache
def _key(name: str) -> str:
    """An attribute dictionary key as `print_identifier_or_string_literal` prints it."""
    out = StringIO()
    Printer(stream=out).print_identifier_or_string_literal(name)
    return out.getvalue()


def _generic(printer: FastPrinter, op: Operation) -> str:
    """`Printer.print_op_with_default_format` of an op without regions or successors."""
    parts = [
        printer.results_text(op),
        f'"{op.name}"(',
        printer.operands_text(op),
        ")",
    ]
    if op.properties:
        parts.append(f" <{{{printer.dict_text(op.properties)}}}>")
    if op.attributes:
        parts.append(f" {{{printer.dict_text(op.attributes)}}}")
    parts.append(" : ")
    parts.append(printer.function_type_text(op))
    return "".join(parts)


def _declarative(op_class: type[IRDLOperation]):
    """The printer of an op class in nn's custom form (see `has_nn_custom_form`): the
    attr-dict omits a property equal to its default."""
    op_def = op_class.get_irdl_definition()
    defaults = {
        name: d.default_value
        for name, d in op_def.properties.items()
        if d.default_value is not None
    }
    prefix = op_class.name

    def write(printer: FastPrinter, op: Operation) -> str | None:
        props = op.properties
        if op.attributes:
            if not op.attributes.keys().isdisjoint(props):
                return None  # xDSL raises: let it
            props = op.attributes | props
        if defaults:
            props = {
                name: attr for name, attr in props.items() if defaults.get(name) != attr
            }
        parts = [printer.results_text(op), prefix]
        if op.operands:
            parts.append(" ")
            parts.append(printer.operands_text(op))
        if props:
            parts.append(f" {{{printer.dict_text(props)}}}")
        parts.append(" : ")
        parts.append(printer.function_type_text(op))
        return "".join(parts)

    return write


def _constant(printer: FastPrinter, op: Operation) -> str | tuple | None:
    if ELISION.larger_than is not None:
        return None
    attrs = f" {{{printer.dict_text(op.attributes)}}}" if op.attributes else ""
    before = f"{printer.results_text(op)}nn.constant{attrs} "
    return printer.value_text(before, op.properties["value"], "")


def _generic_constant(printer: FastPrinter, op: Operation) -> str | tuple:
    """`_generic` for the commonest op of a graph."""
    if op.attributes or len(op.properties) != 1 or len(op.results) != 1:
        return _generic(printer, op)
    value = op.properties.get("value")
    if value is None:
        return _generic(printer, op)
    result = op.results[0]
    before = f'%{printer.name_of(result)} = "nn.constant"() <{{value = '
    after = f"}}> : () -> {printer.text_of(result.type)}"
    return printer.value_text(before, value, after)


def _return(printer: FastPrinter, op: Operation) -> str | None:
    if op.attributes:
        return None
    if not op.operands:
        return "func.return"
    types = ", ".join(printer.text_of(v.type) for v in op.operands)
    return f"func.return {printer.operands_text(op)} : {types}"


@cache
def _op_writer(op_class: type[Operation], generic: bool):
    """The fast printer of an op class in the given form, or None to use xDSL's."""
    if issubclass(op_class, UnregisteredOp) or not issubclass(op_class, IRDLOperation):
        return None
    op_def = op_class.get_irdl_definition()
    if op_def.regions or op_def.successors:
        return None
    if generic and op_class is ConstantOp:
        return _generic_constant
    if generic or Operation.print is op_class.print:
        return _generic
    if op_class is ConstantOp:
        return _constant
    if op_class is ReturnOp:
        return _return
    if has_nn_custom_form(op_class):
        return _declarative(op_class)
    return None
