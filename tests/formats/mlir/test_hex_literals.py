"""Long hex literals read from bytes and written to bytes (formats/mlir/hex_literals):
the modules, errors and text are xDSL's."""

from __future__ import annotations

import io
from io import StringIO, TextIOWrapper

import numpy as np
import pytest
from xdsl.printer import Printer

from graph_opt import api
from graph_opt.files import mapped
from graph_opt.formats.mlir import hex_literals, parser
from graph_opt.formats.mlir.hex_literals import cut_hex_literals, write_hex
from graph_opt.formats.mlir.printer import FastPrinter
from graph_opt.formats.mlir.resources import print_with_resources
from graph_opt.testing.model_zoo import small_models
from graph_opt.xdsl_compat.parser import CompatParser

CTX = api.context()
DIGITS = hex_literals.LONG_HEX_DIGITS
WEIGHTS = np.random.default_rng(0).standard_normal(DIGITS // 8 + 3, np.float32)
LONG = WEIGHTS.tobytes().hex().upper()
"""The digits of a literal long enough to be cut."""
TYPE = f"tensor<{len(WEIGHTS)}xf32>"


@pytest.fixture
def parses(monkeypatch) -> list[bool]:
    """Whether each FastParser that `parse_module` makes reads a cut text."""
    made = []

    class Counted(parser.FastParser):
        def __init__(self, ctx, input, name="<unknown>", cut=None):
            made.append(cut is not None)
            super().__init__(ctx, input, name, cut)

    monkeypatch.setattr(parser, "FastParser", Counted)
    return made


def xdsl_result(text: str):
    try:
        return CompatParser(CTX, text, "in.mlir").parse_module()
    except Exception as error:
        return f"{type(error).__name__}: {error}"


def assert_read_as_xdsl_reads(text: str | bytes) -> None:
    """`parse_module` on the bytes gives xDSL's module, or its error."""
    data = text.encode() if isinstance(text, str) else text
    expected = xdsl_result(str(data, "utf-8", errors="replace"))
    try:
        got = parser.parse_module(CTX, data, "in.mlir")
    except Exception as error:
        assert f"{type(error).__name__}: {error}" == expected
        return
    assert not isinstance(expected, str), expected
    assert api.to_mlir(got, generic=True) == api.to_mlir(expected, generic=True)


def constant_function(*lines: str) -> str:
    body = "\n".join(f"  {line}" for line in lines)
    return f"func.func @f() -> {TYPE} {{\n{body}\n  func.return %w : {TYPE}\n}}\n"


CUSTOM = f'%w = nn.constant dense<"0x{LONG}"> : {TYPE}'
GENERIC = (
    f'%w = "nn.constant"() <{{value = dense<"0x{LONG}"> : {TYPE}}}> : () -> {TYPE}'
)


@pytest.mark.parametrize("line", [CUSTOM, GENERIC], ids=["custom", "generic"])
def test_long_literals_are_read_from_the_bytes_in_one_parse(line, parses):
    text = constant_function(line)
    cut = cut_hex_literals(text.encode())
    assert cut is not None and LONG not in cut.text and len(cut.spans) == 1
    assert_read_as_xdsl_reads(text)
    assert parses == [True]
    module = parser.parse_module(CTX, text.encode())
    (constant, _) = module.body.block.first_op.body.block.ops
    assert constant.properties["value"].data.data == WEIGHTS.tobytes()


MODELS = {k: v for k, v in small_models(10).items() if k != "conv_chain"}
"""Models with weights of over 100 elements (printed in hex)."""


@pytest.mark.parametrize("model", sorted(MODELS))
@pytest.mark.parametrize("generic", [False, True])
def test_every_hex_literal_of_a_model_cut(model, generic, parses, monkeypatch):
    monkeypatch.setattr(hex_literals, "LONG_HEX_DIGITS", 1)
    text = api.to_mlir(api.load(MODELS[model]()), generic=generic)
    assert 'dense<"0x' in text
    assert_read_as_xdsl_reads(text)
    assert parses == [True]  # no second parse of the whole text


PLACEHOLDER_SEEN_BY_XDSL = {
    "comment": [f'// dense<"0x{LONG}">', CUSTOM],
    "other_dialect": [
        f'%t = "test.op"() {{w = dense<"0x{LONG}"> : {TYPE}}} : () -> {TYPE}',
        CUSTOM,
    ],
    "alias": [CUSTOM.replace(TYPE, "!t")],
    "vector": [
        f'%v = nn.constant dense<"0x{LONG}"> : vector<{len(WEIGHTS)}xf32>',
        CUSTOM,
    ],
}
"""Cut literals the fast path does not read: the whole text is parsed again."""


@pytest.mark.parametrize(
    "lines", PLACEHOLDER_SEEN_BY_XDSL.values(), ids=list(PLACEHOLDER_SEEN_BY_XDSL)
)
def test_a_placeholder_the_fast_path_does_not_read_means_a_second_parse(lines, parses):
    text = constant_function(*lines)
    if "!t" in text:
        text = f"!t = {TYPE}\n{text}"
    assert_read_as_xdsl_reads(text)
    assert parses == [True, False]


ERRORS = {
    "length": CUSTOM.replace(TYPE, "tensor<3xf32>"),
    "not_hex": CUSTOM.replace(LONG[:4], "ZZZZ"),
    "odd_length": CUSTOM.replace(LONG, LONG[1:]),
    "blank_inside": CUSTOM.replace(LONG[:4], "AB C"),
    "same_line_after": CUSTOM + " junk",
    "next_line": f"{CUSTOM}\n  %x = nn.nothing %w : ({TYPE}) -> {TYPE}",
    "unclosed": f'%w = nn.constant dense<"0x{LONG}\n  %x = "nn.relu"(%w)',
}
"""Errors after, in or around a long literal: reported as xDSL reports them on the
whole text (positions included)."""


@pytest.mark.parametrize("line", ERRORS.values(), ids=list(ERRORS))
def test_errors_are_xdsls_on_the_whole_text(line, parses):
    text = constant_function(line)
    assert isinstance(xdsl_result(text), str)
    assert_read_as_xdsl_reads(text)
    assert parses[-1] is False  # the error is the whole text's


def test_placeholder_like_text_is_not_taken_for_a_cut(parses):
    """`"0x#"` written in the file is xDSL's to reject, wherever the cuts are."""
    text = constant_function(CUSTOM, '%v = nn.constant dense<"0x#"> : tensor<1xf32>')
    assert_read_as_xdsl_reads(text)


def test_invalid_utf8_is_reported_as_by_a_plain_decode():
    data = constant_function(CUSTOM).encode().replace(b"@f", b"@\xff")
    with pytest.raises(UnicodeDecodeError) as cut_error:
        parser.parse_module(CTX, data)
    with pytest.raises(UnicodeDecodeError) as plain_error:
        data.decode()
    assert str(cut_error.value) == str(plain_error.value)


def test_short_literals_are_not_cut():
    text = constant_function(CUSTOM.replace(LONG, LONG[: DIGITS - 2]))
    assert cut_hex_literals(text.encode()) is None


def test_a_mapped_file_is_read_in_place(tmp_path):
    path = tmp_path / "m.mlir"
    path.write_text(constant_function(CUSTOM))
    with open(path, "rb") as stream, mapped(stream) as source:
        assert not isinstance(source, bytes)
        module = parser.parse_module(CTX, source)
    assert api.to_mlir(module) == api.to_mlir(api.parse(path.read_text()))
    assert api.load(path).is_structurally_equivalent(module)


def test_what_cannot_be_mapped_is_read(tmp_path):
    empty = tmp_path / "empty.mlir"
    empty.write_bytes(b"")
    with open(empty, "rb") as stream, mapped(stream) as source:
        assert source == b""
    with mapped(io.BytesIO(b"abc")) as source:
        assert source == b"abc"
    (tmp_path / "m.mlir").write_bytes(b"abcdef")
    with open(tmp_path / "m.mlir", "rb") as stream:
        stream.read(2)
        with mapped(stream) as source:
            assert source == b"cdef"


def printed(printer_class, module, stream, **options) -> None:
    printer = printer_class(stream=stream, **options)
    printer.print_op(module)
    printer.print_metadata(CTX.loaded_dialects)


@pytest.mark.parametrize("generic", [False, True])
def test_long_literals_written_to_a_file_as_xdsl_prints_them(generic):
    module = parser.parse_module(CTX, constant_function(CUSTOM).encode())
    expected = StringIO()
    printed(Printer, module, expected, print_generic_format=generic)
    out = io.BytesIO()
    text = TextIOWrapper(out, encoding="utf-8", newline="\n")
    printed(FastPrinter, module, text, print_generic_format=generic)
    text.flush()
    assert out.getvalue().decode() == expected.getvalue()
    assert LONG in expected.getvalue()


def test_resource_blobs_written_to_a_file_as_to_a_string():
    module = parser.parse_module(CTX, constant_function(CUSTOM).encode())
    expected = StringIO()
    print_with_resources(module, expected)
    out = io.BytesIO()
    text = TextIOWrapper(out, encoding="utf-8", newline="\n")
    print_with_resources(module, text)
    text.flush()
    assert out.getvalue().decode() == expected.getvalue()
    assert LONG in expected.getvalue()


@pytest.mark.parametrize("encoding", ["utf-8", "utf-16", "latin-1"])
def test_write_hex_writes_the_digits_in_the_streams_encoding(encoding):
    data = bytes(range(256)) * 300
    out = io.BytesIO()
    text = TextIOWrapper(out, encoding=encoding, newline="\n")
    text.write("before ")
    write_hex(text, data)
    text.write(" after")
    text.flush()
    expected = f"before {data.hex().upper()} after".encode(encoding)
    assert out.getvalue() == expected


def test_write_hex_to_a_string_stream():
    out = StringIO()
    write_hex(out, b"\x00\xab")
    assert out.getvalue() == "00AB"


def test_api_save_writes_what_to_mlir_returns(tmp_path):
    module = parser.parse_module(CTX, constant_function(CUSTOM).encode())
    api.save(module, tmp_path / "m.mlir")
    assert (tmp_path / "m.mlir").read_text() == api.to_mlir(module)
