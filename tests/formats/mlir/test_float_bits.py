"""Printing then parsing MLIR text keeps every float's bits: NaN payloads (quiet and
signalling), infinities, -0.0, denormals, the extreme finite values and whole
numbers above 2^24, of f16, bf16, f32 and f64, as scalars, splats, short lists
and long (hex) literals, in the custom and the generic form, through graph-opt's
fast printer and parser, through xDSL's printer and parser (graph-opt's
subclasses) and through dense resources."""

from __future__ import annotations

from io import StringIO

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from xdsl.dialects.builtin import (
    BytesAttr,
    DenseIntOrFPElementsAttr,
    ModuleOp,
    TensorType,
    bf16,
    f16,
    f32,
    f64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Block, Region
from xdsl.utils.exceptions import ParseError

from graph_opt import api
from graph_opt.dialects.nn.constant import ConstantOp
from graph_opt.formats.mlir.parser import parse_module
from graph_opt.formats.mlir.printer import BitExactPrinter
from graph_opt.formats.mlir.resources import resolve_resources
from graph_opt.xdsl_compat.parser import FloatBitsParser

CTX = api.context()

FLOAT_TYPES = {"f16": f16, "bf16": bf16, "f32": f32, "f64": f64}
BITS = {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}


def special_patterns(name: str) -> list[int]:
    """Bit patterns where text loses values: NaNs with payloads (quiet and
    signalling, both signs), infinities, zeros, denormals, extreme finite values,
    whole numbers that print in hex."""
    exponent, mantissa = {"f16": (5, 10), "bf16": (8, 7), "f32": (8, 23)}.get(
        name, (11, 52)
    )
    sign = 1 << (exponent + mantissa)
    inf = ((1 << exponent) - 1) << mantissa
    quiet = 1 << (mantissa - 1)
    largest = inf - 1
    smallest_normal = 1 << mantissa
    patterns = [0, inf, inf | quiet, inf | 1, inf | quiet | 1, inf | (quiet - 1)]
    patterns += [1, smallest_normal - 1, smallest_normal, largest]
    patterns += [p | sign for p in patterns]
    if name == "f32":
        patterns += [0x4B800000, 0x4B18967F, 0x4F000000]  # 2^24, 9999999, 2^31
    if name == "f64":
        patterns += [0x4170000000000000, 0x4346DC5D63886594]  # 2^24, 12345678901234568
    return patterns


def patterns_of(name: str):
    width = BITS[name]
    return st.lists(
        st.one_of(
            st.integers(0, (1 << width) - 1), st.sampled_from(special_patterns(name))
        ),
        min_size=40,
        max_size=80,
    )


def constants(name: str, patterns: list[int]) -> list[DenseIntOrFPElementsAttr]:
    """A scalar, a splat, a short list and a long list of the patterns."""
    element_type = FLOAT_TYPES[name]
    dtype = np.dtype(f"<u{BITS[name] // 8}")
    bits = np.array(patterns, dtype)
    arrays = [
        bits[:1].reshape(()),
        np.full((2, 3), bits[0]),
        bits,
        np.resize(bits, 101 + len(bits)),  # more than 100 elements: hex
    ]
    return [
        DenseIntOrFPElementsAttr(
            TensorType(element_type, a.shape), BytesAttr(a.tobytes())
        )
        for a in arrays
    ]


def module_of(values: list[DenseIntOrFPElementsAttr]) -> ModuleOp:
    ops = [ConstantOp(value) for value in values]
    types = [value.type for value in values]
    body = Block([*ops, ReturnOp(*[op.results[0] for op in ops])])
    return ModuleOp([FuncOp("main", ([], types), Region(body))])


def constant_bits(module: ModuleOp) -> list[tuple[tuple[int, ...], bytes]]:
    return [
        (tuple(op.value.type.get_shape()), op.value.data.data)
        for op in module.walk()
        if isinstance(op, ConstantOp)
    ]


def xdsl_round_trip(module: ModuleOp, generic: bool) -> ModuleOp:
    """Printed by xDSL's printer, parsed by xDSL's parser (not the fast paths)."""
    out = StringIO()
    BitExactPrinter(stream=out, print_generic_format=generic).print_op(module)
    return FloatBitsParser(CTX, out.getvalue()).parse_module()


def fast_round_trip(module: ModuleOp, **options) -> ModuleOp:
    """`api.parse(api.to_mlir(module, ...))` in one context."""
    parsed = parse_module(CTX, api.to_mlir(module, **options))
    resolve_resources(parsed, CTX)
    return parsed


def assert_round_trips(module: ModuleOp) -> None:
    expected = constant_bits(module)
    for generic in (False, True):
        assert constant_bits(fast_round_trip(module, generic=generic)) == expected
        assert constant_bits(xdsl_round_trip(module, generic)) == expected
    resources = fast_round_trip(module, weights_as_resources=8)
    assert constant_bits(resources) == expected


@pytest.mark.parametrize("name", FLOAT_TYPES)
def test_special_patterns_round_trip(name):
    patterns = special_patterns(name)
    assert_round_trips(module_of(constants(name, patterns)))
    for pattern in patterns:  # each as a scalar and a splat of its own
        assert_round_trips(module_of(constants(name, [pattern])))


@pytest.mark.parametrize("name", FLOAT_TYPES)
def test_random_bit_patterns_round_trip(name):
    """60 lists of 40 to 80 patterns per type (about 3,500), special ones mixed
    in."""

    @settings(max_examples=60, deadline=None, database=None)
    @given(patterns_of(name))
    def check(patterns):
        assert_round_trips(module_of(constants(name, patterns)))

    check()


def test_negative_zero_is_not_merged_into_a_splat():
    value = DenseIntOrFPElementsAttr(
        TensorType(f32, (2,)), BytesAttr(np.array([0.0, -0.0], np.float32).tobytes())
    )
    text = api.to_mlir(module_of([value]))
    assert "dense<[0.000000e+00, -0.000000e+00]>" in text


@pytest.mark.parametrize(
    "literal, bits",
    [
        ("dense<0xFF800000> : tensor<f32>", [0xFF800000]),
        ("dense<0x7FC00001> : tensor<2xf32>", [0x7FC00001] * 2),
        ("dense<[0x7c01, 1.0]> : tensor<2xf16>", [0x7C01, 0x3C00]),
        ("dense<[[0x7FC1], [0xFF80]]> : tensor<2x1xbf16>", [0x7FC1, 0xFF80]),
        ("dense<0x7FF0000000000001> : tensor<f64>", [0x7FF0000000000001]),
    ],
)
def test_hex_elements_are_bit_patterns(literal, bits):
    """MLIR's reading, in both of graph-opt's parsers."""
    width = 8 if "f64" in literal else 4 if "f32" in literal else 2
    text = f"%c = nn.constant {literal}"
    for generic in (False, True):
        if generic:
            value_type = literal.split(" : ")[1]
            text = f'%c = "nn.constant"() <{{value = {literal}}}> : () -> {value_type}'
        for module in (api.parse(text), FloatBitsParser(CTX, text).parse_module()):
            (data,) = [data for _, data in constant_bits(module)]
            assert np.frombuffer(data, f"<u{width}").tolist() == bits


@pytest.mark.parametrize(
    "literal, error",
    [
        ("dense<-0x3F800000> : tensor<f32>", "should not have a leading minus"),
        ("dense<0x1FFFF> : tensor<f16>", "out of range"),
        ("dense<[1.0, 0x100000000]> : tensor<2xf32>", "out of range"),
    ],
)
def test_negative_hex_elements_out_of_range_or_signed_are_refused(literal, error):
    with pytest.raises(ParseError, match=error):
        api.parse(f"%c = nn.constant {literal}")


def test_negative_hex_integers_keep_their_value():
    module = api.parse("%c = nn.constant dense<[0x10, -0x10]> : tensor<2xi32>")
    (data,) = [data for _, data in constant_bits(module)]
    assert np.frombuffer(data, "<i4").tolist() == [16, -16]


def upstream_round_trip(module: ModuleOp) -> ModuleOp:
    """graph-opt's generic text read and printed by upstream MLIR (IREE's
    bindings), then read by graph-opt."""
    ir = pytest.importorskip("iree.compiler.ir")
    context = ir.Context()
    context.allow_unregistered_dialects = True
    upstream = ir.Module.parse(api.to_mlir(module, generic=True), context)
    return parse_module(CTX, upstream.operation.get_asm(print_generic_op_form=True))


@pytest.mark.parametrize("name", FLOAT_TYPES)
def test_upstream_mlir_reads_the_same_bits(name):
    """The text keeps meaning the bits for MLIR tools (iree-compile), and graph-opt
    reads MLIR's own printing of them."""
    patterns = special_patterns(name)
    module = module_of(constants(name, patterns))
    assert constant_bits(upstream_round_trip(module)) == constant_bits(module)

    @settings(max_examples=20, deadline=None, database=None)
    @given(patterns_of(name))
    def check(patterns):
        module = module_of(constants(name, patterns))
        assert constant_bits(upstream_round_trip(module)) == constant_bits(module)

    check()
