"""FastPrinter against xDSL's Printer: the same text, byte for byte."""

from __future__ import annotations

from io import StringIO

import pytest
from filecheck_inputs import CHUNKS
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.printer import Printer

from graph_opt import api
from graph_opt.dialects.nn.constant import ELISION
from graph_opt.formats.mlir.printer import FastPrinter
from graph_opt.testing.model_zoo import conv_chain, small_models

CTX = api.context()


def printed(printer_class, module: ModuleOp, **options) -> str:
    out = StringIO()
    printer = printer_class(stream=out, **options)
    printer.print_op(module)
    printer.print_metadata(CTX.loaded_dialects)
    return out.getvalue()


def assert_same(module: ModuleOp) -> None:
    for options in ({}, {"print_generic_format": True}):
        assert printed(FastPrinter, module, **options) == printed(
            Printer, module, **options
        )


def parsed_chunks() -> list[tuple[str, ModuleOp]]:
    modules = []
    for name, text in CHUNKS:
        try:
            modules.append((name, Parser(CTX, text, name).parse_module()))
        except Exception:  # inputs of error tests print nothing
            continue
    return modules


MODULES = parsed_chunks()


def test_most_filecheck_inputs_parse():
    assert len(MODULES) > 300


@pytest.mark.parametrize("name, module", MODULES, ids=[n for n, _ in MODULES])
def test_filecheck_input(name, module):
    assert_same(module)


@pytest.mark.parametrize("model", sorted(small_models(30)))
def test_imported_models(model):
    assert_same(api.load(small_models(30)[model]()))


def test_names_continue_across_fast_and_slow_ops():
    """Values named alike get `_1`, `_2` whichever printer path names them."""
    text = """func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> {
  %y = nn.relu %x : (tensor<2xf32>) -> tensor<2xf32>
  %y_1 = "test.op"(%y) : (tensor<2xf32>) -> tensor<2xf32>
  %y_2 = nn.relu %y_1 : (tensor<2xf32>) -> tensor<2xf32>
  %0 = nn.relu %y_2 : (tensor<2xf32>) -> tensor<2xf32>
  %1 = "test.op"(%0) : (tensor<2xf32>) -> tensor<2xf32>
  func.return %1 : tensor<2xf32>
}"""
    module = Parser(CTX, text).parse_module()
    assert_same(module)
    assert "%y_2 = nn.relu %y_1" in printed(FastPrinter, module)


def test_elided_weights_print_through_xdsl():
    module = api.load(conv_chain(10))
    ELISION.larger_than = 4
    try:
        assert_same(module)
        assert "dense_resource<__elided__>" in printed(FastPrinter, module)
    finally:
        ELISION.larger_than = None


def test_debug_info_and_properties_as_attributes_print_through_xdsl():
    module = api.load(conv_chain(10))
    for options in (
        {"print_debuginfo": True},
        {"print_properties_as_attributes": True},
    ):
        assert printed(FastPrinter, module, **options) == printed(
            Printer, module, **options
        )


def test_resources_are_collected_for_the_metadata():
    text = """func.func @f() -> tensor<2xf32> {
  %c = "test.op"() {w = dense_resource<blob> : tensor<2xf32>} : () -> tensor<2xf32>
  func.return %c : tensor<2xf32>
}
{-#
  dialect_resources: {
    builtin: {
      blob: "0x040000000000803F00000040"
    }
  }
#-}"""
    module = Parser(CTX, text).parse_module()
    assert "dialect_resources" in printed(Printer, module)
    assert_same(module)
